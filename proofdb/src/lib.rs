//! The proof store: solved positions, their provenance and proof trees.
//!
//! This crate defines the vocabulary of proved results shared by the
//! solvers and the store ([`outcome`], [`proof`]); the SQLite store itself
//! lives in `store`.

#![deny(missing_docs)]

pub mod outcome;
pub mod proof;

pub use outcome::{Outcome, OutcomeConflict, Provenance, ResultSource};
pub use proof::{LeafSource, ProofEntry, ProofTree, Question};
