//! What is known of one position's value, and where it comes from: the
//! rules (no legal move), the endgame databases, a result row of the
//! proof store, a stored proof tree that reaches the position, or
//! nothing yet ("open"); with Chinook's labels.

use super::error::ApiError;
use super::Browser;
use engine::Position;
use proofdb::{Outcome, ResultSource};
use serde::Serialize;

/// Where a value was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ValueSource {
    /// The side to move has no legal move: it has lost.
    Terminal,
    /// The endgame databases.
    Egdb,
    /// A proved result of the proof store.
    Store,
    /// What a stored proof tree proves of a position it reaches (not a
    /// result row of its own).
    Proof,
    /// Nothing is known yet.
    Open,
}

/// A position's value as the API reports it, for its side to move.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KnownValue {
    /// `win`, `draw`, `loss`, `>=draw`, `<=draw`, or `null` when open.
    pub outcome: Option<&'static str>,
    /// Chinook's label: `W`, `D`, `L`, `D or W`, `L or D`, or `?` when
    /// open.
    pub label: &'static str,
    /// Where it was read.
    pub source: ValueSource,
    /// Positions in the stored proof(s) behind it (store results only;
    /// `null` when unknown).
    pub proof_size: Option<u64>,
    /// The solver that proved it (store results only).
    pub solver: Option<String>,
}

/// Chinook's label of an outcome: `W`, `D`, `L` for exact values, `D or
/// W` for at least a draw, `L or D` for at most a draw.
pub fn label(outcome: Outcome) -> &'static str {
    outcome.label()
}

impl KnownValue {
    /// A value read from `source`.
    pub fn new(outcome: Outcome, source: ValueSource) -> KnownValue {
        KnownValue {
            outcome: Some(outcome.name()),
            label: label(outcome),
            source,
            proof_size: None,
            solver: None,
        }
    }

    /// Nothing known.
    pub fn open() -> KnownValue {
        KnownValue {
            outcome: None,
            label: "?",
            source: ValueSource::Open,
            proof_size: None,
            solver: None,
        }
    }
}

impl Browser {
    /// What is known of `pos`, from its side to move's view, and the
    /// outcome itself: the rules first, then the databases, then the
    /// store's result rows, then the positions its proof trees reach.
    pub fn value_of(&self, pos: &Position) -> Result<(Option<Outcome>, KnownValue), ApiError> {
        use engine::Value;
        if pos.is_terminal() {
            let o = Outcome::Exact(Value::Loss);
            return Ok((Some(o), KnownValue::new(o, ValueSource::Terminal)));
        }
        if pos.piece_count() <= self.egdb_pieces {
            if let Some(v) = self.oracle.probe(pos) {
                let o = Outcome::Exact(v);
                return Ok((Some(o), KnownValue::new(o, ValueSource::Egdb)));
            }
        }
        match self.store.get_record(pos)? {
            Some(rec) => {
                let mut k = KnownValue::new(rec.outcome, ValueSource::Store);
                k.proof_size = Some(rec.proof_size);
                k.solver = Some(rec.provenance.solver);
                Ok((Some(rec.outcome), k))
            }
            None => match self.proved.lookup(pos) {
                Some(o) => Ok((Some(o), KnownValue::new(o, ValueSource::Proof))),
                None => Ok((None, KnownValue::open())),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Value;

    #[test]
    fn labels_are_chinooks() {
        assert_eq!(label(Outcome::Exact(Value::Win)), "W");
        assert_eq!(label(Outcome::Exact(Value::Draw)), "D");
        assert_eq!(label(Outcome::Exact(Value::Loss)), "L");
        assert_eq!(label(Outcome::AtLeastDraw), "D or W");
        assert_eq!(label(Outcome::AtMostDraw), "L or D");
        assert_eq!(KnownValue::open().label, "?");
    }
}
