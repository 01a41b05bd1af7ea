//! The ballot job's prover and records backed by the real solvers and the
//! proof store: [`StoreProver`] settles a position with the endgame
//! databases, the results already proved and the solvers, has every proof
//! checked by the independent verifier, and stores result and proof trees
//! in one transaction; [`StoreRecords`] keeps the per-ply job records in
//! the store so a walk resumes where it stopped.

use crate::job::{Attempt, Attempted, JobError, JobRecords, PositionProver, StopFlag};
use crate::manager::{Cost, Manager, ManagerBudget, QuestionSolver};
use crate::tables::{BallotTables, JobRecord};
use engine::{Oracle, Position};
use proofdb::{LiveResults, Outcome, ProofTree, Provenance, Question, ResultSource, Store};
use solver::clock::{Clock, Stopwatch};
use solver::question::question_goal;
use solver::solve::{solve, CheckpointPlan, SolveError, SolveOptions, SolverKind};
use solver::{Leaves, RepetitionTrust, Status};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Settings of a [`StoreProver`].
#[derive(Clone, Copy, Debug)]
pub struct ProverSettings {
    /// Which solver(s) to run.
    pub solver: SolverKind,
    /// Transposition-table entries per solver.
    pub table_entries: usize,
    /// Largest proof tree extracted and verified.
    pub max_proof_nodes: usize,
    /// Largest database piece count in use (recorded as provenance).
    pub egdb_pieces: u32,
    /// What budgets and recorded times count (by default the CPU time of
    /// the threads that search, so that the machine's load does not
    /// decide which plies are proved).
    pub clock: Clock,
    /// When df-pn builds on results held through a repetition
    /// ([`solver::RepetitionTrust`]; by default where the position is expected to
    /// be a draw, which on a main line whose next position is a draw is
    /// the question left open: "no win").
    pub trust: RepetitionTrust,
    /// Most bytes the folder of carried df-pn tables may hold
    /// ([`crate::carry::prune`]): past it, the files written longest ago
    /// are removed after each attempt.
    pub carry_over_bytes: u64,
}

/// [`ProverSettings::carry_over_bytes`] by default: 16 GiB, the tables of
/// about 160 positions at the default table size (about what a batch
/// over all 156 ballots leaves: docs/measurements.md, "Figures behind
/// the code").
pub const CARRY_OVER_BYTES: u64 = 16 << 30;

impl Default for ProverSettings {
    fn default() -> Self {
        ProverSettings {
            solver: SolverKind::Ab,
            table_entries: 4_000_000,
            max_proof_nodes: 5_000_000,
            egdb_pieces: 0,
            clock: Clock::Cpu,
            trust: RepetitionTrust::Auto,
            carry_over_bytes: CARRY_OVER_BYTES,
        }
    }
}

/// A [`PositionProver`] over the solvers, the databases and the store.
///
/// Positions the databases or the store already settle exactly are
/// answered without a search (a database value is stored as a result with
/// solver `egdb`, so the ballot report sees it). Everything else goes to
/// [`solver::solve::solve`] with the question "what is the value?"; each
/// settled question's proof is extracted and verified before anything is
/// stored. Results are added to `live` so later searches of the same run
/// (on any thread) use them as leaves.
pub struct StoreProver<'a> {
    /// The endgame databases.
    pub oracle: &'a dyn Oracle,
    /// The run's in-memory view of the store's results.
    pub live: &'a LiveResults,
    /// Where results and proof trees are written.
    pub store: &'a Store,
    /// The run writing the results.
    pub run_id: String,
    /// Solver settings.
    pub settings: ProverSettings,
    /// A folder for df-pn's tables of the positions still open
    /// ([`checkpoint_file`]): a position tried again (a doubled budget,
    /// a rerun) goes on from the work already done instead of starting
    /// over. `None`: every attempt starts afresh.
    pub checkpoints: Option<&'a Path>,
}

/// The file that keeps df-pn's tables for `pos` in the folder `dir`
/// (named by the position, so every ballot that reaches it shares it).
pub fn checkpoint_file(dir: &Path, pos: &Position) -> PathBuf {
    let key: String = proofdb::codec::pos_key(pos)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let side = proofdb::codec::stm_code(pos);
    dir.join(format!("{key}-{side}.dfpn"))
}

/// Seconds between two writes of a position's tables while it is
/// searched (they are written after each question too).
const CHECKPOINT_EVERY: Duration = Duration::from_secs(600);

impl StoreProver<'_> {
    /// Removes the oldest tables of `dir` past the limit, never `kept`
    /// (the position just searched), and says what went. A folder that
    /// cannot be listed is only reported: the tables are a cache.
    fn keep_carry_over_within_limit(&self, dir: &Path, kept: &Path) {
        let limit = self.settings.carry_over_bytes;
        match crate::carry::prune(dir, limit, kept) {
            Ok(p) if p.files > 0 => eprintln!(
                "checkers: {}: removed the df-pn tables of {} position(s) searched longest ago \
                 ({} MiB) to keep the folder within {} MiB (--carry-over-limit); those \
                 positions will be searched afresh",
                dir.display(),
                p.files,
                p.bytes >> 20,
                limit >> 20
            ),
            Ok(_) => {}
            Err(e) => eprintln!(
                "checkers: {}: cannot list the df-pn tables: {e}",
                dir.display()
            ),
        }
    }

    fn provenance(&self, solver: &str, nodes: u64, millis: u64) -> Provenance {
        Provenance {
            solver: solver.to_string(),
            nodes,
            millis,
            egdb_pieces: self.settings.egdb_pieces,
            run_id: self.run_id.clone(),
        }
    }

    /// Stores `outcome` of `pos` with `trees`, then makes it visible to
    /// the run's searches ([`proofdb::RunSink::keep`]).
    fn keep(
        &self,
        pos: &Position,
        outcome: Outcome,
        prov: Provenance,
        trees: &[ProofTree],
    ) -> Result<u64, JobError> {
        let sink = proofdb::RunSink {
            store: self.store,
            live: self.live,
            run_id: &self.run_id,
        };
        Ok(sink.keep(pos, outcome, prov, trees)?)
    }
}

impl PositionProver for StoreProver<'_> {
    fn prove(&self, pos: &Position, budget: Duration, stop: &StopFlag) -> Attempted {
        let watch = Stopwatch::start(self.settings.clock);
        if let Some(v) = self.oracle.probe(pos) {
            let outcome = Outcome::Exact(v);
            if self.live.lookup(pos) != Some(outcome) {
                self.keep(pos, outcome, self.provenance("egdb", 0, 0), &[])?;
            }
            return Ok(Attempt {
                outcome: Some(outcome),
                nodes: 0,
                millis: watch.elapsed().as_millis() as u64,
                proof_size: 0,
            });
        }
        if let Some(o @ Outcome::Exact(_)) = self.live.lookup(pos) {
            return Ok(Attempt {
                outcome: Some(o),
                nodes: 0,
                millis: watch.elapsed().as_millis() as u64,
                proof_size: 0,
            });
        }
        let before = watch.elapsed();
        let solved = self.solve_and_keep(pos, None, budget, stop)?;
        Ok(Attempt {
            outcome: solved.outcome,
            nodes: solved.nodes,
            millis: (before + solved.time).as_millis() as u64,
            proof_size: solved.proof_size,
        })
    }
}

impl StoreProver<'_> {
    /// Runs the solvers on `pos` for `question` (`None`: the value)
    /// within `budget` and stores what
    /// they settle (verified proofs included).
    /// `stop` ends the searches as if the budget ran out.
    fn solve_and_keep(
        &self,
        pos: &Position,
        question: Option<Question>,
        budget: Duration,
        stop: &StopFlag,
    ) -> Result<Solved, JobError> {
        let watch = Stopwatch::start(self.settings.clock);
        let leaves = Leaves::new(self.oracle, self.live);
        // The value of a position is asked again and again while it
        // resists: its tables carry over (alpha-beta keeps none). The
        // folder may have been removed while the run goes on (to free the
        // disk): made again, else this attempt keeps no tables rather
        // than failing when it writes them.
        let checkpoints = self
            .checkpoints
            .filter(|_| question.is_none() && self.settings.solver != SolverKind::Ab)
            .filter(|dir| match std::fs::create_dir_all(dir) {
                Ok(()) => true,
                Err(e) => {
                    eprintln!(
                        "checkers: {}: {e}; df-pn's tables of {} are not kept",
                        dir.display(),
                        engine::notation::fen::to_fen(pos)
                    );
                    false
                }
            });
        let opts = SolveOptions {
            solver: self.settings.solver,
            question,
            max_nodes: u64::MAX,
            time: Some(budget),
            clock: self.settings.clock,
            trust: self.settings.trust,
            checkpoint: checkpoints.map(|dir| CheckpointPlan {
                path: checkpoint_file(dir, pos),
                every: CHECKPOINT_EVERY,
                // The tables are a cache: a write that fails (a full
                // disk) must not cost the search's result.
                best_effort: true,
            }),
            proofs: true,
            max_proof_nodes: self.settings.max_proof_nodes,
            table_entries: self.settings.table_entries,
            egdb_pieces: self.settings.egdb_pieces,
            stop: Some(Arc::clone(stop)),
            ..SolveOptions::default()
        };
        let mut report = solve(*pos, leaves, &opts);
        if let (Err(SolveError::Checkpoint(e)), Some(plan)) = (&report, &opts.checkpoint) {
            // Tables that cannot be read back (another database size, a
            // damaged file): say so, and search afresh into a new file.
            eprintln!(
                "checkers: {}: df-pn tables {} not used ({e}); searching afresh",
                engine::notation::fen::to_fen(pos),
                plan.path.display()
            );
            let _ = std::fs::remove_file(&plan.path);
            report = solve(*pos, leaves, &opts);
        }
        let report = match report {
            Ok(report) => report,
            // A proof too large to extract leaves the question open, as
            // if its time had run out (the attempt is charged its whole
            // budget): the walk is stuck there, not failed.
            Err(e @ SolveError::Extract { .. }) => {
                eprintln!("checkers: {e}");
                return Ok(Solved {
                    outcome: None,
                    nodes: 0,
                    proof_size: 0,
                    time: watch.total(Duration::ZERO).max(budget),
                });
            }
            Err(e) => return Err(e.into()),
        };
        if let (Some(why), Some(plan)) = (&report.tables_unwritten, &opts.checkpoint) {
            eprintln!(
                "checkers: {}: df-pn's tables not written to {} ({why}); the search's result \
                 stands, its tables are not kept",
                engine::notation::fen::to_fen(pos),
                plan.path.display()
            );
        }
        if let Some(plan) = &opts.checkpoint {
            if matches!(report.outcome, Some(Outcome::Exact(_))) {
                // Settled: its tables are of no more use. A file that
                // cannot be removed only takes room.
                let _ = std::fs::remove_file(&plan.path);
            } else if let Some(dir) = checkpoints {
                self.keep_carry_over_within_limit(dir, &plan.path);
            }
        }
        // The solve's own thread's time.
        let solving = Duration::from_millis(report.provenance.millis);
        let nodes = report.provenance.nodes;
        let mut proof_size = 0;
        if let Some(outcome) = report.outcome {
            let trees: Vec<ProofTree> = report.proofs.iter().map(|p| p.tree.clone()).collect();
            let millis = watch.total(solving).as_millis() as u64;
            let prov = self.provenance(&report.provenance.solver, nodes, millis);
            proof_size = self.keep(pos, outcome, prov, &trees)?;
        }
        Ok(Solved {
            outcome: report.outcome,
            nodes,
            proof_size,
            time: watch.total(solving),
        })
    }

    /// What the databases and the run's results say of `pos` for the
    /// side to move's `question`: [`Status::Success`] when they answer it
    /// yes, [`Status::Failure`] when no.
    fn known(&self, pos: &Position, question: Question) -> Option<Status> {
        let (t, yes) = question_goal(question);
        Leaves::new(self.oracle, self.live)
            .classify(pos, t)
            .map(|(s, _)| {
                if yes == Status::Success {
                    s
                } else {
                    s.negate()
                }
            })
    }
}

/// What [`StoreProver::solve_and_keep`] did.
struct Solved {
    /// What was proved (and stored).
    outcome: Option<Outcome>,
    /// Nodes searched.
    nodes: u64,
    /// Positions of the stored proof trees.
    proof_size: u64,
    /// Time taken on the prover's clock (the solving thread's and this
    /// one's: [`Stopwatch::total`]).
    time: Duration,
}

impl QuestionSolver for StoreProver<'_> {
    /// Answers with the solvers (storing what they prove). A store or
    /// solver error counts as "unknown": the manager then expands the
    /// node instead, which is always safe.
    fn answer(
        &self,
        pos: &Position,
        question: Question,
        budget: Duration,
        stop: &StopFlag,
    ) -> (Status, Cost) {
        // The manager only asks about the side to move's own goals.
        if !question.prover_moves_first() {
            return (Status::Unknown, Cost::default());
        }
        let watch = Stopwatch::start(self.settings.clock);
        if let Some(s) = self.known(pos, question) {
            let cost = Cost {
                nodes: 0,
                time: watch.elapsed(),
            };
            return (s, cost);
        }
        let before = watch.elapsed();
        match self.solve_and_keep(pos, Some(question), budget, stop) {
            Ok(solved) => {
                let answer = self.known(pos, question).unwrap_or(Status::Unknown);
                let cost = Cost {
                    nodes: solved.nodes,
                    time: before + solved.time,
                };
                (answer, cost)
            }
            Err(_) => (
                Status::Unknown,
                Cost {
                    nodes: 0,
                    time: watch.elapsed(),
                },
            ),
        }
    }
}

/// A [`PositionProver`] that gives a position the solvers alone cannot
/// settle to the proof-tree manager (after Chinook's 2007 manager): half
/// the budget goes to a direct solve; if that leaves the value open, the
/// manager spends most of the rest on the open question(s), handing its
/// most-proving nodes to the solvers in small slices (each settled node is
/// stored); when it answers them, a last direct solve finds the proved
/// children in the store and produces the verified proof of the position.
pub struct ManagedProver<'a> {
    /// The solvers, the databases and the store.
    pub inner: StoreProver<'a>,
    /// Share of the position budget for one solver call of the manager
    /// (for example 0.05).
    pub call_share: f64,
    /// Most nodes in a manager tree.
    pub max_tree: usize,
}

impl ManagedProver<'_> {
    /// Runs the manager on `goal` of `pos` for `total`: its answer and
    /// what it cost.
    fn manage(
        &self,
        pos: &Position,
        goal: Question,
        total: Duration,
        stop: &StopFlag,
    ) -> (Status, Cost) {
        let clock = self.inner.settings.clock;
        let budget = ManagerBudget {
            per_call: total
                .mul_f64(self.call_share)
                .max(Duration::from_millis(100)),
            total,
            max_nodes: self.max_tree,
            clock,
        };
        let r = Manager::new(*pos, goal, &self.inner).run(budget, stop);
        let cost = Cost {
            nodes: r.solver_nodes,
            time: r.time,
        };
        (r.answer, cost)
    }
}

impl PositionProver for ManagedProver<'_> {
    fn prove(&self, pos: &Position, budget: Duration, stop: &StopFlag) -> Attempted {
        let first = self.inner.prove(pos, budget / 2, stop)?;
        if matches!(first.outcome, Some(Outcome::Exact(_))) {
            return Ok(first);
        }
        // Time spent, on the prover's clock: what the attempts and the
        // manager's runs took, one after the other (what this function
        // does between them is a few lookups).
        let mut spent = Duration::from_millis(first.millis);
        let mut nodes = first.nodes;
        // Keep a fifth of what is left for the final, proof-producing solve.
        let for_manager = budget.saturating_sub(spent).mul_f64(0.8);
        let mut managed = Duration::ZERO;
        let open = |q: Question| self.inner.known(pos, q).is_none();
        for q in [Question::Win, Question::AtLeastDraw] {
            if !open(q) {
                if self.inner.known(pos, q) == Some(Status::Success) {
                    break; // a win settles the value
                }
                continue;
            }
            let total = for_manager.saturating_sub(managed);
            if total.is_zero() || stop.load(std::sync::atomic::Ordering::Relaxed) {
                break;
            }
            let (answer, cost) = self.manage(pos, q, total, stop);
            nodes += cost.nodes;
            managed += cost.time;
            if answer != Status::Failure {
                break; // a win, or still open: nothing more to ask
            }
        }
        spent += managed;
        let left = budget.saturating_sub(spent);
        let (last_nodes, proof_size) = if left.is_zero() {
            (0, first.proof_size)
        } else {
            let last = self.inner.prove(pos, left, stop)?;
            spent += Duration::from_millis(last.millis);
            (last.nodes, last.proof_size)
        };
        Ok(Attempt {
            // Everything the run proved of the position, intersected.
            outcome: self.inner.live.lookup(pos).or(first.outcome),
            nodes: nodes + last_nodes,
            millis: spent.as_millis() as u64,
            proof_size,
        })
    }
}

/// [`JobRecords`] of one ballot in the store's `job_records` table.
pub struct StoreRecords<'a> {
    /// The store.
    pub store: &'a Store,
    /// The ballot.
    pub ballot: u32,
    /// The run writing records.
    pub run_id: String,
}

impl JobRecords for StoreRecords<'_> {
    fn ballot(&self) -> u32 {
        self.ballot
    }

    fn get(&self, ply: usize) -> Option<JobRecord> {
        self.store.job_record(self.ballot, ply as u32).ok()?
    }

    fn put(&mut self, r: &JobRecord) -> Result<(), JobError> {
        let rec = JobRecord {
            ballot: self.ballot,
            run_id: self.run_id.clone(),
            updated: proofdb::codec::unix_now(),
            ..r.clone()
        };
        Ok(self.store.put_job_record(&rec)?)
    }
}
