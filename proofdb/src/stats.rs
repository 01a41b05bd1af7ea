//! Counts over a store: results by outcome, piece count and solver; trees;
//! runs. (The ballot tables are counted by `ballots::tables::stats`.)

use crate::error::Result;
use crate::store::Store;
use std::collections::BTreeMap;

/// What a store holds, counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoreStats {
    /// Stored result rows.
    pub results: u64,
    /// Of which not proved ([`crate::Trust`]): never used.
    pub unproved: u64,
    /// Results per outcome name (`win`, `>=draw`, ...).
    pub by_outcome: BTreeMap<String, u64>,
    /// Results per piece count.
    pub by_pieces: BTreeMap<u32, u64>,
    /// Results per solver name.
    pub by_solver: BTreeMap<String, u64>,
    /// Proof trees.
    pub trees: u64,
    /// Positions over all proof trees.
    pub tree_nodes: u64,
    /// Runs.
    pub runs: u64,
    /// Schema version of the file.
    pub schema_version: u32,
}

impl Store {
    /// Counts everything (one scan of each table's index).
    pub fn stats(&self) -> Result<StoreStats> {
        let conn = self.conn();
        let sq = |e| self.sq(e);
        let one = |sql: &str| -> Result<u64> {
            conn.query_row(sql, [], |r| r.get::<_, i64>(0))
                .map(|n| n as u64)
                .map_err(sq)
        };
        let mut st = StoreStats {
            results: one("SELECT count(*) FROM results")?,
            trees: one("SELECT count(*) FROM trees")?,
            tree_nodes: one("SELECT count(*) FROM tree_nodes")?,
            runs: one("SELECT count(*) FROM runs")?,
            schema_version: one("PRAGMA user_version")? as u32,
            ..StoreStats::default()
        };
        let grouped = |sql: &str| -> Result<Vec<(rusqlite::types::Value, u64)>> {
            let mut stmt = conn.prepare(sql).map_err(sq)?;
            let rows = stmt
                .query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)))
                .map_err(sq)?;
            rows.collect::<rusqlite::Result<_>>().map_err(sq)
        };
        let text = |v: rusqlite::types::Value| match v {
            rusqlite::types::Value::Text(s) => s,
            rusqlite::types::Value::Integer(n) => n.to_string(),
            other => format!("{other:?}"),
        };
        for (k, n) in grouped("SELECT outcome, count(*) FROM results GROUP BY outcome")? {
            st.by_outcome.insert(text(k), n);
        }
        for (k, n) in grouped("SELECT pieces, count(*) FROM results GROUP BY pieces")? {
            if let rusqlite::types::Value::Integer(p) = k {
                st.by_pieces.insert(p as u32, n);
            }
        }
        for (k, n) in grouped("SELECT solver, count(*) FROM results GROUP BY solver")? {
            st.by_solver.insert(text(k), n);
        }
        drop(conn);
        self.for_each_row(|_, t| -> Result<()> {
            st.unproved += u64::from(!t.is_proved());
            Ok(())
        })?;
        Ok(st)
    }
}
