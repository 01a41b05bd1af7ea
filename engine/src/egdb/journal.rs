//! The journal of a full check (`checkers egdb verify --full --journal
//! FILE`): one line a slice, written as each slice's check ends, so that
//! a check stopped or killed part way (the whole 7-piece set takes about
//! one and a half hours on 2 cores) goes on where it stopped when run
//! again with the same journal.
//!
//! A slice is taken from the journal, not checked again, only when its
//! line says it was checked with none inconsistent against the same
//! files: the line keeps a digest of the checksums of the slice's file and
//! of every file its check reads ([`check_digest`]), so a slice rebuilt,
//! or one whose reads were rebuilt, is checked again. A slice recorded
//! with inconsistencies is always checked again (its examples are printed
//! by the check, not kept here).
//!
//! Format: a first line [`JOURNAL_HEADING`], then lines of five fields
//! separated by tabs: `v1`, the slice's name, the digest in 16 hex
//! digits, the positions re-derived, the positions inconsistent. A line
//! that does not parse (the last one, cut by a kill) is ignored; a later
//! line for a slice replaces an earlier one.

use super::build::build_reads;
use super::probe::Egdb;
use super::slice::SliceKey;
use super::EgdbError;
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The first line of every journal.
pub const JOURNAL_HEADING: &str = "# checkers egdb verify --full journal";

/// The first field of a journal line of this format.
const LINE_VERSION: &str = "v1";

/// What the journal holds of one slice's check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JournalEntry {
    /// [`check_digest`] of the files the check read.
    pub digest: u64,
    /// Positions re-derived.
    pub checked: u64,
    /// Positions found inconsistent.
    pub inconsistent: u64,
}

/// An open journal: what it held when opened and later records, and the
/// file records are appended to.
pub struct VerifyJournal {
    path: PathBuf,
    entries: HashMap<String, JournalEntry>,
    ignored: usize,
    file: File,
}

impl VerifyJournal {
    /// Opens the journal at `path`, creating it when it is missing. A
    /// file that is not a journal (its first line is not
    /// [`JOURNAL_HEADING`]) is refused and left as it is.
    pub fn open(path: &Path) -> Result<VerifyJournal, EgdbError> {
        let io = |error| EgdbError::Io {
            path: path.to_path_buf(),
            error,
        };
        let text = match std::fs::read(path) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(io(e)),
        };
        let (entries, ignored) = if text.is_empty() {
            (HashMap::new(), 0)
        } else {
            parse(&text).ok_or_else(|| EgdbError::Io {
                path: path.to_path_buf(),
                error: std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("not a verify journal (its first line is not \"{JOURNAL_HEADING}\")"),
                ),
            })?
        };
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(io)?;
        if text.is_empty() {
            writeln!(file, "{JOURNAL_HEADING}").map_err(io)?;
        } else if !text.ends_with('\n') {
            // A line cut by a kill: the next record starts on a line of
            // its own.
            writeln!(file).map_err(io)?;
        }
        Ok(VerifyJournal {
            path: path.to_path_buf(),
            entries,
            ignored,
            file,
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Lines of the file that did not parse when it was opened.
    pub fn ignored(&self) -> usize {
        self.ignored
    }

    /// What the journal holds of `slice`, if anything.
    pub fn entry(&self, slice: &str) -> Option<JournalEntry> {
        self.entries.get(slice).copied()
    }

    /// The positions re-derived when `slice` was checked with none
    /// inconsistent against files of digest `digest`; `None` when it
    /// must be checked (again).
    pub fn passed(&self, slice: &str, digest: u64) -> Option<u64> {
        self.entry(slice)
            .filter(|e| e.digest == digest && e.inconsistent == 0)
            .map(|e| e.checked)
    }

    /// Records the check of `slice`, on disk before it returns.
    pub fn record(&mut self, slice: &str, entry: JournalEntry) -> Result<(), EgdbError> {
        let line = format!(
            "{LINE_VERSION}\t{slice}\t{:016x}\t{}\t{}\n",
            entry.digest, entry.checked, entry.inconsistent
        );
        self.file
            .write_all(line.as_bytes())
            .and_then(|()| self.file.sync_data())
            .map_err(|error| EgdbError::Io {
                path: self.path.clone(),
                error,
            })?;
        self.entries.insert(slice.to_string(), entry);
        Ok(())
    }
}

/// The entries of a journal's text and the number of lines ignored, or
/// `None` when its first line is not [`JOURNAL_HEADING`].
fn parse(text: &str) -> Option<(HashMap<String, JournalEntry>, usize)> {
    let mut lines = text.lines();
    if lines.next()? != JOURNAL_HEADING {
        return None;
    }
    let mut entries = HashMap::new();
    let mut ignored = 0;
    for line in lines.filter(|l| !l.is_empty()) {
        match parse_line(line) {
            Some((slice, entry)) => {
                entries.insert(slice, entry);
            }
            None => ignored += 1,
        }
    }
    Some((entries, ignored))
}

/// One journal line: the slice and its entry.
fn parse_line(line: &str) -> Option<(String, JournalEntry)> {
    let fields: Vec<&str> = line.split('\t').collect();
    let [LINE_VERSION, slice, digest, checked, inconsistent] = fields[..] else {
        return None;
    };
    SliceKey::parse(slice)?;
    if digest.len() != 16 {
        return None;
    }
    Some((
        slice.to_string(),
        JournalEntry {
            digest: u64::from_str_radix(digest, 16).ok()?,
            checked: checked.parse().ok()?,
            inconsistent: inconsistent.parse().ok()?,
        },
    ))
}

/// A digest of the files a full check of `slice` reads in `db`: the
/// checksums (from their headers, checked when they were opened) of the
/// slice's file and of each slice of [`build_reads`], in that order (a
/// read that is missing counts as 0). Another file for any of them gives
/// another digest.
pub fn check_digest(db: &Egdb, slice: SliceKey) -> u64 {
    let checksum = |s: SliceKey| db.slice_file(&s).map_or(0, |f| f.header().checksum);
    let mut reads = build_reads(slice);
    reads.sort_by_key(|s| s.name());
    std::iter::once(slice)
        .chain(reads)
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, s| {
            // FNV-1a over the checksums' bytes.
            checksum(s)
                .to_le_bytes()
                .iter()
                .fold(h, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn journal_text(lines: &[&str]) -> String {
        let mut text = format!("{JOURNAL_HEADING}\n");
        for l in lines {
            text.push_str(l);
            text.push('\n');
        }
        text
    }

    #[test]
    fn lines_that_do_not_parse_are_counted_and_a_later_line_wins() {
        let text = journal_text(&[
            "v1\t0m3k-0m1k\t00000000000000ff\t10\t0",
            "v1\t0m3k-0m1k\t00000000000000fe\t12\t0",
            "v1\t0m1k-0m1k\t0000000000000001\t5",
            "v2\t0m1k-0m1k\t0000000000000001\t5\t0",
            "v1\tnonsense\t0000000000000001\t5\t0",
            "v1\t0m1k-0m1k\t1\t5\t0",
            "v1\t0m2k-0m1k\t0000000000000003\t7\t1",
            "v1\t0m2k",
        ]);
        let (entries, ignored) = parse(&text).expect("a journal");
        assert_eq!(ignored, 5);
        assert_eq!(entries.len(), 2);
        assert_eq!(
            entries["0m3k-0m1k"],
            JournalEntry {
                digest: 0xfe,
                checked: 12,
                inconsistent: 0
            }
        );
        assert_eq!(entries["0m2k-0m1k"].inconsistent, 1);
    }

    #[test]
    fn text_without_the_heading_is_not_a_journal() {
        assert!(parse("hello\n").is_none());
        assert!(parse("v1\t0m3k-0m1k\t00000000000000ff\t10\t0\n").is_none());
    }

    #[test]
    fn a_slice_passes_only_clean_and_with_the_same_digest() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("j");
        let mut j = VerifyJournal::open(&path).unwrap();
        let clean = JournalEntry {
            digest: 7,
            checked: 40,
            inconsistent: 0,
        };
        j.record("0m3k-0m1k", clean).unwrap();
        j.record(
            "0m2k-0m1k",
            JournalEntry {
                inconsistent: 2,
                ..clean
            },
        )
        .unwrap();
        // Read back from the file, with a line cut short after them.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        write!(f, "v1\t0m1k-0m1k\t00000").unwrap();
        drop(f);
        let mut j = VerifyJournal::open(&path).unwrap();
        assert_eq!(j.ignored(), 1);
        assert_eq!(j.passed("0m3k-0m1k", 7), Some(40));
        assert_eq!(j.passed("0m3k-0m1k", 8), None);
        assert_eq!(j.passed("0m2k-0m1k", 7), None);
        assert_eq!(j.passed("0m1k-0m1k", 7), None);
        // The next record starts on a line of its own.
        j.record("0m1k-0m1k", clean).unwrap();
        let j = VerifyJournal::open(&path).unwrap();
        assert_eq!(j.ignored(), 1);
        assert_eq!(j.passed("0m1k-0m1k", 7), Some(40));
    }

    #[test]
    fn a_file_that_is_not_a_journal_is_refused_and_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("notes.txt");
        std::fs::write(&path, "my notes\n").unwrap();
        let err = VerifyJournal::open(&path).err().expect("refused");
        assert!(err.to_string().contains("not a verify journal"), "{err}");
        assert!(err.to_string().contains("notes.txt"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "my notes\n");
    }
}
