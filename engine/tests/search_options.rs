//! Search enhancements change how much is searched, not what a fixed-depth
//! search finds: with the transposition table, the reductions and the late
//! move reductions off (the features that prune by other means),
//! principal-variation search with null windows and aspiration must return
//! the plain alpha-beta value.

use engine::notation::fen::parse_fen;
use engine::search::{Limits, SearchOptions, Searcher};
use engine::NoOracle;

const BENCH: &str = include_str!("data/bench-middlegame.tsv");

fn score(fen: &str, options: &str, depth: u32) -> (i32, bool) {
    let (score, pv_ok, _) = search(fen, options, depth);
    (score, pv_ok)
}

/// The score, whether the principal variation (checked legal) starts with
/// the best move, and the nodes searched.
fn search(fen: &str, options: &str, depth: u32) -> (i32, bool, u64) {
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
    (r.score, r.pv.first() == r.best_move.as_ref(), r.nodes)
}

#[test]
fn null_windows_and_aspiration_keep_the_alpha_beta_value() {
    let base = "tt=off,etc=off,reduce=off,lmr=off";
    for line in BENCH.lines().filter(|l| !l.starts_with('#')).take(8) {
        let fen = line.split('\t').nth(1).expect("two columns");
        let (plain, pv_ok) = score(fen, &format!("{base},pvs=off,asp=off"), 8);
        assert!(pv_ok, "{fen}: PV does not start with the best move");
        let (pvs, pv_ok) = score(fen, &format!("{base},pvs=on,asp=on"), 8);
        assert!(pv_ok, "{fen}: PV does not start with the best move");
        assert_eq!(plain, pvs, "{fen}: alpha-beta {plain}, PVS {pvs}");
    }
}

#[test]
fn late_move_reductions_search_fewer_nodes_to_a_depth() {
    let (mut with, mut without) = (0, 0);
    for line in BENCH.lines().filter(|l| !l.starts_with('#')).take(6) {
        let fen = line.split('\t').nth(1).expect("two columns");
        let (_, pv_ok, nodes) = search(fen, "lmr", 10);
        assert!(pv_ok, "{fen}: PV does not start with the best move");
        with += nodes;
        without += search(fen, "lmr=off", 10).2;
    }
    assert!(with < without, "lmr {with} nodes, without {without}");
}

#[test]
fn late_move_reduction_options_are_checked() {
    let o = SearchOptions::parse("lmr,lmr-moves=5").expect("options");
    assert!(o.lmr);
    assert_eq!(o.lmr_moves, 5);
    for bad in ["lmr-moves=0", "lmr-moves=65", "lmr-moves=x", "lmr=maybe"] {
        assert!(SearchOptions::parse(bad).is_err(), "{bad}");
    }
}
