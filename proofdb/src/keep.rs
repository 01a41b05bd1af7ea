//! Storing a verified result: the one place that writes a proved outcome
//! with the proof trees behind it (one transaction) and then makes it,
//! and every position the trees reach, visible to the run's searches.

use crate::{LiveResults, Outcome, ProofTree, Provenance, ResultRecord, Store, StoreError};
use engine::notation::fen::to_fen;
use engine::Position;
use thiserror::Error;

/// Why a verified result was not kept.
#[derive(Debug, Error)]
pub enum KeepError {
    /// The store refused it (a contradiction, trees that do not prove
    /// it) or could not be written.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The store took it but the run's searches hold another outcome.
    #[error("{fen}: proved {incoming} but the run holds {stored}")]
    Live {
        /// The position.
        fen: String,
        /// The outcome proved.
        incoming: Outcome,
        /// The outcome the run held.
        stored: Outcome,
    },
}

/// Where a run keeps what it proves: the store, the results its
/// searches consult, and the run's id (recorded with every result and
/// tree; the solvers never see it).
#[derive(Clone, Copy)]
pub struct RunSink<'a> {
    /// The store written.
    pub store: &'a Store,
    /// The results the run's searches consult.
    pub live: &'a LiveResults,
    /// The run (from [`Store::begin_run`]).
    pub run_id: &'a str,
}

impl RunSink<'_> {
    /// Stores `outcome` of `pos`, proved by `trees` (their nodes are its
    /// size), with `prov` stamped with the run's id; then makes it
    /// visible to the run's searches. Returns the proof size.
    pub fn keep(
        &self,
        pos: &Position,
        outcome: Outcome,
        prov: Provenance,
        trees: &[ProofTree],
    ) -> Result<u64, KeepError> {
        let size: u64 = trees.iter().map(|t| t.nodes.len() as u64).sum();
        let prov = Provenance {
            run_id: self.run_id.to_string(),
            ..prov
        };
        let rec = ResultRecord::new(*pos, outcome, prov, size);
        self.store.put_proof(&rec, trees, self.run_id)?;
        self.live
            .insert(*pos, outcome)
            .map_err(|c| KeepError::Live {
                fen: to_fen(pos),
                incoming: c.incoming,
                stored: c.stored,
            })?;
        // Every position the proofs reach is a leaf for later searches.
        for t in trees {
            self.live.insert_tree(t);
        }
        Ok(size)
    }
}
