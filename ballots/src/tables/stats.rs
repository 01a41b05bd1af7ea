//! The ballot tables counted ([`table_stats`]).

use super::EXTENSION;
use proofdb::{Store, StoreError};
use std::collections::BTreeMap;

/// What the ballot tables of a store hold, counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableStats {
    /// Ballots.
    pub ballots: u64,
    /// Ballots with a main line.
    pub main_lines: u64,
    /// Job records.
    pub job_records: u64,
    /// Job records per status.
    pub jobs_by_status: BTreeMap<String, u64>,
}

/// Counts the ballot tables of `store` (all zero when it has none).
pub fn table_stats(store: &Store) -> Result<TableStats, StoreError> {
    store.extension_read(&EXTENSION, TableStats::default, |conn| {
        let sq = |e| store.sql_error(e);
        let mut st = conn
            .query_row(
                "SELECT (SELECT count(*) FROM ballots), \
                 (SELECT count(DISTINCT ballot) FROM main_lines), \
                 (SELECT count(*) FROM job_records)",
                [],
                |r| {
                    let n = |i| r.get::<_, i64>(i).map(|n| n as u64);
                    Ok(TableStats {
                        ballots: n(0)?,
                        main_lines: n(1)?,
                        job_records: n(2)?,
                        jobs_by_status: BTreeMap::new(),
                    })
                },
            )
            .map_err(sq)?;
        let mut stmt = conn
            .prepare("SELECT status, count(*) FROM job_records GROUP BY status")
            .map_err(sq)?;
        let rows = stmt
            .query_map([], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64))
            })
            .map_err(sq)?;
        for row in rows {
            let (k, n) = row.map_err(sq)?;
            st.jobs_by_status.insert(k, n);
        }
        Ok(st)
    })
}
