//! The binary questions the solvers answer and the three-valued,
//! repetition-aware result of a search node.
//!
//! Every node is searched from its side to move ("the mover") against a
//! threshold `t`, which is [`Value::Win`] or [`Value::Draw`]: the mover
//! *succeeds* when its value is at least `t`. The child of a node with
//! threshold `t` has threshold [`child_threshold`]`(t)`, and a node
//! succeeds exactly when one of its children fails (negamax form).

use engine::{Color, Value};
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
    pub fn repetition(t: Value, k: usize) -> Res {
        let status = if t == Value::Draw {
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

/// The threshold of a child of a node with threshold `t`: a mover that
/// needs a win succeeds when the opponent fails to draw, and one that
/// needs a draw succeeds when the opponent fails to win.
#[inline]
pub fn child_threshold(t: Value) -> Value {
    match t {
        Value::Win => Value::Draw,
        _ => Value::Win,
    }
}

/// The root threshold and the root status that a proof of `q` needs.
pub fn question_goal(q: Question) -> (Value, Status) {
    match q {
        Question::Win => (Value::Win, Status::Success),
        Question::AtLeastDraw => (Value::Draw, Status::Success),
        Question::AtMostDraw => (Value::Win, Status::Failure),
        Question::Loss => (Value::Draw, Status::Failure),
    }
}

/// The question a root status proves at threshold `t` (`None` for
/// [`Status::Unknown`]).
pub fn proved_question(t: Value, status: Status) -> Option<Question> {
    match (t, status) {
        (_, Status::Unknown) => None,
        (Value::Win, Status::Success) => Some(Question::Win),
        (Value::Win, Status::Failure) => Some(Question::AtMostDraw),
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

/// Whether a value `v` for the mover reaches threshold `t`.
#[inline]
pub fn reaches(v: Value, t: Value) -> bool {
    v >= t
}
