//! The benchmark set (tests/data/bench-middlegame.tsv): checks that it
//! still parses, and (ignored) regenerates it from the ballots.

use engine::notation::fen::{parse_fen, to_fen};
use engine::search::{Limits, Searcher};
use engine::NoOracle;

const BENCH: &str = include_str!("data/bench-middlegame.tsv");
const BALLOTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data/ballots.tsv");

#[test]
fn bench_positions_parse_and_are_middle_games() {
    let mut n = 0;
    for line in BENCH.lines().filter(|l| !l.starts_with('#')) {
        let fen = line.split('\t').nth(1).expect("two columns");
        let p = parse_fen(fen).expect("valid FEN");
        assert!(p.piece_count() >= 16 && !p.moves().is_empty(), "{fen}");
        n += 1;
    }
    assert_eq!(n, 16);
}

/// Regenerates the set: every 9th deck144 ballot, played on 6 plies by a
/// depth-6 search. Run with `cargo test -p engine --test bench_positions -- --ignored`.
#[test]
#[ignore]
fn regenerate_bench_positions() {
    let text = std::fs::read_to_string(BALLOTS).expect("ballots.tsv");
    let rows: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .map(|l| l.split('\t').collect())
        .filter(|r: &Vec<&str>| r[2] == "deck144")
        .collect();
    let mut out = String::from(
        "# Benchmark set: middle-game positions for `checkers bestmove --bench`.\n\
         # Source: every 9th deck144 ballot of shared/data/ballots.tsv (ACF number first),\n\
         # played on 6 plies by a depth-6 search (tests/bench_positions.rs, ignored test).\n",
    );
    for r in rows.iter().step_by(9).take(16) {
        let mut p = parse_fen(r[5]).unwrap();
        let mut s = Searcher::new(16);
        for _ in 0..6 {
            let res = s.search(
                &p,
                &Limits {
                    depth: Some(6),
                    ..Limits::default()
                },
                &NoOracle,
                &[],
            );
            p = p.play_unchecked(&res.best_move.unwrap());
        }
        out.push_str(&format!("{}\t{}\n", r[0], to_fen(&p)));
    }
    std::fs::write(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/bench-middlegame.tsv"
        ),
        out,
    )
    .unwrap();
}
