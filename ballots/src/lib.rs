//! The three-move ballots, their main lines, and the per-ballot job.

#![deny(missing_docs)]

pub mod extend;
pub mod job;
pub mod line;
pub mod manager;
pub mod sources;
