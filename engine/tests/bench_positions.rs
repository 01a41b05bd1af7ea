//! The benchmark set (tests/data/bench-middlegame.tsv): checks that it
//! still parses (`cargo run -p engine --example bench_positions`
//! regenerates it from the ballots).

use engine::notation::fen::parse_fen;

const BENCH: &str = include_str!("data/bench-middlegame.tsv");

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
