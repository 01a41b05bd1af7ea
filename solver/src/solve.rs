//! Answering a question about one position: runs the binary questions it
//! needs with the chosen solvers, cross-checks solvers that both finish,
//! extracts the proof of every settled question and has the independent
//! verifier check it before anything is reported.

use crate::budget::Limits;
use crate::clock::{use_clock, Clock, Instant};
use crate::dfpn::{CheckpointError, CheckpointStats, Dfpn, DfpnConfig};
use crate::guess::{guess, Expect};
use crate::leaves::Leaves;
use crate::prover::{AbConfig, AlphaBeta};
use crate::question::{child_threshold, proved_question, Status};
use crate::retro::{Retro, RetroConfig, RetroError};
use crate::tree::{extract, DfpnThenAb, ExtractError};
use crate::verify::{verify, VerifyError, VerifyReport};
use engine::notation::fen::to_fen;
use engine::{Move, Position, Value};
use proofdb::{Outcome, ProofTree, Provenance, Question};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64};
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

/// What to establish.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ask {
    /// Does the side to move win?
    Win,
    /// Does the side to move at least draw?
    Draw,
    /// The value: as many of the two questions as needed.
    Value,
}

/// Limits and choices of a [`solve`] call.
#[derive(Clone, Debug)]
pub struct SolveOptions {
    /// Which solver.
    pub solver: SolverKind,
    /// Which question.
    pub ask: Ask,
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
    pub stop: Option<&'static AtomicBool>,
    /// Work done is added here as it goes (nodes searched, positions the
    /// retrograde analysis expanded), for a report from another thread.
    pub progress: Option<&'static AtomicU64>,
    /// Most positions the retrograde analysis may enumerate
    /// ([`SolverKind::Retro`], [`SolverKind::All`]).
    pub retro_positions: usize,
    /// When df-pn builds on results that rely on a repetition before they
    /// are checked ([`crate::dfpn::DfpnConfig::trust`]).
    pub trust: Trust,
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
pub enum Trust {
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
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            solver: SolverKind::Ab,
            ask: Ask::Value,
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
            trust: Trust::Auto,
            checkpoint: None,
        }
    }
}

/// One binary question run by one solver.
#[derive(Clone, Debug)]
pub struct QuestionRun {
    /// Threshold for the side to move at the root (`Win` or `Draw`).
    pub threshold: Value,
    /// `ab`, `dfpn` or `retro` (the retrograde analysis answers every
    /// question at once: its first run carries its positions as nodes and
    /// its time, the second, if any, none), or [`EXTRACTION_RUN`].
    pub solver: &'static str,
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

/// [`QuestionRun::solver`] of a question a search settled whose proof
/// tree was not complete when the time ran out: its status is unknown,
/// its nodes are the tree's positions by then.
pub const EXTRACTION_RUN: &str = "extract";

/// A verified proof with its figures.
#[derive(Clone, Debug)]
pub struct VerifiedProof {
    /// The proof.
    pub tree: ProofTree,
    /// What the verifier found.
    pub report: VerifyReport,
    /// Who proved it.
    pub provenance: Provenance,
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
    pub provenance: Provenance,
    /// What df-pn's tables were resumed from ([`SolveOptions::checkpoint`]):
    /// its nodes count in the provenances (of the report and of df-pn's
    /// proofs), not in the runs, which are this call's.
    pub resumed: Option<CheckpointStats>,
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
        threshold: Value,
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

/// Positions per second of the time limit the retrograde analysis may
/// enumerate under [`SolverKind::All`] (it manages about a million a
/// second on one core).
const ALL_RETRO_RATE: f64 = 250_000.0;

/// Node budget of one alpha-beta call while extracting a df-pn proof: a
/// position alpha-beta cannot settle quickly goes back to df-pn.
const EXTRACT_AB_NODES: u64 = 200_000;

/// Answers `opts.ask` for `root` with `leaves`.
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
    // With --solver all and a time limit, the retrograde analysis gets a
    // third of it and at most ALL_RETRO_RATE positions per second of it
    // (its cost is about linear in the positions): a graph that small is
    // solved in a fraction of the time, a larger one would starve the
    // searches, which settle most positions of that size.
    let (until, cap) = match (opts.solver, opts.time) {
        (SolverKind::All, Some(t)) => (
            Some(start + t / 3),
            opts.retro_positions
                .min((t.as_secs_f64() * ALL_RETRO_RATE) as usize)
                .max(1),
        ),
        _ => (deadline, opts.retro_positions),
    };
    let part = match retro_part(root, leaves, opts, start, until, cap) {
        Ok(part) => part,
        // A proof too large to extract: the searches may find a smaller one.
        Err(SolveError::Extract { .. }) if opts.solver == SolverKind::All => RetroPart::default(),
        Err(e) => return Err(e),
    };
    let retro_nodes: u64 = part.runs.iter().map(|r| r.nodes).sum();
    let settled = part.outcome.is_some_and(|o| settles(opts.ask, o));
    if settled || opts.solver == SolverKind::Retro {
        return Ok(SolveReport {
            root,
            outcome: part.outcome,
            best_move: part.best,
            runs: part.runs,
            proofs: part.proofs,
            provenance: Provenance {
                solver: "retro".to_string(),
                nodes: retro_nodes,
                millis: start.elapsed().as_millis() as u64,
                egdb_pieces: opts.egdb_pieces,
                run_id: String::new(),
            },
            resumed: None,
        });
    }
    // The searches, with what is left of the time, on what is left open.
    let (lo, hi) = part
        .outcome
        .map_or((Value::Loss, Value::Win), |o| o.range());
    let ask = match opts.ask {
        Ask::Value if lo == Value::Draw => Ask::Win,
        Ask::Value if hi == Value::Draw => Ask::Draw,
        ask => ask,
    };
    let rest = SolveOptions {
        solver: SolverKind::Both,
        ask,
        time: deadline.map(|d| d.saturating_duration_since(Instant::now())),
        ..opts.clone()
    };
    let mut rep = search_here(root, leaves, &rest)?;
    let outcome = match (part.outcome, rep.outcome) {
        (Some(a), Some(b)) => Some(a.intersect(b).map_err(|_| SolveError::Contradiction {
            fen: to_fen(&root),
            retro: a,
            search: b,
        })?),
        (a, b) => a.or(b),
    };
    let mut proofs = part.proofs;
    proofs.append(&mut rep.proofs);
    match outcome {
        // The win or loss proof subsumes the bounds' proofs.
        Some(Outcome::Exact(Value::Loss)) => proofs.retain(|p| p.tree.question == Question::Loss),
        Some(Outcome::Exact(Value::Win)) => proofs.retain(|p| p.tree.question == Question::Win),
        _ => {}
    }
    let mut runs = part.runs;
    runs.append(&mut rep.runs);
    let retro_proved = proofs.iter().any(|p| p.provenance.solver == "retro");
    Ok(SolveReport {
        root,
        outcome,
        best_move: rep.best_move.or(part.best),
        runs,
        proofs,
        provenance: Provenance {
            solver: if retro_proved {
                "retro+ab+dfpn"
            } else {
                "ab+dfpn"
            }
            .to_string(),
            nodes: rep.provenance.nodes + retro_nodes,
            millis: start.elapsed().as_millis() as u64,
            egdb_pieces: opts.egdb_pieces,
            run_id: String::new(),
        },
        resumed: rep.resumed,
    })
}

/// Whether `o` answers `ask`.
fn settles(ask: Ask, o: Outcome) -> bool {
    let (lo, hi) = o.range();
    match ask {
        Ask::Win => lo == Value::Win || hi <= Value::Draw,
        Ask::Draw => lo >= Value::Draw || hi == Value::Loss,
        Ask::Value => lo == hi,
    }
}

/// What the retrograde analysis established: its runs, the value or
/// bound of the root, the move realising its lower bound, and the
/// verified proofs of every question the bounds settle.
#[derive(Default)]
struct RetroPart {
    runs: Vec<QuestionRun>,
    outcome: Option<Outcome>,
    best: Option<Move>,
    proofs: Vec<VerifiedProof>,
}

/// Runs the retrograde analysis until `until` on at most `cap` positions
/// (expanding positions for three quarters of the time from `start`, the
/// rest is for the analysis and the proofs). Giving up (time, stop) is an empty part, not an
/// error; a proof too large is [`SolveError::Extract`]; a proof the
/// verifier rejects is [`SolveError::Verify`].
fn retro_part(
    root: Position,
    leaves: Leaves<'_>,
    opts: &SolveOptions,
    start: Instant,
    until: Option<Instant>,
    cap: usize,
) -> Result<RetroPart, SolveError> {
    let t0 = Instant::now();
    let cfg = RetroConfig {
        max_positions: cap,
        expand_until: until.map(|u| start + u.saturating_duration_since(start) * 3 / 4),
        deadline: until,
        stop: opts.stop,
        progress: opts.progress,
    };
    let first = if opts.ask == Ask::Draw {
        Value::Draw
    } else {
        Value::Win
    };
    let r = match Retro::solve(root, leaves, &cfg) {
        Ok(r) => r,
        Err(e) => {
            let nodes = match e {
                RetroError::OutOfTime { positions, .. } | RetroError::Stopped { positions, .. } => {
                    positions
                }
                _ => 0,
            };
            return Ok(RetroPart {
                runs: vec![QuestionRun {
                    threshold: first,
                    solver: "retro",
                    status: Status::Unknown,
                    nodes: nodes as u64,
                    millis: t0.elapsed().as_millis() as u64,
                    best: None,
                    numbers: None,
                }],
                ..RetroPart::default()
            });
        }
    };
    let (lo, hi) = r.bounds();
    let millis = t0.elapsed().as_millis() as u64;
    let best = if lo >= Value::Draw {
        r.best_move()
    } else {
        None
    };
    // The binary questions in the order the searches ask them.
    let win = if lo == Value::Win {
        Status::Success
    } else if hi <= Value::Draw {
        Status::Failure
    } else {
        Status::Unknown
    };
    let draw = if lo >= Value::Draw {
        Status::Success
    } else if hi == Value::Loss {
        Status::Failure
    } else {
        Status::Unknown
    };
    let asked = match opts.ask {
        Ask::Win => vec![(Value::Win, win)],
        Ask::Draw => vec![(Value::Draw, draw)],
        Ask::Value if win == Status::Success => vec![(Value::Win, win)],
        Ask::Value => vec![(Value::Win, win), (Value::Draw, draw)],
    };
    let runs = asked
        .iter()
        .enumerate()
        .map(|(k, &(threshold, status))| QuestionRun {
            threshold,
            solver: "retro",
            status,
            nodes: if k == 0 { r.positions() as u64 } else { 0 },
            millis: if k == 0 { millis } else { 0 },
            best: if status == Status::Success {
                best
            } else {
                None
            },
            numbers: None,
        })
        .collect();
    let mut proofs = Vec::new();
    for question in r.questions().into_iter().filter(|_| opts.proofs) {
        let t1 = Instant::now();
        let tree = r
            .proof(question, opts.max_proof_nodes)
            .map_err(|_| SolveError::Extract {
                fen: to_fen(&root),
                why: ExtractError::TooLarge(opts.max_proof_nodes),
            })?;
        let report =
            verify(&tree, leaves.oracle, leaves.store).map_err(|source| SolveError::Verify {
                fen: to_fen(&root),
                question: question.name(),
                source,
            })?;
        proofs.push(VerifiedProof {
            tree,
            report,
            provenance: Provenance {
                solver: "retro".to_string(),
                nodes: r.positions() as u64,
                millis: millis + t1.elapsed().as_millis() as u64,
                egdb_pieces: opts.egdb_pieces,
                run_id: String::new(),
            },
        });
    }
    Ok(RetroPart {
        runs,
        outcome: r.outcome(),
        best,
        proofs,
    })
}

/// The searches (alpha-beta, df-pn or both) for `opts.ask`.
fn search_here(
    root: Position,
    leaves: Leaves<'_>,
    opts: &SolveOptions,
) -> Result<SolveReport, SolveError> {
    let start = Instant::now();
    // No deadline here: each question sets its own from `deadline` below,
    // which counts from after a checkpoint is read.
    let limits = Limits {
        max_nodes: opts.max_nodes,
        deadline: None,
        stop: opts.stop,
        progress: opts.progress,
    };
    let ab_cfg = AbConfig {
        limits,
        table_entries: opts.table_entries,
        ..AbConfig::default()
    };
    let mut ab = AlphaBeta::new(leaves, ab_cfg);
    // The engine's guess steers the order of the questions and the
    // trust in repetitions (never what is proved).
    let uses_dfpn = opts.solver != SolverKind::Ab;
    let guessed = (opts.ask == Ask::Value || (opts.trust == Trust::Auto && uses_dfpn))
        .then(|| guess(&root, leaves.oracle));
    let expect = guessed.map(|g| g.expect);
    let drawn_child = draw_by_a_leaf_child(&root, &leaves);
    let trust = match opts.trust {
        Trust::Off => false,
        Trust::On => true,
        Trust::Auto => expect == Some(Expect::Draw) || (drawn_child && expect != Some(Expect::Win)),
    };
    let mut df = Dfpn::new(
        leaves,
        DfpnConfig {
            limits,
            table_entries: opts.table_entries,
            trust,
            ..DfpnConfig::default()
        },
    );
    // The tables' file names the root and the databases: a checkpoint of
    // another search is refused, not mixed in.
    let context = format!(
        "{} with databases up to {} pieces",
        to_fen(&root),
        opts.egdb_pieces
    );
    let mut resumed = None;
    // Alpha-beta alone keeps no df-pn tables: nothing to read or write.
    let checkpoint = opts
        .checkpoint
        .as_ref()
        .filter(|_| opts.solver != SolverKind::Ab);
    if let Some(plan) = checkpoint {
        if plan.path.exists() {
            resumed = Some(df.load_checkpoint(&plan.path, &context)?);
        }
        df.checkpoint_every(&plan.path, &context, plan.every);
    }
    let earlier = resumed.map_or(0, |r: CheckpointStats| r.nodes);
    // Reading a checkpoint does not count against `--time`: the searches'
    // clock starts after it (`start` still times the whole call).
    let searching = Instant::now();
    let deadline = opts.time.map(|d| searching + d);
    let mut runs = Vec::new();
    let mut proofs = Vec::new();
    // With a time limit, each question gets a share of what is left (the
    // first of two questions half of it) and, with both solvers,
    // alpha-beta half of its question's share, df-pn the rest: a solver
    // or question that cannot finish does not starve the other.
    let share = |until: Option<Instant>, fraction: f64| {
        until.map(|u| {
            let now = Instant::now();
            now + u.saturating_duration_since(now).mul_f64(fraction)
        })
    };
    let mut ask = |t: Value,
                   until: Option<Instant>,
                   runs: &mut Vec<QuestionRun>,
                   proofs: &mut Vec<VerifiedProof>|
     -> Result<(Status, Option<Move>), SolveError> {
        let mut results: Vec<(&'static str, Status)> = Vec::new();
        let mut best = None;
        if matches!(opts.solver, SolverKind::Ab | SolverKind::Both) {
            let part = if opts.solver == SolverKind::Both {
                0.5
            } else {
                1.0
            };
            ab.set_deadline(share(until, part));
            let (n0, t0) = (ab.nodes(), Instant::now());
            let o = ab.prove(root, t, None, &[]);
            runs.push(QuestionRun {
                threshold: t,
                solver: "ab",
                status: o.res.status,
                nodes: ab.nodes() - n0,
                millis: t0.elapsed().as_millis() as u64,
                best: o.best,
                numbers: None,
            });
            results.push(("ab", o.res.status));
            best = best.or(o.best.filter(|_| o.res.status != Status::Unknown));
        }
        if matches!(opts.solver, SolverKind::Dfpn | SolverKind::Both) {
            df.set_deadline(until);
            let (n0, t0) = (df.nodes(), Instant::now());
            let o = df.prove(root, t, &[]);
            runs.push(QuestionRun {
                threshold: t,
                solver: "dfpn",
                status: o.res.status,
                nodes: df.nodes() - n0,
                millis: t0.elapsed().as_millis() as u64,
                best: o.best,
                numbers: if o.res.status == Status::Unknown {
                    df.numbers(&root, t)
                } else {
                    None
                },
            });
            if let Some(plan) = checkpoint {
                if let Some(e) = df.checkpoint_failure() {
                    return Err(e.into());
                }
                df.save_checkpoint(&plan.path, &context)?;
            }
            results.push(("dfpn", o.res.status));
            best = best.or(o.best.filter(|_| o.res.status != Status::Unknown));
        }
        if let [(_, a), (_, d)] = results.as_slice() {
            if *a != Status::Unknown && *d != Status::Unknown && a != d {
                return Err(SolveError::Disagreement {
                    fen: to_fen(&root),
                    threshold: t,
                    ab: *a,
                    dfpn: *d,
                });
            }
        }
        let settled = results.iter().find(|(_, s)| *s != Status::Unknown).copied();
        let Some((who, status)) = settled else {
            return Ok((Status::Unknown, None));
        };
        if opts.proofs {
            let question = proved_question(t, status).expect("settled");
            // Extraction walks what the tables hold first and searches
            // again only where that walk cannot close the proof
            // (`tree::extract`'s rounds). So that a proof found just before the deadline is
            // not lost to it, its searches may run until the deadline or
            // as long again as the solve has taken so far (at least 10 s),
            // whichever is later; past that, extraction goes on from what
            // the tables hold, up to `--time` past the deadline (at least
            // 10 s), and gives up then (a proof of a million positions can
            // take minutes): a solve takes at most twice its time limit
            // before the verification.
            let t0 = Instant::now();
            let grace =
                deadline.map(|d| d.max(t0 + searching.elapsed().max(Duration::from_secs(10))));
            let stop = deadline.zip(grace).map(|(d, g)| {
                g.max(
                    d + d
                        .saturating_duration_since(searching)
                        .max(Duration::from_secs(10)),
                )
            });
            let tree = if who == "ab" {
                ab.set_deadline(grace);
                extract(&mut ab, leaves, root, question, opts.max_proof_nodes, stop)
            } else {
                // df-pn's table, then alpha-beta on a small budget, then
                // df-pn again for what alpha-beta leaves open.
                df.set_deadline(grace);
                ab.set_config(AbConfig {
                    limits: Limits {
                        max_nodes: EXTRACT_AB_NODES.min(opts.max_nodes),
                        deadline: grace,
                        ..limits
                    },
                    ..ab_cfg
                });
                let mut both = DfpnThenAb {
                    dfpn: &mut df,
                    ab: &mut ab,
                };
                extract(
                    &mut both,
                    leaves,
                    root,
                    question,
                    opts.max_proof_nodes,
                    stop,
                )
            };
            // The next question sets its own deadlines; the node budget
            // comes back here.
            ab.set_config(ab_cfg);
            let tree = match tree {
                Ok(tree) => tree,
                // Out of time: the question stays open, as when the search
                // itself runs out; the run says how far extraction got.
                Err(ExtractError::OutOfTime(positions)) => {
                    runs.push(QuestionRun {
                        threshold: t,
                        solver: EXTRACTION_RUN,
                        status: Status::Unknown,
                        nodes: positions as u64,
                        millis: t0.elapsed().as_millis() as u64,
                        best: None,
                        numbers: None,
                    });
                    return Ok((Status::Unknown, None));
                }
                Err(why) => {
                    return Err(SolveError::Extract {
                        fen: to_fen(&root),
                        why,
                    })
                }
            };
            let report = verify(&tree, leaves.oracle, leaves.store).map_err(|source| {
                SolveError::Verify {
                    fen: to_fen(&root),
                    question: question.name(),
                    source,
                }
            })?;
            let run = runs.iter().rev().find(|r| r.solver == who).expect("ran");
            proofs.push(VerifiedProof {
                tree,
                report,
                provenance: Provenance {
                    solver: who.to_string(),
                    // A df-pn proof rests on the runs its tables were
                    // resumed from too.
                    nodes: run.nodes + if who == "dfpn" { earlier } else { 0 },
                    millis: run.millis + t0.elapsed().as_millis() as u64,
                    egdb_pieces: opts.egdb_pieces,
                    run_id: String::new(),
                },
            });
        }
        Ok((status, best))
    };

    let outcome;
    let mut best_move = None;
    match opts.ask {
        Ask::Win => {
            let (s, b) = ask(Value::Win, deadline, &mut runs, &mut proofs)?;
            outcome = match s {
                Status::Success => Some(Outcome::Exact(Value::Win)),
                Status::Failure => Some(Outcome::AtMostDraw),
                Status::Unknown => None,
            };
            if s == Status::Success {
                best_move = b;
            }
        }
        Ask::Draw => {
            let (s, b) = ask(Value::Draw, deadline, &mut runs, &mut proofs)?;
            outcome = match s {
                Status::Success => Some(Outcome::AtLeastDraw),
                Status::Failure => Some(Outcome::Exact(Value::Loss)),
                Status::Unknown => None,
            };
            if s == Status::Success {
                best_move = b;
            }
        }
        Ask::Value => {
            // The budget goes to the question still open: a draw question
            // that the databases or the store already settle at the root,
            // or at one of its children (the ballot walk's main-line
            // child), is asked first (it costs a node or a few), and the win question gets
            // all the time; otherwise the win question gets half, the draw
            // question the rest, and what the draw question leaves goes
            // back to a win question still open.
            //
            // The engine's guess orders the rest: a position it expects
            // to lose asks the draw question first, with all the time (a
            // "no" is the loss); one it expects to win gives the win
            // question three quarters of the time.
            let draw_settled = (leaves.classify(&root, Value::Draw).is_some() || drawn_child)
                && leaves.classify(&root, Value::Win).is_none();
            let draw_first = draw_settled || expect == Some(Expect::Loss);
            let (mut w, mut bw) = (Status::Unknown, None);
            if !draw_first {
                let fraction = if expect == Some(Expect::Win) {
                    0.75
                } else {
                    0.5
                };
                (w, bw) = ask(
                    Value::Win,
                    share(deadline, fraction),
                    &mut runs,
                    &mut proofs,
                )?;
            }
            if w == Status::Success {
                outcome = Some(Outcome::Exact(Value::Win));
                best_move = bw;
            } else {
                let (d, bd) = ask(Value::Draw, deadline, &mut runs, &mut proofs)?;
                let time_left = deadline.is_none_or(|d| Instant::now() < d);
                if w == Status::Unknown && d == Status::Success && time_left {
                    (w, bw) = ask(Value::Win, deadline, &mut runs, &mut proofs)?;
                }
                best_move = match (w, d) {
                    (Status::Success, _) => bw,
                    (_, Status::Success) => bd,
                    _ => None,
                };
                outcome = match (w, d) {
                    (Status::Success, _) => Some(Outcome::Exact(Value::Win)),
                    (_, Status::Failure) => Some(Outcome::Exact(Value::Loss)),
                    (Status::Failure, Status::Success) => Some(Outcome::Exact(Value::Draw)),
                    (Status::Failure, Status::Unknown) => Some(Outcome::AtMostDraw),
                    (_, Status::Success) => Some(Outcome::AtLeastDraw),
                    _ => None,
                };
            }
        }
    }
    if outcome == Some(Outcome::Exact(Value::Loss)) {
        // The loss proof subsumes the "not a win" one.
        proofs.retain(|p| p.tree.question == Question::Loss);
    }
    let solver = match opts.solver {
        SolverKind::Ab => "ab",
        SolverKind::Dfpn => "dfpn",
        SolverKind::Both | SolverKind::Retro | SolverKind::All => "ab+dfpn",
    };
    let provenance = Provenance {
        solver: solver.to_string(),
        nodes: runs.iter().map(|r| r.nodes).sum::<u64>() + earlier,
        millis: start.elapsed().as_millis() as u64,
        egdb_pieces: opts.egdb_pieces,
        run_id: String::new(),
    };
    Ok(SolveReport {
        root,
        outcome,
        best_move,
        runs,
        proofs,
        provenance,
        resumed,
    })
}

/// Whether a child of `root` is a leaf that gives the mover at least a
/// draw (the databases or the store say its mover does not win).
fn draw_by_a_leaf_child(root: &Position, leaves: &Leaves<'_>) -> bool {
    let ct = child_threshold(Value::Draw);
    root.moves().iter().any(|m| {
        leaves.classify(&root.play_unchecked(m), ct).map(|(s, _)| s) == Some(Status::Failure)
    })
}

/// Where verified proofs go besides a file (the proof store implements
/// it when present).
pub trait ProofSink {
    /// Keeps `proof`, proved at `proof.tree.root`, with its provenance.
    fn put(&mut self, proof: &VerifiedProof) -> Result<(), String>;
}

/// Whether `q` is a question whose proofs may loop.
pub fn question_loops(q: Question) -> bool {
    q.allows_cycles()
}
