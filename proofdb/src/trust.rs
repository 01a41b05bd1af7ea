//! When a stored result is a fact: its row's seal holds and it is backed
//! by proof trees stored with it or by the endgame databases.
//!
//! A result row is backed when
//! - the proof trees stored for its position, taken together, prove at
//!   least its outcome (a `win` tree a win, `draw` and `notwin` trees a
//!   draw, a `draw` tree `>=draw`, ...), or
//! - it is an exact value read from the endgame databases: its solver
//!   names `egdb` and it records the databases' size (a position with a
//!   capture to play may have one piece more than the databases: the
//!   probe plays the capture). `checkers db check --proofs` probes it
//!   again.
//!
//! Rows that fail either test are never served to a search, a report or a
//! merge; `checkers db check` lists them with the reason.

use crate::outcome::Outcome;
use crate::proof::Question;
use std::fmt;

/// What the store makes of one result row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Trust {
    /// Sealed, unchanged, and backed by a proof or the databases.
    Proved,
    /// No seal: written by something other than this program (or before
    /// seals existed, and not backed then either).
    Unsealed,
    /// The seal does not match the row: the file was changed.
    Damaged,
    /// Sealed, but nothing stored proves it.
    Unproved,
}

impl Trust {
    /// Whether the row may be used.
    pub const fn is_proved(self) -> bool {
        matches!(self, Trust::Proved)
    }

    /// A short reason, for reports.
    pub const fn reason(self) -> &'static str {
        match self {
            Trust::Proved => "proved",
            Trust::Unsealed => "no checksum (not written by checkers)",
            Trust::Damaged => "checksum mismatch (the row was changed)",
            Trust::Unproved => "no proof tree or database value backs it",
        }
    }
}

impl fmt::Display for Trust {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.reason())
    }
}

/// Whether trees answering `questions` at a position, together, prove
/// at least `outcome` there.
pub fn trees_prove(questions: &[Question], outcome: Outcome) -> bool {
    let mut known: Option<Outcome> = None;
    for q in questions {
        let o = q.outcome();
        known = match known {
            None => Some(o),
            // Contradicting trees prove nothing.
            Some(k) => match k.intersect(o) {
                Ok(x) => Some(x),
                Err(_) => return false,
            },
        };
    }
    known.is_some_and(|k| k.intersect(outcome) == Ok(k))
}

/// Whether a row with these columns is a database value: an exact value,
/// a solver list naming `egdb`, and the size of the databases used.
pub fn from_databases(outcome: Outcome, solver: &str, egdb_pieces: u32) -> bool {
    matches!(outcome, Outcome::Exact(_))
        && solver.split('+').any(|s| s == "egdb")
        && egdb_pieces > 0
}

/// Parses the comma-separated `question` list of a position's trees
/// (SQLite's `group_concat`); unknown names are skipped.
pub fn parse_questions(list: Option<&str>) -> Vec<Question> {
    list.map(|l| l.split(',').filter_map(Question::from_name).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Value;

    #[test]
    fn which_trees_prove_which_outcomes() {
        use Question::*;
        let win = Outcome::Exact(Value::Win);
        let draw = Outcome::Exact(Value::Draw);
        let loss = Outcome::Exact(Value::Loss);
        assert!(trees_prove(&[Win], win));
        assert!(trees_prove(&[Win], Outcome::AtLeastDraw));
        assert!(!trees_prove(&[AtLeastDraw], win));
        assert!(trees_prove(&[AtLeastDraw], Outcome::AtLeastDraw));
        assert!(!trees_prove(&[AtLeastDraw], draw));
        assert!(trees_prove(&[AtLeastDraw, AtMostDraw], draw));
        assert!(trees_prove(&[AtMostDraw, AtLeastDraw], Outcome::AtMostDraw));
        assert!(trees_prove(&[Loss], loss));
        assert!(trees_prove(&[Loss], Outcome::AtMostDraw));
        assert!(!trees_prove(&[Loss], draw));
        assert!(!trees_prove(&[], Outcome::AtLeastDraw));
        assert!(!trees_prove(&[Win, Loss], win), "contradicting trees");
    }

    #[test]
    fn database_values() {
        let w = Outcome::Exact(Value::Win);
        assert!(from_databases(w, "egdb", 6));
        assert!(from_databases(w, "ab+egdb", 6));
        assert!(!from_databases(w, "ab", 6));
        assert!(!from_databases(w, "egdbx", 6));
        assert!(!from_databases(w, "egdb", 0));
        assert!(!from_databases(Outcome::AtLeastDraw, "egdb", 6));
    }
}
