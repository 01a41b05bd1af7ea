//! The ballot job's tables in the proof store's file: ballots, their main
//! lines, and the record of each ply the walk tried. The store
//! (`proofdb`) keeps the facts; these tables are this crate's, with their
//! own schema version ([`EXTENSION`], through
//! [`proofdb::extension`]), read and written with [`BallotTables`].
//!
//! Stores written before the tables had a schema of their own (store
//! schema 6 and before, whose migrations made them) are taken over as
//! they are: their tables are this schema's version 1.

mod access;
pub mod merge;
mod rows;
pub mod stats;

pub use access::BallotTables;
pub use rows::{BallotRow, JobRecord, JobStatus, LinePlyRow, Origin, RepairRow};

use proofdb::extension::Extension;

/// The ballot job's tables, as an extension of the proof store.
pub static EXTENSION: Extension = Extension {
    name: "ballots",
    migrations: MIGRATIONS,
    adopt,
};

/// The tables' migration steps (`MIGRATIONS[i]`: version `i` to `i + 1`).
/// Released steps never change.
const MIGRATIONS: &[&str] = &[
    // 0 -> 1: the tables as the store's own schema 6 left them.
    "
    CREATE TABLE ballots (
        number      INTEGER PRIMARY KEY,
        moves       TEXT    NOT NULL,
        deck        TEXT    NOT NULL CHECK (deck IN ('deck144', 'added12', 'barred')),
        ctd         INTEGER NOT NULL DEFAULT 0,
        name        TEXT    NOT NULL DEFAULT '',
        fen         TEXT    NOT NULL
    );
    CREATE TABLE main_lines (
        ballot          INTEGER NOT NULL,
        ply             INTEGER NOT NULL CHECK (ply >= 0),
        pos             BLOB    NOT NULL CHECK (length(pos) = 12),
        stm             INTEGER NOT NULL CHECK (stm IN (0, 1)),
        move            TEXT    NOT NULL,
        origin          TEXT    NOT NULL CHECK (origin IN ('published', 'archive', 'engine', 'repair')),
        score           INTEGER,
        replaced        TEXT,
        replaced_score  INTEGER,
        repair_score    INTEGER,
        PRIMARY KEY (ballot, ply)
    ) WITHOUT ROWID;
    CREATE INDEX main_lines_by_pos ON main_lines (pos, stm);
    CREATE TABLE job_records (
        ballot          INTEGER NOT NULL,
        ply             INTEGER NOT NULL CHECK (ply >= 0),
        outcome         TEXT CHECK (outcome IS NULL OR outcome IN ('win','draw','loss','>=draw','<=draw')),
        nodes           INTEGER NOT NULL,
        millis          INTEGER NOT NULL,
        proof_size      INTEGER NOT NULL,
        status          TEXT    NOT NULL CHECK (status IN ('proved', 'partial', 'budget')),
        run_id          TEXT    NOT NULL,
        updated         INTEGER NOT NULL,
        budget_millis   INTEGER,
        PRIMARY KEY (ballot, ply)
    ) WITHOUT ROWID;
    ",
];

/// Brings the ballot tables of `store` to this program's version, if it
/// has any (a store only facts were written to is left without them):
/// the version they stand at then, or `None`.
pub fn migrate(store: &proofdb::Store) -> Result<Option<u32>, proofdb::StoreError> {
    if store.extension_version(&EXTENSION)? == 0 {
        return Ok(None);
    }
    store.extension_standing(&EXTENSION)?;
    Ok(Some(EXTENSION.version()))
}

/// The version of the tables a file holds without an `extensions` row:
/// 1 when the store's own migrations made them (schema 6 and before),
/// else 0.
fn adopt(conn: &rusqlite::Connection) -> rusqlite::Result<u32> {
    let n: i64 = conn.query_row(
        "SELECT count(*) FROM sqlite_schema WHERE type = 'table' \
         AND name IN ('ballots', 'main_lines', 'job_records')",
        [],
        |r| r.get(0),
    )?;
    Ok(u32::from(n > 0))
}
