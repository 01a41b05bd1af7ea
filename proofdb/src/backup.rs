//! [`Store::backup_to`]: a consistent copy of a store, complete in its one
//! file, that replaces its destination whole or not at all, whatever lies
//! beside the destination; and the temporary files of backups.
//!
//! The copy is made under a temporary name of its own beside the
//! destination, `.NAME.backup-HOST-PID-N.tmp` (this machine, this
//! process, the backup's number in it), then renamed over it. What a
//! backup that was killed left (a full-size copy and SQLite's journal of
//! it) is removed by the next backup to the same destination once its
//! process is gone, and by [`remove_own_temporaries`] when the process is
//! interrupted (the CLI calls it on SIGTERM and SIGINT).
//!
//! The destination's own `-wal`, `-shm` and `-journal` belong to the file
//! being replaced: left beside the new file, SQLite would replay them
//! into it (a log of another database mixed into the copy). So before the
//! rename they are removed, while holding the destination's exclusive
//! SQLite lock, which proves that no live connection uses them; when
//! another process holds the destination open, the backup is refused
//! ([`StoreError::InUse`]) and the destination left as it was.

use crate::error::{Result, StoreError};
use crate::schema::{check_side_files, side_file, SIDE_FILES};
use crate::store::Store;
use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Backups made by this process so far (the N of the temporary names).
static BACKUPS: AtomicU64 = AtomicU64::new(0);

/// This machine's name as it goes into a file name.
fn host_tag() -> String {
    crate::codec::host_name()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The start of every temporary name of backups to a file named `name`.
fn prefix(name: &str) -> String {
    format!(".{name}.backup-")
}

/// Who made the temporary file `file` of a backup to a file named `name`:
/// `(host, pid)`, the host `None` for the name older versions used
/// (`.NAME.backup-PID.tmp`), with or without an SQLite side-file suffix.
fn owner(file: &str, name: &str) -> Option<(Option<String>, u32)> {
    let mut rest = file.strip_prefix(&prefix(name))?;
    for s in SIDE_FILES {
        if let Some(r) = rest.strip_suffix(s) {
            rest = r;
            break;
        }
    }
    let rest = rest.strip_suffix(".tmp")?;
    if let Ok(pid) = rest.parse::<u32>() {
        return Some((None, pid));
    }
    let mut parts = rest.rsplitn(3, '-');
    let (n, pid, host) = (parts.next()?, parts.next()?, parts.next()?);
    n.parse::<u64>().ok()?;
    Some((Some(host.to_string()), pid.parse().ok()?))
}

/// Removes the temporary files of backups to `dest` for which `whose`
/// holds (given the maker's host and pid). Returns how many.
fn remove_temporaries(dest: &Path, whose: impl Fn(Option<&str>, u32) -> bool) -> usize {
    engine::durable::remove_siblings(dest, |file, name| {
        owner(file, name).is_some_and(|(host, pid)| whose(host.as_deref(), pid))
    })
}

/// Removes the temporary files (the copy and SQLite's files beside it)
/// of every backup to `dest` this process is making: for a process that
/// is interrupted and exits. Returns how many were removed.
pub fn remove_own_temporaries(dest: &Path) -> usize {
    let (me, host) = (std::process::id(), host_tag());
    remove_temporaries(dest, |h, pid| pid == me && h.is_none_or(|h| h == host))
}

/// Removes what backups to `dest` of processes of this machine that are
/// no longer running left behind.
fn remove_stale_temporaries(dest: &Path) -> usize {
    let (me, host) = (std::process::id(), host_tag());
    remove_temporaries(dest, |h, pid| {
        pid != me && h.is_none_or(|h| h == host) && !engine::durable::process_alive(pid)
    })
}

/// The side files ([`SIDE_FILES`]) present beside `path`.
fn side_files_of(path: &Path) -> Vec<PathBuf> {
    SIDE_FILES
        .iter()
        .map(|s| side_file(path, s))
        .filter(|p| std::fs::symlink_metadata(p).is_ok())
        .collect()
}

/// Makes sure no file of the old `dest` is left beside it to be read
/// into the new one: removes its `-wal`, `-shm` and `-journal` while
/// holding `dest`'s exclusive SQLite lock (taken without waiting, in
/// exclusive locking mode, so that the lock proves no other connection
/// has the file open), or refuses with [`StoreError::InUse`] when another
/// connection holds it.
fn clear_destination(dest: &Path) -> Result<()> {
    let sides = side_files_of(dest);
    if sides.is_empty() {
        return Ok(());
    }
    let in_use = || StoreError::InUse {
        path: dest.to_path_buf(),
        side: sides
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
    };
    let remove = || -> Result<()> {
        for p in &sides {
            match std::fs::remove_file(p) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(StoreError::Io {
                        path: p.clone(),
                        source: e,
                    })
                }
            }
        }
        Ok(())
    };
    if !dest.is_file() {
        // No database: no connection can be using them.
        return remove();
    }
    let sq = |e| StoreError::sqlite(dest, e);
    let conn = Connection::open_with_flags(
        dest,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(sq)?;
    conn.busy_timeout(Duration::ZERO).map_err(sq)?;
    match conn.execute_batch("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;") {
        Ok(()) => {
            // Held: no other connection can use the files until it is
            // let go, and waiters touch them only after taking it.
            let removed = remove();
            let _ = conn.execute_batch("ROLLBACK;");
            drop(conn);
            removed
        }
        Err(e)
            if matches!(
                e.sqlite_error_code(),
                Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
            ) =>
        {
            Err(in_use())
        }
        // Not a database SQLite can read: no connection can be using it.
        Err(_) => {
            drop(conn);
            remove()
        }
    }
}

impl Store {
    /// Writes a consistent copy of the store, as it is at one moment, to
    /// `dest` with SQLite's online backup (other processes may go on
    /// writing meanwhile), and returns the number of result rows in the
    /// copy (counted in the copy itself). The copy is complete in its one
    /// file. It is made under a temporary name of its own beside `dest`,
    /// synced, then renamed over it, so `dest` is the whole copy or what
    /// it was before; files the old `dest` had beside it are removed first
    /// (see the module documentation), and a backup over a store another
    /// process has open is refused ([`StoreError::InUse`]). `dest` must be
    /// a new path or a regular file, and not the store itself. What killed
    /// backups to `dest` left is removed.
    pub fn backup_to(&self, dest: &Path) -> Result<u64> {
        let invalid = |detail: String| StoreError::Invalid {
            path: dest.to_path_buf(),
            detail,
        };
        match std::fs::metadata(dest) {
            Ok(m) if !m.is_file() => {
                return Err(StoreError::NotRegular {
                    path: dest.to_path_buf(),
                    kind: engine::durable::kind_of(&m.file_type()),
                })
            }
            _ => {}
        }
        check_side_files(dest)?;
        if let (Ok(a), Ok(b)) = (
            std::fs::canonicalize(dest),
            std::fs::canonicalize(self.path()),
        ) {
            if a == b {
                return Err(invalid("a backup cannot replace the store itself".into()));
            }
        }
        let name = dest
            .file_name()
            .ok_or_else(|| invalid("not a file name".into()))?
            .to_string_lossy()
            .into_owned();
        if let Some(dir) = engine::durable::folder_of(dest) {
            std::fs::metadata(dir).map_err(|e| StoreError::Io {
                path: dir.to_path_buf(),
                source: e,
            })?;
        }
        remove_stale_temporaries(dest);
        let n = BACKUPS.fetch_add(1, Ordering::Relaxed);
        let tmp = dest.with_file_name(format!(
            "{}{}-{}-{n}.tmp",
            prefix(&name),
            host_tag(),
            std::process::id()
        ));
        let _ = std::fs::remove_file(&tmp);
        for p in side_files_of(&tmp) {
            let _ = std::fs::remove_file(p);
        }
        let made = self.copy_into(&tmp);
        for p in side_files_of(&tmp) {
            let _ = std::fs::remove_file(p);
        }
        let count = match made.and_then(|count| clear_destination(dest).map(|()| count)) {
            Ok(count) => count,
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                return Err(e);
            }
        };
        if let Err(e) = std::fs::rename(&tmp, dest) {
            let _ = std::fs::remove_file(&tmp);
            return Err(StoreError::Io {
                path: dest.to_path_buf(),
                source: e,
            });
        }
        if let Some(dir) = engine::durable::folder_of(dest) {
            if let Ok(d) = std::fs::File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(count)
    }

    /// Copies the store into the new file `tmp` in one backup step, leaves
    /// nothing in its log, syncs it; returns the result rows of the copy.
    fn copy_into(&self, tmp: &Path) -> Result<u64> {
        let sq = |e| StoreError::sqlite(tmp, e);
        let mut out = Connection::open(tmp).map_err(sq)?;
        {
            let src = self.reader();
            let b = rusqlite::backup::Backup::new(&src, &mut out).map_err(sq)?;
            // All pages in one step: one read transaction, one moment.
            loop {
                match b.step(-1).map_err(sq)? {
                    rusqlite::backup::StepResult::Done => break,
                    _ => std::thread::sleep(Duration::from_millis(50)),
                }
            }
        }
        let count: i64 = out
            .query_row("SELECT count(*) FROM results", [], |r| r.get(0))
            .map_err(sq)?;
        // The copy keeps the store's WAL mode; leave nothing in a log.
        out.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .map_err(sq)?;
        out.close().map_err(|(_, e)| sq(e))?;
        std::fs::File::open(tmp)
            .and_then(|f| f.sync_all())
            .map_err(|e| StoreError::Io {
                path: tmp.to_path_buf(),
                source: e,
            })?;
        Ok(count as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_names_tell_their_maker() {
        assert_eq!(
            owner(".d.sqlite.backup-77.tmp", "d.sqlite"),
            Some((None, 77))
        );
        assert_eq!(
            owner(".d.sqlite.backup-77.tmp-journal", "d.sqlite"),
            Some((None, 77))
        );
        assert_eq!(
            owner(".d.sqlite.backup-node-1.x-77-3.tmp-wal", "d.sqlite"),
            Some((Some("node-1.x".into()), 77))
        );
        assert_eq!(owner(".d.sqlite.backup-77.tmp", "e.sqlite"), None);
        assert_eq!(owner(".d.sqlite.backup-x.tmp", "d.sqlite"), None);
        assert_eq!(owner("d.sqlite", "d.sqlite"), None);
    }
}
