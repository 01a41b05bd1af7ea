//! Folding a shard's ballot tables into a store's: what the store lacks is
//! copied, what it has is kept ([`merge_tables`]).

use super::{BallotTables, JobStatus};
use proofdb::{Store, StoreError};

/// What folding a shard's ballot tables did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TablesMerged {
    /// Main lines copied (ballots the store had no line for).
    pub lines_copied: u64,
    /// Ballots whose main line differs between shard and store (the
    /// store's is kept).
    pub lines_differing: Vec<u32>,
    /// Job records copied or upgraded to `proved`.
    pub job_records_copied: u64,
}

/// Copies into `store` the ballots and main lines of `shard` it lacks, and
/// the job records it lacks or holds as not proved where the shard's is
/// proved. Where both have a main line for a ballot and they differ, the
/// store's is kept and the ballot reported. Run it after
/// `proofdb::merge_shard`, so that the proofs the records stand on are
/// there.
pub fn merge_tables(store: &Store, shard: &Store) -> Result<TablesMerged, StoreError> {
    let mut report = TablesMerged::default();
    let have: std::collections::HashSet<u32> =
        store.ballots()?.into_iter().map(|b| b.number).collect();
    for b in shard.ballots()? {
        if !have.contains(&b.number) {
            store.put_ballot(&b)?;
        }
    }
    for ballot in shard.ballots_with_lines()? {
        let theirs = shard.main_line(ballot)?;
        let ours = store.main_line(ballot)?;
        if ours.is_empty() {
            store.set_main_line(ballot, &theirs)?;
            report.lines_copied += 1;
        } else if ours != theirs {
            report.lines_differing.push(ballot);
        }
    }
    for rec in shard.all_job_records()? {
        let copy = match store.job_record(rec.ballot, rec.ply)? {
            None => true,
            Some(ours) => ours.status != JobStatus::Proved && rec.status == JobStatus::Proved,
        };
        if copy {
            store.put_job_record(&rec)?;
            report.job_records_copied += 1;
        }
    }
    Ok(report)
}
