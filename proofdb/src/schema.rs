//! The store's schema, its versioned migrations, and opening a connection
//! with the file checks (magic, application id, truncation, version) and
//! connection settings (WAL, `busy_timeout`, `synchronous=NORMAL`).
//!
//! Migrations are append-only: `MIGRATIONS[i]` takes a store from schema
//! version `i` to `i + 1` (`PRAGMA user_version`). Never edit a released
//! step; add a new one. The layout is documented in `docs/store-schema.txt`.

use crate::error::{Result, StoreError};
use rusqlite::{Connection, OpenFlags};
use std::io::Read;
use std::path::Path;
use std::time::Duration;

/// `PRAGMA application_id` of a proof store: ASCII `CKPS`.
pub const APPLICATION_ID: u32 = 0x434B_5053;

/// How long a connection waits for another's lock before failing.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// The migration steps; the schema version is their count.
const MIGRATIONS: &[&str] = &[
    // 0 -> 1: results, proof trees, ballots, main lines, job records, runs.
    "
    CREATE TABLE results (
        pos         BLOB    NOT NULL CHECK (length(pos) = 12),
        stm         INTEGER NOT NULL CHECK (stm IN (0, 1)),
        outcome     TEXT    NOT NULL CHECK (outcome IN ('win','draw','loss','>=draw','<=draw')),
        pieces      INTEGER NOT NULL,
        solver      TEXT    NOT NULL,
        nodes       INTEGER NOT NULL,
        millis      INTEGER NOT NULL,
        egdb_pieces INTEGER NOT NULL,
        proof_size  INTEGER NOT NULL,
        proved_at   INTEGER NOT NULL,
        run_id      TEXT    NOT NULL,
        PRIMARY KEY (pos, stm)
    ) WITHOUT ROWID;
    CREATE TABLE trees (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        root_pos    BLOB    NOT NULL CHECK (length(root_pos) = 12),
        root_stm    INTEGER NOT NULL CHECK (root_stm IN (0, 1)),
        question    TEXT    NOT NULL CHECK (question IN ('win', 'draw')),
        node_count  INTEGER NOT NULL,
        created     INTEGER NOT NULL,
        run_id      TEXT    NOT NULL,
        UNIQUE (root_pos, root_stm, question)
    );
    CREATE TABLE tree_nodes (
        tree_id     INTEGER NOT NULL REFERENCES trees(id) ON DELETE CASCADE,
        pos         BLOB    NOT NULL CHECK (length(pos) = 12),
        stm         INTEGER NOT NULL CHECK (stm IN (0, 1)),
        kind        TEXT    NOT NULL CHECK (kind IN ('prover', 'opponent', 'leaf')),
        from_sq     INTEGER,
        to_sq       INTEGER,
        captured    INTEGER,
        leaf        TEXT CHECK (leaf IS NULL OR leaf IN ('terminal', 'egdb', 'store')),
        PRIMARY KEY (tree_id, pos, stm)
    ) WITHOUT ROWID;
    CREATE INDEX tree_nodes_by_pos ON tree_nodes (pos, stm);
    CREATE TABLE ballots (
        number      INTEGER PRIMARY KEY,
        moves       TEXT    NOT NULL,
        deck        TEXT    NOT NULL CHECK (deck IN ('deck144', 'added12', 'barred')),
        ctd         INTEGER NOT NULL DEFAULT 0,
        name        TEXT    NOT NULL DEFAULT '',
        fen         TEXT    NOT NULL
    );
    CREATE TABLE main_lines (
        ballot      INTEGER NOT NULL,
        ply         INTEGER NOT NULL CHECK (ply >= 0),
        pos         BLOB    NOT NULL CHECK (length(pos) = 12),
        stm         INTEGER NOT NULL CHECK (stm IN (0, 1)),
        move        TEXT    NOT NULL,
        origin      TEXT    NOT NULL CHECK (origin IN ('published', 'archive', 'engine')),
        PRIMARY KEY (ballot, ply)
    ) WITHOUT ROWID;
    CREATE INDEX main_lines_by_pos ON main_lines (pos, stm);
    CREATE TABLE job_records (
        ballot      INTEGER NOT NULL,
        ply         INTEGER NOT NULL CHECK (ply >= 0),
        outcome     TEXT CHECK (outcome IS NULL OR outcome IN ('win','draw','loss','>=draw','<=draw')),
        nodes       INTEGER NOT NULL,
        millis      INTEGER NOT NULL,
        proof_size  INTEGER NOT NULL,
        status      TEXT    NOT NULL CHECK (status IN ('proved', 'partial', 'budget', 'running', 'error')),
        run_id      TEXT    NOT NULL,
        updated     INTEGER NOT NULL,
        PRIMARY KEY (ballot, ply)
    ) WITHOUT ROWID;
    CREATE TABLE runs (
        id          TEXT    PRIMARY KEY,
        started     INTEGER NOT NULL,
        finished    INTEGER,
        command     TEXT    NOT NULL,
        host        TEXT    NOT NULL
    );
    ",
    // 1 -> 2: proof trees of the opponent's questions too ('notwin': the
    // side to move does not win; 'loss': it loses). SQLite cannot change a
    // CHECK in place: the table is rebuilt with its ids (foreign keys are
    // off while migrating, so tree_nodes keeps its rows).
    "
    CREATE TABLE trees_v2 (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        root_pos    BLOB    NOT NULL CHECK (length(root_pos) = 12),
        root_stm    INTEGER NOT NULL CHECK (root_stm IN (0, 1)),
        question    TEXT    NOT NULL CHECK (question IN ('win', 'draw', 'notwin', 'loss')),
        node_count  INTEGER NOT NULL,
        created     INTEGER NOT NULL,
        run_id      TEXT    NOT NULL,
        UNIQUE (root_pos, root_stm, question)
    );
    INSERT INTO trees_v2 (id, root_pos, root_stm, question, node_count, created, run_id)
        SELECT id, root_pos, root_stm, question, node_count, created, run_id FROM trees;
    DROP TABLE trees;
    ALTER TABLE trees_v2 RENAME TO trees;
    ",
];

/// The schema version this program writes.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// Tables every store of the current version has.
const TABLES: &[&str] = &[
    "results",
    "trees",
    "tree_nodes",
    "ballots",
    "main_lines",
    "job_records",
    "runs",
];

/// How a connection is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Create the file if missing, migrate it to the current version.
    ReadWrite,
    /// Never write; refuse a missing or out-of-date store.
    ReadOnly,
}

/// Opens a connection to the store at `path`, checking the file first.
///
/// Refuses (with the file named): a non-SQLite file, an SQLite file of
/// another application, a file shorter than its header says, a newer
/// schema, a damaged schema. In [`Mode::ReadWrite`] creates and migrates.
pub fn open_connection(path: &Path, mode: Mode) -> Result<Connection> {
    check_file(path, mode)?;
    let flags = match mode {
        Mode::ReadWrite => {
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX
        }
        Mode::ReadOnly => OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    };
    let sq = |e| StoreError::sqlite(path, e);
    let conn = Connection::open_with_flags(path, flags).map_err(sq)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(sq)?;
    let app: u32 = conn
        .query_row("PRAGMA application_id", [], |r| r.get::<_, i64>(0))
        .map_err(sq)? as u32;
    let version: u32 = conn
        .query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))
        .map_err(sq)? as u32;
    let tables: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))
        .map_err(sq)?;
    let fresh = app == 0 && version == 0 && tables == 0;
    if !fresh && app != APPLICATION_ID {
        return Err(StoreError::Foreign {
            path: path.to_path_buf(),
            found: app,
            expected: APPLICATION_ID,
        });
    }
    if version > SCHEMA_VERSION {
        return Err(StoreError::TooNew {
            path: path.to_path_buf(),
            found: version,
            known: SCHEMA_VERSION,
        });
    }
    match mode {
        Mode::ReadOnly => {
            if version < SCHEMA_VERSION {
                return Err(StoreError::ReadOnly {
                    path: path.to_path_buf(),
                    detail: format!(
                        "schema version {version} needs migrating to {SCHEMA_VERSION}; open it once read-write"
                    ),
                });
            }
        }
        Mode::ReadWrite => {
            let journal: String = conn
                .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
                .map_err(sq)?;
            if !journal.eq_ignore_ascii_case("wal") {
                return Err(StoreError::NoWal {
                    path: path.to_path_buf(),
                    mode: journal,
                });
            }
            conn.execute_batch("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;")
                .map_err(sq)?;
            migrate(&conn, path, version)?;
        }
    }
    check_tables(&conn, path)?;
    Ok(conn)
}

/// Runs the migration steps after `from`, each in its own transaction.
fn migrate(conn: &Connection, path: &Path, from: u32) -> Result<()> {
    let sq = |e| StoreError::sqlite(path, e);
    // Steps that rebuild a table need foreign keys off (the pragma is a
    // no-op inside a transaction); each step checks them before it commits.
    conn.execute_batch("PRAGMA foreign_keys = OFF;")
        .map_err(sq)?;
    for (i, step) in MIGRATIONS.iter().enumerate().skip(from as usize) {
        let to = i as u32 + 1;
        let done = conn
            .execute_batch(&format!("BEGIN IMMEDIATE; {step};"))
            .and_then(|_| {
                let broken: i64 =
                    conn.query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
                        r.get(0)
                    })?;
                if broken > 0 {
                    return Err(rusqlite::Error::SqliteFailure(
                        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CONSTRAINT),
                        Some(format!(
                            "migration to version {to} leaves {broken} broken references"
                        )),
                    ));
                }
                conn.execute_batch(&format!(
                    "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {to}; COMMIT;"
                ))
            });
        if let Err(e) = done {
            let _ = conn.execute_batch("ROLLBACK; PRAGMA foreign_keys = ON;");
            return Err(sq(e));
        }
    }
    conn.execute_batch("PRAGMA foreign_keys = ON;")
        .map_err(sq)?;
    Ok(())
}

/// Checks that every table of the current schema exists.
fn check_tables(conn: &Connection, path: &Path) -> Result<()> {
    let sq = |e| StoreError::sqlite(path, e);
    let mut stmt = conn
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table'")
        .map_err(sq)?;
    let names: Vec<String> = stmt
        .query_map([], |r| r.get(0))
        .map_err(sq)?
        .collect::<std::result::Result<_, _>>()
        .map_err(sq)?;
    for t in TABLES {
        if !names.iter().any(|n| n == t) {
            return Err(StoreError::Corrupt {
                path: path.to_path_buf(),
                detail: format!("table {t} is missing"),
            });
        }
    }
    Ok(())
}

/// Looks at the raw file before SQLite does: magic, application id and,
/// when no write-ahead log is pending, the length the header implies.
fn check_file(path: &Path, mode: Mode) -> Result<()> {
    let io = |e| StoreError::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return match mode {
                Mode::ReadWrite => Ok(()),
                Mode::ReadOnly => Err(StoreError::ReadOnly {
                    path: path.to_path_buf(),
                    detail: "no such file".into(),
                }),
            };
        }
        Err(e) => return Err(io(e)),
    };
    if meta.is_dir() {
        return Err(StoreError::NotSqlite {
            path: path.to_path_buf(),
            detail: "it is a directory".into(),
        });
    }
    let len = meta.len();
    if len == 0 {
        return match mode {
            Mode::ReadWrite => Ok(()),
            Mode::ReadOnly => Err(StoreError::ReadOnly {
                path: path.to_path_buf(),
                detail: "empty file".into(),
            }),
        };
    }
    let mut header = [0u8; 100];
    let mut f = std::fs::File::open(path).map_err(io)?;
    let mut got = 0;
    while got < header.len() {
        let n = f.read(&mut header[got..]).map_err(io)?;
        if n == 0 {
            break;
        }
        got += n;
    }
    if got < 100 || &header[..16] != b"SQLite format 3\0" {
        return Err(StoreError::NotSqlite {
            path: path.to_path_buf(),
            detail: format!("no SQLite header in its first {got} bytes"),
        });
    }
    let be32 =
        |o: usize| u32::from_be_bytes([header[o], header[o + 1], header[o + 2], header[o + 3]]);
    let app = be32(68);
    if app != APPLICATION_ID && app != 0 {
        return Err(StoreError::Foreign {
            path: path.to_path_buf(),
            found: app,
            expected: APPLICATION_ID,
        });
    }
    let page_size = match u16::from_be_bytes([header[16], header[17]]) {
        1 => 65536u64,
        n => n as u64,
    };
    let header_pages = be32(28) as u64;
    let header_size_valid = be32(92) == be32(24) && header_pages > 0;
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    let wal_pending = std::fs::metadata(&wal)
        .map(|m| m.len() > 0)
        .unwrap_or(false);
    if !wal_pending && page_size >= 512 {
        let expected = header_pages * page_size;
        if (header_size_valid && len < expected) || len % page_size != 0 {
            return Err(StoreError::Truncated {
                path: path.to_path_buf(),
                expected: if header_size_valid {
                    expected
                } else {
                    len.div_ceil(page_size) * page_size
                },
                actual: len,
            });
        }
    }
    Ok(())
}

/// `PRAGMA integrity_check`: `Ok(())` when SQLite reports `ok`, else the
/// problems it lists (first 20) as [`StoreError::Corrupt`].
pub fn integrity_check(conn: &Connection, path: &Path) -> Result<()> {
    check_pragma(conn, path, "integrity_check")
}

/// `PRAGMA quick_check`, reported like [`integrity_check`].
pub fn quick_check(conn: &Connection, path: &Path) -> Result<()> {
    check_pragma(conn, path, "quick_check")
}

fn check_pragma(conn: &Connection, path: &Path, pragma: &str) -> Result<()> {
    let sq = |e| StoreError::sqlite(path, e);
    let mut stmt = conn.prepare(&format!("PRAGMA {pragma}(20)")).map_err(sq)?;
    let lines: Vec<String> = stmt
        .query_map([], |r| r.get(0))
        .map_err(sq)?
        .collect::<std::result::Result<_, _>>()
        .map_err(sq)?;
    if lines.len() == 1 && lines[0] == "ok" {
        Ok(())
    } else {
        Err(StoreError::Corrupt {
            path: path.to_path_buf(),
            detail: lines.join("; "),
        })
    }
}
