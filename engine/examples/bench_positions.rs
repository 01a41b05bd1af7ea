//! Writes the benchmark set of `checkers bestmove --bench`
//! (engine/tests/data/bench-middlegame.tsv) from
//! ../shared/data/ballots.tsv: `cargo run -p engine --example
//! bench_positions`. engine/tests/bench_positions.rs checks the file.

use engine::notation::fen::{parse_fen, to_fen};
use engine::search::{Limits, Searcher};
use engine::NoOracle;

const BALLOTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data/ballots.tsv");

/// Regenerates the set: every 9th deck144 ballot, played on 6 plies by a
/// depth-6 search.
fn main() {
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
         # played on 6 plies by a depth-6 search (examples/bench_positions.rs).\n",
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
