//! Test helpers: a brute-force exhaustive solver (retrograde fixpoint over
//! every position reachable from a start, a repeated position being a
//! draw) and an oracle built from its table.

#![allow(dead_code)]

use engine::notation::fen::parse_fen;
use engine::{Oracle, Position, Value};
use std::collections::HashMap;

/// Every position reachable from `starts`, with its exact value.
pub struct Reference {
    /// Values for the side to move.
    pub values: HashMap<Position, Value>,
    /// Positions in discovery order.
    pub order: Vec<Position>,
}

impl Reference {
    /// Solves everything reachable from the FENs `starts`.
    pub fn solve(starts: &[&str]) -> Reference {
        let mut id: HashMap<Position, usize> = HashMap::new();
        let mut order: Vec<Position> = Vec::new();
        let mut children: Vec<Vec<usize>> = Vec::new();
        for s in starts {
            let p = parse_fen(s).expect("test FEN");
            if let std::collections::hash_map::Entry::Vacant(e) = id.entry(p) {
                e.insert(order.len());
                order.push(p);
            }
        }
        let mut i = 0;
        while i < order.len() {
            let p = order[i];
            let mut kids = Vec::new();
            for m in p.moves().iter() {
                let c = p.play_unchecked(m);
                let j = *id.entry(c).or_insert_with(|| {
                    order.push(c);
                    order.len() - 1
                });
                kids.push(j);
            }
            children.push(kids);
            i += 1;
        }
        // Fixpoint: Loss when no move or every move wins for the opponent;
        // Win when some move reaches an opponent's loss; the rest draw.
        let n = order.len();
        let mut val: Vec<Option<Value>> = vec![None; n];
        loop {
            let mut changed = false;
            for v in 0..n {
                if val[v].is_some() {
                    continue;
                }
                let kids = &children[v];
                if kids.iter().any(|&c| val[c] == Some(Value::Loss)) {
                    val[v] = Some(Value::Win);
                    changed = true;
                } else if kids.iter().all(|&c| val[c] == Some(Value::Win)) {
                    val[v] = Some(Value::Loss);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let values = order
            .iter()
            .zip(val)
            .map(|(p, v)| (*p, v.unwrap_or(Value::Draw)))
            .collect();
        Reference { values, order }
    }

    /// The value of `fen`.
    pub fn value(&self, fen: &str) -> Value {
        self.values[&parse_fen(fen).unwrap()]
    }
}

/// An oracle that knows the reference values of positions with at most
/// `max_pieces` pieces.
pub struct RefOracle<'a> {
    /// The table.
    pub reference: &'a Reference,
    /// Largest piece count answered.
    pub max_pieces: u32,
}

impl Oracle for RefOracle<'_> {
    fn probe(&self, pos: &Position) -> Option<Value> {
        if pos.piece_count() > self.max_pieces {
            return None;
        }
        self.reference.values.get(pos).copied()
    }
}
