//! The deck: the built-in copy and the shared file agree, every row
//! replays, selections have the published sizes, bad rows name file and
//! line.

use ballots::deck::*;
use engine::notation::fen::parse_fen;
use engine::Position;
use std::path::Path;

const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data/ballots.tsv");

#[test]
fn builtin_deck_matches_the_shared_file() {
    let b = Deck::builtin();
    let s = Deck::load(Path::new(SHARED)).unwrap();
    assert_eq!(b.ballots(), s.ballots());
    assert_eq!(b.source(), &DeckSource::Builtin);
    assert_eq!(s.source(), &DeckSource::File(SHARED.into()));
}

#[test]
fn selections_have_their_sizes() {
    let d = Deck::builtin();
    assert_eq!(d.select(Selection::All).len(), 174);
    assert_eq!(d.select(Selection::Deck156).len(), 156);
    assert_eq!(d.select(Selection::Deck144).len(), 144);
    assert_eq!(d.select(Selection::Barred).len(), 18);
    assert_eq!(d.ballots().iter().filter(|b| b.ctd).count(), 50);
    let nums: Vec<u32> = d.ballots().iter().map(|b| b.number).collect();
    assert_eq!(nums, (1..=174).collect::<Vec<_>>());
    for (t, s) in [
        ("all", Selection::All),
        ("156", Selection::Deck156),
        ("144", Selection::Deck144),
        ("barred", Selection::Barred),
    ] {
        assert_eq!(t.parse::<Selection>().unwrap(), s);
    }
    assert!("155".parse::<Selection>().is_err());
    // #26 is barred in the tables we follow (see the data README).
    assert_eq!(d.get(26).unwrap().deck, DeckKind::Barred);
    assert_eq!(d.get(5).unwrap().name, "Dreaded Edinburgh");
}

#[test]
fn positions_map_back_to_ballots_by_any_move_order() {
    let d = Deck::builtin();
    let b6 = d.get(6).unwrap();
    assert_eq!(
        b6.also_reached_by,
        vec![["10-14", "22-18", "9-13"].map(String::from)]
    );
    assert_eq!(
        d.by_moves(&["10-14", "22-18", "9-13"])
            .unwrap()
            .unwrap()
            .number,
        6
    );
    assert_eq!(
        d.by_moves(&["9-13", "22-18", "10-14"])
            .unwrap()
            .unwrap()
            .number,
        6
    );
    let transposed: usize = d.ballots().iter().map(|b| b.also_reached_by.len()).sum();
    assert!(transposed > 10, "{transposed}");
    for b in d.ballots() {
        assert_eq!(d.by_position(&b.position).unwrap().number, b.number);
        for order in &b.also_reached_by {
            assert_eq!(d.by_moves(order).unwrap().unwrap().number, b.number);
        }
    }
    // A legal start that loses a man is no ballot.
    assert!(d.by_moves(&["9-13", "22-18", "5-9"]).unwrap().is_none());
    assert!(d.by_position(&Position::initial()).is_none());
    // A legal opening is no error (whether or not it is a ballot);
    // an illegal move, or other than three moves, is one.
    assert!(d.by_moves(&["9-14", "22-18", "5-9"]).is_ok());
    assert!(d.by_moves(&["9-12", "22-18", "5-9"]).is_err());
    assert!(d.by_moves(&["9-13", "22-18"]).is_err());
}

#[test]
fn three_ply_starts_file_agrees() {
    // Every legal 3-ply start that the shared table maps to a ballot maps
    // to the same ballot here.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/three-ply-starts.tsv"
    ))
    .unwrap();
    let d = Deck::builtin();
    let mut n = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let moves: Vec<&str> = f[0].split_whitespace().collect();
        let got = d.by_moves(&moves).unwrap().map(|b| b.number);
        let want = f[2].strip_prefix("acf").map(|n| n.parse::<u32>().unwrap());
        assert_eq!(got, want, "{line}");
        assert_eq!(replay(&moves).unwrap(), parse_fen(f[3]).unwrap());
        n += 1;
    }
    assert_eq!(n, 302);
}

#[test]
fn bad_rows_name_the_file_and_line() {
    let good = BUILTIN_TSV;
    let src = || DeckSource::File("x/ballots.tsv".into());
    let cases: Vec<(String, &str)> = vec![
        (
            good.replacen("9-13 21-17 5-9\tdeck144", "9-13 21-17 5-8\tdeck144", 1),
            "not legal",
        ),
        (
            good.replacen("9-13 21-17 5-9\tdeck144", "9-13 21-17 6-9\tdeck144", 1),
            "not the listed fen",
        ),
        (good.replacen("\tdeck144\t", "\tdeck145\t", 1), "deck"),
        (
            good.replacen("10-14 22-18 9-13", "10-14 22-18 9-14", 1),
            "other order",
        ),
        (good.replacen("W:W17,22,23", "W:W17,22,33", 1), "fen"),
        (good.replacen("\t7\n", "\t6\n", 1), "white_replies"),
    ];
    for (text, want) in cases {
        let e = Deck::parse(&text, src()).unwrap_err();
        let msg = e.to_string();
        assert!(msg.starts_with("x/ballots.tsv:"), "{msg}");
        assert!(
            matches!(e, DeckError::Line { line, .. } if line > 10),
            "{msg}"
        );
        assert!(msg.contains(want), "{msg} should mention {want}");
    }
    let short: String = good.lines().take(30).map(|l| format!("{l}\n")).collect();
    let e = Deck::parse(&short, src()).unwrap_err();
    assert!(e.to_string().contains("expected 174"), "{e}");
    let e = Deck::load(Path::new("/nonexistent/ballots.tsv")).unwrap_err();
    assert!(e.to_string().contains("/nonexistent/ballots.tsv"), "{e}");
}

#[test]
fn move_text() {
    let p = Position::initial();
    let (m, q) = play_move_text(&p, "11-15").unwrap();
    assert_eq!(m.to_string(), "11-15");
    assert_eq!(q, parse_fen("W:W21-32:B1-10,12,15").unwrap());
    // The deck reads moves as the PDN reader does (one parser): a wrong
    // separator is a hint when the squares name one move.
    assert_eq!(
        play_move_text(&p, "11x15").unwrap().0,
        engine::notation::movetext::parse_move(&p, "11x15").unwrap()
    );
    assert!(play_move_text(&p, "11-").is_err());
    assert!(play_move_text(&p, "0-4").is_err());
    let e = play_move_text(&p, "22-17").unwrap_err();
    assert!(e.to_string().contains("22-17 is not legal here"), "{e}");
    let p = replay(&["9-13", "22-17"]).unwrap();
    let (m, _) = play_move_text(&p, "13x22").unwrap();
    assert!(m.is_capture());
}

#[test]
fn choose_takes_a_selection_or_a_list_of_numbers() {
    let d = Deck::builtin();
    assert_eq!(d.choose("174").unwrap().len(), 174);
    assert_eq!(d.choose("all").unwrap().len(), 174);
    assert_eq!(d.choose("156").unwrap().len(), 156);
    assert_eq!(d.choose("144").unwrap().len(), 144);
    let two = d.choose("3, 1").unwrap();
    assert_eq!((two[0].number, two[1].number), (3, 1));
    assert_eq!(
        d.choose("1,x").unwrap_err(),
        ballots::deck::ChoiceError::Spec("1,x".into())
    );
    assert_eq!(
        d.choose("175").unwrap_err(),
        ballots::deck::ChoiceError::NoBallot(175)
    );
}
