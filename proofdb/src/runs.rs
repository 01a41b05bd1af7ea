//! The runs that wrote to a store: each result and proof tree (and each
//! row of the tables above the store that keeps a `run_id`, such as the
//! ballot job's records) names the run that wrote it, and this table says
//! what that run was.

use crate::codec::{host_name, unix_now};
use crate::error::Result;
use crate::store::Store;
use rusqlite::params;

/// A run of some command that wrote to the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunRow {
    /// Identifier (`host-unixtime-pid`).
    pub id: String,
    /// Start (Unix seconds).
    pub started: i64,
    /// End, when finished cleanly.
    pub finished: Option<i64>,
    /// The command line.
    pub command: String,
    /// The machine.
    pub host: String,
}

impl Store {
    /// Inserts `run` unless a run with its id is stored; whether it was.
    pub fn insert_run(&self, run: &RunRow) -> Result<bool> {
        self.write_tx(|tx| {
            let n = tx
                .execute(
                    "INSERT OR IGNORE INTO runs (id, started, finished, command, host) \
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![run.id, run.started, run.finished, run.command, run.host],
                )
                .map_err(|e| self.sq(e))?;
            Ok(n == 1)
        })
    }

    /// Records the start of a run of `command` and returns its id
    /// (`host-unixtime-pid`, made unique if needed).
    pub fn begin_run(&self, command: &str) -> Result<String> {
        let started = unix_now();
        let host = host_name();
        let base = format!("{host}-{started}-{}", std::process::id());
        self.write_tx(|tx| {
            for n in 0u32.. {
                let id = if n == 0 {
                    base.clone()
                } else {
                    format!("{base}-{n}")
                };
                let inserted = tx
                    .execute(
                        "INSERT OR IGNORE INTO runs (id, started, finished, command, host) \
                         VALUES (?1, ?2, NULL, ?3, ?4)",
                        params![id, started, command, host],
                    )
                    .map_err(|e| self.sq(e))?;
                if inserted == 1 {
                    return Ok(id);
                }
            }
            unreachable!("u32 run suffixes exhausted")
        })
    }

    /// Marks run `id` finished now.
    pub fn finish_run(&self, id: &str) -> Result<()> {
        self.write_tx(|tx| {
            tx.execute(
                "UPDATE runs SET finished = ?2 WHERE id = ?1",
                params![id, unix_now()],
            )
            .map_err(|e| self.sq(e))?;
            Ok(())
        })
    }

    /// All runs, oldest first.
    pub fn runs(&self) -> Result<Vec<RunRow>> {
        self.select_rows(
            "SELECT id, started, finished, command, host FROM runs ORDER BY started, id",
            [],
            |r| {
                let (id, started, finished, command, host) = r.try_into()?;
                Ok(RunRow {
                    id,
                    started,
                    finished,
                    command,
                    host,
                })
            },
        )
    }
}
