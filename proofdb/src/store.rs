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
use crate::schema::{self, FileHold, Mode};
use crate::trust::Trust;
use engine::notation::fen::to_fen;
use engine::Position;
use rusqlite::{Connection, TransactionBehavior};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// A proof store file. `Sync`: share it between threads by reference.
///
/// Only results that are proved ([`Trust::Proved`]: sealed, unchanged,
/// backed by proof trees or the databases) are returned by [`Store::get`],
/// [`Store::lookup`] and [`Store::for_each_result`]; the others are kept
/// and shown by [`Store::for_each_row`]. Dropping a store opened for
/// writing copies its write-ahead log into the main file, so that the
/// main file alone holds every result once no writer has it open.
pub struct Store {
    path: PathBuf,
    mode: Mode,
    /// Declared before `conn`: closed first, so that the write connection
    /// of a store opened for writing is this process's last and, when no
    /// other process has the file open, removes the `-wal` and `-shm`
    /// (a read-only connection leaves them).
    readers: Vec<Mutex<Connection>>,
    conn: Mutex<Connection>,
    /// The extensions whose tables this store has found current
    /// ([`crate::extension`]).
    ready: Mutex<Vec<&'static str>>,
    /// Declared last: released after the connections close.
    _hold: FileHold,
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

    /// Opens an existing store to read it whole, as a finished shard is:
    /// when nothing lies beside its file (no `-wal`, `-shm` or `-journal`:
    /// no process has it open, its main file holds everything), immutable
    /// ([`Mode::Immutable`]: SQLite makes no file beside it, and none is
    /// left behind); otherwise as [`Store::open_readonly`]. The file must
    /// not be written while it is open.
    pub fn open_shard(path: impl AsRef<Path>) -> Result<Store> {
        let path = path.as_ref();
        let alone = schema::SIDE_FILES
            .iter()
            .all(|s| std::fs::symlink_metadata(schema::side_file(path, s)).is_err());
        let mode = if alone && path.is_file() {
            Mode::Immutable
        } else {
            Mode::ReadOnly
        };
        Store::open_mode(path, mode)
    }

    fn open_mode(path: &Path, mode: Mode) -> Result<Store> {
        let n = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .clamp(1, 32);
        let (conn, readers, hold) = schema::open_connections(path, mode, n)?;
        Ok(Store {
            path: path.to_path_buf(),
            mode,
            readers: readers.into_iter().map(Mutex::new).collect(),
            conn: Mutex::new(conn),
            ready: Mutex::new(Vec::new()),
            _hold: hold,
        })
    }

    /// What a put's [`Applied`] means for one record: its effect, or the
    /// refusal as an error.
    pub(crate) fn applied(&self, rec: &ResultRecord, a: Applied) -> Result<PutEffect> {
        match a {
            Applied::Done(effect) => Ok(effect),
            Applied::Refused(c) => Err(StoreError::Contradiction {
                path: self.path.clone(),
                fen: to_fen(&rec.position),
                stored: c.stored,
                incoming: c.incoming,
            }),
            Applied::Unproved => Err(StoreError::Unproved {
                path: self.path.clone(),
                fen: to_fen(&rec.position),
                outcome: rec.outcome,
            }),
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the store was opened read-only.
    pub fn is_readonly(&self) -> bool {
        self.mode != Mode::ReadWrite
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

    /// Whether the extension `name`'s tables were found current.
    pub(crate) fn extension_ready(&self, name: &str) -> bool {
        let ready = self.ready.lock().unwrap_or_else(|e| e.into_inner());
        ready.contains(&name)
    }

    /// Notes that the extension `name`'s tables are current.
    pub(crate) fn mark_extension_ready(&self, name: &'static str) {
        let mut ready = self.ready.lock().unwrap_or_else(|e| e.into_inner());
        if !ready.contains(&name) {
            ready.push(name);
        }
    }

    /// Every row `sql` (with `params`) selects on the write connection,
    /// each made by `row`.
    pub(crate) fn select_rows<T, P: rusqlite::Params>(
        &self,
        sql: &str,
        params: P,
        row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>> {
        self.select_on(&self.conn(), sql, params, row)
    }

    /// Every row `sql` (with `params`) selects on `conn`, a connection of
    /// this store, each made by `row`.
    pub(crate) fn select_on<T, P: rusqlite::Params>(
        &self,
        conn: &Connection,
        sql: &str,
        params: P,
        row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>> {
        let mut stmt = conn.prepare_cached(sql).map_err(|e| self.sq(e))?;
        let rows = stmt.query_map(params, row).map_err(|e| self.sq(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.sq(e))
    }

    /// A reader connection, preferring one no other thread holds.
    pub(crate) fn reader(&self) -> MutexGuard<'_, Connection> {
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

    /// What is proved for `pos`: outcome and provenance.
    pub fn get(&self, pos: &Position) -> Result<Option<(Outcome, Provenance)>> {
        Ok(self.get_record(pos)?.map(|r| (r.outcome, r.provenance)))
    }

    /// Everything stored for `pos`, if it is proved ([`Trust::Proved`]).
    pub fn get_record(&self, pos: &Position) -> Result<Option<ResultRecord>> {
        Ok(self
            .get_row(pos)?
            .and_then(|(r, t)| t.is_proved().then_some(r)))
    }

    /// The row stored for `pos` whatever it is, with its [`Trust`].
    pub fn get_row(&self, pos: &Position) -> Result<Option<(ResultRecord, Trust)>> {
        let conn = self.reader();
        match results::select_row(&conn, pos).map_err(|e| self.sq(e))? {
            None => Ok(None),
            Some(Ok(row)) => Ok(Some(row)),
            Some(Err(d)) => Err(self.corrupt(format!("result for {}: {d}", to_fen(pos)))),
        }
    }

    /// Stores `outcome` for `pos`, intersected with what is stored: new,
    /// narrower (a bound tightened), or unchanged (already implied). A
    /// contradiction is refused with [`StoreError::Contradiction`], and a
    /// result that neither the position's stored proof trees nor the
    /// databases back with [`StoreError::Unproved`]; then nothing is
    /// changed. The proof size is recorded as 0 (unknown); see
    /// [`Store::put_record`], and [`Store::put_proof`] to store the trees
    /// with the result.
    pub fn put(&self, pos: &Position, outcome: Outcome, prov: &Provenance) -> Result<PutEffect> {
        self.put_record(&ResultRecord::new(*pos, outcome, prov.clone(), 0))
    }

    /// [`Store::put`] with the full record (proof size, date).
    pub fn put_record(&self, rec: &ResultRecord) -> Result<PutEffect> {
        self.write_tx(|tx| self.applied(rec, results::apply(tx, rec).map_err(|e| self.sq(e))?))
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

    /// Number of stored result rows (proved or not).
    pub fn result_count(&self) -> Result<u64> {
        let conn = self.reader();
        conn.query_row("SELECT count(*) FROM results", [], |r| r.get::<_, i64>(0))
            .map(|n| n as u64)
            .map_err(|e| self.sq(e))
    }

    /// Calls `f` on every proved result ([`Trust::Proved`]), in key
    /// order; the other rows are skipped. Stops at the first error (a row
    /// that does not decode is [`StoreError::Corrupt`]) or when `f` fails.
    pub fn for_each_result<E: From<StoreError>>(
        &self,
        mut f: impl FnMut(ResultRecord) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        self.for_each_row(|rec, t| if t.is_proved() { f(rec) } else { Ok(()) })
    }

    /// Calls `f` on every result row with its [`Trust`], in key order.
    /// Stops at the first error (a row that does not decode is
    /// [`StoreError::Corrupt`]) or when `f` fails.
    pub fn for_each_row<E: From<StoreError>>(
        &self,
        mut f: impl FnMut(ResultRecord, Trust) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        let conn = self.reader();
        let sql = format!(
            "SELECT {} FROM results r ORDER BY r.pos, r.stm",
            results::ROW_COLUMNS
        );
        let mut stmt = conn.prepare(&sql).map_err(|e| self.sq(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.sq(e))?;
        while let Some(row) = rows.next().map_err(|e| self.sq(e))? {
            let (rec, t) = results::decode_row(row)
                .map_err(|e| self.sq(e))?
                .map_err(|d| self.corrupt(format!("results row: {d}")))?;
            f(rec, t)?;
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

    /// Whether `pos` has a row (any outcome, proved or not).
    pub fn contains(&self, pos: &Position) -> Result<bool> {
        let conn = self.reader();
        let mut stmt = conn
            .prepare_cached("SELECT 1 FROM results WHERE pos = ?1 AND stm = ?2")
            .map_err(|e| self.sq(e))?;
        stmt.exists(rusqlite::params![&pos_key(pos)[..], stm_code(pos)])
            .map_err(|e| self.sq(e))
    }
}

impl Drop for Store {
    /// A store opened for writing copies its write-ahead log into the main
    /// file (`wal_checkpoint(TRUNCATE)`), waiting a little for readers of
    /// other processes; if they hold it longer, the log stays and the next
    /// writer's close copies it.
    fn drop(&mut self) {
        if self.mode == Mode::ReadWrite {
            let conn = self.conn();
            let _ = conn.busy_timeout(Duration::from_secs(2));
            let _ = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        }
    }
}

impl ResultSource for Store {
    /// The proved outcome of `pos`. A read error counts as "not known"
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
