//! The expected moves of the engine's tactics suite
//! (engine/tests/data/tactics.tsv) come from sources independent of the
//! search that engine/tests/tactics.rs tests: a forced win lists exactly
//! the moves the solver proves win (each proof checked by the
//! independent verifier); a shot lists the move a master played in the
//! archive game it comes from (../shared/data/games/acf-archive.pdn).

use engine::notation::fen::{parse_fen, to_fen};
use engine::notation::pdn::read_file;
use engine::search::WIN_THRESHOLD;
use engine::{NoOracle, Position};
use proofdb::outcome::NoResults;
use solver::solve::proved_winning_moves;
use solver::Leaves;
use std::path::Path;

const SUITE: &str = include_str!("../../engine/tests/data/tactics.tsv");

/// (fen, listed moves, least score, source) of every entry.
fn entries() -> Vec<(Position, Vec<String>, i32, String)> {
    SUITE
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let moves = f[1].split(' ').map(str::to_string).collect();
            (
                parse_fen(f[0]).unwrap(),
                moves,
                f[3].parse().unwrap(),
                f[4].to_string(),
            )
        })
        .collect()
}

#[test]
fn forced_wins_list_exactly_the_moves_a_verified_proof_wins_with() {
    let mut checked = 0;
    for (pos, listed, least, source) in entries() {
        if least <= WIN_THRESHOLD {
            continue;
        }
        let leaves = Leaves::new(&NoOracle, &NoResults);
        let mut proved: Vec<String> = proved_winning_moves(&pos, leaves, 2_000_000)
            .expect("solve")
            .iter()
            .map(|m| m.to_string())
            .collect();
        proved.sort();
        let mut listed = listed;
        listed.sort();
        assert_eq!(listed, proved, "{} ({source})", to_fen(&pos));
        checked += 1;
    }
    assert!(checked >= 2, "{checked} forced wins");
}

#[test]
fn shots_list_the_move_the_master_played() {
    let archive = read_file(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/games/acf-archive.pdn"
    )))
    .expect("../shared/data/games/acf-archive.pdn");
    let mut checked = 0;
    for (pos, listed, least, source) in entries() {
        if least > WIN_THRESHOLD {
            continue;
        }
        let rest = source
            .strip_prefix("acf-archive.pdn game ")
            .unwrap_or_else(|| panic!("shot without an archive game: {source}"));
        let words: Vec<&str> = rest.split(' ').collect();
        let (game, ply): (usize, usize) = (words[0].parse().unwrap(), words[2].parse().unwrap());
        let g = archive.iter().find(|g| g.number == game).expect("game");
        assert_eq!(g.positions()[ply], pos, "{source}");
        assert_eq!(listed, [g.moves[ply].to_string()], "{source}");
        checked += 1;
    }
    assert!(checked >= 15, "{checked} shots");
}
