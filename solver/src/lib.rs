//! Proof search for American checkers: binary questions ("does the side to
//! move win?", "does it at least draw?"), a pessimistic alpha-beta prover,
//! depth-first proof-number search, exact retrograde analysis of the graph
//! reachable from a position, proof-tree extraction, an independent
//! verifier and the proof file format.
//!
//! Repetition: a position that repeats on the current search path is a
//! draw. A result that holds only because of such a repetition is kept as
//! its own state, tagged with the ply where the cycle starts
//! ([`question::Res`]), and is never stored as a plain result (the
//! graph-history interaction).

#![deny(missing_docs)]

pub mod budget;
pub mod clock;
pub mod dfpn;
pub mod guess;
pub mod leaves;
pub mod order;
pub mod proofio;
pub mod proved;
pub mod prover;
pub mod question;
pub mod retro;
pub mod solve;
pub mod storecheck;
pub mod table;
pub mod tree;
pub mod verify;

pub use budget::{CallLimited, CallLimits};
pub use leaves::Leaves;
pub use question::{Res, Status};
pub use solve::{
    solve, CheckpointPlan, Credit, RepetitionTrust, Runner, SolveOptions, SolveReport, SolverKind,
};
