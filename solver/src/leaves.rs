//! Where searches stop: endgame-database values and results already in
//! the proof store. Terminal positions (no legal move: the mover has lost)
//! are found by the searches themselves from the move list.

use crate::question::Status;
use engine::{Oracle, Position, Value};
use proofdb::Question;
use proofdb::{LeafSource, Outcome, ResultSource};

/// The exact-value sources a search consults before expanding a node.
#[derive(Clone, Copy)]
pub struct Leaves<'a> {
    /// The endgame databases.
    pub oracle: &'a dyn Oracle,
    /// The proof store (results proved earlier, exact or bounds).
    pub store: &'a dyn ResultSource,
}

impl<'a> Leaves<'a> {
    /// Leaves from both sources.
    pub fn new(oracle: &'a dyn Oracle, store: &'a dyn ResultSource) -> Leaves<'a> {
        Leaves { oracle, store }
    }

    /// Whether `pos` is settled for a mover with threshold `t`: the status
    /// (never [`Status::Unknown`]) and where it came from. A stored bound
    /// settles the question only when it is strong enough (`>=draw`
    /// settles "at least a draw?" as a success and "a win?" not at all).
    pub fn classify(&self, pos: &Position, t: Question) -> Option<(Status, LeafSource)> {
        if let Some(v) = self.oracle.probe(pos) {
            return Some((status_of_range(v, v, t), LeafSource::Egdb));
        }
        let outcome = self.store.lookup(pos)?;
        let (lo, hi) = outcome.range();
        let s = status_of_range(lo, hi, t);
        (s != Status::Unknown).then_some((s, LeafSource::Store))
    }

    /// Brings what [`Leaves::classify`] of `pos` reads from the store
    /// into the cache without waiting ([`ResultSource::warm`]): called
    /// for all of a node's children before they are classified, their
    /// cache misses overlap.
    #[inline]
    pub fn warm(&self, pos: &Position) {
        self.store.warm(pos);
    }

    /// What is known of `pos` from the sources, for display.
    pub fn outcome(&self, pos: &Position) -> Option<Outcome> {
        if let Some(v) = self.oracle.probe(pos) {
            return Some(Outcome::Exact(v));
        }
        self.store.lookup(pos)
    }
}

/// The status for a mover with threshold `t` of a value known to lie in
/// `lo..=hi`.
pub fn status_of_range(lo: Value, hi: Value, t: Question) -> Status {
    if t.reached_by(lo) {
        Status::Success
    } else if !t.reached_by(hi) {
        Status::Failure
    } else {
        Status::Unknown
    }
}
