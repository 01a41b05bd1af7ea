//! The folder of df-pn tables a walk carries from one attempt at a
//! position to the next (`STORE.dfpn`, one file per open position, about
//! 100 MB each at the default table size), kept within a size limit.
//!
//! A batch over every ballot leaves a file at each stuck ply and at each
//! ply it walked past once the ply before was proved (gigabytes for a
//! batch: docs/measurements.md, "Figures behind the code"), so without a limit the folder grows with the batch until the
//! disk is full. The files are a cache: a position whose file is gone is
//! searched afresh, and nothing proved is lost. So when the folder holds
//! more than its limit, the files written longest ago go first (a
//! position the walk is still working on has its file rewritten at each
//! attempt).

use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The files' extension.
const EXTENSION: &str = "dfpn";

/// What [`prune`] removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pruned {
    /// Files removed.
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
    /// The bytes of the files left.
    pub kept_bytes: u64,
}

/// Removes the table files (`*.dfpn`) of `dir` written longest ago until
/// the rest hold at most `limit` bytes, never `keep` (the file of the
/// position just searched, which its next attempt reads). Files another
/// process or thread removes meanwhile are skipped; only a folder that
/// cannot be listed is an error.
pub fn prune(dir: &Path, limit: u64, keep: &Path) -> io::Result<Pruned> {
    let mut files: Vec<(SystemTime, u64, PathBuf)> = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let Ok(entry) = entry else { continue };
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some(EXTENSION) {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        if !meta.is_file() {
            continue;
        }
        let written = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
        files.push((written, meta.len(), path));
    }
    let mut pruned = Pruned {
        kept_bytes: files.iter().map(|f| f.1).sum(),
        ..Pruned::default()
    };
    // Oldest first; the name breaks ties, so the order does not depend
    // on the listing's.
    files.sort_by(|a, b| (a.0, &a.2).cmp(&(b.0, &b.2)));
    for (_, bytes, path) in files {
        if pruned.kept_bytes <= limit {
            break;
        }
        if path == keep {
            continue;
        }
        if std::fs::remove_file(&path).is_ok() {
            pruned.files += 1;
            pruned.bytes += bytes;
        }
        // Removed here, gone already (another thread's prune) or not
        // removable: it no longer counts, so one stuck file does not
        // make every other go.
        pruned.kept_bytes -= bytes;
    }
    Ok(pruned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::{File, FileTimes};
    use std::time::Duration;

    /// A file of `bytes` bytes in `dir` written `age` seconds ago.
    fn file(dir: &Path, name: &str, bytes: usize, age: u64) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, vec![0u8; bytes]).unwrap();
        let when = SystemTime::now() - Duration::from_secs(age);
        File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_times(FileTimes::new().set_modified(when))
            .unwrap();
        path
    }

    #[test]
    fn the_oldest_files_go_until_the_rest_fit_and_the_kept_one_stays() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let oldest = file(d, "a-0.dfpn", 300, 400);
        let kept = file(d, "b-0.dfpn", 300, 300);
        let older = file(d, "c-0.dfpn", 300, 200);
        let newer = file(d, "d-1.dfpn", 300, 100);
        let other = file(d, "notes.txt", 5000, 500);

        // 1,200 bytes of tables against a limit of 700: the oldest goes,
        // the kept one is passed over, the next oldest goes.
        let p = prune(d, 700, &kept).unwrap();
        assert_eq!(
            p,
            Pruned {
                files: 2,
                bytes: 600,
                kept_bytes: 600
            }
        );
        assert!(!oldest.exists() && !older.exists());
        assert!(kept.exists() && newer.exists() && other.exists());

        // Within the limit: nothing more goes.
        let p = prune(d, 700, &kept).unwrap();
        assert_eq!(p.files, 0);
        assert_eq!(p.kept_bytes, 600);
    }

    #[test]
    fn the_kept_file_stays_even_alone_over_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let kept = file(dir.path(), "a-0.dfpn", 1000, 10);
        let p = prune(dir.path(), 10, &kept).unwrap();
        assert_eq!(p.files, 0);
        assert!(kept.exists());
    }

    #[test]
    fn a_missing_folder_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let gone = dir.path().join("nothing");
        assert!(prune(&gone, 0, &gone.join("x.dfpn")).is_err());
    }
}
