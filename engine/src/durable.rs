//! Files replaced whole or not at all: what the databases, the df-pn
//! checkpoints and the proof files are written through.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// Why [`replace_file`] failed: the file that could not be written or
/// renamed, and the system's reason.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}", path = path.display())]
pub struct ReplaceError {
    /// The temporary file (creating, writing, syncing) or the destination
    /// (renaming).
    pub path: PathBuf,
    /// Why.
    pub source: io::Error,
}

/// The temporary file [`replace_file`] writes for `dest`: its name with
/// `.tmp` appended.
pub fn temporary_of(dest: &Path) -> PathBuf {
    let mut tmp = dest.as_os_str().to_owned();
    tmp.push(".tmp");
    PathBuf::from(tmp)
}

/// Replaces `dest` with what `fill` writes: into [`temporary_of`]`(dest)`,
/// which is synced to disk and renamed over `dest`, and then the folder is
/// synced. A crash or a kill at any moment leaves `dest` as it was or as
/// written, never in part (at worst a stray temporary file, which the next
/// call replaces). When `fill` fails, `dest` is not touched.
///
/// `dest` must be a regular file or a new path: anything else (a device
/// such as `/dev/null`, a folder, a pipe, or a link to one) is refused
/// before anything is written, instead of being replaced by a file.
pub fn replace_file(
    dest: &Path,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<(), ReplaceError> {
    match std::fs::metadata(dest) {
        Ok(m) if !m.is_file() => {
            return Err(ReplaceError {
                path: dest.to_path_buf(),
                source: io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "not a regular file (a device, folder or pipe): refused, \
                     give a regular file or a new path",
                ),
            })
        }
        _ => {}
    }
    let tmp = temporary_of(dest);
    let at = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ReplaceError { path, source }
    };
    {
        let mut file = File::create(&tmp).map_err(at(&tmp))?;
        fill(&mut file).map_err(at(&tmp))?;
        file.sync_all().map_err(at(&tmp))?;
    }
    std::fs::rename(&tmp, dest).map_err(at(dest))?;
    if let Some(dir) = dest.parent().filter(|d| !d.as_os_str().is_empty()) {
        // The rename itself is durable once the folder is synced (not
        // every system can sync a folder; the file is already safe).
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("checkers-durable-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_file_is_replaced_whole_and_a_failed_fill_leaves_it_as_it_was() {
        let dir = scratch("fill");
        let dest = dir.join("x.bin");
        replace_file(&dest, |f| f.write_all(b"first")).unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), b"first");
        assert!(!temporary_of(&dest).exists());
        let e = replace_file(&dest, |f| {
            f.write_all(b"half")?;
            Err(io::Error::other("disk full"))
        })
        .unwrap_err();
        assert_eq!(e.path, temporary_of(&dest));
        assert!(e.to_string().contains("disk full"), "{e}");
        assert_eq!(std::fs::read(&dest).unwrap(), b"first");
        replace_file(&dest, |f| f.write_all(b"second")).unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), b"second");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn what_is_not_a_regular_file_is_refused_untouched() {
        let dir = scratch("device");
        let link = dir.join("null");
        std::os::unix::fs::symlink("/dev/null", &link).unwrap();
        for dest in [link.as_path(), dir.as_path()] {
            let e = replace_file(dest, |f| f.write_all(b"x")).unwrap_err();
            assert_eq!(e.path, dest);
            assert!(e.to_string().contains("not a regular file"), "{e}");
            assert!(!temporary_of(dest).exists());
        }
        assert_eq!(std::fs::read_link(&link).unwrap(), Path::new("/dev/null"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_temporary_file_that_cannot_be_made_is_named() {
        let dir = scratch("blocked");
        let dest = dir.join("y.bin");
        std::fs::create_dir_all(temporary_of(&dest)).unwrap();
        let e = replace_file(&dest, |f| f.write_all(b"z")).unwrap_err();
        assert_eq!(e.path, temporary_of(&dest));
        assert!(!dest.exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
