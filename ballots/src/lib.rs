//! The ACF three-move ballots, their main lines, the per-ballot job that
//! walks a main line backward, the proof-tree manager, and the reports.

#![deny(missing_docs)]

pub mod attempt;
pub mod carry;
pub mod deck;
pub mod extend;
pub mod frontier;
pub mod job;
pub mod line;
pub mod lines;
pub mod manager;
pub mod plan;
pub mod repair;
pub mod report;
pub mod score;
pub mod show;
pub mod sources;
pub mod tables;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
