//! One builder of a slice at a time: before it builds a slice, a build
//! takes the slice's lock file in the database folder
//! (`.NAME.egdb.lock`, an advisory `flock`, [`crate::lockfile`]). A second
//! build of the same folder waits while another process builds the slice,
//! then finds it published and reads it instead of building it again.

use super::build::{BuildProgress, SliceStats};
use super::file::SliceFile;
use super::slice::SliceKey;
use super::{Egdb, EgdbError};
use crate::lockfile::FileLock;
use std::path::Path;

/// The build lock of one slice, held while it is built and published.
#[derive(Debug)]
pub struct SliceTurn {
    _lock: FileLock,
    /// What the slice's file holds when another process built it while
    /// this one waited (it is then added to the databases, not rebuilt).
    pub built_meanwhile: Option<SliceStats>,
}

/// The lock file of `slice` in `dir`.
pub fn lock_path(dir: &Path, slice: SliceKey) -> std::path::PathBuf {
    dir.join(format!(".{}.lock", slice.file_name()))
}

/// Takes the build lock of `slice` in `db`'s folder, waiting (and saying
/// so) while another process holds it. Holding it: removes the temporary
/// files that builds of the slice killed before publishing left, and,
/// when the slice's file has been published meanwhile, opens it into
/// `db` ([`SliceTurn::built_meanwhile`]).
pub fn take_turn(
    db: &mut Egdb,
    slice: SliceKey,
    progress: &dyn BuildProgress,
) -> Result<SliceTurn, EgdbError> {
    let dir = db.dir().to_path_buf();
    let path = lock_path(&dir, slice);
    let io = |error| EgdbError::Io {
        path: path.clone(),
        error,
    };
    let lock = match FileLock::try_acquire(&path).map_err(io)? {
        Some(l) => l,
        None => {
            progress.note(&format!(
                "{}: another process is building it in {}; waiting for it",
                slice.name(),
                dir.display()
            ));
            FileLock::acquire(&path).map_err(io)?
        }
    };
    let file = dir.join(slice.file_name());
    crate::durable::remove_temporaries_of(&file);
    let mut built_meanwhile = None;
    if !db.has(&slice)
        && crate::durable::regular_or_absent(&file).map_err(|error| EgdbError::Io {
            path: file.clone(),
            error,
        })?
    {
        let f = SliceFile::open(&file, slice)?;
        let h = f.header();
        let stats = SliceStats {
            positions: h.sizes[..h.tables].iter().sum(),
            counts: h.counts[..h.tables].to_vec(),
            levels: 0,
            seconds: 0.0,
            step_seconds: [0.0; 4],
            bytes: f.file_len(),
        };
        db.add(f);
        progress.note(&format!(
            "{}: built by another process meanwhile, read from {}",
            slice.name(),
            file.display()
        ));
        built_meanwhile = Some(stats);
    }
    Ok(SliceTurn {
        _lock: lock,
        built_meanwhile,
    })
}
