//! The per-ballot job: prove the last position of the main line, then step
//! back one ply at a time, so that each search finds the positions proved
//! before it in the store.
//!
//! The job talks to the prover and to the store through two small traits,
//! so its walking, budgeting and resuming logic is tested without either.

use crate::frontier::frontier;
use crate::line::MainLine;
use crate::tables::{JobRecord, JobStatus};
use engine::Position;
use proofdb::Outcome;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use thiserror::Error;

/// What a proof attempt gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attempt {
    /// The proved outcome; `None` when the budget ran out first.
    pub outcome: Option<Outcome>,
    /// Nodes searched.
    pub nodes: u64,
    /// Time spent in milliseconds, on the prover's clock (by default the
    /// CPU time of the threads that search).
    pub millis: u64,
    /// Nodes in the proof tree (0 when nothing was proved or the position
    /// was a leaf).
    pub proof_size: u64,
}

/// The flag that stops a run (SIGINT, SIGTERM), shared with the thread
/// that sets it.
pub type StopFlag = Arc<AtomicBool>;

/// Why a walk must end before its budget does: what was stored before
/// stays stored.
#[derive(Debug, Error)]
pub enum JobError {
    /// The proof store could not be read or written, or refused a result
    /// (a contradiction, trees that do not prove it).
    #[error(transparent)]
    Store(#[from] proofdb::StoreError),
    /// A result the store took contradicts what the run already holds.
    #[error(transparent)]
    Keep(#[from] proofdb::KeepError),
    /// A search failed (a proof that does not verify, a damaged table).
    #[error(transparent)]
    Solve(#[from] solver::solve::SolveError),
}

/// What an attempt at a position did, or why the walk must end.
pub type Attempted = Result<Attempt, JobError>;

/// Proves positions within a time budget. Implementations store what they
/// prove (result and proof tree) before returning.
pub trait PositionProver {
    /// Tries to settle the exact value of `pos` (or the strongest bound)
    /// within `budget`, stopping early when `stop` is set. An error (the
    /// store cannot be written, a proof fails verification) ends the walk.
    fn prove(&self, pos: &Position, budget: Duration, stop: &StopFlag) -> Attempted;
}

/// Where a job keeps its per-ply records ([`JobRecord`], the store's
/// row) so that it can resume.
pub trait JobRecords {
    /// The ballot whose records these are.
    fn ballot(&self) -> u32;
    /// The record of `ply`, if any.
    fn get(&self, ply: usize) -> Option<JobRecord>;
    /// Saves (replaces) the record of a ply, stamped with the run and the
    /// time (its `run_id` and `updated` as the walk gives them are
    /// placeholders); it must be durable when this returns.
    fn put(&mut self, record: &JobRecord) -> Result<(), JobError>;
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
    /// The earliest proved ply the walk reached (`None` when it proved
    /// none). The plies after it are proved but for those the walk went
    /// past ([`walk`]), which the proved ply before them makes needless
    /// for the ballot's value.
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
///
/// Past a stuck ply: an attempt that proves only that the side to move
/// holds at least a draw leaves open its "no win", which must refute
/// every move of that side. At the ply before, the other side needs only
/// one move that holds, and any of its moves will do, not only the main
/// line's: so after each such attempt the ply before gets the same
/// budget, and when it is proved the walk goes on from there (the stuck
/// ply stays open; the frontier, the earliest proved ply, is past it).
pub fn walk(
    line: &MainLine,
    first_ply: usize,
    prover: &dyn PositionProver,
    records: &mut dyn JobRecords,
    budget: WalkBudget,
    stop: &StopFlag,
    on_ply: &mut dyn FnMut(&JobRecord),
) -> Result<WalkSummary, JobError> {
    let mut w = Walker {
        line,
        prover,
        records,
        stop,
        on_ply,
        spent: Duration::ZERO,
        summary: WalkSummary {
            frontier: None,
            frontier_outcome: None,
            end: WalkEnd::Complete,
            nodes: 0,
            attempted: 0,
        },
    };
    w.walk_back(first_ply, budget)?;
    // The frontier from the records, as every report names it
    // (crate::frontier): the earliest ply the walk has proved.
    let proved = (first_ply..=line.len()).map(|ply| {
        let outcome = w
            .records
            .get(ply)
            .filter(|r| r.status == JobStatus::Proved)
            .and_then(|r| r.outcome);
        (ply, outcome)
    });
    let front = frontier(proved);
    w.summary.frontier = front.map(|(ply, _)| ply);
    w.summary.frontier_outcome = front.map(|(_, o)| o);
    Ok(w.summary)
}

impl Walker<'_> {
    /// [`walk`]'s steps back from the line's end, but for its frontier:
    /// ends (with [`WalkSummary::end`] said) when every ply is proved or
    /// one resists every budget left, or when the walk is stopped.
    fn walk_back(&mut self, first_ply: usize, budget: WalkBudget) -> Result<(), JobError> {
        let line = self.line;
        let mut next = Some(line.len());
        while let Some(ply) = next.filter(|&p| p >= first_ply) {
            next = ply.checked_sub(1);
            // The largest budget this ply has had without being proved.
            let mut had = Duration::ZERO;
            if let Some(r) = self.records.get(ply) {
                if r.status == JobStatus::Proved {
                    continue;
                }
                had = Duration::from_millis(r.budget_millis);
            }
            if moot(ply, first_ply, |q| self.proved(q)) {
                continue;
            }
            loop {
                let left = budget.ballot.saturating_sub(self.spent);
                let want = if had.is_zero() {
                    budget.position
                } else {
                    budget.position.max(had.saturating_mul(2))
                };
                let this_budget = want.min(left);
                if this_budget.is_zero() && had.is_zero() {
                    self.summary.end = WalkEnd::OutOfTime;
                    return Ok(());
                }
                if this_budget <= had {
                    // Nothing larger than what it already resisted is left.
                    self.summary.end = WalkEnd::Stuck { ply };
                    return Ok(());
                }
                let Some(outcome) = self.attempt(ply, this_budget)? else {
                    return Ok(());
                };
                if matches!(outcome, Some(Outcome::Exact(_))) {
                    break;
                }
                had = had.max(this_budget);
                if outcome == Some(Outcome::AtLeastDraw) && ply > first_ply {
                    let before = ply - 1;
                    let before_had = self
                        .records
                        .get(before)
                        .map_or(Duration::ZERO, |r| Duration::from_millis(r.budget_millis));
                    let b = this_budget.min(budget.ballot.saturating_sub(self.spent));
                    if b > before_had {
                        let Some(o) = self.attempt(before, b)? else {
                            return Ok(());
                        };
                        if matches!(o, Some(Outcome::Exact(_))) {
                            next = before.checked_sub(1);
                            break;
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// Whether a walk from `first_ply` skips `ply`, which is not proved:
/// the ply before it is (`proved`, by the walk's records; proved past
/// this one, in an earlier run), so the frontier is already before it.
pub fn moot(ply: usize, first_ply: usize, proved: impl Fn(usize) -> bool) -> bool {
    ply > first_ply && proved(ply - 1)
}

/// A walk in progress: what it has spent and found.
struct Walker<'w> {
    line: &'w MainLine,
    prover: &'w dyn PositionProver,
    records: &'w mut dyn JobRecords,
    stop: &'w StopFlag,
    on_ply: &'w mut dyn FnMut(&JobRecord),
    /// The time the attempts reported, counted against the ballot's budget.
    spent: Duration,
    summary: WalkSummary,
}

impl Walker<'_> {
    /// Whether `ply`'s record says it is proved.
    fn proved(&self, ply: usize) -> bool {
        self.records
            .get(ply)
            .is_some_and(|r| r.status == JobStatus::Proved)
    }

    /// One attempt at `ply` within `budget`, recorded: what it proved, or
    /// `None` when the walk was interrupted (the summary says so; an
    /// interrupted attempt that proved nothing exact records nothing, so
    /// a resumed run tries it again).
    fn attempt(
        &mut self,
        ply: usize,
        budget: Duration,
    ) -> Result<Option<Option<Outcome>>, JobError> {
        if self.stop.load(Ordering::Relaxed) {
            self.summary.end = WalkEnd::Interrupted;
            return Ok(None);
        }
        let attempt = self
            .prover
            .prove(&self.line.position(ply), budget, self.stop)?;
        self.spent += Duration::from_millis(attempt.millis);
        self.summary.nodes += attempt.nodes;
        self.summary.attempted += 1;
        // Only an exact value lets the walk step back: a bound is kept
        // (the prover stored it) but the ply stays open.
        let exact = matches!(attempt.outcome, Some(Outcome::Exact(_)));
        if !exact && self.stop.load(Ordering::Relaxed) {
            self.summary.end = WalkEnd::Interrupted;
            return Ok(None);
        }
        let record = JobRecord {
            ballot: self.records.ballot(),
            ply: ply as u32,
            status: match attempt.outcome {
                _ if exact => JobStatus::Proved,
                Some(_) => JobStatus::Partial,
                None => JobStatus::Budget,
            },
            outcome: attempt.outcome,
            nodes: attempt.nodes,
            millis: attempt.millis,
            proof_size: attempt.proof_size,
            budget_millis: budget.as_millis() as u64,
            run_id: String::new(),
            updated: 0,
        };
        self.records.put(&record)?;
        (self.on_ply)(&record);
        Ok(Some(attempt.outcome))
    }
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
    struct MemRecords(BTreeMap<usize, JobRecord>);
    impl JobRecords for MemRecords {
        fn ballot(&self) -> u32 {
            1
        }
        fn get(&self, ply: usize) -> Option<JobRecord> {
            self.0.get(&ply).cloned()
        }
        fn put(&mut self, r: &JobRecord) -> Result<(), JobError> {
            self.0.insert(r.ply as usize, r.clone());
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

    /// Walks `line` from ply 3 with [`budget`]: the summary and each
    /// recorded attempt's ply and budget (ms).
    fn walk_tried(
        line: &MainLine,
        prover: &dyn PositionProver,
        recs: &mut MemRecords,
    ) -> (WalkSummary, Vec<(usize, u64)>) {
        let stop = Arc::new(AtomicBool::new(false));
        let mut tried = Vec::new();
        let s = walk(line, 3, prover, recs, budget(), &stop, &mut |r| {
            tried.push((r.ply as usize, r.budget_millis))
        })
        .unwrap();
        (s, tried)
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
        let (s, budgets) = walk_tried(&line, &prover, &mut recs);
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
    fn walks_past_a_ply_whose_side_to_move_only_holds() {
        /// Proves positions of at most 20 pieces, but only "at least a
        /// draw" for the side to move at `holds`; nothing above 20.
        struct HoldingProver {
            holds: Position,
        }
        impl PositionProver for HoldingProver {
            fn prove(&self, pos: &Position, b: Duration, _s: &StopFlag) -> Attempted {
                let outcome = if *pos == self.holds {
                    Some(Outcome::AtLeastDraw)
                } else {
                    (pos.piece_count() <= 20).then_some(Outcome::Exact(Value::Draw))
                };
                let exact = matches!(outcome, Some(Outcome::Exact(_)));
                Ok(Attempt {
                    outcome,
                    nodes: 10,
                    millis: if exact { 1 } else { b.as_millis() as u64 },
                    proof_size: 3,
                })
            }
        }
        let line = line();
        let prover = HoldingProver {
            holds: line.position(12),
        };
        let mut recs = MemRecords::default();
        let (s, tried) = walk_tried(&line, &prover, &mut recs);
        // Ply 12 holds only; ply 11 gets the same budget, is proved, and
        // the walk goes on from ply 10, which nothing proves.
        assert_eq!(
            &tried[..4],
            &[(14, 1000), (13, 1000), (12, 1000), (11, 1000)]
        );
        assert_eq!(tried[4], (10, 1000));
        assert_eq!(s.frontier, Some(11));
        assert_eq!(s.end, WalkEnd::Stuck { ply: 10 });
        assert_eq!(recs.0[&12].status, JobStatus::Partial);
        assert_eq!(recs.0[&12].outcome, Some(Outcome::AtLeastDraw));
        // A rerun does not search ply 12 again: the ply before it is
        // proved. Only ply 10 is tried, with twice what it resisted.
        let (s2, tried) = walk_tried(&line, &prover, &mut recs);
        assert_eq!(s2.attempted, 1);
        assert_eq!(tried.len(), 1);
        assert_eq!(tried[0].0, 10);
        assert!(tried[0].1 > recs.0[&12].budget_millis);
        assert_eq!(s2.frontier, Some(11));
        // Where the ply before is no easier, the stuck ply gets its doubled
        // budgets between the tries of the ply before.
        let hard = HoldingProver {
            holds: line.position(11),
        };
        let mut recs = MemRecords::default();
        let (s3, tried) = walk_tried(&line, &hard, &mut recs);
        assert_eq!(s3.frontier, Some(12));
        assert_eq!(
            &tried[3..7],
            &[(11, 1000), (10, 1000), (11, 2000), (10, 2000)]
        );
        assert_eq!(s3.end, WalkEnd::Stuck { ply: 11 });
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
