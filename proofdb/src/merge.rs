//! Folding a shard (a store written elsewhere) into a store without losing
//! anything.
//!
//! Proof trees the store lacks are copied first (a damaged one is skipped
//! and reported); then results are intersected one by one exactly as
//! [`crate::Store::put`] does; a contradiction is refused (the stored
//! result stays, the refusal is reported with both outcomes) and the merge
//! goes on. A shard result that is not proved in the shard (no seal, a
//! changed row, nothing backing it: [`crate::Trust`]) is refused and
//! reported, and so is one the copied trees do not back. Proof trees and
//! runs the store lacks are copied (the tables of the crates above are
//! theirs to fold: the ballot job's by `ballots::tables::merge`). The shard is opened read-only and
//! checked (`PRAGMA quick_check`) first. Results are committed in chunks;
//! a merge that is interrupted can simply be run again (already merged
//! results come back "unchanged").

use crate::error::{Result, StoreError};
use crate::results::ResultRecord;
use crate::store::Store;
use crate::trust::Trust;
use crate::writer::{Refusal, WriterReport};
use engine::Position;
use std::path::Path;

/// Results per transaction while merging.
const CHUNK: usize = 20_000;

/// Proof trees per transaction while merging.
const TREE_CHUNK: usize = 1_000;

/// What a merge did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MergeReport {
    /// Results in the shard.
    pub seen: u64,
    /// Results the store did not have.
    pub new: u64,
    /// Results that narrowed a stored bound.
    pub tightened: u64,
    /// Results already implied by the store.
    pub unchanged: u64,
    /// Results refused as contradictions.
    pub refused: Vec<Refusal>,
    /// Results refused because they are not proved: why (in the shard),
    /// or [`Trust::Unproved`] when the copied trees do not back them.
    pub unproved: Vec<(Position, Trust)>,
    /// Proof trees of the shard skipped as damaged (tree id, why).
    pub trees_damaged: Vec<(i64, String)>,
    /// Proof trees of the shard not copied because they contradict what
    /// the store holds for their root (the results they back are then
    /// refused as contradictions).
    pub trees_contradicting: u64,
    /// Proof trees copied.
    pub trees_copied: u64,
    /// Proof trees already present (same root and question).
    pub trees_present: u64,
    /// Runs copied.
    pub runs_copied: u64,
}

/// Folds the shard at `shard` into `store` ([`open_shard_for`], then
/// [`merge_from`]). `progress` is called with the number of shard results
/// handled so far after each chunk.
pub fn merge_shard(store: &Store, shard: &Path, progress: impl FnMut(u64)) -> Result<MergeReport> {
    let src = open_shard_for(store, shard)?;
    merge_from(store, &src, progress)
}

/// Opens the shard at `shard` to be folded into `store` (which must be
/// writable and another file), checked with `PRAGMA quick_check`.
pub fn open_shard_for(store: &Store, shard: &Path) -> Result<Store> {
    store.writable()?;
    let same = match (
        std::fs::canonicalize(shard),
        std::fs::canonicalize(store.path()),
    ) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same {
        return Err(StoreError::Invalid {
            path: shard.to_path_buf(),
            detail: "cannot merge a store into itself".into(),
        });
    }
    let src = Store::open_shard(shard)?;
    src.quick_check()?;
    Ok(src)
}

/// Folds the shard `src` (opened by [`open_shard_for`]) into `store`.
/// `progress` is called with the number of shard results handled so far
/// after each chunk.
pub fn merge_from(
    store: &Store,
    src: &Store,
    mut progress: impl FnMut(u64),
) -> Result<MergeReport> {
    let mut report = MergeReport::default();

    // Trees first: the results they back are refused without them. Read
    // from the shard a chunk at a time, written in one transaction each.
    let infos = src.trees()?;
    for part in infos.chunks(TREE_CHUNK) {
        let mut copy = Vec::with_capacity(part.len());
        for info in part {
            if store.tree_info(&info.root, info.question)?.is_some() {
                report.trees_present += 1;
                continue;
            }
            if !store.tree_fits(&info.root, info.question)? {
                report.trees_contradicting += 1;
                continue;
            }
            match src.get_tree_by_id(info.id) {
                Ok(Some(tree)) => copy.push((tree, info)),
                Ok(None) => {}
                Err(e @ StoreError::Corrupt { .. }) => {
                    report.trees_damaged.push((info.id, e.to_string()));
                }
                Err(e) => return Err(e),
            }
        }
        store.write_tx(|tx| {
            for (tree, info) in &copy {
                crate::trees::insert_tree_on(
                    tx,
                    store.path(),
                    tree,
                    &info.run_id,
                    info.egdb_pieces,
                    info.created,
                )?;
            }
            Ok(())
        })?;
        report.trees_copied += copy.len() as u64;
    }

    let mut chunk: Vec<ResultRecord> = Vec::with_capacity(CHUNK);
    let mut flush = |chunk: &mut Vec<ResultRecord>, report: &mut MergeReport| -> Result<()> {
        let applied = store.put_many(chunk)?;
        let mut delta = WriterReport::default();
        for (rec, a) in chunk.iter().zip(applied) {
            delta.count(rec, a);
        }
        report.new += delta.new;
        report.tightened += delta.tightened;
        report.unchanged += delta.unchanged;
        report.refused.extend(delta.refused);
        let unproved = delta.unproved.into_iter().map(|p| (p, Trust::Unproved));
        report.unproved.extend(unproved);
        report.seen += chunk.len() as u64;
        chunk.clear();
        progress(report.seen);
        Ok(())
    };
    src.for_each_row(|rec, trust| -> Result<()> {
        if !trust.is_proved() {
            report.seen += 1;
            report.unproved.push((rec.position, trust));
            return Ok(());
        }
        chunk.push(rec);
        if chunk.len() >= CHUNK {
            flush(&mut chunk, &mut report)?;
        }
        Ok(())
    })?;
    flush(&mut chunk, &mut report)?;

    for run in src.runs()? {
        if store.insert_run(&run)? {
            report.runs_copied += 1;
        }
    }
    Ok(report)
}
