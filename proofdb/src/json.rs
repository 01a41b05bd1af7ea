//! The pieces of JSON every command's `--json` output shares, so that a
//! position, a value and the work spent are written with the same keys
//! everywhere (the vocabulary is docs/json.txt). Each is a serde struct
//! meant to be `#[serde(flatten)]`ed into a command's own record.

use crate::Outcome;
use engine::notation::fen::to_fen;
use engine::Position;
use serde::Serialize;

/// A position and what is proved of it, from its side to move's view:
/// keys `fen`, `side_to_move`, `value`, `label`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Valued {
    /// The position (canonical PDN FEN).
    pub fen: String,
    /// `Black` or `White`.
    pub side_to_move: &'static str,
    /// `win`, `draw`, `loss`, `>=draw`, `<=draw` ([`Outcome::name`]), or
    /// `null` when nothing is proved.
    pub value: Option<&'static str>,
    /// Chinook's label of the value ([`Outcome::label`]), or `null`.
    pub label: Option<&'static str>,
}

impl Valued {
    /// `pos` with `value` (for its side to move).
    pub fn new(pos: &Position, value: Option<Outcome>) -> Valued {
        Valued {
            fen: to_fen(pos),
            side_to_move: pos.side_to_move().name(),
            value: value.map(Outcome::name),
            label: value.map(Outcome::label),
        }
    }
}

/// The work a search spent: keys `nodes`, `millis`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Effort {
    /// Nodes searched.
    pub nodes: u64,
    /// Time in milliseconds (CPU time unless the command counted wall
    /// time).
    pub millis: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_valued_position_writes_the_shared_keys() {
        let v = Valued::new(
            &Position::initial(),
            Some(Outcome::Exact(engine::Value::Draw)),
        );
        let text = serde_json::to_string(&v).unwrap();
        assert!(text.contains(r#""side_to_move":"Black""#), "{text}");
        assert!(text.contains(r#""value":"draw","label":"D""#), "{text}");
        let open = serde_json::to_value(Valued::new(&Position::initial(), None)).unwrap();
        assert!(open["value"].is_null() && open["label"].is_null());
    }
}
