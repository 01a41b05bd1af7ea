//! Helpers for tests of code that stores results: trees that claim an
//! outcome without proving it, so that a test can store a result without
//! running a solver.
//!
//! The store trusts a result when sealed trees for its outcome are
//! stored; it does not verify them on every read. These trees are
//! refused by the verifier (`checkers db check --proofs`,
//! `checkers proof verify --store`): never store them in a real store.

use crate::outcome::Outcome;
use crate::proof::{LeafSource, ProofEntry, ProofTree, Question};
use crate::{PutEffect, ResultRecord, Store, StoreError};
use engine::{Position, Value};

/// One-node trees, the root a database leaf, for the questions that
/// together give `outcome` at `pos`.
pub fn unverified_trees(pos: Position, outcome: Outcome) -> Vec<ProofTree> {
    let questions: &[Question] = match outcome {
        Outcome::Exact(Value::Win) => &[Question::Win],
        Outcome::Exact(Value::Loss) => &[Question::Loss],
        Outcome::Exact(Value::Draw) => &[Question::AtLeastDraw, Question::AtMostDraw],
        Outcome::AtLeastDraw => &[Question::AtLeastDraw],
        Outcome::AtMostDraw => &[Question::AtMostDraw],
    };
    questions
        .iter()
        .map(|&question| ProofTree {
            root: pos,
            question,
            nodes: vec![(pos, ProofEntry::Leaf(LeafSource::Egdb))],
        })
        .collect()
}

/// Stores `rec` with [`unverified_trees`] behind it, as
/// [`Store::put_proof`] would with real ones.
pub fn put_unverified(store: &Store, rec: &ResultRecord) -> Result<PutEffect, StoreError> {
    let trees = unverified_trees(rec.position, rec.outcome);
    store.put_proof(rec, &trees, "test")
}

/// [`put_unverified`] of `outcome` for `pos`, with its provenance.
pub fn put_outcome_unverified(
    store: &Store,
    pos: &Position,
    outcome: Outcome,
    prov: &crate::Provenance,
) -> Result<PutEffect, StoreError> {
    put_unverified(store, &ResultRecord::new(*pos, outcome, prov.clone(), 0))
}

/// The proof of a win in one: the side to move at `root` plays its first
/// legal move, which leaves the opponent without a move. Panics when
/// `root` has no move.
pub fn win_in_one(root: Position) -> ProofTree {
    let m = root.moves().as_slice()[0];
    ProofTree {
        root,
        question: Question::Win,
        nodes: vec![
            (root, ProofEntry::Prover(m)),
            (
                root.play_unchecked(&m),
                ProofEntry::Leaf(LeafSource::Terminal),
            ),
        ],
    }
}
