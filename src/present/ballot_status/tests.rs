//! Reports from main lines and job records inserted by hand: the status
//! rows and how they are rendered.

use super::*;
use ballots::deck::{Deck, Selection};
use ballots::report::*;
use ballots::tables::*;
use engine::{Position, Value};
use proofdb::*;

/// A new store in a fresh folder under the system temp dir, removed when
/// the returned `TempDir` is dropped.
fn temp_store(name: &str) -> (tempfile::TempDir, Store) {
    let dir = tempfile::Builder::new()
        .prefix(&format!("ballots-{name}-"))
        .tempdir()
        .unwrap();
    let s = Store::open(dir.path().join("s.sqlite")).unwrap();
    (dir, s)
}

/// A main line for ballot `b`: its three moves, then first legal moves.
fn line_for(deck: &Deck, b: u32, plies: u32) -> Vec<LinePlyRow> {
    let ballot = deck.get(b).unwrap();
    let mut pos = Position::initial();
    let mut out = ballots::testing::line_start();
    for ply in 1..=plies {
        let (m, next) = if ply <= 3 {
            ballots::deck::play_move_text(&pos, &ballot.moves[ply as usize - 1]).unwrap()
        } else {
            let m = pos.moves().as_slice()[0];
            (m, pos.play_unchecked(&m))
        };
        pos = next;
        out.push(LinePlyRow {
            ply,
            position: pos,
            move_text: m.to_string(),
            origin: if ply <= 3 {
                Origin::Published
            } else {
                Origin::Engine
            },
            score: None,
            repair: None,
        });
    }
    assert_eq!(out[3].position, ballot.position);
    out
}

fn prov() -> Provenance {
    Provenance {
        solver: "ab".into(),
        nodes: 5,
        millis: 6,
        egdb_pieces: 8,
        run_id: "r".into(),
    }
}

#[test]
fn frontier_is_the_earliest_exactly_proved_ply() {
    let deck = Deck::builtin();
    let (dir, store) = temp_store("frontier");
    let mut line = line_for(&deck, 5, 12);
    // Engine scores (White's view): level at the frontier (ply 7), a man
    // and a half for Black from ply 10.
    for (ply, score) in [(6, -30), (7, 25), (8, 99), (10, -150), (11, -160)] {
        line[ply].score = Some(score);
    }
    store.set_main_line(5, &line).unwrap();
    // Plies 12, 11, 10 proved exactly; 9 only bounded; 7 proved (a
    // transposition proved elsewhere), so 7 is the frontier.
    for ply in [12, 11, 10, 7] {
        proofdb::testing::put_outcome_unverified(
            &store,
            &line[ply].position,
            Outcome::Exact(Value::Draw),
            &prov(),
        )
        .unwrap();
    }
    proofdb::testing::put_outcome_unverified(
        &store,
        &line[9].position,
        Outcome::AtLeastDraw,
        &prov(),
    )
    .unwrap();
    store
        .put_job_record(&JobRecord {
            ballot: 5,
            ply: 7,
            outcome: Some(Outcome::Exact(Value::Draw)),
            nodes: 123_456,
            millis: 65_000,
            budget_millis: 65_000,
            proof_size: 789,
            status: JobStatus::Proved,
            run_id: "r".into(),
            updated: 0,
        })
        .unwrap();
    store
        .put_job_record(&JobRecord {
            ballot: 5,
            ply: 6,
            outcome: None,
            nodes: 1,
            millis: 1000,
            budget_millis: 1000,
            proof_size: 0,
            status: JobStatus::Budget,
            run_id: "r".into(),
            updated: 0,
        })
        .unwrap();
    // Ballot 6: a line with nothing proved. Ballot 7: frontier from the
    // result's provenance (no job record).
    store.set_main_line(6, &line_for(&deck, 6, 8)).unwrap();
    let l7 = line_for(&deck, 7, 9);
    store.set_main_line(7, &l7).unwrap();
    proofdb::testing::put_unverified(
        &store,
        &ResultRecord::new(l7[9].position, Outcome::Exact(Value::Win), prov(), 44),
    )
    .unwrap();

    let picked: Vec<_> = deck
        .select(Selection::All)
        .into_iter()
        .filter(|b| (4..=7).contains(&b.number))
        .collect();
    let rows = status(&store, &picked).unwrap();
    assert_eq!(rows.len(), 4);
    let r4 = &rows[0];
    assert_eq!((r4.line_plies, r4.frontier_ply), (0, None));
    let r5 = &rows[1];
    assert_eq!(r5.last_ply, Some(12));
    assert_eq!(r5.frontier_ply, Some(7));
    assert_eq!(r5.frontier_pieces, Some(line[7].position.piece_count()));
    assert_eq!(r5.value, Some(Outcome::Exact(Value::Draw)));
    assert_eq!(
        (r5.nodes, r5.millis, r5.proof_size),
        (Some(123_456), Some(65_000), Some(789))
    );
    assert_eq!(r5.proved_plies, 4);
    assert_eq!(r5.job_records, 2);
    assert_eq!(r5.job_millis, 66_000);
    assert_eq!(r5.frontier_score, Some(25));
    assert_eq!(
        r5.decisive,
        Some(ballots::score::Decisive {
            ply: 10,
            score: -150
        })
    );
    assert_eq!((rows[2].frontier_score, rows[2].decisive), (None, None));
    assert_eq!(rows[2].frontier_ply, None);
    assert_eq!(rows[2].last_ply, Some(8));
    let r7 = &rows[3];
    assert_eq!(r7.frontier_ply, Some(9));
    assert_eq!(
        (r7.nodes, r7.millis, r7.proof_size),
        (Some(5), Some(6), Some(44))
    );
    assert_eq!(r7.to_move.as_deref(), Some("White"));

    let md = to_markdown(&rows);
    assert!(
        md.contains("| 5 | 9-13 22-18 6-9 | Dreaded Edinburgh | 12 | 7 |"),
        "{md}"
    );
    assert!(
        md.contains("| draw (White) | +0.25 | ply 10: Black +1.50 men |"),
        "{md}"
    );
    let store_path = std::path::Path::new("/data/s.sqlite");
    let lines = to_json_lines(&rows, store_path, 5);
    let json: Vec<serde_json::Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(json.len(), rows.len());
    assert_eq!(json[1]["frontier_ply"], 7);
    assert_eq!(json[1]["frontier_score"], 25);
    assert_eq!(json[1]["decisive_ply"], 10);
    assert_eq!(json[1]["side_to_move"], "White");
    assert_eq!(json[0]["frontier_ply"], serde_json::Value::Null);
    let svg = to_svg(&rows);
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches("<circle").count(), 2);
    let text = to_text(&rows, false);
    assert!(!text.contains('\x1b'), "no colour off a terminal");
    assert!(to_text(&rows, true).contains("\x1b[36mdraw (White)\x1b[0m"));
    assert!(
        text.contains("4 ballots: 3 with a main line, 2 with a frontier"),
        "{text}"
    );
    // Ballot 5's frontier is level; ballot 7's line has no scores.
    assert!(
        text.contains("1 frontiers where the engine's score is level, 1 lines decisive"),
        "{text}"
    );
    let shown = ballots::show::line_state(&store, deck.get(5).unwrap())
        .unwrap()
        .map(|l| crate::present::ballot_line::state_text(&l, store.path(), 5))
        .unwrap();
    assert!(
        shown.contains("\ndecisive from ply 10: Black +1.50 men\n"),
        "{shown}"
    );
    assert!(shown.contains("end: ply 12, "), "{shown}");
    let files = write_report(&dir.path().join("out"), &rows, store_path, 5).unwrap();
    assert_eq!(files.len(), 3);
    assert_eq!(std::fs::read_to_string(&files[1]).unwrap(), lines);
}

/// A barred ballot is marked in the frontier table's name column, and the
/// summary counts the decisive lines that are barred ballots apart; the
/// others are not marked.
#[test]
fn barred_ballots_are_marked_in_the_table() {
    let deck = Deck::builtin();
    let (_dir, s) = temp_store("barred");
    let barred = deck.select(Selection::Barred)[0];
    let open = deck.get(1).unwrap();
    assert_ne!(open.deck, ballots::deck::DeckKind::Barred);
    let mut rows = status(&s, &[barred, open]).unwrap();
    assert!(is_barred(&rows[0]) && !is_barred(&rows[1]));
    let text = to_text(&rows, false);
    let mark = |number: u32| {
        text.lines()
            .find(|l| l.trim_start().starts_with(&format!("{number} ")))
            .unwrap()
            .contains("(barred)")
    };
    assert!(mark(barred.number), "{text}");
    assert!(!mark(open.number), "{text}");
    assert!(!summary(&rows).contains("barred"), "{}", summary(&rows));
    let decisive = ballots::score::Decisive { ply: 9, score: 250 };
    rows[0].decisive = Some(decisive);
    rows[1].decisive = Some(decisive);
    assert!(
        summary(&rows).ends_with("2 lines decisive by the engine (1 of them barred ballots)"),
        "{}",
        summary(&rows)
    );
    // A line still decisive after a repair is counted apart (a barred
    // ballot's is counted as barred only).
    rows[1].repairs = 1;
    rows[0].repairs = 2;
    assert!(
        summary(&rows).ends_with(
            "2 lines decisive by the engine (1 of them barred ballots, 1 still decisive after a \
             repair)"
        ),
        "{}",
        summary(&rows)
    );
}
