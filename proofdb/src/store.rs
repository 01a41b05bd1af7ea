//! [`Store`]: one SQLite proof-store file, opened for reading and writing
//! or read-only, with a pool of reader connections so that many solver
//! threads can look results up at once.
//!
//! Writes made through a `Store` go through its one write connection, each
//! in its own `BEGIN IMMEDIATE` transaction; for many small writes from
//! worker threads use [`crate::Writer`], which batches them.

use crate::codec::{pos_key, stm_code};
use crate::error::{Result, StoreError};
use crate::outcome::{Outcome, Provenance, ResultSource};
use crate::results::{self, Applied, PutEffect, ResultRecord};
use crate::schema::{self, Mode};
use engine::notation::fen::to_fen;
use engine::Position;
use rusqlite::{Connection, TransactionBehavior};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

/// A proof store file. `Sync`: share it between threads by reference.
pub struct Store {
    path: PathBuf,
    mode: Mode,
    conn: Mutex<Connection>,
    readers: Vec<Mutex<Connection>>,
}

static NEXT_SLOT: AtomicUsize = AtomicUsize::new(0);
thread_local! {
    static SLOT: Cell<usize> = Cell::new(NEXT_SLOT.fetch_add(1, Ordering::Relaxed));
}

impl Store {
    /// Opens the store at `path` for reading and writing, creating it (and
    /// migrating an older schema) as needed. Refuses, naming the file, a
    /// non-SQLite file, a foreign SQLite database, a truncated or damaged
    /// store and a newer schema.
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        Store::open_mode(path.as_ref(), Mode::ReadWrite)
    }

    /// Opens an existing store without ever writing to it.
    pub fn open_readonly(path: impl AsRef<Path>) -> Result<Store> {
        Store::open_mode(path.as_ref(), Mode::ReadOnly)
    }

    fn open_mode(path: &Path, mode: Mode) -> Result<Store> {
        let conn = schema::open_connection(path, mode)?;
        let n = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .clamp(1, 32);
        let mut readers = Vec::with_capacity(n);
        for _ in 0..n {
            readers.push(Mutex::new(schema::open_connection(path, Mode::ReadOnly)?));
        }
        Ok(Store {
            path: path.to_path_buf(),
            mode,
            conn: Mutex::new(conn),
            readers,
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the store was opened read-only.
    pub fn is_readonly(&self) -> bool {
        self.mode == Mode::ReadOnly
    }

    pub(crate) fn sq(&self, e: rusqlite::Error) -> StoreError {
        StoreError::sqlite(&self.path, e)
    }

    pub(crate) fn corrupt(&self, detail: impl Into<String>) -> StoreError {
        StoreError::Corrupt {
            path: self.path.clone(),
            detail: detail.into(),
        }
    }

    /// The write connection (also used for reads that must see this
    /// store's own latest writes).
    pub(crate) fn conn(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn writable(&self) -> Result<()> {
        if self.is_readonly() {
            return Err(StoreError::ReadOnly {
                path: self.path.clone(),
                detail: "store opened read-only".into(),
            });
        }
        Ok(())
    }

    /// Runs `f` in one `BEGIN IMMEDIATE` transaction on the write
    /// connection; commits when it returns `Ok`, rolls back otherwise.
    pub(crate) fn write_tx<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        self.writable()?;
        let mut conn = self.conn();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self.sq(e))?;
        let out = f(&tx)?;
        tx.commit().map_err(|e| self.sq(e))?;
        Ok(out)
    }

    /// A reader connection, preferring one no other thread holds.
    fn reader(&self) -> MutexGuard<'_, Connection> {
        let slot = SLOT.with(|s| s.get());
        let n = self.readers.len();
        for i in 0..n {
            if let Ok(g) = self.readers[(slot + i) % n].try_lock() {
                return g;
            }
        }
        self.readers[slot % n]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// What is stored for `pos`: outcome and provenance.
    pub fn get(&self, pos: &Position) -> Result<Option<(Outcome, Provenance)>> {
        Ok(self.get_record(pos)?.map(|r| (r.outcome, r.provenance)))
    }

    /// Everything stored for `pos`.
    pub fn get_record(&self, pos: &Position) -> Result<Option<ResultRecord>> {
        let conn = self.reader();
        results::select(&conn, pos).map_err(|e| match e {
            rusqlite::Error::FromSqlConversionFailure(_, _, err) => {
                self.corrupt(format!("result for {}: {err}", to_fen(pos)))
            }
            e => self.sq(e),
        })
    }

    /// Stores `outcome` for `pos`, intersected with what is stored: new,
    /// narrower (a bound tightened), or unchanged (already implied). A
    /// contradiction is refused with [`StoreError::Contradiction`] and
    /// nothing is changed. The proof size is recorded as 0 (unknown); see
    /// [`Store::put_record`].
    pub fn put(&self, pos: &Position, outcome: Outcome, prov: &Provenance) -> Result<PutEffect> {
        self.put_record(&ResultRecord::new(*pos, outcome, prov.clone(), 0))
    }

    /// [`Store::put`] with the full record (proof size, date).
    pub fn put_record(&self, rec: &ResultRecord) -> Result<PutEffect> {
        self.write_tx(
            |tx| match results::apply(tx, rec).map_err(|e| self.sq(e))? {
                Applied::Done(effect) => Ok(effect),
                Applied::Refused(c) => Err(StoreError::Contradiction {
                    path: self.path.clone(),
                    fen: to_fen(&rec.position),
                    stored: c.stored,
                    incoming: c.incoming,
                }),
            },
        )
    }

    /// Folds many records in one transaction. Contradictions do not stop
    /// the batch: each record's own [`Applied`] is returned, in order.
    pub fn put_many(&self, recs: &[ResultRecord]) -> Result<Vec<Applied>> {
        self.write_tx(|tx| {
            recs.iter()
                .map(|r| results::apply(tx, r).map_err(|e| self.sq(e)))
                .collect()
        })
    }

    /// Number of stored results.
    pub fn result_count(&self) -> Result<u64> {
        let conn = self.reader();
        conn.query_row("SELECT count(*) FROM results", [], |r| r.get::<_, i64>(0))
            .map(|n| n as u64)
            .map_err(|e| self.sq(e))
    }

    /// Calls `f` on every stored result, in key order. Stops at the first
    /// error (a damaged row is [`StoreError::Corrupt`]) or when `f` fails.
    pub fn for_each_result<E: From<StoreError>>(
        &self,
        mut f: impl FnMut(ResultRecord) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        let conn = self.reader();
        let sql = format!(
            "SELECT {} FROM results ORDER BY pos, stm",
            results::ROW_COLUMNS
        );
        let mut stmt = conn.prepare(&sql).map_err(|e| self.sq(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.sq(e))?;
        while let Some(row) = rows.next().map_err(|e| self.sq(e))? {
            let rec = results::decode_row(row)
                .map_err(|e| self.sq(e))?
                .map_err(|d| self.corrupt(format!("results row: {d}")))?;
            f(rec)?;
        }
        Ok(())
    }

    /// `PRAGMA integrity_check` on the file: `Ok` when SQLite says `ok`.
    pub fn integrity_check(&self) -> Result<()> {
        schema::integrity_check(&self.reader(), &self.path)
    }

    /// `PRAGMA quick_check` (faster, skips index contents): `Ok` when
    /// SQLite says `ok`.
    pub fn quick_check(&self) -> Result<()> {
        schema::quick_check(&self.reader(), &self.path)
    }

    /// Copies the write-ahead log into the main file (`PRAGMA
    /// wal_checkpoint(TRUNCATE)`), e.g. before copying the file elsewhere.
    pub fn checkpoint(&self) -> Result<()> {
        self.writable()?;
        self.conn()
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .map_err(|e| self.sq(e))
    }

    /// Whether `pos` has a row (any outcome).
    pub fn contains(&self, pos: &Position) -> Result<bool> {
        let conn = self.reader();
        let mut stmt = conn
            .prepare_cached("SELECT 1 FROM results WHERE pos = ?1 AND stm = ?2")
            .map_err(|e| self.sq(e))?;
        stmt.exists(rusqlite::params![&pos_key(pos)[..], stm_code(pos)])
            .map_err(|e| self.sq(e))
    }
}

impl ResultSource for Store {
    /// The stored outcome of `pos`. A read error counts as "not known"
    /// (the solver then searches on, which is always safe).
    fn lookup(&self, pos: &Position) -> Option<Outcome> {
        let conn = self.reader();
        results::select_outcome(&conn, pos).ok().flatten()
    }
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.path)
            .field("mode", &self.mode)
            .finish()
    }
}
