//! Answering a question about one position: runs the binary questions it
//! needs with the chosen solvers, cross-checks solvers that both finish,
//! extracts the proof of every settled question and has the independent
//! verifier check it before anything is reported.

mod retro_first;
mod searches;

use crate::clock::{use_clock, Clock, Instant};
use crate::dfpn::{CheckpointError, CheckpointStats};
use crate::guess::{guess, Expect};
use crate::leaves::Leaves;
use crate::question::Status;
use crate::tree::ExtractError;
use crate::verify::{VerifyError, VerifyReport};
use engine::{Move, Position, Value};
use proofdb::{Outcome, ProofTree, Provenance, Question};
use retro_first::{retro_part, retro_share};
use searches::{settles, Searches};
use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;
use std::time::Duration;
use thiserror::Error;

/// Which solver to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolverKind {
    /// Pessimistic alpha-beta.
    Ab,
    /// df-pn.
    Dfpn,
    /// Both, cross-checked.
    Both,
    /// Exact retrograde analysis of the graph reachable from the position
    /// ([`crate::retro`]), within [`SolveOptions::retro_positions`].
    Retro,
    /// Retrograde analysis first (with a time limit: at most a third of
    /// it and 250 000 positions per second of it), then both searches,
    /// cross-checked, on the question it leaves open, with the time left.
    All,
}

impl SolverKind {
    /// The searches this choice runs on the questions the retrograde
    /// analysis leaves open (all of them, when it runs none).
    pub fn searches(self) -> &'static [Runner] {
        match self {
            SolverKind::Ab => &[Runner::Ab],
            SolverKind::Dfpn => &[Runner::Dfpn],
            SolverKind::Both | SolverKind::Retro | SolverKind::All => &[Runner::Ab, Runner::Dfpn],
        }
    }
}

/// What ran a [`QuestionRun`]: one of the solvers, or the extraction of
/// the proof of a question a search settled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Runner {
    /// Pessimistic alpha-beta ([`crate::prover`]).
    Ab,
    /// df-pn ([`crate::dfpn`]).
    Dfpn,
    /// The retrograde analysis ([`crate::retro`]).
    Retro,
    /// The extraction of a proof whose tree was not complete when the
    /// time ran out: its status is unknown, its nodes are the tree's
    /// positions by then.
    Extract,
}

impl Runner {
    /// `ab`, `dfpn`, `retro` or `extract`: the name in reports and in a
    /// store's provenance.
    pub const fn name(self) -> &'static str {
        match self {
            Runner::Ab => "ab",
            Runner::Dfpn => "dfpn",
            Runner::Retro => "retro",
            Runner::Extract => "extract",
        }
    }

    /// The names of `runners` joined by `+` (`retro+ab+dfpn`), as a
    /// provenance names the solvers behind a result.
    pub fn names(runners: &[Runner]) -> String {
        let names: Vec<&str> = runners.iter().map(|r| r.name()).collect();
        names.join("+")
    }
}

impl fmt::Display for Runner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Who proved a result and what it cost: the solver's part of a store's
/// [`Provenance`]. The store adds the run when it keeps the result
/// ([`proofdb::RunSink::keep`]); the solvers know nothing of runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Credit {
    /// The solvers, [`Runner::names`] (`ab`, `dfpn`, `ab+dfpn`, `retro`,
    /// `retro+ab+dfpn`).
    pub solver: String,
    /// Nodes searched (positions, for the retrograde analysis).
    pub nodes: u64,
    /// Time taken in milliseconds, on [`SolveOptions::clock`].
    pub millis: u64,
    /// Largest database piece count used.
    pub egdb_pieces: u32,
}

impl From<Credit> for Provenance {
    /// A provenance without a run (the store stamps its own).
    fn from(c: Credit) -> Provenance {
        Provenance {
            solver: c.solver,
            nodes: c.nodes,
            millis: c.millis,
            egdb_pieces: c.egdb_pieces,
            run_id: String::new(),
        }
    }
}

/// Limits and choices of a [`solve`] call.
#[derive(Clone, Debug)]
pub struct SolveOptions {
    /// Which solver.
    pub solver: SolverKind,
    /// Which question: `None` asks the value (as many of the two binary
    /// questions as needed); [`Question::Win`] (or its negation
    /// [`Question::AtMostDraw`]) asks whether the side to move wins,
    /// [`Question::AtLeastDraw`] (or [`Question::Loss`]) whether it at
    /// least draws.
    pub question: Option<Question>,
    /// Node budget per solver and binary question.
    pub max_nodes: u64,
    /// Time limit for the whole call, on [`SolveOptions::clock`].
    pub time: Option<Duration>,
    /// What [`SolveOptions::time`] counts (and the times reported):
    /// by default the CPU time of the thread that solves, so that a loaded
    /// machine gives a search the same work as an idle one.
    pub clock: Clock,
    /// Extract and verify the proofs of settled questions.
    pub proofs: bool,
    /// Largest proof tree to extract.
    pub max_proof_nodes: usize,
    /// Table size per solver (entries).
    pub table_entries: usize,
    /// Largest database piece count used (for the provenance).
    pub egdb_pieces: u32,
    /// Set from outside to stop the searches as if the budget ran out
    /// (what was settled before stays settled).
    pub stop: Option<Arc<AtomicBool>>,
    /// Work done is added here as it goes (nodes searched, positions the
    /// retrograde analysis expanded), for a report from another thread.
    pub progress: Option<Arc<AtomicU64>>,
    /// Most positions the retrograde analysis may enumerate
    /// ([`SolverKind::Retro`], [`SolverKind::All`]).
    pub retro_positions: usize,
    /// When df-pn builds on results that rely on a repetition before they
    /// are checked ([`crate::dfpn::DfpnConfig::trust`]).
    pub trust: RepetitionTrust,
    /// Keep df-pn's tables in a file, written as the search goes and
    /// after each question, and read back by the next run of the same
    /// search ([`crate::dfpn::checkpoint`]). Ignored by [`SolverKind::Ab`].
    pub checkpoint: Option<CheckpointPlan>,
}

/// When df-pn builds on results held through a repetition before they
/// are checked ([`crate::dfpn::DfpnConfig::trust`]): it pays where the
/// answer is the draw side's (a draw, or "no win" against a side that
/// holds the draw) and costs where it is the other side's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RepetitionTrust {
    /// Never.
    Off,
    /// For every question.
    On,
    /// For a position expected to be a draw: the engine's guess
    /// ([`crate::guess`]) is level, or a child is a leaf that gives the
    /// mover the draw and the guess is not a win.
    Auto,
}

/// Where and how often df-pn's tables are written ([`SolveOptions::checkpoint`]).
#[derive(Clone, Debug)]
pub struct CheckpointPlan {
    /// The file (read back when it exists).
    pub path: PathBuf,
    /// Time between two writes during a search.
    pub every: Duration,
    /// What a write that fails does. `false`: it ends the call in an
    /// error ([`SolveError::Checkpoint`]; for a user who asked for the
    /// file). `true`, for tables kept as a cache: the search goes on and
    /// its result stands, no write is tried again, and the failure is
    /// reported in [`SolveReport::tables_unwritten`].
    pub best_effort: bool,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            solver: SolverKind::Ab,
            question: None,
            max_nodes: 10_000_000,
            time: None,
            clock: Clock::Cpu,
            proofs: true,
            max_proof_nodes: 5_000_000,
            table_entries: 4_000_000,
            egdb_pieces: 0,
            stop: None,
            progress: None,
            retro_positions: 30_000_000,
            trust: RepetitionTrust::Auto,
            checkpoint: None,
        }
    }
}

/// One binary question run by one solver.
#[derive(Clone, Debug)]
pub struct QuestionRun {
    /// Question for the side to move at the root.
    pub threshold: Question,
    /// What ran it (the retrograde analysis answers every question at
    /// once: its first run carries its positions as nodes and its time,
    /// the second, if any, none).
    pub solver: Runner,
    /// What it found.
    pub status: Status,
    /// Nodes searched.
    pub nodes: u64,
    /// Time taken, on [`SolveOptions::clock`].
    pub millis: u64,
    /// Its root move (proving or refuting), when known.
    pub best: Option<Move>,
    /// df-pn's proof and disproof numbers of the root (the mover's view:
    /// the estimated cost of proving the answer yes, of proving it no)
    /// when its question is still open, so that runs resumed one after
    /// another can be compared; `None` for other solvers and settled
    /// questions.
    pub numbers: Option<(u32, u32)>,
}

/// A verified proof with its figures.
#[derive(Clone, Debug)]
pub struct VerifiedProof {
    /// The proof.
    pub tree: ProofTree,
    /// What the verifier found.
    pub report: VerifyReport,
    /// Who proved it.
    pub provenance: Credit,
}

/// The answer for one position.
#[derive(Clone, Debug)]
pub struct SolveReport {
    /// The position.
    pub root: Position,
    /// What was established (exact value or bound), if anything.
    pub outcome: Option<Outcome>,
    /// The best move for the side to move, when known (the proving move
    /// of a win or of "at least a draw").
    pub best_move: Option<Move>,
    /// Every binary question run.
    pub runs: Vec<QuestionRun>,
    /// The verified proofs (empty when proofs were not asked for).
    pub proofs: Vec<VerifiedProof>,
    /// Summary provenance (solvers, total nodes and time).
    pub provenance: Credit,
    /// What df-pn's tables were resumed from ([`SolveOptions::checkpoint`]):
    /// its nodes count in the provenances (of the report and of df-pn's
    /// proofs), not in the runs, which are this call's.
    pub resumed: Option<CheckpointStats>,
    /// Why df-pn's tables could not be written, when a
    /// [`CheckpointPlan::best_effort`] write failed (the file then holds
    /// what was written before, if anything).
    pub tables_unwritten: Option<String>,
}

/// A failure that must never go unnoticed.
#[derive(Debug, Error)]
pub enum SolveError {
    /// The two solvers settled a question differently.
    #[error(
        "solvers disagree on {fen} at threshold {threshold}: ab says {ab:?}, dfpn says {dfpn:?}"
    )]
    Disagreement {
        /// The position.
        fen: String,
        /// The threshold.
        threshold: Question,
        /// Alpha-beta's answer.
        ab: Status,
        /// df-pn's answer.
        dfpn: Status,
    },
    /// A proof could not be extracted. The search's answer is not
    /// reported: without a verified proof it is the solver's word alone.
    #[error(
        "{fen}: the search settled a question but its proof could not be extracted ({why}); \
         nothing is reported for it (raise --max-proof-nodes, or --no-proof for the search's \
         unverified answer)"
    )]
    Extract {
        /// The position.
        fen: String,
        /// Why (not a `source`: the message already holds it).
        why: ExtractError,
    },
    /// df-pn's tables could not be written or read back.
    #[error("df-pn checkpoint")]
    Checkpoint(#[from] CheckpointError),
    /// The retrograde analysis and the searches proved incompatible
    /// results.
    #[error("{fen}: the retrograde analysis proved {retro}, the searches {search}")]
    Contradiction {
        /// The position.
        fen: String,
        /// What the retrograde analysis proved.
        retro: Outcome,
        /// What the searches proved.
        search: Outcome,
    },
    /// An extracted proof failed verification (a solver bug).
    #[error("the {question} proof of {fen} failed verification: {source}")]
    Verify {
        /// The position.
        fen: String,
        /// The question.
        question: &'static str,
        /// Why.
        source: VerifyError,
    },
}

/// Node budget of one alpha-beta call while extracting a df-pn proof: a
/// position alpha-beta cannot settle quickly goes back to df-pn.
const EXTRACT_AB_NODES: u64 = 200_000;

/// Answers `opts.question` for `root` with `leaves`.
pub fn solve(
    root: Position,
    leaves: Leaves<'_>,
    opts: &SolveOptions,
) -> Result<SolveReport, SolveError> {
    // Deep searches recurse deeply: run on a thread with a large stack.
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(512 << 20)
            .spawn_scoped(s, || {
                use_clock(opts.clock);
                solve_here(root, leaves, opts)
            })
            .expect("spawning the solver thread")
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p))
    })
}

/// [`solve`] on this thread: the retrograde analysis first when chosen,
/// then the searches, with what is left of the time, on what it leaves
/// open.
fn solve_here(
    root: Position,
    leaves: Leaves<'_>,
    opts: &SolveOptions,
) -> Result<SolveReport, SolveError> {
    if !matches!(opts.solver, SolverKind::Retro | SolverKind::All) {
        return search_here(root, leaves, opts);
    }
    let start = Instant::now();
    let deadline = opts.time.map(|d| start + d);
    let part = match retro_part(root, leaves, opts, start, retro_share(opts, start)) {
        Ok(part) => part,
        // A proof too large to extract: the searches may find a smaller one.
        Err(SolveError::Extract { .. }) if opts.solver == SolverKind::All => Default::default(),
        Err(e) => return Err(e),
    };
    let settled = part.outcome.is_some_and(|o| settles(opts.question, o));
    if settled || opts.solver == SolverKind::Retro {
        return Ok(part.report(root, opts, start));
    }
    let rest = SolveOptions {
        solver: SolverKind::Both,
        question: part.open_question(opts.question),
        time: deadline.map(|d| d.saturating_duration_since(Instant::now())),
        ..opts.clone()
    };
    let rep = search_here(root, leaves, &rest)?;
    part.join(rep, opts, start)
}

/// The searches (alpha-beta, df-pn or both) for `opts.question`. The engine's
/// guess steers the order of the questions and the trust in repetitions
/// (never what is proved).
fn search_here(
    root: Position,
    leaves: Leaves<'_>,
    opts: &SolveOptions,
) -> Result<SolveReport, SolveError> {
    let start = Instant::now();
    let uses_dfpn = opts.solver != SolverKind::Ab;
    let guessed = (opts.question.is_none() || (opts.trust == RepetitionTrust::Auto && uses_dfpn))
        .then(|| guess(&root, leaves.oracle));
    let expect = guessed.map(|g| g.expect);
    let drawn_child = draw_by_a_leaf_child(&root, &leaves);
    let trust = match opts.trust {
        RepetitionTrust::Off => false,
        RepetitionTrust::On => true,
        RepetitionTrust::Auto => {
            expect == Some(Expect::Draw) || (drawn_child && expect != Some(Expect::Win))
        }
    };
    let mut searches = Searches::new(root, leaves, opts, trust)?;
    let found = match opts.question.map(Question::threshold) {
        Some(Question::Win) => searches.answer_win()?,
        Some(_) => searches.answer_draw()?,
        None => {
            // The budget goes to the question still open: a draw question
            // that the databases or the store already settle at the root,
            // or at one of its children (the ballot walk's main-line
            // child), is asked first (it costs a node or a few), and the
            // win question gets all the time; otherwise the win question
            // gets half, the draw question the rest, and what the draw
            // question leaves goes back to a win question still open.
            //
            // The engine's guess orders the rest: a position it expects
            // to lose asks the draw question first, with all the time (a
            // "no" is the loss); one it expects to win gives the win
            // question three quarters of the time.
            let draw_settled = (leaves.classify(&root, Question::AtLeastDraw).is_some()
                || drawn_child)
                && leaves.classify(&root, Question::Win).is_none();
            let draw_first = draw_settled || expect == Some(Expect::Loss);
            let fraction = searches::win_fraction(expect == Some(Expect::Win));
            searches.answer_value(draw_first, fraction)?
        }
    };
    Ok(searches.finish(found, start))
}

/// The moves of `pos` that the solver proves win: those after which the
/// side to move is proved lost by df-pn within `max_nodes` nodes, each
/// proof checked by the verifier. A move not listed may still win past
/// the budget.
pub fn proved_winning_moves(
    pos: &Position,
    leaves: Leaves<'_>,
    max_nodes: u64,
) -> Result<Vec<Move>, SolveError> {
    let opts = SolveOptions {
        solver: SolverKind::Dfpn,
        question: Some(Question::AtLeastDraw),
        max_nodes,
        ..SolveOptions::default()
    };
    let mut winning = Vec::new();
    for m in pos.moves().iter() {
        let rep = solve(pos.play_unchecked(m), leaves, &opts)?;
        if rep.outcome == Some(Outcome::Exact(Value::Loss)) && !rep.proofs.is_empty() {
            winning.push(*m);
        }
    }
    Ok(winning)
}

/// Whether a child of `root` is a leaf that gives the mover at least a
/// draw (the databases or the store say its mover does not win).
fn draw_by_a_leaf_child(root: &Position, leaves: &Leaves<'_>) -> bool {
    let ct = Question::AtLeastDraw.child();
    root.moves().iter().any(|m| {
        leaves.classify(&root.play_unchecked(m), ct).map(|(s, _)| s) == Some(Status::Failure)
    })
}

/// Where verified proofs go besides a file (the proof store implements
/// it when present).
pub trait ProofSink {
    /// Why a proof could not be kept (for the proof store,
    /// [`proofdb::StoreError`]).
    type Error: std::error::Error + Send + Sync + 'static;

    /// Keeps `proof`, proved at `proof.tree.root`, with its provenance.
    fn put(&mut self, proof: &VerifiedProof) -> Result<(), Self::Error>;
}

/// Whether `q` is a question whose proofs may loop.
pub fn question_loops(q: Question) -> bool {
    q.allows_cycles()
}
