//! [`Writer`]: the one writer of a process. A thread owns the write
//! connection; worker threads (rayon) send it results and proofs over
//! a channel through cheap cloneable [`WriterHandle`]s, and it commits them
//! in batches, each one `BEGIN IMMEDIATE` transaction.
//!
//! A batch is committed when it reaches `batch_size` messages, when
//! `max_delay` passes with messages pending, on [`WriterHandle::flush`],
//! and on [`Writer::finish`] or drop. Once `flush` returns, everything sent
//! before it is committed: with WAL and `synchronous=NORMAL` it survives
//! the process being killed (a power cut may lose the last commits; the
//! file stays consistent). When the writer stops it copies the
//! write-ahead log into the main file, so that the main file alone holds
//! every result.

use crate::error::{Result, StoreError};
use crate::outcome::Outcome;
use crate::proof::ProofTree;
use crate::results::{self, Applied, PutEffect, ResultRecord};
use crate::schema::{self, Mode};
use engine::Position;
use rusqlite::{Connection, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, sync_channel, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// When the writer commits.
#[derive(Clone, Copy, Debug)]
pub struct WriterOptions {
    /// Commit once this many messages are pending.
    pub batch_size: usize,
    /// Commit pending messages at least this often.
    pub max_delay: Duration,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            batch_size: 4096,
            max_delay: Duration::from_secs(2),
        }
    }
}

/// A result the writer refused because it contradicts the stored one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The position.
    pub position: Position,
    /// What the store holds.
    pub stored: Outcome,
    /// What was offered.
    pub incoming: Outcome,
}

/// What a writer has done so far (cumulative).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WriterReport {
    /// Transactions committed.
    pub batches: u64,
    /// Results stored for the first time.
    pub new: u64,
    /// Results that narrowed a stored bound.
    pub tightened: u64,
    /// Results already implied by the store.
    pub unchanged: u64,
    /// Results refused as contradictions (nothing changed for them).
    pub refused: Vec<Refusal>,
    /// Results refused because no proof tree or database value backs
    /// them (nothing changed for them).
    pub unproved: Vec<Position>,
}

impl WriterReport {
    /// Counts what applying `rec` to a store did (also for a merge's
    /// results: [`crate::merge::merge_shard`]).
    pub(crate) fn count(&mut self, rec: &ResultRecord, a: Applied) {
        match a {
            Applied::Done(PutEffect::New) => self.new += 1,
            Applied::Done(PutEffect::Tightened) => self.tightened += 1,
            Applied::Done(PutEffect::Unchanged) => self.unchanged += 1,
            Applied::Refused(c) => self.refused.push(Refusal {
                position: rec.position,
                stored: c.stored,
                incoming: c.incoming,
            }),
            Applied::Unproved => self.unproved.push(rec.position),
        }
    }
}

enum Msg {
    Result(ResultRecord),
    Proof(ResultRecord, Vec<ProofTree>, String),
    Flush(SyncSender<Result<WriterReport>>),
    Shutdown,
}

/// The writer thread's owner. Dropping it commits what is pending and
/// stops the thread (errors are then lost: call [`Writer::finish`] to see
/// them).
pub struct Writer {
    handle: WriterHandle,
    thread: Option<JoinHandle<Result<WriterReport>>>,
}

/// A cloneable, `Send + Sync` way to send work to the [`Writer`].
#[derive(Clone)]
pub struct WriterHandle {
    tx: Sender<Msg>,
    path: PathBuf,
}

impl Writer {
    /// Opens (creating and migrating as needed) the store at `path` and
    /// starts the writer thread.
    pub fn open(path: impl AsRef<Path>, options: WriterOptions) -> Result<Writer> {
        let path = path.as_ref().to_path_buf();
        let (conn, _, hold) = schema::open_connections(&path, Mode::ReadWrite, 0)?;
        let (tx, rx) = channel();
        let p = path.clone();
        let thread = std::thread::Builder::new()
            .name("proofdb-writer".into())
            .spawn(move || {
                let out = run(conn, &p, rx, options.batch_size.max(1), options.max_delay);
                drop(hold);
                out
            })
            .map_err(|e| StoreError::Io {
                path: path.clone(),
                source: e,
            })?;
        Ok(Writer {
            handle: WriterHandle { tx, path },
            thread: Some(thread),
        })
    }

    /// A handle for a worker thread.
    pub fn handle(&self) -> WriterHandle {
        self.handle.clone()
    }

    /// Commits everything sent so far; see [`WriterHandle::flush`].
    pub fn flush(&self) -> Result<WriterReport> {
        self.handle.flush()
    }

    /// Commits what is pending, stops the thread and returns the totals
    /// (or the first error the thread met). Handles still held afterwards
    /// get [`StoreError::WriterGone`].
    pub fn finish(mut self) -> Result<WriterReport> {
        self.stop()
    }

    fn stop(&mut self) -> Result<WriterReport> {
        let Some(thread) = self.thread.take() else {
            return Ok(WriterReport::default());
        };
        let _ = self.handle.tx.send(Msg::Shutdown);
        thread.join().unwrap_or_else(|_| {
            Err(StoreError::WriterGone {
                path: self.handle.path.clone(),
                detail: "writer thread panicked".into(),
            })
        })
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        let _ = self.stop();
    }
}

impl WriterHandle {
    fn gone(&self) -> StoreError {
        StoreError::WriterGone {
            path: self.path.clone(),
            detail: "it has been shut down".into(),
        }
    }

    /// Queues a result (folded in like [`crate::Store::put`]: it must be
    /// a database value or be backed by trees already stored).
    pub fn put(&self, rec: ResultRecord) -> Result<()> {
        self.tx.send(Msg::Result(rec)).map_err(|_| self.gone())
    }

    /// Queues a result with the proof trees behind it (stored together in
    /// one transaction, like [`crate::Store::put_proof`]).
    pub fn put_proof(&self, rec: ResultRecord, trees: Vec<ProofTree>, run_id: &str) -> Result<()> {
        self.tx
            .send(Msg::Proof(rec, trees, run_id.to_string()))
            .map_err(|_| self.gone())
    }

    /// Commits everything this handle (and any other) sent before the call
    /// and returns the writer's totals, or the error that stopped a commit
    /// (the pending messages are kept and retried on the next commit).
    pub fn flush(&self) -> Result<WriterReport> {
        let (tx, rx) = sync_channel(1);
        self.tx.send(Msg::Flush(tx)).map_err(|_| self.gone())?;
        rx.recv().map_err(|_| self.gone())?
    }
}

fn commit(
    conn: &mut Connection,
    path: &Path,
    pending: &[Msg],
    report: &mut WriterReport,
) -> Result<()> {
    let sq = |e| StoreError::sqlite(path, e);
    let mut tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(sq)?;
    let mut delta = WriterReport::default();
    for m in pending {
        match m {
            Msg::Result(r) => delta.count(r, results::apply(&tx, r).map_err(sq)?),
            Msg::Proof(r, trees, run_id) => {
                // The trees and the result go in together or not at all.
                let sp = tx.savepoint().map_err(sq)?;
                let a = crate::trees::apply_proof(&sp, path, r, trees, run_id)?;
                if matches!(a, Applied::Done(_)) {
                    sp.commit().map_err(sq)?;
                }
                delta.count(r, a);
            }
            Msg::Flush(_) | Msg::Shutdown => {}
        }
    }
    tx.commit().map_err(sq)?;
    report.batches += 1;
    report.new += delta.new;
    report.tightened += delta.tightened;
    report.unchanged += delta.unchanged;
    report.refused.extend(delta.refused);
    report.unproved.extend(delta.unproved);
    Ok(())
}

fn run(
    mut conn: Connection,
    path: &Path,
    rx: Receiver<Msg>,
    batch_size: usize,
    max_delay: Duration,
) -> Result<WriterReport> {
    let mut report = WriterReport::default();
    let mut pending: Vec<Msg> = Vec::with_capacity(batch_size);
    let mut oldest: Option<Instant> = None;
    fn try_commit(
        conn: &mut Connection,
        path: &Path,
        pending: &mut Vec<Msg>,
        report: &mut WriterReport,
    ) -> Result<()> {
        if pending.is_empty() {
            return Ok(());
        }
        commit(conn, path, pending, report)?;
        pending.clear();
        Ok(())
    }
    loop {
        let wait = match oldest {
            Some(t) => max_delay.saturating_sub(t.elapsed()),
            None => Duration::from_secs(3600),
        };
        let msg = match rx.recv_timeout(wait) {
            Ok(m) => Some(m),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => Some(Msg::Shutdown),
        };
        match msg {
            Some(Msg::Flush(reply)) => {
                let r =
                    try_commit(&mut conn, path, &mut pending, &mut report).map(|_| report.clone());
                if r.is_ok() {
                    oldest = None;
                }
                let _ = reply.send(r);
            }
            Some(Msg::Shutdown) => {
                try_commit(&mut conn, path, &mut pending, &mut report)?;
                // The main file alone holds everything once the writer is
                // gone (readers of other processes may delay this; then
                // the next writer's close does it).
                let _ = conn.busy_timeout(Duration::from_secs(2));
                let _ = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
                return Ok(report);
            }
            Some(m) => {
                pending.push(m);
                oldest.get_or_insert_with(Instant::now);
                // A failed background commit keeps its messages; the next
                // commit (or flush, which reports the error) retries them.
                if pending.len() >= batch_size
                    && try_commit(&mut conn, path, &mut pending, &mut report).is_ok()
                {
                    oldest = None;
                }
            }
            None => {
                oldest = match try_commit(&mut conn, path, &mut pending, &mut report) {
                    Ok(()) => None,
                    Err(_) => Some(Instant::now()),
                };
            }
        }
    }
}
