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
