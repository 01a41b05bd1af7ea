//! The store's schema, its versioned migrations, and opening a connection
//! with the file checks (magic, application id, truncation, version) and
//! connection settings (WAL, `busy_timeout`, `synchronous=NORMAL`).
//!
//! Migrations are append-only: `MIGRATIONS[i]` takes a store from schema
//! version `i` to `i + 1` (`PRAGMA user_version`). Never edit a released
//! step; add a new one. The layout is documented in `docs/store-schema.txt`.
//!
//! Only SQLite touches the file of a store this process has open: closing
//! any descriptor of a file drops every POSIX lock the process holds on
//! it, SQLite's included, and another process would then think itself
//! alone and checkpoint or delete the write-ahead log under the writer.
//! The raw header check before SQLite opens a file therefore runs only
//! when no connection of this process has it open ([`open_connections`]
//! keeps the count, by file identity).

use crate::error::{Result, StoreError};
use rusqlite::{Connection, OpenFlags};
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

/// `PRAGMA application_id` of a proof store: ASCII `CKPS`.
pub const APPLICATION_ID: u32 = 0x434B_5053;

/// How long a connection waits for another's lock before failing.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// The migration steps, SQL run in one transaction each; the schema
/// version is their count. Released steps never change, so a test can
/// rebuild an old store's tables from them.
pub const MIGRATIONS: &[&str] = &[
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
    // 2 -> 3: row checksums (NULL: not sealed, not trusted), and the
    // database size each proof tree was verified with (the size its
    // root's result recorded, for trees stored before). The rows an older
    // program wrote are sealed by `seal_v3` below when they are backed.
    "
    ALTER TABLE results ADD COLUMN checksum INTEGER;
    ALTER TABLE trees ADD COLUMN egdb_pieces INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE trees ADD COLUMN checksum INTEGER;
    ALTER TABLE tree_nodes ADD COLUMN checksum INTEGER;
    UPDATE trees SET egdb_pieces = coalesce(
        (SELECT r.egdb_pieces FROM results r WHERE r.pos = trees.root_pos AND r.stm = trees.root_stm), 0);
    ",
    // 3 -> 4: the engine's score of each main-line position (centi-men,
    // White's point of view; NULL for lines stored before, which were not
    // scored). Main-line rows are not sealed: nothing is trusted because
    // of them, they only say which positions a job walks.
    "
    ALTER TABLE main_lines ADD COLUMN score INTEGER;
    ",
    // 4 -> 5: a job record's budget apart from its time spent (NULL for
    // the records stored before, whose `millis` holds, for an open ply,
    // the larger of the two).
    "
    ALTER TABLE job_records ADD COLUMN budget_millis INTEGER;
    ",
    // 5 -> 6: line repairs (origin 'repair', with the move a repair
    // replaced and both moves' scores at the repair's depth; NULL on the
    // other plies). SQLite cannot change a CHECK in place: the table is
    // rebuilt with its rows, and its index again.
    "
    CREATE TABLE main_lines_v6 (
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
    INSERT INTO main_lines_v6 (ballot, ply, pos, stm, move, origin, score)
        SELECT ballot, ply, pos, stm, move, origin, score FROM main_lines;
    DROP TABLE main_lines;
    ALTER TABLE main_lines_v6 RENAME TO main_lines;
    CREATE INDEX main_lines_by_pos ON main_lines (pos, stm);
    ",
    // 6 -> 7: tables of the crates above this one have schemas of their
    // own (`crate::extension`): each one's version is a row here. The
    // ballot tables that steps 0-5 made stay as they are; the ballots
    // crate takes them over (as its version 1) when it first opens them.
    "
    CREATE TABLE extensions (
        name        TEXT    PRIMARY KEY,
        version     INTEGER NOT NULL CHECK (version >= 0)
    );
    ",
];

/// What a new store drops after its steps: the ballot job's tables that
/// steps 0-5 made for the stores of version 6 and before. Their owner
/// (the `ballots` crate) makes its own, when it first writes them.
const NOT_IN_NEW_STORES: &str = "
    DROP INDEX main_lines_by_pos;
    DROP TABLE ballots;
    DROP TABLE main_lines;
    DROP TABLE job_records;
";

/// Work a migration step does in Rust after its SQL, in the same
/// transaction (`AFTER[i]` follows `MIGRATIONS[i]`).
type AfterStep = Option<fn(&Connection) -> rusqlite::Result<()>>;

const AFTER: [AfterStep; MIGRATIONS.len()] = [None, None, Some(seal_v3), None, None, None, None];

/// The schema version this program writes.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// Tables every store of the current version has (those of the crates
/// above are theirs to check: [`crate::extension`]).
const TABLES: &[&str] = &["results", "trees", "tree_nodes", "runs", "extensions"];

/// How a connection is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Create the file if missing, migrate it to the current version.
    ReadWrite,
    /// Never write; refuse a missing or out-of-date store.
    ReadOnly,
    /// [`Mode::ReadOnly`], for a store that no process has open and that
    /// does not change while it is read (a finished shard): opened with
    /// `immutable=1`, so SQLite takes no lock and makes no `-wal` or
    /// `-shm` beside it.
    Immutable,
}

/// Identity of an open file (device and inode on Unix).
type FileKey = (u64, u64);

/// How many connections of this process hold each store file.
static OPEN_FILES: Mutex<Option<HashMap<FileKey, usize>>> = Mutex::new(None);

#[cfg(unix)]
fn file_key(path: &Path) -> Option<FileKey> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn file_key(path: &Path) -> Option<FileKey> {
    use std::hash::{Hash, Hasher};
    let p = std::fs::canonicalize(path).ok()?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    p.hash(&mut h);
    Some((0, h.finish()))
}

/// This process's hold on a store file: while any is alive, the file is
/// never opened by anything but SQLite. Dropped after its connections.
#[derive(Debug)]
pub struct FileHold {
    key: Option<FileKey>,
    count: usize,
}

impl Drop for FileHold {
    fn drop(&mut self) {
        let Some(key) = self.key else { return };
        let mut open = OPEN_FILES.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(map) = open.as_mut() {
            if let Some(n) = map.get_mut(&key) {
                *n = n.saturating_sub(self.count);
                if *n == 0 {
                    map.remove(&key);
                }
            }
        }
    }
}

/// Opens `1 + readers` connections to the store at `path` (the first in
/// `mode`, the others read-only), checking the raw file first when no
/// connection of this process has it open. Returns them with the hold
/// that must outlive them.
pub fn open_connections(
    path: &Path,
    mode: Mode,
    readers: usize,
) -> Result<(Connection, Vec<Connection>, FileHold)> {
    let mut open = OPEN_FILES.lock().unwrap_or_else(|e| e.into_inner());
    let map = open.get_or_insert_with(HashMap::new);
    let held = file_key(path).is_some_and(|k| map.contains_key(&k));
    if !held {
        check_file(path, mode)?;
    }
    let first = open_connection(path, mode)?;
    let mut rest = Vec::with_capacity(readers);
    for _ in 0..readers {
        let reading = match mode {
            Mode::ReadWrite => Mode::ReadOnly,
            other => other,
        };
        rest.push(open_connection(path, reading)?);
    }
    let key = file_key(path);
    let count = 1 + readers;
    if let Some(k) = key {
        *map.entry(k).or_insert(0) += count;
    }
    Ok((first, rest, FileHold { key, count }))
}

/// Whether `path`'s write-ahead log holds frames not yet in the main file
/// (a `stat`, which takes no descriptor).
fn wal_pending(path: &Path) -> bool {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    std::fs::metadata(&wal)
        .map(|m| m.len() > 0)
        .unwrap_or(false)
}

/// `file:` URI of `path` opened immutable (no locks, no `-shm`): for a
/// complete store in a folder this process cannot write.
fn immutable_uri(path: &Path) -> Option<String> {
    let abs = std::path::absolute(path).ok()?;
    let text = abs.to_str()?;
    let mut uri = String::from("file:");
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                uri.push(b as char)
            }
            _ => uri.push_str(&format!("%{b:02X}")),
        }
    }
    uri.push_str("?immutable=1");
    Some(uri)
}

/// Whether `e` is SQLite failing to create or write a store's side files
/// (`-shm`, `-wal`) next to a file it only reads.
fn side_files_refused(e: &rusqlite::Error) -> bool {
    use rusqlite::ErrorCode;
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::ReadOnly | ErrorCode::CannotOpen | ErrorCode::PermissionDenied)
    )
}

/// Opens one connection in `mode` and reads its application id, falling
/// back, for a read-only open of a complete store in a folder it cannot
/// write (so SQLite cannot make the WAL index), to an immutable open.
fn open_reading_id(path: &Path, mode: Mode) -> Result<(Connection, u32)> {
    let flags = match mode {
        Mode::ReadWrite => {
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX
        }
        Mode::ReadOnly | Mode::Immutable => {
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX
        }
    };
    let sq = |e| StoreError::sqlite(path, e);
    let app_id = |c: &Connection| {
        c.query_row("PRAGMA application_id", [], |r| r.get::<_, i64>(0))
            .map(|n| n as u32)
    };
    if mode == Mode::Immutable {
        let uri = immutable_uri(path).ok_or_else(|| StoreError::ReadOnly {
            path: path.to_path_buf(),
            detail: "the path cannot be written as a URI".into(),
        })?;
        let conn =
            Connection::open_with_flags(uri, flags | OpenFlags::SQLITE_OPEN_URI).map_err(sq)?;
        let app = app_id(&conn).map_err(sq)?;
        return Ok((conn, app));
    }
    let conn = Connection::open_with_flags(path, flags).map_err(sq)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(sq)?;
    match app_id(&conn) {
        Ok(app) => Ok((conn, app)),
        Err(e) if mode == Mode::ReadOnly && side_files_refused(&e) => {
            if wal_pending(path) {
                return Err(StoreError::ReadOnly {
                    path: path.to_path_buf(),
                    detail: format!(
                        "{e}: its write-ahead log (-wal) holds commits not yet in the main file \
                         and SQLite cannot open it here; open the store once read-write where it \
                         can be written, or copy it with its -wal file to a writable folder"
                    ),
                });
            }
            drop(conn);
            let uri = immutable_uri(path).ok_or_else(|| StoreError::ReadOnly {
                path: path.to_path_buf(),
                detail: format!("{e}, and the path cannot be written as a URI"),
            })?;
            let conn = Connection::open_with_flags(
                uri,
                OpenFlags::SQLITE_OPEN_READ_ONLY
                    | OpenFlags::SQLITE_OPEN_URI
                    | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
            .map_err(sq)?;
            let app = app_id(&conn).map_err(sq)?;
            Ok((conn, app))
        }
        Err(e) => Err(sq(e)),
    }
}

/// The application id, schema version and table count of the file, read
/// in one read transaction (so from one snapshot).
fn identity(conn: &Connection) -> rusqlite::Result<(u32, u32, i64)> {
    conn.execute_batch("BEGIN DEFERRED;")?;
    let read = (|| -> rusqlite::Result<(u32, u32, i64)> {
        let app = conn.query_row("PRAGMA application_id", [], |r| r.get::<_, i64>(0))? as u32;
        let version = conn.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))? as u32;
        let tables: i64 = conn.query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))?;
        Ok((app, version, tables))
    })();
    let end = conn.execute_batch("COMMIT;");
    let read = read?;
    end?;
    Ok(read)
}

/// Opens a connection to the store at `path` (the raw file is checked by
/// [`open_connections`], not here).
///
/// Refuses (with the file named): a non-SQLite file, an SQLite file of
/// another application, a newer schema, a damaged schema. In
/// [`Mode::ReadWrite`] creates and migrates. In [`Mode::ReadOnly`] never
/// writes, and reads a complete store in a read-only folder.
fn open_connection(path: &Path, mode: Mode) -> Result<Connection> {
    if mode != Mode::ReadWrite && !path.exists() {
        return Err(StoreError::ReadOnly {
            path: path.to_path_buf(),
            detail: "no such file".into(),
        });
    }
    let sq = |e| StoreError::sqlite(path, e);
    let (conn, _) = open_reading_id(path, mode)?;
    // The three in one read transaction, one moment: another process may
    // be creating the same store at once.
    let (app, version, tables) = identity(&conn).map_err(sq)?;
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
        Mode::ReadOnly | Mode::Immutable => {
            if version < SCHEMA_VERSION {
                return Err(StoreError::ReadOnly {
                    path: path.to_path_buf(),
                    detail: format!(
                        "schema version {version} needs migrating to {SCHEMA_VERSION}: `checkers db migrate --store FILE` (or any command that writes it) does it"
                    ),
                });
            }
        }
        Mode::ReadWrite => {
            let journal = wal_mode(&conn).map_err(sq)?;
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

/// `PRAGMA journal_mode = WAL`, tried again while another connection's
/// lock makes it fail at once (two processes creating the same new file:
/// SQLite does not call the busy handler for every lock this switch
/// takes), for up to [`BUSY_TIMEOUT`]. Returns the mode SQLite reports.
fn wal_mode(conn: &Connection) -> rusqlite::Result<String> {
    let start = std::time::Instant::now();
    loop {
        match conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0)) {
            Err(e)
                if matches!(
                    e.sqlite_error_code(),
                    Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
                ) && start.elapsed() < BUSY_TIMEOUT =>
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            other => return other,
        }
    }
}

/// Brings the store to [`SCHEMA_VERSION`] in one `BEGIN EXCLUSIVE`
/// transaction (under the busy timeout: another process migrating or
/// creating the same file at once is waited for), reading the version
/// again inside it, so that a step another process committed meanwhile is
/// not run twice. `from` is the version read before; nothing is done
/// when it is current.
fn migrate(conn: &Connection, path: &Path, from: u32) -> Result<()> {
    if from >= SCHEMA_VERSION {
        return Ok(());
    }
    let sq = |e| StoreError::sqlite(path, e);
    // Steps that rebuild a table need foreign keys off (the pragma is a
    // no-op inside a transaction); each step checks them before the next.
    conn.execute_batch("PRAGMA foreign_keys = OFF;")
        .map_err(sq)?;
    let done = migrate_in_transaction(conn, path);
    let on = conn.execute_batch("PRAGMA foreign_keys = ON;");
    done?;
    on.map_err(sq)
}

/// The body of [`migrate`]: the transaction, rolled back on any error.
fn migrate_in_transaction(conn: &Connection, path: &Path) -> Result<()> {
    let sq = |e| StoreError::sqlite(path, e);
    conn.execute_batch("BEGIN EXCLUSIVE;").map_err(sq)?;
    let done = (|| -> Result<()> {
        let version = conn
            .query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))
            .map_err(sq)? as u32;
        let app = conn
            .query_row("PRAGMA application_id", [], |r| r.get::<_, i64>(0))
            .map_err(sq)? as u32;
        if version > SCHEMA_VERSION {
            return Err(StoreError::TooNew {
                path: path.to_path_buf(),
                found: version,
                known: SCHEMA_VERSION,
            });
        }
        if version > 0 && app != APPLICATION_ID {
            return Err(StoreError::Foreign {
                path: path.to_path_buf(),
                found: app,
                expected: APPLICATION_ID,
            });
        }
        if version == SCHEMA_VERSION {
            // Another process migrated it meanwhile.
            return Ok(());
        }
        let tables: i64 = conn
            .query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))
            .map_err(sq)?;
        let new_file = version == 0 && tables == 0;
        for (i, step) in MIGRATIONS.iter().enumerate().skip(version as usize) {
            let to = i as u32 + 1;
            conn.execute_batch(step).map_err(sq)?;
            if let Some(after) = AFTER[i] {
                after(conn).map_err(sq)?;
            }
            let broken: i64 = conn
                .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
                    r.get(0)
                })
                .map_err(sq)?;
            if broken > 0 {
                return Err(sq(rusqlite::Error::SqliteFailure(
                    rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CONSTRAINT),
                    Some(format!(
                        "migration to version {to} leaves {broken} broken references"
                    )),
                )));
            }
        }
        if new_file {
            conn.execute_batch(NOT_IN_NEW_STORES).map_err(sq)?;
        }
        conn.execute_batch(&format!(
            "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {SCHEMA_VERSION};"
        ))
        .map_err(sq)
    })();
    match done {
        Ok(()) => conn.execute_batch("COMMIT;").map_err(sq),
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK;");
            Err(e)
        }
    }
}

/// Migration 2 -> 3, after its SQL: seals every proof tree and its nodes,
/// then every result row that its trees or the databases back (the rows
/// the new program would trust). Other rows stay unsealed: kept, listed
/// by `db check`, never used.
fn seal_v3(conn: &Connection) -> rusqlite::Result<()> {
    let ids: Vec<i64> = conn
        .prepare("SELECT id FROM trees ORDER BY id")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for id in ids {
        crate::trees::seal_tree(conn, id)?;
    }
    let sql = format!(
        "SELECT {} FROM results r ORDER BY r.pos, r.stm",
        crate::results::ROW_COLUMNS
    );
    let mut rows = Vec::new();
    {
        let mut stmt = conn.prepare(&sql)?;
        let mut q = stmt.query([])?;
        while let Some(r) = q.next()? {
            let key: Vec<u8> = r.get(0)?;
            let stm: i64 = r.get(1)?;
            let pieces: i64 = r.get(10)?;
            let trees: Option<String> = r.get(12)?;
            // A row that does not decode stays unsealed.
            if let Ok((rec, _)) = crate::results::decode_row(r)? {
                let seal = crate::results::seal(&rec, pieces);
                let questions = crate::trust::parse_questions(trees.as_deref());
                if crate::results::judge(&rec, pieces, Some(seal), &questions).is_proved() {
                    rows.push((key, stm, seal));
                }
            }
        }
    }
    let mut up = conn.prepare("UPDATE results SET checksum = ?3 WHERE pos = ?1 AND stm = ?2")?;
    for (key, stm, seal) in rows {
        up.execute(rusqlite::params![key, stm, seal])?;
    }
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

/// The files SQLite keeps beside a store: its write-ahead log, its
/// index and a rollback journal.
pub const SIDE_FILES: [&str; 3] = ["-wal", "-shm", "-journal"];

/// `path` with `suffix` appended (one of [`SIDE_FILES`]).
pub fn side_file(path: &Path, suffix: &str) -> std::path::PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(suffix);
    std::path::PathBuf::from(p)
}

/// Refuses a store whose side files ([`SIDE_FILES`]) are there but are not
/// regular files (SQLite would open them), by their metadata alone.
pub(crate) fn check_side_files(path: &Path) -> Result<()> {
    for suffix in SIDE_FILES {
        let side = side_file(path, suffix);
        if let Ok(m) = std::fs::metadata(&side) {
            if !m.is_file() {
                return Err(StoreError::NotRegular {
                    path: side,
                    kind: engine::durable::kind_of(&m.file_type()),
                });
            }
        }
    }
    Ok(())
}

/// Looks at the raw file before SQLite does: magic, application id and,
/// when no write-ahead log is pending, the length the header implies.
/// Only called when no connection of this process has the file open.
fn check_file(path: &Path, mode: Mode) -> Result<()> {
    let io = |e| StoreError::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return match mode {
                Mode::ReadWrite => check_side_files(path),
                Mode::ReadOnly | Mode::Immutable => Err(StoreError::ReadOnly {
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
    if !meta.is_file() {
        return Err(StoreError::NotRegular {
            path: path.to_path_buf(),
            kind: engine::durable::kind_of(&meta.file_type()),
        });
    }
    check_side_files(path)?;
    let len = meta.len();
    if len == 0 {
        return match mode {
            Mode::ReadWrite => Ok(()),
            Mode::ReadOnly | Mode::Immutable => Err(StoreError::ReadOnly {
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
    if !wal_pending(path) && page_size >= 512 {
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
