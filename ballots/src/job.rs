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
use std::sync::Arc;
use std::time::Duration;

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

/// The flag that stops a run (SIGINT, SIGTERM), shared with the thread
/// that sets it.
pub type StopFlag = Arc<AtomicBool>;

/// What an attempt at a position did, or why the walk must end.
pub type Attempted = Result<Attempt, String>;

/// Proves positions within a time budget. Implementations store what they
/// prove (result and proof tree) before returning.
pub trait PositionProver {
    /// Tries to settle the exact value of `pos` (or the strongest bound)
    /// within `budget`, stopping early when `stop` is set. An error (the
    /// store cannot be written, a proof fails verification) ends the walk.
    fn prove(&self, pos: &Position, budget: Duration, stop: &StopFlag) -> Attempted;
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
pub struct WalkBudget {
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
/// position with `prover` and recording each ply in `records`.
///
/// Budgets: a position first gets `budget.position`; one that resists is
/// tried again with twice the budget it last had, as long as the ballot's
/// budget has more than that left (the last try gets what is left), so a
/// walk spends its whole ballot budget where it is stuck instead of
/// stopping at the first hard ply. The ballot's budget counts the time
/// the attempts report. Resumes: a proved ply is skipped; an unproved one
/// goes on from twice the budget it had, so a rerun (with the same or a
/// larger `--budget`) continues where the last one stopped. Ends when every
/// ply is proved, when a ply resists every budget the ballot can still
/// give, or when `stop` is set. `on_ply` is called after each recorded
/// attempt.
pub fn walk(
    line: &MainLine,
    first_ply: usize,
    prover: &dyn PositionProver,
    records: &mut dyn JobRecords,
    budget: WalkBudget,
    stop: &StopFlag,
    on_ply: &mut dyn FnMut(&PlyRecord),
) -> Result<WalkSummary, String> {
    let mut spent = Duration::ZERO;
    let mut summary = WalkSummary {
        frontier: None,
        frontier_outcome: None,
        end: WalkEnd::Complete,
        nodes: 0,
        attempted: 0,
    };
    let last = line.len();
    for ply in (first_ply..=last).rev() {
        // The largest budget this ply has had without being proved.
        let mut had = Duration::ZERO;
        if let Some(r) = records.get(ply) {
            if r.status == PlyStatus::Proved {
                summary.frontier = Some(ply);
                summary.frontier_outcome = r.outcome;
                continue;
            }
            had = Duration::from_millis(r.budget_millis);
        }
        loop {
            if stop.load(Ordering::Relaxed) {
                summary.end = WalkEnd::Interrupted;
                return Ok(summary);
            }
            let left = budget.ballot.saturating_sub(spent);
            let want = if had.is_zero() {
                budget.position
            } else {
                budget.position.max(had.saturating_mul(2))
            };
            let this_budget = want.min(left);
            if this_budget.is_zero() && had.is_zero() {
                summary.end = WalkEnd::OutOfTime;
                return Ok(summary);
            }
            if this_budget <= had {
                // Nothing larger than what it already resisted is left.
                summary.end = WalkEnd::Stuck { ply };
                return Ok(summary);
            }
            let attempt = prover.prove(&line.position(ply), this_budget, stop)?;
            spent += Duration::from_millis(attempt.millis);
            summary.nodes += attempt.nodes;
            summary.attempted += 1;
            // Only an exact value lets the walk step back: a bound is kept
            // (the prover stored it) but the ply stays open.
            let exact = matches!(attempt.outcome, Some(Outcome::Exact(_)));
            if !exact && stop.load(Ordering::Relaxed) {
                // Not a fair attempt: record nothing, so a resumed run
                // retries.
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
            if exact {
                summary.frontier = Some(ply);
                summary.frontier_outcome = record.outcome;
                break;
            }
            had = had.max(this_budget);
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
        fn prove(&self, pos: &Position, _b: Duration, _s: &StopFlag) -> Attempted {
            self.calls.borrow_mut().push(pos.piece_count());
            let proved = pos.piece_count() <= self.max_pieces;
            Ok(Attempt {
                outcome: proved.then_some(Outcome::Exact(Value::Draw)),
                nodes: 10,
                // A position it cannot prove takes the whole budget.
                millis: if proved { 1 } else { _b.as_millis() as u64 },
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

    fn budget() -> WalkBudget {
        WalkBudget {
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
        let stop = Arc::new(AtomicBool::new(false));
        let mut budgets = Vec::new();
        let s = walk(&line, 3, &prover, &mut recs, budget(), &stop, &mut |r| {
            budgets.push((r.ply, r.budget_millis))
        })
        .unwrap();
        assert_eq!(s.frontier, Some(11));
        assert_eq!(s.end, WalkEnd::Stuck { ply: 10 });
        // Plies 14-11 proved at once; ply 10 tried with 1, 2, 4, 8 and 16 s,
        // then with the rest of the ballot's 60 s.
        let tries: Vec<u64> = budgets.iter().filter(|b| b.0 == 10).map(|b| b.1).collect();
        assert_eq!(&tries[..5], &[1000, 2000, 4000, 8000, 16000]);
        assert_eq!(tries.len(), 6);
        assert!((28_000..29_000).contains(&tries[5]), "{tries:?}");
        assert_eq!(prover.calls.borrow().len(), 10);
        // Run again with the same budget: the stuck ply goes on from twice
        // the budget it had, the proved plies are not searched again.
        let s2 = walk(&line, 3, &prover, &mut recs, budget(), &stop, &mut |_| {}).unwrap();
        assert_eq!(s2.frontier, Some(11));
        assert_eq!(s2.attempted, 1);
        assert!(recs.0[&10].budget_millis >= 56_000, "{:?}", recs.0[&10]);
        // A ballot budget no larger than what it resisted tries nothing.
        let small = WalkBudget {
            ballot: Duration::from_secs(20),
            ..budget()
        };
        let s3 = walk(&line, 3, &prover, &mut recs, small, &stop, &mut |_| {}).unwrap();
        assert_eq!(s3.attempted, 0);
        assert_eq!(s3.end, WalkEnd::Stuck { ply: 10 });
        // A prover that can do more proves it and the walk goes on.
        let stronger = PieceProver {
            max_pieces: 21,
            calls: RefCell::new(vec![]),
        };
        let s4 = walk(&line, 3, &stronger, &mut recs, budget(), &stop, &mut |_| {}).unwrap();
        assert_eq!(s4.frontier, Some(10));
        assert_eq!(s4.end, WalkEnd::Stuck { ply: 9 });
    }

    #[test]
    fn interruption_records_nothing_unfair() {
        struct Stopper;
        impl PositionProver for Stopper {
            fn prove(&self, _p: &Position, _b: Duration, s: &StopFlag) -> Attempted {
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
        let stop = Arc::new(AtomicBool::new(false));
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
        let stop = Arc::new(AtomicBool::new(false));
        let s = walk(&line(), 3, &prover, &mut recs, budget(), &stop, &mut |_| {}).unwrap();
        assert_eq!(s.end, WalkEnd::Complete);
        assert_eq!(s.frontier, Some(3));
        assert_eq!(recs.0.len(), 12);
    }
}
