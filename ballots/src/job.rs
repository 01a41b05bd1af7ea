//! The per-ballot job: prove the last position of the main line, then step
//! back one ply at a time, so that each search finds the positions proved
//! before it in the store.
//!
//! The job talks to the prover and to the store through two small traits,
//! so its walking, budgeting and resuming logic is tested without either.

use crate::line::MainLine;
use engine::Position;
use proofdb::Outcome;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What a proof attempt gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attempt {
    /// The proved outcome; `None` when the budget ran out first.
    pub outcome: Option<Outcome>,
    /// Nodes searched.
    pub nodes: u64,
    /// Wall time in milliseconds.
    pub millis: u64,
    /// Nodes in the proof tree (0 when nothing was proved or the position
    /// was a leaf).
    pub proof_size: u64,
}

/// Proves positions within a time budget. Implementations store what they
/// prove (result and proof tree) before returning.
pub trait PositionProver {
    /// Tries to settle the exact value of `pos` (or the strongest bound)
    /// within `budget`, stopping early when `stop` is set. An error (the
    /// store cannot be written, a proof fails verification) ends the walk.
    fn prove(&self, pos: &Position, budget: Duration, stop: &AtomicBool)
        -> Result<Attempt, String>;
}

/// Status of one ply of a walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlyStatus {
    /// The position's exact value is proved.
    Proved,
    /// The attempt ran out of budget (it may have proved a bound).
    Unproved,
}

impl PlyStatus {
    /// `proved` or `unproved`.
    pub const fn name(self) -> &'static str {
        match self {
            PlyStatus::Proved => "proved",
            PlyStatus::Unproved => "unproved",
        }
    }
}

/// What the job recorded for one ply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlyRecord {
    /// Ply number on the main line (the position after this many moves).
    pub ply: usize,
    /// Proved or not.
    pub status: PlyStatus,
    /// What was proved.
    pub outcome: Option<Outcome>,
    /// Nodes searched.
    pub nodes: u64,
    /// Time spent, milliseconds.
    pub millis: u64,
    /// Proof tree size.
    pub proof_size: u64,
    /// The budget the attempt had, milliseconds (an unproved ply is only
    /// retried with a larger one).
    pub budget_millis: u64,
}

/// Where a job keeps its per-ply records so that it can resume.
pub trait JobRecords {
    /// The record of `ply`, if any.
    fn get(&self, ply: usize) -> Option<PlyRecord>;
    /// Saves (replaces) the record of a ply; it must be durable when this
    /// returns.
    fn put(&mut self, record: &PlyRecord) -> Result<(), String>;
}

/// Budgets of a walk.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// At most this long on the whole ballot (this run).
    pub ballot: Duration,
    /// At most this long on one position.
    pub position: Duration,
}

/// Why a walk ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WalkEnd {
    /// Every ply back to the first was proved.
    Complete,
    /// A position could not be proved within its budget.
    Stuck {
        /// The ply that resisted.
        ply: usize,
    },
    /// The ballot budget ran out.
    OutOfTime,
    /// Interrupted (SIGINT/SIGTERM); everything done so far is recorded.
    Interrupted,
}

/// The result of a walk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalkSummary {
    /// The earliest proved ply of the contiguous proved run ending at the
    /// last ply (`None` when the last position is not proved).
    pub frontier: Option<usize>,
    /// What was proved at the frontier.
    pub frontier_outcome: Option<Outcome>,
    /// Why the walk ended.
    pub end: WalkEnd,
    /// Nodes searched in this run.
    pub nodes: u64,
    /// Positions attempted in this run.
    pub attempted: usize,
}

/// Walks `line` backward from its last ply to `first_ply`, proving each
/// position with `prover` and recording each ply in `records`. Resumes: a
/// ply already proved is skipped; an unproved one is retried only when the
/// position budget is larger than the one it had. Stops at the first
/// position it cannot prove, when the ballot budget is spent, or when
/// `stop` is set. `on_ply` is called after each recorded ply.
pub fn walk(
    line: &MainLine,
    first_ply: usize,
    prover: &dyn PositionProver,
    records: &mut dyn JobRecords,
    budget: Budget,
    stop: &AtomicBool,
    on_ply: &mut dyn FnMut(&PlyRecord),
) -> Result<WalkSummary, String> {
    let start = Instant::now();
    let mut summary = WalkSummary {
        frontier: None,
        frontier_outcome: None,
        end: WalkEnd::Complete,
        nodes: 0,
        attempted: 0,
    };
    let last = line.len();
    for ply in (first_ply..=last).rev() {
        if let Some(r) = records.get(ply) {
            let retry = r.status == PlyStatus::Unproved
                && budget.position.as_millis() as u64 > r.budget_millis;
            if r.status == PlyStatus::Proved {
                summary.frontier = Some(ply);
                summary.frontier_outcome = r.outcome;
                continue;
            }
            if !retry {
                summary.end = WalkEnd::Stuck { ply };
                return Ok(summary);
            }
        }
        if stop.load(Ordering::Relaxed) {
            summary.end = WalkEnd::Interrupted;
            return Ok(summary);
        }
        let left = budget.ballot.saturating_sub(start.elapsed());
        if left.is_zero() {
            summary.end = WalkEnd::OutOfTime;
            return Ok(summary);
        }
        let this_budget = budget.position.min(left);
        let attempt = prover.prove(&line.position(ply), this_budget, stop)?;
        summary.nodes += attempt.nodes;
        summary.attempted += 1;
        // Only an exact value lets the walk step back: a bound is kept (the
        // prover stored it) but the ply stays open.
        let exact = matches!(attempt.outcome, Some(Outcome::Exact(_)));
        let interrupted = !exact && stop.load(Ordering::Relaxed);
        if interrupted {
            // Not a fair attempt: record nothing, so a resumed run retries.
            summary.end = WalkEnd::Interrupted;
            return Ok(summary);
        }
        let record = PlyRecord {
            ply,
            status: if exact {
                PlyStatus::Proved
            } else {
                PlyStatus::Unproved
            },
            outcome: attempt.outcome,
            nodes: attempt.nodes,
            millis: attempt.millis,
            proof_size: attempt.proof_size,
            budget_millis: this_budget.as_millis() as u64,
        };
        records.put(&record)?;
        on_ply(&record);
        match record.status {
            PlyStatus::Proved => {
                summary.frontier = Some(ply);
                summary.frontier_outcome = record.outcome;
            }
            PlyStatus::Unproved => {
                summary.end = if this_budget < budget.position {
                    WalkEnd::OutOfTime
                } else {
                    WalkEnd::Stuck { ply }
                };
                return Ok(summary);
            }
        }
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::line::Origin;
    use engine::Value;
    use std::cell::RefCell;
    use std::collections::BTreeMap;

    /// Proves positions with at most `max_pieces` pieces, counting calls.
    struct PieceProver {
        max_pieces: u32,
        calls: RefCell<Vec<u32>>,
    }

    impl PositionProver for PieceProver {
        fn prove(&self, pos: &Position, _b: Duration, _s: &AtomicBool) -> Result<Attempt, String> {
            self.calls.borrow_mut().push(pos.piece_count());
            Ok(Attempt {
                outcome: (pos.piece_count() <= self.max_pieces)
                    .then_some(Outcome::Exact(Value::Draw)),
                nodes: 10,
                millis: 1,
                proof_size: 3,
            })
        }
    }

    #[derive(Default)]
    struct MemRecords(BTreeMap<usize, PlyRecord>);
    impl JobRecords for MemRecords {
        fn get(&self, ply: usize) -> Option<PlyRecord> {
            self.0.get(&ply).cloned()
        }
        fn put(&mut self, r: &PlyRecord) -> Result<(), String> {
            self.0.insert(r.ply, r.clone());
            Ok(())
        }
    }

    /// Fortman's trunk of 9-13 21-17 5-9 (first 14 plies): captures take
    /// the piece count from 24 down to 18.
    fn line() -> MainLine {
        let mut line = MainLine::default();
        for (f, t) in [
            (9, 13),
            (21, 17),
            (5, 9),
            (25, 21),
            (11, 15),
            (29, 25),
            (9, 14),
            (23, 18),
            (14, 23),
            (27, 11),
            (8, 15),
            (17, 14),
            (10, 17),
            (21, 14),
        ] {
            let pos = line.last();
            let m = *pos
                .moves()
                .iter()
                .find(|m| m.from().number() == f && m.to().number() == t)
                .expect("legal");
            assert!(line.push(m, Origin::Published));
        }
        line
    }

    fn budget() -> Budget {
        Budget {
            ballot: Duration::from_secs(60),
            position: Duration::from_secs(1),
        }
    }

    #[test]
    fn walks_back_to_the_first_unprovable_ply_and_resumes() {
        let line = line();
        let counts: Vec<u32> = (0..=14).map(|k| line.position(k).piece_count()).collect();
        assert_eq!(counts[14], 18);
        // 19 pieces after ply 13, 20 after plies 11-12, 21 after ply 10.
        assert_eq!(&counts[10..], &[21, 20, 20, 19, 18]);
        let prover = PieceProver {
            max_pieces: 20,
            calls: RefCell::new(vec![]),
        };
        let mut recs = MemRecords::default();
        let stop = AtomicBool::new(false);
        let s = walk(&line, 3, &prover, &mut recs, budget(), &stop, &mut |_| {}).unwrap();
        assert_eq!(s.frontier, Some(11));
        assert_eq!(s.end, WalkEnd::Stuck { ply: 10 });
        assert_eq!(prover.calls.borrow().len(), 5);
        // Same budget again: nothing is re-searched.
        let s2 = walk(&line, 3, &prover, &mut recs, budget(), &stop, &mut |_| {}).unwrap();
        assert_eq!(s2.frontier, Some(11));
        assert_eq!(prover.calls.borrow().len(), 5);
        // A larger budget retries the stuck ply only.
        let bigger = Budget {
            position: Duration::from_secs(2),
            ..budget()
        };
        let s3 = walk(&line, 3, &prover, &mut recs, bigger, &stop, &mut |_| {}).unwrap();
        assert_eq!(s3.attempted, 1);
        assert_eq!(s3.frontier, Some(11));
    }

    #[test]
    fn interruption_records_nothing_unfair() {
        struct Stopper;
        impl PositionProver for Stopper {
            fn prove(
                &self,
                _p: &Position,
                _b: Duration,
                s: &AtomicBool,
            ) -> Result<Attempt, String> {
                s.store(true, Ordering::Relaxed);
                Ok(Attempt {
                    outcome: None,
                    nodes: 1,
                    millis: 1,
                    proof_size: 0,
                })
            }
        }
        let mut recs = MemRecords::default();
        let stop = AtomicBool::new(false);
        let s = walk(
            &line(),
            3,
            &Stopper,
            &mut recs,
            budget(),
            &stop,
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(s.end, WalkEnd::Interrupted);
        assert!(recs.0.is_empty());
    }

    #[test]
    fn complete_walk_reaches_the_first_ply() {
        let prover = PieceProver {
            max_pieces: 24,
            calls: RefCell::new(vec![]),
        };
        let mut recs = MemRecords::default();
        let stop = AtomicBool::new(false);
        let s = walk(&line(), 3, &prover, &mut recs, budget(), &stop, &mut |_| {}).unwrap();
        assert_eq!(s.end, WalkEnd::Complete);
        assert_eq!(s.frontier, Some(3));
        assert_eq!(recs.0.len(), 12);
    }
}
