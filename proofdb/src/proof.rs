//! Proof trees as the solvers produce them, the store keeps them and the
//! verifier checks them.
//!
//! A proof is a set of positions, each with an entry: at the proving
//! side's positions the one move that proves; at the opponent's positions
//! every legal move must lead to a position of the set or to a leaf;
//! leaves are terminal positions, endgame-database positions or positions
//! proved earlier and stored. Children are recomputed from the rules, so
//! the tree stores no edges. A win proof must be acyclic; an "at least a
//! draw" proof may close on itself.

use engine::{Move, Position};

/// The question a proof answers, for the side to move at the root.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Question {
    /// The side to move at the root wins.
    Win,
    /// The side to move at the root at least draws.
    AtLeastDraw,
    /// The side to move at the root does not win: the opponent at least
    /// draws (the proving side is the opponent; the proof may loop).
    AtMostDraw,
    /// The side to move at the root loses: the opponent wins (the proving
    /// side is the opponent; the proof is acyclic).
    Loss,
}

impl Question {
    /// `"win"`, `"draw"`, `"notwin"` or `"loss"`.
    pub const fn name(self) -> &'static str {
        match self {
            Question::Win => "win",
            Question::AtLeastDraw => "draw",
            Question::AtMostDraw => "notwin",
            Question::Loss => "loss",
        }
    }

    /// Parses [`Question::name`]'s output.
    pub fn from_name(s: &str) -> Option<Question> {
        Some(match s {
            "win" => Question::Win,
            "draw" => Question::AtLeastDraw,
            "notwin" => Question::AtMostDraw,
            "loss" => Question::Loss,
            _ => return None,
        })
    }

    /// Whether the proving side is the side to move at the root (`Win`,
    /// `AtLeastDraw`) rather than its opponent (`AtMostDraw`, `Loss`).
    pub const fn prover_moves_first(self) -> bool {
        matches!(self, Question::Win | Question::AtLeastDraw)
    }

    /// Whether a proof of this question may close on itself (a repeated
    /// position is a draw, which is what the draw questions need).
    pub const fn allows_cycles(self) -> bool {
        matches!(self, Question::AtLeastDraw | Question::AtMostDraw)
    }

    /// The question the side to move's search answers for this one, as
    /// a search threshold: [`Question::Win`] (does it win?) for `Win` and
    /// its negation `AtMostDraw`, [`Question::AtLeastDraw`] (does it at
    /// least draw?) for `AtLeastDraw` and its negation `Loss`. A search
    /// node asks one of these two of its side to move.
    #[inline]
    pub const fn threshold(self) -> Question {
        match self {
            Question::Win | Question::AtMostDraw => Question::Win,
            Question::AtLeastDraw | Question::Loss => Question::AtLeastDraw,
        }
    }

    /// The threshold of a child of a search node with this threshold
    /// (negamax form): a mover that needs a win succeeds when the
    /// opponent fails to draw, one that needs a draw when the opponent
    /// fails to win.
    #[inline]
    pub const fn child(self) -> Question {
        match self.threshold() {
            Question::Win => Question::AtLeastDraw,
            _ => Question::Win,
        }
    }

    /// The least value its threshold asks of the side to move: a win or
    /// a draw.
    #[inline]
    pub const fn value(self) -> engine::Value {
        match self.threshold() {
            Question::Win => engine::Value::Win,
            _ => engine::Value::Draw,
        }
    }

    /// Whether a value `v` of the side to move reaches its threshold.
    #[inline]
    pub fn reached_by(self, v: engine::Value) -> bool {
        v >= self.value()
    }

    /// The threshold the proving side of this question needs from its
    /// own view: a win for `Win` and `Loss`, a draw for the two draw
    /// bounds.
    #[inline]
    pub const fn prover_threshold(self) -> Question {
        match self {
            Question::Win | Question::Loss => Question::Win,
            Question::AtLeastDraw | Question::AtMostDraw => Question::AtLeastDraw,
        }
    }

    /// What a proof of this question establishes for the root's side to
    /// move.
    pub const fn outcome(self) -> crate::Outcome {
        match self {
            Question::Win => crate::Outcome::Exact(engine::Value::Win),
            Question::AtLeastDraw => crate::Outcome::AtLeastDraw,
            Question::AtMostDraw => crate::Outcome::AtMostDraw,
            Question::Loss => crate::Outcome::Exact(engine::Value::Loss),
        }
    }
}

impl std::fmt::Display for Question {
    /// [`Question::name`].
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a leaf needs no further proof.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LeafSource {
    /// No legal move: the side to move has lost.
    Terminal,
    /// Value read from the endgame databases.
    Egdb,
    /// Value proved before and kept in the proof store.
    Store,
}

/// One node of a proof.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProofEntry {
    /// The proving side moves: this move proves.
    Prover(Move),
    /// The opponent moves: every legal move must be answered.
    Opponent,
    /// Needs no further proof.
    Leaf(LeafSource),
}

/// A proof of `question` for the side to move at `root`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProofTree {
    /// The proved position.
    pub root: Position,
    /// What is proved, for `root`'s side to move.
    pub question: Question,
    /// Every position of the proof with its entry; the root is among them.
    pub nodes: Vec<(Position, ProofEntry)>,
}

impl ProofTree {
    /// What the proof establishes at every position it reaches from its
    /// root (entries it does not reach are not checked by the verifier and
    /// give nothing): where the proving side is to move, a win (win and
    /// loss questions) or at least a draw (draw questions); where its
    /// opponent is, the mirror. Meaningful only for a verified proof. A
    /// prover move that is not legal, or an opponent reply the proof does
    /// not list, ends the walk there.
    pub fn proved_positions(&self) -> Vec<(Position, crate::Outcome)> {
        use crate::Outcome;
        use engine::Value;
        let root_side = self.root.side_to_move();
        let prover = if self.question.prover_moves_first() {
            root_side
        } else {
            root_side.opposite()
        };
        let decisive = !self.question.allows_cycles();
        let outcome_at = |p: &Position| match (p.side_to_move() == prover, decisive) {
            (true, true) => Outcome::Exact(Value::Win),
            (false, true) => Outcome::Exact(Value::Loss),
            (true, false) => Outcome::AtLeastDraw,
            (false, false) => Outcome::AtMostDraw,
        };
        self.reached()
            .into_iter()
            .map(|p| (p, outcome_at(&p)))
            .collect()
    }

    /// The positions of the proof its root reaches, each once: from the
    /// root, a prover entry's move (if legal there), every move of an
    /// opponent entry, nothing past a leaf; a position without an entry
    /// ends the walk there.
    pub fn reached(&self) -> Vec<Position> {
        use std::collections::{HashMap, HashSet};
        let entries: HashMap<Position, ProofEntry> = self.nodes.iter().copied().collect();
        let mut seen: HashSet<Position> = HashSet::new();
        let mut out = Vec::new();
        let mut todo = vec![self.root];
        while let Some(p) = todo.pop() {
            let Some(entry) = entries.get(&p) else {
                continue;
            };
            if !seen.insert(p) {
                continue;
            }
            out.push(p);
            match entry {
                ProofEntry::Leaf(_) => {}
                ProofEntry::Prover(m) => {
                    if let Some(c) = p.moves().iter().find(|x| x.same_move(m)) {
                        todo.push(p.play_unchecked(c));
                    }
                }
                ProofEntry::Opponent => {
                    for m in p.moves().iter() {
                        todo.push(p.play_unchecked(m));
                    }
                }
            }
        }
        out
    }

    /// Drops the entries the root does not reach ([`ProofTree::reached`]),
    /// keeping the others in their order.
    pub fn drop_unreached(&mut self) {
        let reached: std::collections::HashSet<Position> = self.reached().into_iter().collect();
        self.nodes.retain(|(p, _)| reached.contains(p));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::notation::fen::parse_fen;

    /// An entry the root does not reach (a subtree left over from a
    /// failed branch of an extraction) is not reached, and is dropped;
    /// the others keep their order.
    #[test]
    fn unreached_entries_are_dropped() {
        let root = parse_fen("W:WK19,K23:B12,K28").unwrap();
        let moves = root.moves();
        let moves: Vec<Move> = moves.iter().copied().collect();
        let (first, second) = (moves[0], moves[1]);
        let child = root.play_unchecked(&first);
        let stray = root.play_unchecked(&second);
        let nodes = vec![
            (stray, ProofEntry::Leaf(LeafSource::Egdb)),
            (child, ProofEntry::Leaf(LeafSource::Egdb)),
            (root, ProofEntry::Prover(first)),
        ];
        let mut tree = ProofTree {
            root,
            question: Question::Win,
            nodes: nodes.clone(),
        };
        assert_eq!(tree.reached().len(), 2);
        tree.drop_unreached();
        assert_eq!(tree.nodes, nodes[1..].to_vec());
    }
}
