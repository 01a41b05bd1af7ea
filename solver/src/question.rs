//! The binary questions the solvers answer and the three-valued,
//! repetition-aware result of a search node.
//!
//! Every node is searched from its side to move ("the mover") against a
//! threshold `t`, a [`Question`] of the mover, [`Question::Win`] or
//! [`Question::AtLeastDraw`] ([`Question::threshold`]): the mover
//! *succeeds* when its value is at least `t.value()`. The child of a node
//! with threshold `t` has threshold `t.child()` ([`Question::child`]), and
//! a node succeeds exactly when one of its children fails (negamax form).

use engine::Color;
use proofdb::Question;

/// What a search established for the mover of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// The mover reaches its threshold.
    Success,
    /// The mover does not reach its threshold.
    Failure,
    /// Not established (budget, depth, or an unknown leaf).
    Unknown,
}

impl Status {
    /// The status of the parent implied by this child status alone
    /// (`Failure` of a child is `Success` of its parent).
    #[inline]
    pub const fn negate(self) -> Status {
        match self {
            Status::Success => Status::Failure,
            Status::Failure => Status::Success,
            Status::Unknown => Status::Unknown,
        }
    }
}

/// `rep` value of a plain result (one that holds whatever the path).
pub const PLAIN: u16 = u16::MAX;

/// A node result: a [`Status`] and, for a proved status, the repetition
/// dependence.
///
/// `rep == PLAIN`: the status holds for the position whatever the path
/// leading to it; it may be stored. `rep == k`: the status holds only
/// because the line repeats the position at ply `k` of the current path
/// (`k` is at most the node's ply); it becomes plain when the search
/// returns to ply `k` (the cycle is then closed inside the result) and
/// must never be stored before that.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Res {
    /// What was established.
    pub status: Status,
    /// [`PLAIN`], or the ply of the repeated position this status relies on.
    pub rep: u16,
}

impl Res {
    /// A plain result.
    pub const fn plain(status: Status) -> Res {
        Res { status, rep: PLAIN }
    }
    /// Nothing established.
    pub const UNKNOWN: Res = Res::plain(Status::Unknown);

    /// The result of a repetition of the position at ply `k` for a mover
    /// with threshold `t`: a draw, a success exactly when `t` is a draw.
    pub fn repetition(t: Question, k: usize) -> Res {
        let status = if t == Question::AtLeastDraw {
            Status::Success
        } else {
            Status::Failure
        };
        Res {
            status,
            rep: k.min(PLAIN as usize - 1) as u16,
        }
    }

    /// Whether the result may be stored (holds whatever the path).
    pub const fn is_plain(&self) -> bool {
        self.rep == PLAIN
    }

    /// The result as seen at ply `ply`: a repetition tag at or beyond
    /// `ply` is closed here and the result becomes plain.
    pub fn resolved_at(self, ply: usize) -> Res {
        if self.rep != PLAIN && self.rep as usize >= ply {
            Res::plain(self.status)
        } else {
            self
        }
    }

    /// The parent's view of this child result.
    pub const fn negate(self) -> Res {
        Res {
            status: self.status.negate(),
            rep: self.rep,
        }
    }
}

/// The root threshold and the root status that a proof of `q` needs.
pub fn question_goal(q: Question) -> (Question, Status) {
    let status = if q.prover_moves_first() {
        Status::Success
    } else {
        Status::Failure
    };
    (q.threshold(), status)
}

/// The question a root status proves at threshold `t` (`None` for
/// [`Status::Unknown`]).
pub fn proved_question(t: Question, status: Status) -> Option<Question> {
    match (t.threshold(), status) {
        (_, Status::Unknown) => None,
        (Question::Win, Status::Success) => Some(Question::Win),
        (Question::Win, Status::Failure) => Some(Question::AtMostDraw),
        (_, Status::Success) => Some(Question::AtLeastDraw),
        (_, Status::Failure) => Some(Question::Loss),
    }
}

/// The side that proves `q` at a root with `root_side` to move.
pub fn prover_of(q: Question, root_side: Color) -> Color {
    if q.prover_moves_first() {
        root_side
    } else {
        root_side.opposite()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Value;

    const BOTH: [Question; 2] = [Question::Win, Question::AtLeastDraw];
    const QUESTIONS: [Question; 4] = [
        Question::Win,
        Question::AtLeastDraw,
        Question::AtMostDraw,
        Question::Loss,
    ];

    #[test]
    fn the_child_swaps_win_and_draw_and_twice_is_the_identity() {
        assert_eq!(Question::Win.child(), Question::AtLeastDraw);
        assert_eq!(Question::AtLeastDraw.child(), Question::Win);
        for t in BOTH {
            assert_eq!(t.child().child(), t);
            assert_ne!(t.child(), t);
        }
    }

    #[test]
    fn value_and_name_are_those_of_the_value_asked_for() {
        assert_eq!(Question::Win.value(), Value::Win);
        assert_eq!(Question::AtLeastDraw.value(), Value::Draw);
        for t in BOTH {
            assert_eq!(t.name(), t.value().name());
            assert_eq!(t.to_string(), t.value().to_string());
            assert_eq!(t.threshold(), t);
        }
        assert_eq!(Question::Win.to_string(), "win");
        assert_eq!(Question::AtLeastDraw.to_string(), "draw");
    }

    #[test]
    fn a_value_reaches_a_threshold_when_it_is_at_least_its_value() {
        assert!(Question::Win.reached_by(Value::Win));
        assert!(!Question::Win.reached_by(Value::Draw));
        assert!(!Question::Win.reached_by(Value::Loss));
        assert!(Question::AtLeastDraw.reached_by(Value::Win));
        assert!(Question::AtLeastDraw.reached_by(Value::Draw));
        assert!(!Question::AtLeastDraw.reached_by(Value::Loss));
    }

    #[test]
    fn a_value_reaches_a_threshold_exactly_when_its_negation_misses_the_child() {
        // Negamax: the mover reaches `t` with `v` exactly when the
        // opponent, at `t.child()`, does not reach it with `-v`.
        for t in BOTH {
            for v in [Value::Loss, Value::Draw, Value::Win] {
                assert_eq!(t.reached_by(v), !t.child().reached_by(v.negate()));
            }
        }
    }

    #[test]
    fn question_goal_and_proved_question_are_inverse() {
        for q in QUESTIONS {
            let (t, status) = question_goal(q);
            assert_eq!(t, q.threshold());
            assert_eq!(proved_question(t, status), Some(q));
        }
        for t in BOTH {
            assert_eq!(proved_question(t, Status::Unknown), None);
        }
    }

    #[test]
    fn the_prover_needs_the_root_threshold_or_its_child() {
        assert_eq!(question_goal(Question::Win).0, Question::Win);
        assert_eq!(
            question_goal(Question::AtLeastDraw).0,
            Question::AtLeastDraw
        );
        assert_eq!(question_goal(Question::AtMostDraw).0, Question::Win);
        assert_eq!(question_goal(Question::Loss).0, Question::AtLeastDraw);
        for q in QUESTIONS {
            let root = q.threshold();
            let prover = if q.prover_moves_first() {
                root
            } else {
                root.child()
            };
            assert_eq!(q.prover_threshold(), prover);
        }
    }

    #[test]
    fn a_repetition_succeeds_exactly_for_a_draw_threshold() {
        assert_eq!(
            Res::repetition(Question::AtLeastDraw, 3).status,
            Status::Success
        );
        assert_eq!(Res::repetition(Question::Win, 3).status, Status::Failure);
        assert_eq!(Res::repetition(Question::Win, 3).rep, 3);
    }
}
