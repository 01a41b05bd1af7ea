//! Tables that a crate above this one keeps in a store's file (the ballot
//! job's, `ballots::tables`), with a schema and migrations of their own.
//!
//! The store knows facts (results, proof trees, their trust, the runs that
//! wrote them) and nothing of what an extension keeps. An [`Extension`]
//! names its tables' migrations; the store records the version each
//! extension's tables stand at in its `extensions` table and brings them
//! to the extension's version, in one `BEGIN IMMEDIATE` transaction, the
//! first time this store is asked to read or write them
//! ([`Store::extension_read`], [`Store::extension_write`]). Two processes
//! doing that at once are serialised by SQLite's lock and the second finds
//! the work done.
//!
//! Tables an older program created before the extension had a schema of
//! its own are taken over: [`Extension::adopt`] reads, from the file,
//! which of the extension's versions they stand at.

use crate::error::{Result, StoreError};
use crate::store::Store;
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

/// The schema of an extension's tables.
#[derive(Debug)]
pub struct Extension {
    /// Its key in the `extensions` table.
    pub name: &'static str,
    /// Its migration steps: `migrations[i]` takes its tables from version
    /// `i` to `i + 1`; its version is their count. Released steps never
    /// change.
    pub migrations: &'static [&'static str],
    /// The version the extension's tables stand at in a file that has no
    /// `extensions` row for it (0: it has none of them).
    pub adopt: fn(&Connection) -> rusqlite::Result<u32>,
}

impl Extension {
    /// The version this program's migrations make.
    pub fn version(&self) -> u32 {
        self.migrations.len() as u32
    }
}

/// Where an extension's tables stand in a store, as read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    /// At the extension's version: read and write them.
    Current,
    /// None of its tables: an empty store, or one that only facts were
    /// written to.
    Absent,
}

/// The version recorded for `ext`, else what [`Extension::adopt`] reads;
/// with whether it was recorded.
fn stored_version(conn: &Connection, ext: &Extension) -> rusqlite::Result<(u32, bool)> {
    let row: Option<i64> = conn
        .query_row(
            "SELECT version FROM extensions WHERE name = ?1",
            [ext.name],
            |r| r.get(0),
        )
        .optional()?;
    match row {
        Some(v) => Ok((v.max(0) as u32, true)),
        None => Ok(((ext.adopt)(conn)?, false)),
    }
}

/// Brings `ext`'s tables to its version on `conn`, inside a transaction
/// the caller holds, and records it.
fn migrate(conn: &Connection, path: &std::path::Path, ext: &Extension) -> Result<()> {
    let sq = |e| StoreError::sqlite(path, e);
    let (from, _) = stored_version(conn, ext).map_err(sq)?;
    if from > ext.version() {
        return Err(too_new(path, ext, from));
    }
    for step in &ext.migrations[from as usize..] {
        conn.execute_batch(step).map_err(sq)?;
    }
    conn.execute(
        "INSERT OR REPLACE INTO extensions (name, version) VALUES (?1, ?2)",
        params![ext.name, ext.version()],
    )
    .map_err(sq)?;
    Ok(())
}

fn too_new(path: &std::path::Path, ext: &Extension, found: u32) -> StoreError {
    StoreError::Invalid {
        path: path.to_path_buf(),
        detail: format!(
            "its {} tables are at version {found}, newer than this program knows ({}); upgrade checkers",
            ext.name,
            ext.version()
        ),
    }
}

impl Store {
    /// Where `ext`'s tables stand, migrating them first when the store is
    /// open for writing (once per store and extension). Read-only, tables
    /// at an older version are refused: opening the store for writing
    /// migrates them.
    pub fn extension_standing(&self, ext: &'static Extension) -> Result<Standing> {
        if self.extension_ready(ext.name) {
            return Ok(Standing::Current);
        }
        let (version, recorded) = {
            let conn = self.conn();
            stored_version(&conn, ext).map_err(|e| self.sq(e))?
        };
        // Tables taken over at the current version are current; a store
        // open for writing records them first (below, with no step to run).
        if version == ext.version() && (recorded || self.is_readonly()) {
            self.mark_extension_ready(ext.name);
            return Ok(Standing::Current);
        }
        if version > ext.version() {
            return Err(too_new(self.path(), ext, version));
        }
        if self.is_readonly() {
            return match version {
                0 => Ok(Standing::Absent),
                v => Err(StoreError::ReadOnly {
                    path: self.path().to_path_buf(),
                    detail: format!(
                        "its {} tables are at version {v} and need migrating to {}: open it for writing once",
                        ext.name,
                        ext.version()
                    ),
                }),
            };
        }
        let path = self.path().to_path_buf();
        {
            let mut conn = self.conn();
            let tx = conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(|e| self.sq(e))?;
            migrate(&tx, &path, ext)?;
            tx.commit().map_err(|e| self.sq(e))?;
        }
        self.mark_extension_ready(ext.name);
        Ok(Standing::Current)
    }

    /// Runs `f` on the write connection (which sees this store's own
    /// latest writes) over `ext`'s tables; `absent` is the answer when the
    /// store has none of them (read-only).
    pub fn extension_read<T>(
        &self,
        ext: &'static Extension,
        absent: impl FnOnce() -> T,
        f: impl FnOnce(&Connection) -> Result<T>,
    ) -> Result<T> {
        match self.extension_standing(ext)? {
            Standing::Absent => Ok(absent()),
            Standing::Current => f(&self.conn()),
        }
    }

    /// Every row `sql` (with `params`) selects from `ext`'s tables, each
    /// made by `row`; none when the store has none of them (read-only).
    pub fn extension_select<T, P: rusqlite::Params>(
        &self,
        ext: &'static Extension,
        sql: &str,
        params: P,
        row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>> {
        self.extension_read(ext, Vec::new, |conn| self.select_on(conn, sql, params, row))
    }

    /// Runs `f` over `ext`'s tables (migrated first) in one `BEGIN
    /// IMMEDIATE` transaction: committed when it returns `Ok`, rolled back
    /// otherwise.
    pub fn extension_write<T>(
        &self,
        ext: &'static Extension,
        f: impl FnOnce(&Connection) -> Result<T>,
    ) -> Result<T> {
        self.writable()?;
        self.extension_standing(ext)?;
        self.write_tx(f)
    }

    /// The version `ext`'s tables stand at in the file (recorded, or read
    /// by [`Extension::adopt`]; 0: it has none), without migrating.
    pub fn extension_version(&self, ext: &'static Extension) -> Result<u32> {
        let conn = self.conn();
        Ok(stored_version(&conn, ext).map_err(|e| self.sq(e))?.0)
    }

    /// An SQLite error of this store, as [`StoreError`] (naming its file).
    pub fn sql_error(&self, e: rusqlite::Error) -> StoreError {
        self.sq(e)
    }

    /// A row of this store that breaks its schema's contract.
    pub fn corrupt_row(&self, detail: impl Into<String>) -> StoreError {
        self.corrupt(detail)
    }

    /// A value passed in that the schema cannot hold.
    pub fn invalid_input(&self, detail: impl Into<String>) -> StoreError {
        StoreError::Invalid {
            path: self.path().to_path_buf(),
            detail: detail.into(),
        }
    }
}
