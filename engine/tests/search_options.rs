//! Search enhancements change how much is searched, not what a fixed-depth
//! search finds: with the transposition table and reductions off (the
//! features that prune by other means), principal-variation search with
//! null windows and aspiration must return the plain alpha-beta value.

use engine::notation::fen::parse_fen;
use engine::search::{Limits, SearchOptions, Searcher};
use engine::NoOracle;

const BENCH: &str = include_str!("data/bench-middlegame.tsv");

fn score(fen: &str, options: &str, depth: u32) -> (i32, bool) {
    let pos = parse_fen(fen).expect("valid FEN");
    let o = SearchOptions::parse(options).expect("options");
    let mut s = Searcher::with_options(1, o);
    let limits = Limits {
        depth: Some(depth),
        time: None,
        nodes: None,
        soft_time: None,
    };
    let r = s.search(&pos, &limits, &NoOracle, &[]);
    // The principal variation is legal from the root and starts with the
    // best move.
    let mut p = pos;
    for m in &r.pv {
        assert!(
            p.moves().iter().any(|x| x == m),
            "{fen}: PV move {m:?} illegal"
        );
        p = p.play_unchecked(m);
    }
    (r.score, r.pv.first() == r.best_move.as_ref())
}

#[test]
fn null_windows_and_aspiration_keep_the_alpha_beta_value() {
    let base = "tt=off,etc=off,reduce=off";
    for line in BENCH.lines().filter(|l| !l.starts_with('#')).take(8) {
        let fen = line.split('\t').nth(1).expect("two columns");
        let (plain, pv_ok) = score(fen, &format!("{base},pvs=off,asp=off"), 8);
        assert!(pv_ok, "{fen}: PV does not start with the best move");
        let (pvs, pv_ok) = score(fen, &format!("{base},pvs=on,asp=on"), 8);
        assert!(pv_ok, "{fen}: PV does not start with the best move");
        assert_eq!(plain, pvs, "{fen}: alpha-beta {plain}, PVS {pvs}");
    }
}
