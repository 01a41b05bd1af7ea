//! ballots: the ACF three-move ballots, their main lines and the
//! per-ballot job's reports.

#![deny(missing_docs)]

pub mod deck;
pub mod report;
