//! `egdb verify`.

use super::{parse_slice, thread_pool, DirArg};
use engine::egdb::file::SliceFile;
use engine::egdb::journal::{check_digest, JournalEntry, VerifyJournal};
use engine::egdb::probe::FolderEntry;
use engine::egdb::slice::SliceKey;
use engine::egdb::verify::{decode_for_verify, verify_slice};
use engine::egdb::Egdb;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub(super) struct VerifyArgs {
    /// Also re-derive every stored value from its successors.
    #[arg(long)]
    pub(super) full: bool,
    /// With --full: re-derive only the slices of this many pieces (every
    /// file is still checked by header and checksum), e.g. the 7-piece
    /// slices just built on top of 6-piece databases verified before.
    #[arg(long, value_parser = crate::limits::slice_pieces, requires = "full")]
    pub(super) pieces: Option<u32>,
    /// With --full: re-derive only this slice (e.g. 2m1k@5-1m0k@3);
    /// repeatable. Each must be present. For splitting a long check into
    /// jobs, or checking the slices just built.
    #[arg(long = "slice", value_parser = parse_slice, requires = "full")]
    pub(super) slices: Vec<SliceKey>,
    /// With --full: re-derive every K-th of the chosen slices only (in
    /// name order, starting with the first): a sample of a set too large
    /// to check in one sitting, whose time a full check can be projected
    /// from.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..), requires = "full")]
    pub(super) every: u64,
    /// With --full: record each slice's check in FILE as it ends (created
    /// when missing), and take from it the slices it records as checked
    /// with none inconsistent against the same files, so that a check
    /// stopped or killed goes on where it stopped when run again with the
    /// same FILE. A slice whose file, or a file it reads, has changed
    /// since is checked again.
    #[arg(long, value_name = "FILE", requires = "full")]
    pub(super) journal: Option<PathBuf>,
    #[command(flatten)]
    pub(super) dir: DirArg,
    /// Worker threads (default: all cores; at most 1024).
    #[arg(long, value_parser = crate::limits::threads)]
    pub(super) threads: Option<usize>,
}

pub(super) fn verify(a: VerifyArgs) -> anyhow::Result<()> {
    let dir = a.dir.get();
    let pool = thread_pool(a.threads)?;
    let mut problems = 0u64;
    let mut files = 0;
    let mut db = Egdb::empty(&dir);
    for entry in engine::egdb::probe::folder_entries(&dir)? {
        let (s, path) = match entry {
            FolderEntry::Slice(s, path) => (s, path),
            FolderEntry::Unfinished(path) => {
                eprintln!(
                    "note: {} is an unfinished build (rebuilt by the next build)",
                    path.display()
                );
                continue;
            }
            FolderEntry::Other(path) => {
                eprintln!("note: {} is not a slice file, ignored", path.display());
                continue;
            }
            FolderEntry::Misnamed { path, should_be } => {
                eprintln!("problem: {} should be named {should_be}", path.display());
                problems += 1;
                continue;
            }
        };
        files += 1;
        match SliceFile::open(&path, s) {
            Ok(f) => db.add(f),
            Err(e) => {
                eprintln!("problem: {e}");
                problems += 1;
            }
        }
    }
    println!(
        "{files} files, {problems} with a bad header, layout or checksum; complete up to {} pieces",
        db.max_pieces()
    );
    if a.full {
        for s in &a.slices {
            anyhow::ensure!(
                db.has(s),
                "--slice {s}: no valid file {} in {}",
                s.file_name(),
                dir.display()
            );
        }
        let mut chosen: Vec<(String, SliceKey, u64)> = db
            .slices()
            .iter()
            .map(|f| {
                let h = f.header();
                (h.slice.name(), h.slice, h.sizes.iter().sum::<u64>())
            })
            .filter(|(_, s, _)| {
                a.pieces.is_none_or(|n| s.pieces() == n)
                    && (a.slices.is_empty() || a.slices.contains(s))
            })
            .collect();
        chosen.sort();
        let chosen: Vec<(String, SliceKey, u64)> =
            chosen.into_iter().step_by(a.every as usize).collect();
        let total: u64 = chosen.iter().map(|c| c.2).sum();
        let bar = crate::progress::terminal_bar(
            total,
            "verify [{bar:40}] {human_pos}/{human_len} {rate} eta {eta} {msg}",
        );
        let t = Instant::now();
        let mut checked = 0u64;
        let mut inconsistent = 0u64;
        let mut journal = a.journal.as_deref().map(VerifyJournal::open).transpose()?;
        if let Some(j) = journal.as_ref().filter(|j| j.ignored() > 0) {
            eprintln!(
                "note: {} line(s) of {} did not parse and were ignored",
                j.ignored(),
                j.path().display()
            );
        }
        let mut from_journal = 0usize;
        pool.install(|| -> anyhow::Result<()> {
            for (name, s, positions) in &chosen {
                // Only a journal needs the digest.
                let digest = journal.as_ref().map(|_| check_digest(&db, *s));
                let passed = journal.as_ref().zip(digest);
                if let Some(n) = passed.and_then(|(j, d)| j.passed(name, d)) {
                    checked += n;
                    from_journal += 1;
                    bar.inc(*positions);
                    continue;
                }
                bar.set_message(name.clone());
                if let Err(e) = decode_for_verify(&mut db, *s) {
                    bar.suspend(|| eprintln!("problem: {e}"));
                    problems += 1;
                }
                let f = db.slice_file(s).expect("a chosen slice is open");
                let r = match verify_slice(&db, f, &|n| bar.inc(n)) {
                    Ok(r) => r,
                    Err(e) => {
                        bar.suspend(|| eprintln!("problem: {e}"));
                        problems += 1;
                        continue;
                    }
                };
                checked += r.checked;
                inconsistent += r.inconsistent;
                if let (Some(j), Some(digest)) = (journal.as_mut(), digest) {
                    let entry = JournalEntry {
                        digest,
                        checked: r.checked,
                        inconsistent: r.inconsistent,
                    };
                    j.record(name, entry)?;
                }
                for x in &r.examples {
                    bar.suspend(|| {
                        eprintln!("inconsistent: slice {} {}: {}", x.slice, x.fen, x.what)
                    });
                }
                if r.inconsistent > r.examples.len() as u64 {
                    bar.suspend(|| {
                        eprintln!(
                            "inconsistent: slice {}: {} more",
                            f.header().slice,
                            r.inconsistent - r.examples.len() as u64
                        )
                    });
                }
                if !std::io::stderr().is_terminal() {
                    eprintln!(
                        "[{:>7.1}s] verified {}",
                        t.elapsed().as_secs_f64(),
                        f.header().slice
                    );
                }
            }
            Ok(())
        })?;
        bar.finish_and_clear();
        problems += inconsistent;
        let journaled = match &journal {
            Some(j) => format!(
                " ({from_journal} of the slices taken from the journal {})",
                j.path().display()
            ),
            None => String::new(),
        };
        println!(
            "full check of {} slice{} ({total} positions): {checked} stored positions \
             re-derived from their successors, {inconsistent} inconsistent, {:.1} s{journaled}",
            chosen.len(),
            if chosen.len() == 1 { "" } else { "s" },
            t.elapsed().as_secs_f64()
        );
    }
    anyhow::ensure!(
        problems == 0,
        "{problems} problems found in {}",
        dir.display()
    );
    Ok(())
}
