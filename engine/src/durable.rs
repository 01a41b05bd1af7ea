//! Files replaced whole or not at all: what the databases, the df-pn
//! checkpoints and the proof files are written through; and the checks
//! that keep every file this program opens or creates a regular file or a
//! new path (never a device, a pipe or a folder, nor a link to one).

use std::fs::{File, FileType, Metadata, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

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

/// Temporary names made by this process so far (see [`temporary_of`]).
static ATTEMPTS: AtomicU64 = AtomicU64::new(0);

/// A new temporary name for a version of `dest` being written: its name
/// with `.PID-N.tmp` appended, PID this process and N counting the names
/// it has made, so that two writers of one file (two processes, or two
/// threads) never share one.
pub fn temporary_of(dest: &Path) -> PathBuf {
    let n = ATTEMPTS.fetch_add(1, Ordering::Relaxed);
    let mut tmp = dest.as_os_str().to_owned();
    tmp.push(format!(".{}-{n}.tmp", std::process::id()));
    PathBuf::from(tmp)
}

/// Whether `name` is a temporary name [`temporary_of`] made for a file
/// named `dest_name` (by any process), or the single `.tmp` name older
/// versions used.
pub fn is_temporary_of(name: &str, dest_name: &str) -> bool {
    let Some(rest) = name
        .strip_prefix(dest_name)
        .and_then(|r| r.strip_suffix(".tmp"))
    else {
        return false;
    };
    if rest.is_empty() {
        return true;
    }
    let Some((pid, n)) = rest.strip_prefix('.').and_then(|r| r.split_once('-')) else {
        return false;
    };
    !pid.is_empty()
        && !n.is_empty()
        && pid.bytes().all(|b| b.is_ascii_digit())
        && n.bytes().all(|b| b.is_ascii_digit())
}

/// Removes the temporary files left beside `dest` by writers that ended
/// before renaming them ([`is_temporary_of`]). Only for a caller that
/// holds the lock every writer of `dest` takes (the file of a temporary
/// name still being written would otherwise be removed under its
/// writer). Returns how many were removed.
pub fn remove_temporaries_of(dest: &Path) -> usize {
    remove_siblings(dest, is_temporary_of)
}

/// Removes the regular files beside `dest` (in its folder) whose name
/// `chosen(file name, dest's name)` picks. Returns how many were removed.
pub fn remove_siblings(dest: &Path, chosen: impl Fn(&str, &str) -> bool) -> usize {
    let (Some(dir), Some(name)) = (folder_of(dest), dest.file_name()) else {
        return 0;
    };
    let name = name.to_string_lossy();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.flatten() {
        let file = e.file_name();
        if chosen(&file.to_string_lossy(), &name)
            && e.file_type().is_ok_and(|t| t.is_file())
            && std::fs::remove_file(e.path()).is_ok()
        {
            removed += 1;
        }
    }
    removed
}

/// The folder holding `path` (`.` for a bare name).
pub fn folder_of(path: &Path) -> Option<&Path> {
    match path.parent() {
        Some(d) if d.as_os_str().is_empty() => Some(Path::new(".")),
        other => other,
    }
}

/// What a file type is, in words, for a message: "a directory", "a
/// FIFO", "a character device", ...
pub fn kind_of(t: &FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else if t.is_file() {
        "a regular file"
    } else {
        "not a file"
    }
}

/// The error of a path that is not a regular file: `InvalidInput`, its
/// text "not a regular file (a FIFO)" or the like.
pub fn not_regular(meta: &Metadata) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "not a regular file ({}): give a regular file or a new path",
            kind_of(&meta.file_type())
        ),
    )
}

/// Whether `path` is a regular file (`Ok(true)`) or nothing
/// (`Ok(false)`), following links, by its metadata alone: nothing is
/// opened, so a pipe cannot block and a device is not touched. Anything
/// else is the error of [`not_regular`].
pub fn regular_or_absent(path: &Path) -> io::Result<bool> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => Ok(true),
        Ok(m) => Err(not_regular(&m)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// Opens `path` for reading after checking by its metadata that it is a
/// regular file (a pipe would block the open, a device has no end).
pub fn open_regular(path: &Path) -> io::Result<File> {
    if !regular_or_absent(path)? {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            "No such file or directory",
        ));
    }
    File::open(path)
}

/// Whether the process `pid` of this machine is running (`kill(pid, 0)`:
/// a process of another user counts as running).
#[cfg(unix)]
pub fn process_alive(pid: u32) -> bool {
    use nix::errno::Errno;
    let Ok(pid) = i32::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    !matches!(
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None),
        Err(Errno::ESRCH)
    )
}

/// Whether the process `pid` of this machine is running (always `true`
/// where this cannot be asked).
#[cfg(not(unix))]
pub fn process_alive(_pid: u32) -> bool {
    true
}

/// Replaces `dest` with what `fill` writes: into a new file of a name of
/// its own ([`temporary_of`]), which is synced to disk and renamed over
/// `dest`, and then the folder is synced. A crash or a kill at any moment
/// leaves `dest` as it was or as written, never in part (at worst a stray
/// temporary file, see [`remove_temporaries_of`]). Two writers of one
/// `dest` at once both succeed, the later rename winning. When `fill`
/// fails, `dest` is not touched and the temporary file is removed.
///
/// `dest` must be a regular file or a new path: anything else (a device
/// such as `/dev/null`, a folder, a pipe, or a link to one) is refused
/// before anything is written, instead of being replaced by a file.
pub fn replace_file(
    dest: &Path,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<(), ReplaceError> {
    regular_or_absent(dest).map_err(|source| ReplaceError {
        path: dest.to_path_buf(),
        source,
    })?;
    let at = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ReplaceError { path, source }
    };
    // A new file under a name no other writer uses: never opened through
    // a link or over another writer's temporary file.
    let (tmp, mut file) = loop {
        let tmp = temporary_of(dest);
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => break (tmp, f),
            // Left by an earlier process of the same number: next name.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(at(&tmp)(e)),
        }
    };
    let written = fill(&mut file).and_then(|()| file.sync_all());
    drop(file);
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(at(&tmp)(e));
    }
    if let Err(e) = std::fs::rename(&tmp, dest) {
        let _ = std::fs::remove_file(&tmp);
        return Err(at(dest)(e));
    }
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

    /// The name of the one file in `dir` (a failure when there are
    /// others: nothing is left beside it).
    fn only_file(dir: &Path) -> String {
        let entries: Vec<std::fs::DirEntry> = std::fs::read_dir(dir)
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(entries.len(), 1, "{entries:?}");
        entries[0].file_name().to_string_lossy().into_owned()
    }

    #[test]
    fn a_file_is_replaced_whole_and_a_failed_fill_leaves_it_as_it_was() {
        let dir = scratch("fill");
        let dest = dir.join("x.bin");
        replace_file(&dest, |f| f.write_all(b"first")).unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), b"first");
        assert_eq!(only_file(&dir), "x.bin");
        let e = replace_file(&dest, |f| {
            f.write_all(b"half")?;
            Err(io::Error::other("disk full"))
        })
        .unwrap_err();
        let tmp = e.path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(is_temporary_of(&tmp, "x.bin"), "{tmp}");
        assert!(e.to_string().contains("disk full"), "{e}");
        assert_eq!(std::fs::read(&dest).unwrap(), b"first");
        assert_eq!(only_file(&dir), "x.bin");
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
        }
        assert_eq!(only_file(&dir), "null");
        assert_eq!(std::fs::read_link(&link).unwrap(), Path::new("/dev/null"));
        let e = open_regular(&link).unwrap_err();
        assert!(e.to_string().contains("a character device"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_temporary_file_that_cannot_be_made_is_named() {
        let dir = scratch("blocked");
        // A name the system takes, whose temporary name is too long.
        let dest = dir.join("y".repeat(250));
        let e = replace_file(&dest, |f| f.write_all(b"z")).unwrap_err();
        let tmp = e.path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(is_temporary_of(&tmp, &"y".repeat(250)), "{e}");
        assert!(!dest.exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn temporary_names_are_new_and_recognised() {
        let dest = Path::new("d/a.egdb");
        let (a, b) = (temporary_of(dest), temporary_of(dest));
        assert_ne!(a, b);
        for t in [&a, &b] {
            let name = t.file_name().unwrap().to_str().unwrap();
            assert!(is_temporary_of(name, "a.egdb"), "{name}");
            assert!(!is_temporary_of(name, "b.egdb"), "{name}");
        }
        assert!(is_temporary_of("a.egdb.tmp", "a.egdb"));
        assert!(!is_temporary_of("a.egdb.x-1.tmp", "a.egdb"));
        assert!(!is_temporary_of("a.egdb", "a.egdb"));
    }

    #[test]
    fn leftover_temporary_files_are_removed() {
        let dir = scratch("leftover");
        let dest = dir.join("s.egdb");
        std::fs::write(dir.join("s.egdb.123-4.tmp"), b"x").unwrap();
        std::fs::write(dir.join("s.egdb.tmp"), b"x").unwrap();
        std::fs::write(dir.join("t.egdb.123-4.tmp"), b"x").unwrap();
        assert_eq!(remove_temporaries_of(&dest), 2);
        assert_eq!(only_file(&dir), "t.egdb.123-4.tmp");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn this_process_is_alive() {
        assert!(process_alive(std::process::id()));
        assert!(!process_alive(0));
    }
}
