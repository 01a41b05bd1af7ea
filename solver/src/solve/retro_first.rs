//! The retrograde analysis as a solver ([`SolverKind::Retro`]) and as
//! the first step of [`SolverKind::All`]: what it settles of the root
//! (its runs, the value or bound, the move realising its lower bound,
//! the verified proofs of every question the bounds settle), and the
//! report that joins it with the searches that follow.

use super::searches::{millis_since, run_of};
use super::{
    Credit, QuestionRun, Runner, SolveError, SolveOptions, SolveReport, SolverKind, VerifiedProof,
};
use crate::clock::Instant;
use crate::leaves::Leaves;
use crate::question::Status;
use crate::retro::{Retro, RetroConfig, RetroError};
use crate::tree::ExtractError;
use crate::verify::verify;
use engine::notation::fen::to_fen;
use engine::{Move, Position, Value};
use proofdb::{Outcome, Question};

/// Positions per second of the time limit the retrograde analysis may
/// enumerate under [`SolverKind::All`]: a fraction of its speed on one
/// core (docs/measurements.md).
const ALL_RETRO_RATE: f64 = 250_000.0;

/// What the retrograde analysis established.
#[derive(Default)]
pub(super) struct RetroPart {
    /// Its runs (one per question it answers).
    pub runs: Vec<QuestionRun>,
    /// The root's value or bound.
    pub outcome: Option<Outcome>,
    /// The move realising its lower bound (at least a draw).
    pub best: Option<Move>,
    /// The verified proofs of the questions it settles.
    pub proofs: Vec<VerifiedProof>,
}

/// When the retrograde analysis of a call started at `start` must stop,
/// and how many positions it may enumerate. With `--solver all` and a
/// time limit it gets a third of the time and at most
/// [`ALL_RETRO_RATE`] positions per second of it (its cost is about
/// linear in the positions): a graph that small is solved in a fraction
/// of the time, a larger one would starve the searches, which settle
/// most positions of that size.
pub(super) fn retro_share(opts: &SolveOptions, start: Instant) -> (Option<Instant>, usize) {
    match (opts.solver, opts.time) {
        (SolverKind::All, Some(t)) => (
            Some(start + t / 3),
            opts.retro_positions
                .min((t.as_secs_f64() * ALL_RETRO_RATE) as usize)
                .max(1),
        ),
        _ => (opts.time.map(|d| start + d), opts.retro_positions),
    }
}

/// Runs the retrograde analysis until `until` on at most `cap` positions
/// (expanding positions for three quarters of the time from `start`, the
/// rest is for the analysis and the proofs). Giving up (time, stop) is an
/// empty part, not an error; a proof too large is
/// [`SolveError::Extract`]; a proof the verifier rejects is
/// [`SolveError::Verify`].
pub(super) fn retro_part(
    root: Position,
    leaves: Leaves<'_>,
    opts: &SolveOptions,
    start: Instant,
    (until, cap): (Option<Instant>, usize),
) -> Result<RetroPart, SolveError> {
    let t0 = Instant::now();
    let cfg = RetroConfig {
        max_positions: cap,
        expand_until: until.map(|u| start + u.saturating_duration_since(start) * 3 / 4),
        deadline: until,
        stop: opts.stop.clone(),
        progress: opts.progress.clone(),
    };
    let r = match Retro::solve(root, leaves, &cfg) {
        Ok(r) => r,
        Err(e) => return Ok(gave_up(e, opts.question, t0)),
    };
    let millis = millis_since(t0);
    let (lo, _) = r.bounds();
    let best = if lo >= Value::Draw {
        r.best_move()
    } else {
        None
    };
    let runs = retro_runs(&r, opts.question, millis, best);
    let mut proofs = Vec::new();
    for question in r.questions().into_iter().filter(|_| opts.proofs) {
        proofs.push(retro_proof(&r, question, root, leaves, opts, millis)?);
    }
    Ok(RetroPart {
        runs,
        outcome: r.outcome(),
        best,
        proofs,
    })
}

/// The part of an analysis that gave up: one open run with the
/// positions it had enumerated.
fn gave_up(e: RetroError, question: Option<Question>, t0: Instant) -> RetroPart {
    let nodes = match e {
        RetroError::OutOfTime { positions, .. } | RetroError::Stopped { positions, .. } => {
            positions
        }
        _ => 0,
    };
    let threshold = question.map_or(Question::Win, Question::threshold);
    let run = run_of(
        threshold,
        Runner::Retro,
        Status::Unknown,
        nodes as u64,
        t0,
        None,
    );
    RetroPart {
        runs: vec![run],
        ..RetroPart::default()
    }
}

/// The binary questions `question` (`None`: the value) needs, in the order the searches ask
/// them, as the analysis answers them: it answers every question at
/// once, so its first run carries its positions and time, the second,
/// if any, none.
fn retro_runs(
    r: &Retro,
    question: Option<Question>,
    millis: u64,
    best: Option<Move>,
) -> Vec<QuestionRun> {
    let (lo, hi) = r.bounds();
    let status = |yes: bool, no: bool| match (yes, no) {
        (true, _) => Status::Success,
        (_, true) => Status::Failure,
        _ => Status::Unknown,
    };
    let win = status(lo == Value::Win, hi <= Value::Draw);
    let draw = status(lo >= Value::Draw, hi == Value::Loss);
    let asked = match question.map(Question::threshold) {
        Some(Question::Win) => vec![(Question::Win, win)],
        Some(_) => vec![(Question::AtLeastDraw, draw)],
        None if win == Status::Success => vec![(Question::Win, win)],
        None => vec![(Question::Win, win), (Question::AtLeastDraw, draw)],
    };
    asked
        .iter()
        .enumerate()
        .map(|(k, &(threshold, status))| QuestionRun {
            threshold,
            solver: Runner::Retro,
            status,
            nodes: if k == 0 { r.positions() as u64 } else { 0 },
            millis: if k == 0 { millis } else { 0 },
            best: best.filter(|_| status == Status::Success),
            numbers: None,
        })
        .collect()
}

/// The verified proof of `question` from the analysis `r`.
fn retro_proof(
    r: &Retro,
    question: Question,
    root: Position,
    leaves: Leaves<'_>,
    opts: &SolveOptions,
    millis: u64,
) -> Result<VerifiedProof, SolveError> {
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
    Ok(VerifiedProof {
        tree,
        report,
        provenance: Credit {
            solver: Runner::Retro.name().to_string(),
            nodes: r.positions() as u64,
            millis: millis + millis_since(t1),
            egdb_pieces: opts.egdb_pieces,
        },
    })
}

impl RetroPart {
    /// The report of the analysis alone, for a call started at `start`.
    pub(super) fn report(self, root: Position, opts: &SolveOptions, start: Instant) -> SolveReport {
        let nodes = self.runs.iter().map(|r| r.nodes).sum();
        SolveReport {
            root,
            outcome: self.outcome,
            best_move: self.best,
            runs: self.runs,
            proofs: self.proofs,
            provenance: Credit {
                solver: Runner::Retro.name().to_string(),
                nodes,
                millis: millis_since(start),
                egdb_pieces: opts.egdb_pieces,
            },
            resumed: None,
            tables_unwritten: None,
        }
    }

    /// The question the searches still have to answer for `question`
    /// (`None`: the value).
    pub(super) fn open_question(&self, question: Option<Question>) -> Option<Question> {
        let (lo, hi) = self
            .outcome
            .map_or((Value::Loss, Value::Win), |o| o.range());
        match question {
            None if lo == Value::Draw => Some(Question::Win),
            None if hi == Value::Draw => Some(Question::AtLeastDraw),
            question => question,
        }
    }

    /// The report of the analysis followed by the searches' `rep`: the
    /// outcomes intersected (a contradiction is an error), the proofs and
    /// runs of both.
    pub(super) fn join(
        self,
        mut rep: SolveReport,
        opts: &SolveOptions,
        start: Instant,
    ) -> Result<SolveReport, SolveError> {
        let root = rep.root;
        let retro_nodes: u64 = self.runs.iter().map(|r| r.nodes).sum();
        let outcome = match (self.outcome, rep.outcome) {
            (Some(a), Some(b)) => Some(a.intersect(b).map_err(|_| SolveError::Contradiction {
                fen: to_fen(&root),
                retro: a,
                search: b,
            })?),
            (a, b) => a.or(b),
        };
        let mut proofs = self.proofs;
        proofs.append(&mut rep.proofs);
        match outcome {
            // The win or loss proof subsumes the bounds' proofs.
            Some(Outcome::Exact(Value::Loss)) => {
                proofs.retain(|p| p.tree.question == Question::Loss)
            }
            Some(Outcome::Exact(Value::Win)) => proofs.retain(|p| p.tree.question == Question::Win),
            _ => {}
        }
        let mut runs = self.runs;
        runs.append(&mut rep.runs);
        let retro_proved = proofs
            .iter()
            .any(|p| p.provenance.solver == Runner::Retro.name());
        let searches = SolverKind::Both.searches();
        let solvers: Vec<Runner> = retro_proved
            .then_some(Runner::Retro)
            .into_iter()
            .chain(searches.iter().copied())
            .collect();
        Ok(SolveReport {
            root,
            outcome,
            best_move: rep.best_move.or(self.best),
            runs,
            proofs,
            provenance: Credit {
                solver: Runner::names(&solvers),
                nodes: rep.provenance.nodes + retro_nodes,
                millis: millis_since(start),
                egdb_pieces: opts.egdb_pieces,
            },
            resumed: rep.resumed,
            tables_unwritten: rep.tables_unwritten,
        })
    }
}
