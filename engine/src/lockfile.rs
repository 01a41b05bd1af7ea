//! Advisory locks between processes: a lock file taken with `flock`, so
//! that two writers of the same thing (two builds of one database slice)
//! take turns instead of writing it at once.
//!
//! The lock file exists only while it is held: the holder removes it
//! before letting go, and a waiter that then gets the lock on the removed
//! file sees that its name is gone (or names another file) and tries
//! again, so no lock file is left behind and two holders never hold two
//! different files of one name.

use nix::fcntl::{Flock, FlockArg};
use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

/// A held lock: released (and its file removed) when dropped.
#[derive(Debug)]
pub struct FileLock {
    path: PathBuf,
    // Declared last: unlocked after the name is removed.
    _file: Flock<File>,
}

impl FileLock {
    /// Takes the lock of `path`, waiting while another process holds it.
    /// `path` must be a regular file or a new path.
    pub fn acquire(path: &Path) -> io::Result<FileLock> {
        loop {
            if let Some(l) = Self::attempt(path, FlockArg::LockExclusive)? {
                return Ok(l);
            }
        }
    }

    /// Takes the lock of `path` if no other process holds it; `None` if
    /// one does.
    pub fn try_acquire(path: &Path) -> io::Result<Option<FileLock>> {
        loop {
            match Self::attempt(path, FlockArg::LockExclusiveNonblock) {
                // The file was removed as we got it: try again.
                Ok(None) if !Self::held_elsewhere(path) => continue,
                other => return other,
            }
        }
    }

    /// Whether the last failed attempt failed because another process
    /// holds the lock (the file is there).
    fn held_elsewhere(path: &Path) -> bool {
        path.exists()
    }

    /// One attempt: `Ok(None)` when the lock is held by another process
    /// (non-blocking) or the file we locked was removed meanwhile.
    fn attempt(path: &Path, how: FlockArg) -> io::Result<Option<FileLock>> {
        crate::durable::regular_or_absent(path)?;
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        let file = match Flock::lock(file, how) {
            Ok(f) => f,
            Err((_, nix::errno::Errno::EWOULDBLOCK)) => return Ok(None),
            Err((_, e)) => return Err(io::Error::from(e)),
        };
        // The holder before us removes the file before unlocking it: ours
        // must still be the file of that name.
        if !Self::same_file(&file, path) {
            return Ok(None);
        }
        Ok(Some(FileLock {
            path: path.to_path_buf(),
            _file: file,
        }))
    }

    fn same_file(file: &File, path: &Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        match (file.metadata(), std::fs::metadata(path)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for FileLock {
    /// Removes the file, then unlocks it (the field's drop).
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_is_held_by_one_at_a_time_and_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".x.lock");
        let a = FileLock::acquire(&path).unwrap();
        assert!(path.exists());
        assert!(FileLock::try_acquire(&path).unwrap().is_none());
        let waiter = {
            let path = path.clone();
            std::thread::spawn(move || {
                let l = FileLock::acquire(&path).unwrap();
                drop(l);
            })
        };
        std::thread::sleep(std::time::Duration::from_millis(50));
        drop(a);
        waiter.join().unwrap();
        assert!(!path.exists());
        let b = FileLock::try_acquire(&path).unwrap();
        assert!(b.is_some());
        drop(b);
        assert!(!path.exists());
    }
}
