//! Game-theoretic values and the oracle interface through which searches
//! ask the endgame databases and the proof store for exact values.

use crate::board::Position;
use std::fmt;

/// The game-theoretic value of a position for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    /// The side to move loses with best play.
    Loss,
    /// Neither side can force a win.
    Draw,
    /// The side to move wins with best play.
    Win,
}

impl Value {
    /// The value for the other side.
    #[inline]
    pub const fn negate(self) -> Value {
        match self {
            Value::Loss => Value::Win,
            Value::Draw => Value::Draw,
            Value::Win => Value::Loss,
        }
    }

    /// `"win"`, `"draw"` or `"loss"`.
    pub const fn name(self) -> &'static str {
        match self {
            Value::Loss => "loss",
            Value::Draw => "draw",
            Value::Win => "win",
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A source of exact values (an endgame database, the proof store).
/// Implementations are thread-safe and must not allocate per probe.
pub trait Oracle: Sync {
    /// The exact value of `pos` for its side to move, if known.
    fn probe(&self, pos: &Position) -> Option<Value>;

    /// The lowest and highest value `pos` may have for its side to move,
    /// if anything is known: equal for an exact value, a draw and a win
    /// for "at least a draw", a loss and a draw for "at most a draw" (the
    /// proof store keeps such bounds). By default the exact value of
    /// [`Oracle::probe`].
    fn probe_range(&self, pos: &Position) -> Option<(Value, Value)> {
        self.probe(pos).map(|v| (v, v))
    }
}

/// An oracle that knows nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoOracle;

impl Oracle for NoOracle {
    fn probe(&self, _pos: &Position) -> Option<Value> {
        None
    }
}
