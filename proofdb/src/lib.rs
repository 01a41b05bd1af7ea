//! The proof store: solved positions, their provenance and proof trees,
//! and the runs that wrote them, in one SQLite file; the crates above keep
//! tables of their own in it through [`extension`] (the ballot job's).
//!
//! This crate defines the vocabulary of proved results shared by the
//! solvers and the store ([`outcome`], [`proof`]) and the store itself:
//! [`Store`] (open, get, put with bound intersection, trees, runs,
//! extensions' tables), [`Writer`] (the one batched writer of a process),
//! [`merge::merge_shard`], [`ResultCache`]. The file layout is documented
//! in `docs/store-schema.txt`.

#![deny(missing_docs)]

pub mod backup;
pub mod cache;
pub mod codec;
pub mod error;
pub mod extension;
pub mod json;
pub mod keep;
pub mod live;
pub mod merge;
pub mod outcome;
pub mod proof;
pub mod results;
pub mod runs;
pub mod schema;
pub mod seal;
pub mod stats;
pub mod store;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod trees;
pub mod trust;
pub mod writer;

pub use cache::ResultCache;
pub use error::StoreError;
pub use keep::{KeepError, RunSink};
pub use live::LiveResults;
pub use merge::{merge_shard, MergeReport};
pub use outcome::{Outcome, OutcomeConflict, Provenance, ResultSource};
pub use proof::{LeafSource, ProofEntry, ProofTree, Question};
pub use results::{Applied, PutEffect, ResultRecord};
pub use runs::RunRow;
pub use stats::StoreStats;
pub use store::Store;
pub use trees::{TreeId, TreeInfo};
pub use trust::Trust;
pub use writer::{Refusal, Writer, WriterHandle, WriterOptions, WriterReport};

/// The default store file name, in the current directory
/// (overridden by `CHECKERS_STORE` and `--store`).
pub const DEFAULT_STORE: &str = "proofs.sqlite";
