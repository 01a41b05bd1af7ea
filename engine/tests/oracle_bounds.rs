//! The search with an oracle that knows bounds (as the proof store does):
//! a proved "at most a draw" for the opponent after each root move holds
//! the root's score at a draw or better, where the search alone sees the
//! root a man down; and a search restricted to some root moves plays one
//! of them.

use engine::notation::fen::parse_fen;
use engine::search::{Limits, Searcher};
use engine::{NoOracle, Oracle, Position, Value};
use std::collections::HashSet;

/// Knows "at most a draw" for each of a set of positions.
struct AtMostDraw(HashSet<Position>);

impl Oracle for AtMostDraw {
    fn probe(&self, _pos: &Position) -> Option<Value> {
        None
    }
    fn probe_range(&self, pos: &Position) -> Option<(Value, Value)> {
        self.0.contains(pos).then_some((Value::Loss, Value::Draw))
    }
}

fn depth(d: u32) -> Limits {
    Limits {
        depth: Some(d),
        ..Limits::default()
    }
}

/// Black a man down, no capture about.
const BEHIND: &str = "B:W18,22,23,27,28:B1,5,10,14";

#[test]
fn a_proved_bound_holds_the_score() {
    let pos = parse_fen(BEHIND).unwrap();
    let alone = Searcher::new(4).search(&pos, &depth(6), &NoOracle, &[]);
    assert!(alone.score < -50, "the search alone: {}", alone.score);
    let children: HashSet<Position> = pos.moves().iter().map(|m| pos.play_unchecked(m)).collect();
    let oracle = AtMostDraw(children);
    let r = Searcher::new(4).search(&pos, &depth(6), &oracle, &[]);
    assert!(r.score >= 0, "with the bound: {}", r.score);
    assert!(r.score < engine::search::WIN_THRESHOLD, "{}", r.score);
}

#[test]
fn a_restricted_root_plays_one_of_its_moves() {
    let pos = parse_fen(BEHIND).unwrap();
    let free = Searcher::new(4).search(&pos, &depth(5), &NoOracle, &[]);
    let best = free.best_move.unwrap();
    let others: Vec<_> = pos
        .moves()
        .iter()
        .filter(|m| !m.same_move(&best))
        .copied()
        .collect();
    assert!(!others.is_empty());
    let r =
        Searcher::new(4).search_among(&pos, &depth(5), &NoOracle, &[], Some(&others), &mut |_| {});
    let m = r.best_move.unwrap();
    assert!(others.iter().any(|o| o.same_move(&m)), "{m}");
    assert!(r.score <= free.score);
}
