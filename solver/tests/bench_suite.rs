//! The solver benchmark suite (tests/data/bench.tsv): positions of 8 to
//! 14 pieces from the endings of master games, for measuring the solvers
//! with `scripts/solver-bench.sh`. The default test checks the file; the
//! ignored one rebuilds it from ../shared/data/games/acf-archive.pdn.

use engine::notation::fen::{parse_fen, to_fen};
use engine::notation::pdn::read_file;
use std::path::Path;

const SUITE: &str = include_str!("data/bench.tsv");

/// Piece counts in the suite, and positions per count.
const COUNTS: [u32; 4] = [8, 10, 12, 14];
const PER_COUNT: usize = 5;

#[test]
fn suite_is_well_formed() {
    let rows: Vec<&str> = SUITE
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .collect();
    assert_eq!(rows.len(), COUNTS.len() * PER_COUNT);
    for r in rows {
        let f: Vec<&str> = r.split('\t').collect();
        let p = parse_fen(f[0]).unwrap_or_else(|e| panic!("{r}: {e}"));
        let pieces: u32 = f[1].parse().unwrap();
        assert_eq!(p.piece_count(), pieces, "{r}");
        assert!(COUNTS.contains(&pieces));
        assert!(!p.is_terminal(), "{r}");
    }
}

/// For each piece count, the first position with exactly that many
/// pieces and no capture for the side to move, in every 97th game of the
/// archive, until five are found per count.
#[test]
#[ignore]
fn regenerate_bench_suite() {
    let games = read_file(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/games/acf-archive.pdn"
    )))
    .unwrap();
    let mut out = String::from(
        "# Solver benchmark suite: quiet positions (no capture for the side to move)\n\
         # from the endings of master games, five each of 8, 10, 12 and 14 pieces.\n\
         # Source: ../shared/data/games/acf-archive.pdn (ACF archive, MIT; see its LICENSE).\n\
         # Built by solver/tests/bench_suite.rs (ignored test).\n\
         # fen<TAB>pieces<TAB>source\n",
    );
    for n in COUNTS {
        let mut found = 0;
        for g in games.iter().step_by(97) {
            if found == PER_COUNT {
                break;
            }
            if !g.is_legal() {
                continue;
            }
            let ps = g.positions();
            if let Some((k, p)) = ps
                .iter()
                .enumerate()
                .find(|(_, p)| p.piece_count() == n && !p.is_terminal() && !p.has_capture())
            {
                out.push_str(&format!(
                    "{}\t{n}\tacf-archive.pdn game {} ply {k}\n",
                    to_fen(p),
                    g.number
                ));
                found += 1;
            }
        }
        assert_eq!(found, PER_COUNT, "{n} pieces");
    }
    std::fs::write(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bench.tsv"),
        out,
    )
    .unwrap();
}
