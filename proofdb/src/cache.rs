//! [`ResultCache`]: every proved outcome loaded into memory, for solvers
//! that look results up millions of times and do not need to see results
//! stored after the load: the proved result rows, and every position that
//! a stored proof reaches ([`crate::ProofTree::proved_positions`]), so
//! that each later search finds all of it as leaves, not only the roots.

use crate::error::{Result, StoreError};
use crate::outcome::{Outcome, ResultSource};
use crate::store::Store;
use engine::Position;
use std::collections::HashMap;

/// A read-only in-memory snapshot of a store's outcomes.
#[derive(Clone, Debug, Default)]
pub struct ResultCache {
    map: HashMap<Position, Outcome>,
}

impl ResultCache {
    /// Loads every proved result of `store`, and what its proof trees
    /// prove of the positions inside them.
    pub fn load(store: &Store) -> Result<ResultCache> {
        let mut map = HashMap::with_capacity(store.result_count()? as usize);
        store.for_each_result(|r| -> std::result::Result<(), StoreError> {
            map.insert(r.position, r.outcome);
            Ok(())
        })?;
        // The trees that back a proved row, judged by the rows alone (not
        // by what earlier trees add).
        let rows = map.clone();
        store.for_each_proved_tree(&rows, |tree| {
            add_tree(&mut map, tree);
        })?;
        Ok(ResultCache { map })
    }

    /// Number of positions held.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Every position held with its outcome, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&Position, &Outcome)> {
        self.map.iter()
    }
}

/// Adds what `tree` (a verified proof) proves of each position it reaches,
/// intersected with what `map` holds. A position where the two disagree
/// keeps what `map` held (and cannot happen between verified proofs).
fn add_tree(map: &mut HashMap<Position, Outcome>, tree: &crate::ProofTree) -> usize {
    let mut added = 0;
    for (p, o) in tree.proved_positions() {
        match map.get(&p) {
            None => {
                map.insert(p, o);
                added += 1;
            }
            Some(held) => {
                if let Ok(x) = held.intersect(o) {
                    map.insert(p, x);
                }
            }
        }
    }
    added
}

impl ResultSource for ResultCache {
    fn lookup(&self, pos: &Position) -> Option<Outcome> {
        self.map.get(pos).copied()
    }
}

/// An in-memory view of a store's outcomes that grows as a run proves
/// more: loaded once, then every result the run stores is added, so the
/// searches of one run see each other's results without a SQL query per
/// node. Shared between threads.
#[derive(Debug, Default)]
pub struct LiveResults {
    map: std::sync::RwLock<HashMap<Position, Outcome>>,
}

impl LiveResults {
    /// Loads every result of `store`.
    pub fn load(store: &Store) -> Result<LiveResults> {
        let ResultCache { map } = ResultCache::load(store)?;
        Ok(LiveResults {
            map: std::sync::RwLock::new(map),
        })
    }

    /// Adds what was proved of `pos`, intersected with what is held. A
    /// contradiction leaves the held outcome as it was and is returned.
    pub fn insert(
        &self,
        pos: Position,
        outcome: Outcome,
    ) -> std::result::Result<(), crate::OutcomeConflict> {
        let mut map = self.map.write().unwrap_or_else(|e| e.into_inner());
        let merged = match map.get(&pos) {
            Some(held) => held.intersect(outcome)?,
            None => outcome,
        };
        map.insert(pos, merged);
        Ok(())
    }

    /// Adds what the verified proof `tree` proves of every position it
    /// reaches (its root included).
    pub fn insert_tree(&self, tree: &crate::ProofTree) {
        let mut map = self.map.write().unwrap_or_else(|e| e.into_inner());
        add_tree(&mut map, tree);
    }

    /// Number of positions held.
    pub fn len(&self) -> usize {
        self.map.read().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl ResultSource for LiveResults {
    fn lookup(&self, pos: &Position) -> Option<Outcome> {
        self.map
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(pos)
            .copied()
    }
}
