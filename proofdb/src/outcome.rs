//! What is known of a position's value: an exact value or a one-sided
//! bound, with where it came from.

use engine::{Position, Value};
use std::fmt;
use thiserror::Error;

/// What has been proved of a position, from its side to move's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The exact value.
    Exact(Value),
    /// The side to move at least draws (the opponent's win is refuted).
    AtLeastDraw,
    /// The side to move at most draws (its own win is refuted).
    AtMostDraw,
}

/// Two outcomes that cannot both hold.
#[derive(Clone, Copy, Debug, Error, PartialEq, Eq)]
#[error("{stored} contradicts {incoming}")]
pub struct OutcomeConflict {
    /// The outcome already known.
    pub stored: Outcome,
    /// The outcome that disagrees with it.
    pub incoming: Outcome,
}

impl Outcome {
    /// Lowest and highest value still possible.
    pub const fn range(self) -> (Value, Value) {
        match self {
            Outcome::Exact(v) => (v, v),
            Outcome::AtLeastDraw => (Value::Draw, Value::Win),
            Outcome::AtMostDraw => (Value::Loss, Value::Draw),
        }
    }

    /// The outcome with value range `lo..=hi`, if it is expressible.
    pub fn from_range(lo: Value, hi: Value) -> Option<Outcome> {
        match (lo, hi) {
            _ if lo == hi => Some(Outcome::Exact(lo)),
            (Value::Draw, Value::Win) => Some(Outcome::AtLeastDraw),
            (Value::Loss, Value::Draw) => Some(Outcome::AtMostDraw),
            _ => None,
        }
    }

    /// What both `self` and `other` say together, or the contradiction.
    pub fn intersect(self, other: Outcome) -> Result<Outcome, OutcomeConflict> {
        let (a_lo, a_hi) = self.range();
        let (b_lo, b_hi) = other.range();
        let (lo, hi) = (a_lo.max(b_lo), a_hi.min(b_hi));
        if lo > hi {
            return Err(OutcomeConflict {
                stored: self,
                incoming: other,
            });
        }
        Outcome::from_range(lo, hi).ok_or(OutcomeConflict {
            stored: self,
            incoming: other,
        })
    }

    /// The same knowledge from the opponent's view.
    pub const fn negate(self) -> Outcome {
        match self {
            Outcome::Exact(v) => Outcome::Exact(v.negate()),
            Outcome::AtLeastDraw => Outcome::AtMostDraw,
            Outcome::AtMostDraw => Outcome::AtLeastDraw,
        }
    }

    /// Short name: `win`, `draw`, `loss`, `>=draw`, `<=draw`.
    pub const fn name(self) -> &'static str {
        match self {
            Outcome::Exact(v) => v.name(),
            Outcome::AtLeastDraw => ">=draw",
            Outcome::AtMostDraw => "<=draw",
        }
    }

    /// Chinook's label: `W`, `D`, `L` for exact values, `D or W` for at
    /// least a draw, `L or D` for at most a draw.
    pub const fn label(self) -> &'static str {
        match self {
            Outcome::Exact(Value::Win) => "W",
            Outcome::Exact(Value::Draw) => "D",
            Outcome::Exact(Value::Loss) => "L",
            Outcome::AtLeastDraw => "D or W",
            Outcome::AtMostDraw => "L or D",
        }
    }

    /// Parses [`Outcome::name`]'s output.
    pub fn from_name(s: &str) -> Option<Outcome> {
        Some(match s {
            "win" => Outcome::Exact(Value::Win),
            "draw" => Outcome::Exact(Value::Draw),
            "loss" => Outcome::Exact(Value::Loss),
            ">=draw" => Outcome::AtLeastDraw,
            "<=draw" => Outcome::AtMostDraw,
            _ => return None,
        })
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a result came from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Provenance {
    /// Which solver proved it (`ab`, `dfpn`, `egdb`, `merge`, ...).
    pub solver: String,
    /// Nodes searched.
    pub nodes: u64,
    /// Time in milliseconds on the run's clock (by default the CPU time
    /// of the threads that searched; wall time with `--wall-clock`).
    pub millis: u64,
    /// Largest endgame database piece count used.
    pub egdb_pieces: u32,
    /// Identifier of the run that produced it (empty when none).
    pub run_id: String,
}

/// A source of already proved results consulted by every search (the
/// proof store implements it; the solvers only see this trait, so they do
/// not depend on SQLite). Thread-safe; lookups must be cheap.
pub trait ResultSource: Sync {
    /// What is known of `pos`, if anything.
    fn lookup(&self, pos: &Position) -> Option<Outcome>;

    /// Brings what a lookup of `pos` reads first into the cache, without
    /// waiting for it: a search warms all of a node's children, so that
    /// their cache misses overlap, then looks them up.
    fn warm(&self, _pos: &Position) {}
}

/// A source that knows nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoResults;

impl ResultSource for NoResults {
    fn lookup(&self, _pos: &Position) -> Option<Outcome> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_intersect_and_conflict() {
        use Outcome::*;
        assert_eq!(AtLeastDraw.intersect(AtMostDraw), Ok(Exact(Value::Draw)));
        assert_eq!(
            AtLeastDraw.intersect(Exact(Value::Win)),
            Ok(Exact(Value::Win))
        );
        assert!(AtLeastDraw.intersect(Exact(Value::Loss)).is_err());
        assert!(Exact(Value::Win).intersect(Exact(Value::Draw)).is_err());
        for o in [AtLeastDraw, AtMostDraw, Exact(Value::Win)] {
            assert_eq!(Outcome::from_name(o.name()), Some(o));
            assert_eq!(o.negate().negate(), o);
        }
    }
}
