//! The reader against the shared game collections: every game of the ACF
//! archive (9,377 master games, all legal) and Fortman's trunk lines.

use engine::notation::fen::to_fen;
use engine::notation::pdn::{read_file, read_games, write_game, Game};
use std::path::Path;

fn shared(name: &str) -> Vec<Game> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/data")
        .join(name);
    read_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn acf_archive_replays_completely() {
    let games = shared("games/acf-archive.pdn");
    assert_eq!(games.len(), 9377);
    let bad: Vec<String> = games
        .iter()
        .filter_map(|g| g.error.as_ref().map(|e| format!("game {}: {e}", g.number)))
        .collect();
    assert!(
        bad.is_empty(),
        "{} bad games, first: {:?}",
        bad.len(),
        bad.first()
    );
    let plies: usize = games.iter().map(|g| g.moves.len()).sum();
    assert!(plies > 400_000, "only {plies} plies read");
    // Game 1: 26. 19-24 28x19, a draw.
    let g = &games[0];
    assert_eq!(g.tag("Event"), Some("ACF archive, game 1"));
    assert_eq!(g.result.as_deref(), Some("1/2-1/2"));
    assert_eq!(g.moves.len(), 52);
    // 6-2 crowned a White king; 14-18 and 28x19 are the last men moved.
    assert_eq!(to_fen(&g.end), "B:WK2,17,19,21:B12,16,18");
}

#[test]
fn fortman_trunks_end_where_the_file_says() {
    let games = shared("fortman-trunks.pdn");
    assert_eq!(games.len(), 6);
    for g in &games {
        assert!(g.error.is_none(), "game {}: {:?}", g.number, g.error);
        let want = g.tag("EndFEN").expect("every trunk has an EndFEN tag");
        assert_eq!(
            to_fen(&g.end),
            want,
            "game {} ({:?})",
            g.number,
            g.tag("Event")
        );
        let first3: Vec<String> = g.moves[..3].iter().map(|m| m.to_string()).collect();
        assert_eq!(Some(first3.join(" ").as_str()), g.tag("Ballot"));
    }
}

#[test]
fn archive_games_survive_writing_and_reading_back() {
    let games = shared("games/acf-archive.pdn");
    let mut text = String::new();
    for g in &games {
        text.push_str(&write_game(
            &g.tags,
            &g.start,
            &g.moves,
            g.result.as_deref().unwrap_or("*"),
        ));
        text.push('\n');
    }
    assert!(text.lines().all(|l| l.len() <= 80));
    let again = read_games(&text).unwrap();
    assert_eq!(again.len(), games.len());
    for (a, b) in games.iter().zip(&again) {
        assert!(b.error.is_none(), "game {}: {:?}", b.number, b.error);
        assert_eq!(a.tags, b.tags, "game {}", a.number);
        assert_eq!(a.moves, b.moves, "game {}", a.number);
        assert_eq!(a.result, b.result, "game {}", a.number);
    }
}
