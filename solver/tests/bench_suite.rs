//! The solver benchmark suite (tests/data/bench.tsv): positions of 8 to
//! 14 pieces from the endings of master games, for measuring the solvers
//! with `scripts/solver-bench.sh`. This test checks the file;
//! `cargo run -p solver --example bench_suite` rebuilds it from
//! ../shared/data/games/acf-archive.pdn.

use engine::notation::fen::parse_fen;

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
