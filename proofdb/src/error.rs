//! Errors of the proof store. Every variant names the store file involved.

use crate::outcome::Outcome;
use std::path::PathBuf;
use thiserror::Error;

/// Why a store operation failed.
#[derive(Debug, Error)]
pub enum StoreError {
    /// The file is not an SQLite database at all.
    #[error("{path}: not a proof store (not an SQLite database: {detail})")]
    NotSqlite {
        /// The file.
        path: PathBuf,
        /// What was found instead.
        detail: String,
    },
    /// The path names a device, a pipe, a folder or a link to one: a store
    /// (and each file SQLite keeps beside it) is a regular file or a new
    /// path. Found by its metadata, without opening it.
    #[error("{path}: not a regular file ({kind}): a proof store is a regular file or a new path")]
    NotRegular {
        /// The path.
        path: PathBuf,
        /// What it is ("a FIFO", "a character device", ...).
        kind: &'static str,
    },
    /// The backup's destination is held by another process: the
    /// files beside it belong to a live connection.
    #[error("{path}: in use by another process ({side} belongs to its open connection): a backup does not replace a store in use; stop that process or choose another destination")]
    InUse {
        /// The destination.
        path: PathBuf,
        /// The side files found beside it.
        side: String,
    },
    /// The file is an SQLite database made by some other program.
    #[error("{path}: not a proof store (SQLite database with application_id {found:#010x}, expected {expected:#010x})")]
    Foreign {
        /// The file.
        path: PathBuf,
        /// Its application id.
        found: u32,
        /// Ours.
        expected: u32,
    },
    /// The file is shorter than its own header says.
    #[error("{path}: truncated proof store: {actual} bytes, its header says {expected}")]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Length the header implies.
        expected: u64,
        /// Actual length.
        actual: u64,
    },
    /// SQLite found the file damaged, or a row breaks the schema's contract.
    #[error("{path}: corrupt proof store: {detail}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// The store was written by a newer version of this program.
    #[error("{path}: store schema version {found} is newer than this program knows ({known}); upgrade checkers")]
    TooNew {
        /// The file.
        path: PathBuf,
        /// Its schema version.
        found: u32,
        /// The newest version this program knows.
        known: u32,
    },
    /// A read-only open of a store that needs migrating (or does not exist).
    #[error("{path}: cannot open read-only: {detail}")]
    ReadOnly {
        /// The file.
        path: PathBuf,
        /// Why.
        detail: String,
    },
    /// WAL mode could not be set.
    #[error("{path}: could not switch to WAL journal mode (got {mode:?})")]
    NoWal {
        /// The file.
        path: PathBuf,
        /// The journal mode SQLite reported.
        mode: String,
    },
    /// An incoming result contradicts the stored one; nothing was changed.
    #[error("{path}: result for {fen} refused: stored {stored} contradicts incoming {incoming}")]
    Contradiction {
        /// The file.
        path: PathBuf,
        /// The position, as FEN.
        fen: String,
        /// What the store holds.
        stored: Outcome,
        /// What was offered.
        incoming: Outcome,
    },
    /// A result that neither stored proof trees nor the databases back;
    /// nothing was changed.
    #[error(
        "{path}: result {outcome} for {fen} refused: no proof tree or database value backs it"
    )]
    Unproved {
        /// The file.
        path: PathBuf,
        /// The position, as FEN.
        fen: String,
        /// What was offered.
        outcome: Outcome,
    },
    /// A value passed in is out of the schema's range.
    #[error("{path}: invalid input: {detail}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// Any other SQLite error.
    #[error("{path}: {source}")]
    Sqlite {
        /// The file.
        path: PathBuf,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },
    /// File system error.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The background writer thread stopped.
    #[error("{path}: the store writer thread stopped: {detail}")]
    WriterGone {
        /// The file.
        path: PathBuf,
        /// Why, when known.
        detail: String,
    },
}

impl StoreError {
    /// Wraps an SQLite error, turning "not a database" and "corrupt" codes
    /// into their own variants.
    pub fn sqlite(path: &std::path::Path, e: rusqlite::Error) -> StoreError {
        use rusqlite::ErrorCode;
        let path = path.to_path_buf();
        match e.sqlite_error_code() {
            Some(ErrorCode::NotADatabase) => StoreError::NotSqlite {
                path,
                detail: e.to_string(),
            },
            Some(ErrorCode::DatabaseCorrupt) => StoreError::Corrupt {
                path,
                detail: e.to_string(),
            },
            _ => StoreError::Sqlite { path, source: e },
        }
    }
}

/// Shorthand: `Result<T, StoreError>`.
pub type Result<T> = std::result::Result<T, StoreError>;
