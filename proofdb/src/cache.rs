//! [`ResultCache`]: every stored outcome loaded into memory, for solvers
//! that look results up millions of times and do not need to see results
//! stored after the load.

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
    /// Loads every result of `store`.
    pub fn load(store: &Store) -> Result<ResultCache> {
        let mut map = HashMap::with_capacity(store.result_count()? as usize);
        store.for_each_result(|r| -> std::result::Result<(), StoreError> {
            map.insert(r.position, r.outcome);
            Ok(())
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
}

impl ResultSource for ResultCache {
    fn lookup(&self, pos: &Position) -> Option<Outcome> {
        self.map.get(pos).copied()
    }
}
