//! Endgame databases: the exact value (win, draw, loss for the side to
//! move) of every position with few pieces.
//!
//! * [`index`]: tables (material and leading-man ranks, Black to move) and
//!   their gap-free index.
//! * [`slice`]: slices (a table and its colour-reversed table), names, build
//!   order.
//! * [`build`]: retrograde analysis of one slice.
//! * [`codec`]: compression of values in fixed-size blocks.
//! * [`file`]: the file format (docs/egdb-format.txt): header, block
//!   index, checksum, atomic publication, memory-mapped reading.
//! * [`probe`]: [`Egdb`], the database as an [`crate::Oracle`].
//! * [`unpacked`]: tables decoded into memory, two bits a position, for
//!   the fastest probes.
//! * [`scratch`]: where a build holds a slice's tables: in memory, or
//!   out of core in mapped scratch files.
//! * [`verify`]: re-derivation of every stored value from its successors.
//! * [`journal`]: what a full check has done, so that a stopped one goes
//!   on where it stopped.
//!
//! Side-to-move convention: only positions with Black to move are stored;
//! a position with White to move is looked up as its colour-reversed image
//! [`crate::Position::flipped`], which has the same value. Positions where
//! the side to move must capture are stored as "don't care" and resolved at
//! probe time by a search over the captures.

pub mod bitbase;
pub mod build;
pub mod build_lock;
mod build_order;
pub mod codec;
pub mod file;
pub mod index;
pub mod journal;
pub mod probe;
pub mod reach;
pub mod scratch;
pub mod slice;
pub mod unpacked;
pub mod verify;

pub use build::{ensure, ensure_reachable, BuildProgress, NoProgress};
pub use probe::Egdb;
pub use scratch::{BuildMemory, Builder};
pub use slice::SliceKey;

use std::path::PathBuf;
use thiserror::Error;

/// What can go wrong with endgame databases.
#[derive(Debug, Error)]
pub enum EgdbError {
    /// A file or folder could not be read or written.
    #[error("{path}: {error}")]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The system error.
        error: std::io::Error,
    },
    /// A file is not an endgame database file of this program.
    #[error("{file}: not a checkers endgame database file (bad magic)")]
    Foreign {
        /// The file.
        file: PathBuf,
    },
    /// A file of another format version.
    #[error("{file}: format version {found}, this program reads version {expected} (`checkers egdb build` sets older files aside and rebuilds them)")]
    WrongVersion {
        /// The file.
        file: PathBuf,
        /// Version in the file.
        found: u32,
        /// Version this program reads.
        expected: u32,
    },
    /// A file whose content is damaged or does not match its name.
    #[error("{file}: corrupted at byte offset {offset}: {what}")]
    Corrupted {
        /// The file.
        file: PathBuf,
        /// Byte offset of the problem.
        offset: u64,
        /// What is wrong.
        what: String,
    },
    /// A slice needed to build or probe is missing.
    #[error("slice {slice} is missing from {dir} (needed by {needed_by})")]
    MissingSlice {
        /// The missing slice.
        slice: String,
        /// The folder searched.
        dir: PathBuf,
        /// What needed it.
        needed_by: String,
    },
    /// A slice name that does not parse.
    #[error("{0:?} is not a slice name (expected e.g. 2m1k@5-1m0k@3 or 0m2k-0m1k)")]
    BadSliceName(String),
    /// More pieces than the databases are laid out for.
    #[error("{pieces} pieces asked for; databases go up to {max} pieces")]
    TooManyPieces {
        /// Pieces asked for.
        pieces: u32,
        /// The limit.
        max: u32,
    },
    /// A position with more than 63 non-capturing moves (cannot happen
    /// within the supported piece counts).
    #[error("slice {slice}: a position has {moves} moves, more than the builder counts")]
    TooManyMoves {
        /// The slice.
        slice: String,
        /// Number of moves.
        moves: usize,
    },
}

/// The default database folder: `$CHECKERS_EGDB` if set, else
/// `$HOME/.cache/checkers/egdb`, else `./egdb`.
pub fn default_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("CHECKERS_EGDB") {
        if !d.is_empty() {
            return PathBuf::from(d);
        }
    }
    match std::env::var_os("HOME") {
        Some(h) if !h.is_empty() => PathBuf::from(h).join(".cache/checkers/egdb"),
        _ => PathBuf::from("egdb"),
    }
}
