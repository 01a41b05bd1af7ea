//! What was proved, used in search: the proof store beside the endgame
//! databases as the playing engine's oracle ([`ProvedOracle`]: exact
//! values and the bounds ">=draw" / "<=draw" as leaves of the search),
//! and the length of a stored proof ([`proof_height`]). How a player
//! chooses its move with them is the `player` crate's.
//!
//! Only results the store trusts are used ([`proofdb::ResultCache`]:
//! proved rows and the positions inside their proof trees); results that
//! held only through a repetition on a search path are never stored
//! (see [`crate::question`]). Values are from the side to move's view.
//! The store is only read.

use engine::{Oracle, Position, Value};
use proofdb::{Outcome, ProofEntry, ProofTree, ResultCache, ResultSource};
use std::collections::HashMap;

/// The endgame databases and a proof store's proved results as one
/// [`Oracle`]: the databases for positions of at most their size, the
/// store for the others (exact values through [`Oracle::probe`], bounds
/// through [`Oracle::probe_range`]).
pub struct ProvedOracle<'a> {
    egdb: &'a dyn Oracle,
    egdb_pieces: u32,
    results: &'a ResultCache,
    /// Bit `n` set when the store holds a position of `n` pieces: the
    /// other positions skip the lookup (most of a middle game's nodes).
    stored_counts: u64,
}

impl<'a> ProvedOracle<'a> {
    /// The databases `egdb` (of up to `egdb_pieces` pieces; 0: none) and
    /// the results `results` loaded from a store.
    pub fn new(
        egdb: &'a dyn Oracle,
        egdb_pieces: u32,
        results: &'a ResultCache,
    ) -> ProvedOracle<'a> {
        let stored_counts = results
            .iter()
            .fold(0u64, |m, (p, _)| m | 1u64 << p.piece_count().min(63));
        ProvedOracle {
            egdb,
            egdb_pieces,
            results,
            stored_counts,
        }
    }

    /// The store's proved results it answers from.
    pub fn results(&self) -> &'a ResultCache {
        self.results
    }

    /// Number of positions the store's results cover.
    pub fn proved_positions(&self) -> usize {
        self.results.len()
    }

    /// What the databases or the store know of `pos` (the databases also
    /// answer a position of up to two pieces more with a capture to play
    /// that leads into them; the proofs' other leaves are in the store).
    pub fn outcome(&self, pos: &Position) -> Option<Outcome> {
        let n = pos.piece_count();
        if self.egdb_pieces > 0
            && (n <= self.egdb_pieces || (n <= self.egdb_pieces + 2 && pos.has_capture()))
        {
            if let Some(v) = self.egdb.probe(pos) {
                return Some(Outcome::Exact(v));
            }
        }
        self.stored(pos)
    }

    /// What the store (not the databases) knows of `pos`.
    pub fn stored(&self, pos: &Position) -> Option<Outcome> {
        if self.stored_counts & 1u64 << pos.piece_count().min(63) == 0 {
            return None;
        }
        self.results.lookup(pos)
    }
}

impl Oracle for ProvedOracle<'_> {
    fn probe(&self, pos: &Position) -> Option<Value> {
        match self.outcome(pos)? {
            Outcome::Exact(v) => Some(v),
            _ => None,
        }
    }

    fn probe_range(&self, pos: &Position) -> Option<(Value, Value)> {
        self.outcome(pos).map(Outcome::range)
    }
}

/// The longest line, in plies, from `from` to a leaf of the acyclic
/// proof `tree` (positions the proof does not list count as leaves).
pub fn proof_height(tree: &ProofTree, from: &Position) -> usize {
    let entries: HashMap<Position, ProofEntry> = tree.nodes.iter().copied().collect();
    let mut memo: HashMap<Position, usize> = HashMap::new();
    // Iterative post-order: (position, children pushed).
    let mut stack: Vec<(Position, bool)> = vec![(*from, false)];
    let mut on_path: std::collections::HashSet<Position> = Default::default();
    while let Some((p, expanded)) = stack.pop() {
        if memo.contains_key(&p) {
            continue;
        }
        let children: Vec<Position> = match entries.get(&p) {
            Some(ProofEntry::Prover(m)) => p
                .moves()
                .iter()
                .find(|x| x.same_move(m))
                .map(|x| vec![p.play_unchecked(x)])
                .unwrap_or_default(),
            Some(ProofEntry::Opponent) => p.moves().iter().map(|x| p.play_unchecked(x)).collect(),
            _ => Vec::new(),
        };
        if expanded {
            on_path.remove(&p);
            let h = children
                .iter()
                .map(|c| memo.get(c).map_or(0, |h| h + 1))
                .max()
                .unwrap_or(0);
            memo.insert(p, h);
        } else {
            on_path.insert(p);
            stack.push((p, true));
            for c in children {
                // A cycle cannot be in a verified win proof; cut it anyway.
                if !memo.contains_key(&c) && !on_path.contains(&c) {
                    stack.push((c, false));
                }
            }
        }
    }
    memo.get(from).copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::notation::fen::parse_fen;
    use proofdb::{LeafSource, Question};

    #[test]
    fn a_proof_height_counts_plies_to_its_longest_leaf() {
        // White takes Black's last man: a win in one ply.
        let root = parse_fen("W:W18:B14").unwrap();
        let tree = proofdb::testing::win_in_one(root);
        let end = root.play_unchecked(&root.moves().as_slice()[0]);
        assert_eq!(proof_height(&tree, &root), 1);
        assert_eq!(proof_height(&tree, &end), 0);
        // The opponent to move, each reply a leaf: one ply.
        let root2 = parse_fen("B:W18:B1").unwrap();
        let mut nodes = vec![(root2, ProofEntry::Opponent)];
        for r in root2.moves().iter() {
            let p = root2.play_unchecked(r);
            nodes.push((p, ProofEntry::Leaf(LeafSource::Egdb)));
        }
        let tree2 = ProofTree {
            root: root2,
            question: Question::Loss,
            nodes,
        };
        assert_eq!(proof_height(&tree2, &root2), 1);
    }
}
