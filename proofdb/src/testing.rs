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

/// The start of a main line: ply 0 alone, the start position, published
/// and unscored.
pub fn line_start() -> Vec<crate::LinePlyRow> {
    vec![crate::LinePlyRow {
        ply: 0,
        position: Position::initial(),
        move_text: String::new(),
        origin: crate::Origin::Published,
        score: None,
        repair: None,
    }]
}

/// A ballot job's record of `ballot`'s `ply`: `status` and `outcome`
/// after `millis` ms (its budget too), 1,000 nodes, a proof of 7
/// positions, run `r`.
pub fn job_record(
    ballot: u32,
    ply: u32,
    outcome: Option<Outcome>,
    millis: u64,
    status: crate::JobStatus,
) -> crate::JobRecord {
    crate::JobRecord {
        ballot,
        ply,
        outcome,
        nodes: 1000,
        millis,
        budget_millis: millis,
        proof_size: 7,
        status,
        run_id: "r".into(),
        updated: 0,
    }
}

/// A main line from the start position through `moves` (move texts as
/// the move type prints them, `9-13`), ply 0 included: every ply
/// published and unscored. Panics on a move that is not legal (a test's
/// own data).
pub fn line_from_moves(moves: &[&str]) -> Vec<crate::LinePlyRow> {
    use crate::{LinePlyRow, Origin};
    let ply = |ply: u32, position: Position, text: &str| LinePlyRow {
        ply,
        position,
        move_text: text.to_string(),
        origin: Origin::Published,
        score: None,
        repair: None,
    };
    let mut p = Position::initial();
    let mut line = line_start();
    for (i, text) in moves.iter().enumerate() {
        let m = p.moves().iter().find(|m| m.to_string() == *text).copied();
        p = p.play_unchecked(&m.unwrap_or_else(|| panic!("{text} is not legal here")));
        line.push(ply(i as u32 + 1, p, text));
    }
    line
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
