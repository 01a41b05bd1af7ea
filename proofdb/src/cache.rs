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
            for (p, o) in tree.proved_positions() {
                // Verified proofs never disagree; were they to, what was
                // held stays.
                let _ = merge_into(&mut map, p, o);
            }
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

    /// Its positions and outcomes, as a map.
    pub(crate) fn into_map(self) -> HashMap<Position, Outcome> {
        self.map
    }

    /// Every position held with its outcome, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&Position, &Outcome)> {
        self.map.iter()
    }
}

/// Adds `o` for `pos` to `map`, intersected with what is held; a
/// contradiction leaves what was held and is returned.
pub(crate) fn merge_into(
    map: &mut HashMap<Position, Outcome>,
    pos: Position,
    o: Outcome,
) -> std::result::Result<(), crate::OutcomeConflict> {
    let merged = match map.get(&pos) {
        Some(held) => held.intersect(o)?,
        None => o,
    };
    map.insert(pos, merged);
    Ok(())
}

impl ResultSource for ResultCache {
    fn lookup(&self, pos: &Position) -> Option<Outcome> {
        self.map.get(pos).copied()
    }
}
