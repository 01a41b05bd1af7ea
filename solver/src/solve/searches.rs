//! The searches of one solve call: alpha-beta, df-pn or both on one
//! root, asked one binary question at a time. A question is run by each
//! solver chosen within its share of the time, cross-checked, and, when
//! settled, its proof extracted and verified before it counts.

use super::{
    Credit, QuestionRun, Runner, SolveError, SolveOptions, SolverKind, VerifiedProof,
    EXTRACT_AB_NODES,
};
use crate::budget::{CallLimited, CallLimits};
use crate::clock::Instant;
use crate::dfpn::{CheckpointError, CheckpointStats, Dfpn, DfpnConfig};
use crate::leaves::Leaves;
use crate::prover::{AbConfig, AlphaBeta};
use crate::question::{proved_question, Status};
use crate::tree::{extract, DfpnThenAb, ExtractError};
use crate::verify::verify;
use crate::CheckpointPlan;
use engine::notation::fen::to_fen;
use engine::{Move, Position, Value};
use proofdb::{Outcome, ProofTree, Question};
use std::time::Duration;

/// What is left of the time until `until` times `fraction`, from now:
/// with a time limit, each question gets a share of what is left (the
/// first of two questions half of it) and, with both solvers, alpha-beta
/// half of its question's share, df-pn the rest, so that a solver or
/// question that cannot finish does not starve the other.
pub(super) fn share(until: Option<Instant>, fraction: f64) -> Option<Instant> {
    share_at(Instant::now(), until, fraction)
}

/// [`share`] at the moment `now`.
fn share_at(now: Instant, until: Option<Instant>, fraction: f64) -> Option<Instant> {
    until.map(|u| now + u.saturating_duration_since(now).mul_f64(fraction))
}

/// Shortest search of a settled question whose tables are written after
/// it. An open question's always are (the next run goes on from them); a
/// settled one's serve only a run killed during the next question, and
/// writing them (tens of megabytes) costs a ballot walk a share of the
/// few seconds most of its plies take, the file then removed with the
/// position settled (docs/measurements.md, "Figures behind the code").
const SAVE_SETTLED_AFTER: Duration = Duration::from_secs(60);

/// A run of `solver` on threshold `t` from `t0` until now, without
/// df-pn's numbers.
pub(super) fn run_of(
    t: Question,
    solver: Runner,
    status: Status,
    nodes: u64,
    t0: Instant,
    best: Option<Move>,
) -> QuestionRun {
    QuestionRun {
        threshold: t,
        solver,
        status,
        nodes,
        millis: millis_since(t0),
        best,
        numbers: None,
    }
}

/// Milliseconds since `t0`.
pub(super) fn millis_since(t0: Instant) -> u64 {
    t0.elapsed().as_millis() as u64
}

/// A question's answer: its status and the root move behind it.
type Answer = (Status, Option<Move>);

/// A root's value or bound and the move behind it.
pub(super) type Found = (Option<Outcome>, Option<Move>);

/// Both solvers on one root, what they have run and what is proved.
pub(super) struct Searches<'a, 'o> {
    root: Position,
    leaves: Leaves<'a>,
    opts: &'o SolveOptions,
    ab: AlphaBeta<'a>,
    /// Alpha-beta's own settings (extraction changes them for a while).
    ab_cfg: AbConfig,
    df: Dfpn<'a>,
    /// Where df-pn's tables are kept, and what they belong to.
    checkpoint: Option<(&'o CheckpointPlan, String)>,
    /// What df-pn's tables were resumed from.
    resumed: Option<CheckpointStats>,
    /// Why a best-effort write of the tables failed (none is tried after).
    tables_unwritten: Option<String>,
    /// When the searches started (after a checkpoint was read).
    searching: Instant,
    /// The time limit of the searches.
    deadline: Option<Instant>,
    runs: Vec<QuestionRun>,
    proofs: Vec<VerifiedProof>,
}

impl<'a, 'o> Searches<'a, 'o> {
    /// Sets the solvers of `opts` up on `root`, df-pn trusting results
    /// held through a repetition when `trust`, its tables read back from
    /// the checkpoint when there is one. The searches' clock starts after
    /// that: reading a checkpoint does not count against the time.
    pub(super) fn new(
        root: Position,
        leaves: Leaves<'a>,
        opts: &'o SolveOptions,
        trust: bool,
    ) -> Result<Self, SolveError> {
        // No deadline here: each question sets its own.
        let limits = CallLimits {
            max_nodes: opts.max_nodes,
            deadline: None,
            stop: opts.stop.clone(),
            progress: opts.progress.clone(),
        };
        let ab_cfg = AbConfig {
            limits: limits.clone(),
            table_entries: opts.table_entries,
            ..AbConfig::default()
        };
        let dfpn_cfg = DfpnConfig {
            limits,
            table_entries: opts.table_entries,
            trust,
            db_pieces: opts.egdb_pieces,
            ..DfpnConfig::default()
        };
        let mut df = Dfpn::new(leaves, dfpn_cfg);
        // The tables' file names the root and the databases: a checkpoint
        // of another search is refused, not mixed in. Alpha-beta alone
        // keeps no df-pn tables: nothing to read or write.
        let context = format!(
            "{} with databases up to {} pieces",
            to_fen(&root),
            opts.egdb_pieces
        );
        let plan = opts
            .checkpoint
            .as_ref()
            .filter(|_| opts.solver != SolverKind::Ab);
        let mut resumed = None;
        if let Some(plan) = plan {
            if plan.path.exists() {
                resumed = Some(df.load_checkpoint(&plan.path, &context)?);
            }
            df.checkpoint_every(&plan.path, &context, plan.every, !plan.best_effort);
        }
        let searching = Instant::now();
        Ok(Searches {
            root,
            leaves,
            opts,
            ab: AlphaBeta::new(leaves, ab_cfg.clone()),
            ab_cfg,
            df,
            checkpoint: plan.map(|p| (p, context)),
            resumed,
            tables_unwritten: None,
            searching,
            deadline: opts.time.map(|d| searching + d),
            runs: Vec::new(),
            proofs: Vec::new(),
        })
    }

    /// df-pn nodes of the runs its tables were resumed from.
    fn earlier(&self) -> u64 {
        self.resumed.map_or(0, |r| r.nodes)
    }

    /// Asks threshold `t` of the root until `until`: each solver chosen
    /// runs, their answers must agree, and a settled answer counts only
    /// once its proof is extracted and verified (when proofs are asked
    /// for); one whose extraction runs out of time stays open.
    pub(super) fn ask(
        &mut self,
        t: Question,
        until: Option<Instant>,
    ) -> Result<Answer, SolveError> {
        let mut results: Vec<(Runner, Status)> = Vec::new();
        let mut best = None;
        if matches!(self.opts.solver, SolverKind::Ab | SolverKind::Both) {
            let (s, b) = self.run_ab(t, until);
            results.push((Runner::Ab, s));
            best = best.or(b.filter(|_| s != Status::Unknown));
        }
        if matches!(self.opts.solver, SolverKind::Dfpn | SolverKind::Both) {
            let (s, b) = self.run_dfpn(t, until)?;
            results.push((Runner::Dfpn, s));
            best = best.or(b.filter(|_| s != Status::Unknown));
        }
        self.cross_check(t, &results)?;
        let settled = results.iter().find(|(_, s)| *s != Status::Unknown);
        let Some(&(who, status)) = settled else {
            return Ok((Status::Unknown, None));
        };
        if self.opts.proofs && !self.prove(t, who, status)? {
            return Ok((Status::Unknown, None));
        }
        Ok((status, best))
    }

    /// Alpha-beta on threshold `t`: half the share with both solvers.
    fn run_ab(&mut self, t: Question, until: Option<Instant>) -> Answer {
        self.ab
            .set_deadline(share(until, ab_fraction(self.opts.solver)));
        let (n0, t0) = (self.ab.nodes(), Instant::now());
        let o = self.ab.prove(self.root, t, None, &[]);
        let nodes = self.ab.nodes() - n0;
        self.runs
            .push(run_of(t, Runner::Ab, o.res.status, nodes, t0, o.best));
        (o.res.status, o.best)
    }

    /// df-pn on threshold `t` until `until`, its tables written after when
    /// it is left open or took [`SAVE_SETTLED_AFTER`] or more.
    fn run_dfpn(&mut self, t: Question, until: Option<Instant>) -> Result<Answer, SolveError> {
        self.df.set_deadline(until);
        let (n0, t0) = (self.df.nodes(), Instant::now());
        let o = self.df.prove(self.root, t, &[]);
        let open = o.res.status == Status::Unknown;
        let nodes = self.df.nodes() - n0;
        self.runs.push(QuestionRun {
            numbers: open.then(|| self.df.numbers(&self.root, t)).flatten(),
            ..run_of(t, Runner::Dfpn, o.res.status, nodes, t0, o.best)
        });
        if let Some(e) = self.df.checkpoint_failure() {
            self.tables_failed(e)?;
        }
        if open || t0.elapsed() >= SAVE_SETTLED_AFTER {
            self.write_tables()?;
        }
        Ok((o.res.status, o.best))
    }

    /// Writes df-pn's tables, when they are kept.
    fn write_tables(&mut self) -> Result<(), SolveError> {
        let Some((plan, context)) = &self.checkpoint else {
            return Ok(());
        };
        match self.df.save_checkpoint(&plan.path, context) {
            Ok(_) => Ok(()),
            Err(e) => self.tables_failed(e),
        }
    }

    /// A write of the tables failed: the call's error, or, for a
    /// [`CheckpointPlan::best_effort`] plan, noted and no write tried
    /// again.
    fn tables_failed(&mut self, e: CheckpointError) -> Result<(), SolveError> {
        match &self.checkpoint {
            Some((plan, _)) if plan.best_effort => {
                self.tables_unwritten.get_or_insert(e.to_string());
                self.checkpoint = None;
                self.df.stop_checkpoints();
                Ok(())
            }
            _ => Err(e.into()),
        }
    }

    /// Fails when the two solvers settled threshold `t` differently.
    fn cross_check(&self, t: Question, results: &[(Runner, Status)]) -> Result<(), SolveError> {
        if let [(_, a), (_, d)] = results {
            if *a != Status::Unknown && *d != Status::Unknown && a != d {
                return Err(SolveError::Disagreement {
                    fen: to_fen(&self.root),
                    threshold: t,
                    ab: *a,
                    dfpn: *d,
                });
            }
        }
        Ok(())
    }

    /// Extracts and verifies the proof of threshold `t`, settled by
    /// `who` as `status`, and keeps it. False when extraction ran out of
    /// time or was stopped: the question stays open, as when the search
    /// itself runs out, and a run says how far extraction got.
    fn prove(&mut self, t: Question, who: Runner, status: Status) -> Result<bool, SolveError> {
        let question = proved_question(t, status).expect("settled");
        let t0 = Instant::now();
        let tree = match self.extract(who, question, t0) {
            Ok(tree) => tree,
            Err(ExtractError::OutOfTime(positions) | ExtractError::Stopped(positions)) => {
                let nodes = positions as u64;
                let run = run_of(t, Runner::Extract, Status::Unknown, nodes, t0, None);
                self.runs.push(run);
                self.keep_unextracted(who)?;
                return Ok(false);
            }
            Err(why) => {
                let fen = to_fen(&self.root);
                return Err(SolveError::Extract { fen, why });
            }
        };
        let report = verify(&tree, self.leaves.oracle, self.leaves.store).map_err(|source| {
            SolveError::Verify {
                fen: to_fen(&self.root),
                question: question.name(),
                source,
            }
        })?;
        let run = self.runs.iter().rev().find(|r| r.solver == who);
        let run = run.expect("the solver that settled it ran");
        // A df-pn proof rests on the runs its tables were resumed from too.
        let earlier = if who == Runner::Dfpn {
            self.earlier()
        } else {
            0
        };
        let provenance = Credit {
            solver: who.name().to_string(),
            nodes: run.nodes + earlier,
            millis: run.millis + millis_since(t0),
            egdb_pieces: self.opts.egdb_pieces,
        };
        self.proofs.push(VerifiedProof {
            tree,
            report,
            provenance,
        });
        Ok(true)
    }

    /// Writes df-pn's tables after its settled answer's proof could not be
    /// extracted in time (when they are kept between runs): they hold the
    /// answer, so the next run of the position goes straight to the
    /// extraction instead of searching again for what this one found.
    fn keep_unextracted(&mut self, who: Runner) -> Result<(), SolveError> {
        if who != Runner::Dfpn {
            return Ok(());
        }
        self.write_tables()
    }

    /// The deadlines of an extraction started at `t0`: its searches
    /// (the first) and the extraction as a whole (the second).
    ///
    /// Extraction walks what the tables hold first and searches again
    /// only where that walk cannot close the proof (`tree::extract`'s
    /// rounds). So that a proof found just before the deadline is not
    /// lost to it, its searches may run until the deadline or as long
    /// again as the solve has taken so far (at least 10 s), whichever is
    /// later; past that, extraction goes on from what the tables hold, up
    /// to `--time` past the deadline (at least 10 s), and gives up then (a
    /// proof of a million positions can take minutes): a solve takes at
    /// most twice its time limit before the verification.
    fn extraction_deadlines(&self, t0: Instant) -> (Option<Instant>, Option<Instant>) {
        let ten = Duration::from_secs(10);
        let grace = self
            .deadline
            .map(|d| d.max(t0 + self.searching.elapsed().max(ten)));
        let stop = self
            .deadline
            .zip(grace)
            .map(|(d, g)| g.max(d + d.saturating_duration_since(self.searching).max(ten)));
        (grace, stop)
    }

    /// The proof of `question` from the tables of `who`: alpha-beta's;
    /// or df-pn's, then alpha-beta on a small budget, then df-pn again
    /// for what alpha-beta leaves open.
    fn extract(
        &mut self,
        who: Runner,
        question: Question,
        t0: Instant,
    ) -> Result<ProofTree, ExtractError> {
        let (grace, stop) = self.extraction_deadlines(t0);
        let limits = CallLimits {
            max_nodes: self.opts.max_proof_nodes as u64,
            deadline: stop,
            stop: self.opts.stop.clone(),
            progress: None,
        };
        let tree = if who == Runner::Ab {
            self.ab.set_deadline(grace);
            extract(&mut self.ab, self.leaves, self.root, question, limits)
        } else {
            self.df.set_deadline(grace);
            self.ab.set_config(AbConfig {
                limits: CallLimits {
                    max_nodes: EXTRACT_AB_NODES.min(self.opts.max_nodes),
                    deadline: grace,
                    ..self.ab_cfg.limits.clone()
                },
                ..self.ab_cfg.clone()
            });
            let mut both = DfpnThenAb {
                dfpn: &mut self.df,
                ab: &mut self.ab,
            };
            extract(&mut both, self.leaves, self.root, question, limits)
        };
        // The next question sets its own deadlines; the node budget comes
        // back here.
        self.ab.set_config(self.ab_cfg.clone());
        tree
    }

    /// One binary question `q` of the side to move: what its root status
    /// proves ([`proved_question`]), with the proving move when it holds.
    fn answer_one(&mut self, q: Question) -> Result<Found, SolveError> {
        let (s, b) = self.ask(q, self.deadline)?;
        let outcome = proved_question(q, s).map(Question::outcome);
        Ok((outcome, b.filter(|_| s == Status::Success)))
    }

    /// The win question alone: a win, or at most a draw.
    pub(super) fn answer_win(&mut self) -> Result<Found, SolveError> {
        self.answer_one(Question::Win)
    }

    /// The draw question alone: at least a draw, or a loss.
    pub(super) fn answer_draw(&mut self) -> Result<Found, SolveError> {
        self.answer_one(Question::AtLeastDraw)
    }

    /// The value: unless `draw_first`, the win question with `fraction`
    /// of the time; then, unless it is won, the draw question with the
    /// rest; then, when the draw question held and left time, the win
    /// question again if still open.
    pub(super) fn answer_value(
        &mut self,
        draw_first: bool,
        fraction: f64,
    ) -> Result<Found, SolveError> {
        let (mut w, mut bw) = (Status::Unknown, None);
        if !draw_first {
            (w, bw) = self.ask(Question::Win, share(self.deadline, fraction))?;
        }
        if w == Status::Success {
            return Ok((Some(Outcome::Exact(Value::Win)), bw));
        }
        let (d, bd) = self.ask(Question::AtLeastDraw, self.deadline)?;
        let time_left = self.deadline.is_none_or(|d| Instant::now() < d);
        if w == Status::Unknown && d == Status::Success && time_left {
            (w, bw) = self.ask(Question::Win, self.deadline)?;
        }
        let best = match (w, d) {
            (Status::Success, _) => bw,
            (_, Status::Success) => bd,
            _ => None,
        };
        let outcome = match (w, d) {
            (Status::Success, _) => Some(Outcome::Exact(Value::Win)),
            (_, Status::Failure) => Some(Outcome::Exact(Value::Loss)),
            (Status::Failure, Status::Success) => Some(Outcome::Exact(Value::Draw)),
            (Status::Failure, Status::Unknown) => Some(Outcome::AtMostDraw),
            (_, Status::Success) => Some(Outcome::AtLeastDraw),
            _ => None,
        };
        Ok((outcome, best))
    }

    /// The report of the searches that found `found`, started at `start`.
    pub(super) fn finish(
        mut self,
        (outcome, best_move): Found,
        start: Instant,
    ) -> super::SolveReport {
        if outcome == Some(Outcome::Exact(Value::Loss)) {
            // The loss proof subsumes the "not a win" one.
            self.proofs.retain(|p| p.tree.question == Question::Loss);
        }
        let provenance = Credit {
            solver: Runner::names(self.opts.solver.searches()),
            nodes: self.runs.iter().map(|r| r.nodes).sum::<u64>() + self.earlier(),
            millis: millis_since(start),
            egdb_pieces: self.opts.egdb_pieces,
        };
        super::SolveReport {
            root: self.root,
            outcome,
            best_move,
            runs: self.runs,
            proofs: self.proofs,
            provenance,
            resumed: self.resumed,
            tables_unwritten: self.tables_unwritten,
        }
    }
}

/// The fraction of a question's time alpha-beta gets: half when df-pn
/// runs after it, all of it alone.
fn ab_fraction(solver: SolverKind) -> f64 {
    if solver == SolverKind::Both {
        0.5
    } else {
        1.0
    }
}

/// The fraction of the time the win question of a value question gets
/// when it is asked first: three quarters for a position the engine
/// expects to win, half otherwise (the draw question has the rest, and
/// gives back what it leaves to a win question still open).
pub(super) fn win_fraction(expect_win: bool) -> f64 {
    if expect_win {
        0.75
    } else {
        0.5
    }
}

/// Whether `question` (`None`: the value) is answered by `o`.
pub(super) fn settles(question: Option<Question>, o: Outcome) -> bool {
    let (lo, hi) = o.range();
    match question.map(Question::threshold) {
        Some(Question::Win) => lo == Value::Win || hi <= Value::Draw,
        Some(_) => lo >= Value::Draw || hi == Value::Loss,
        None => lo == hi,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_solver_and_question_gets_its_share_of_the_time() {
        let now = Instant::now();
        let second = Duration::from_millis(1200);
        let until = Some(now + second);
        // The win question of a value question: half the time, three
        // quarters where a win is expected; the draw question the rest.
        let win = share_at(now, until, win_fraction(false)).unwrap();
        assert_eq!(win.saturating_duration_since(now), second / 2);
        let expected_win = share_at(now, until, win_fraction(true)).unwrap();
        assert_eq!(expected_win.saturating_duration_since(now), second * 3 / 4);
        // With both solvers, alpha-beta half of its question's time and
        // df-pn the rest (up to the question's end).
        let ab = share_at(now, Some(win), ab_fraction(SolverKind::Both)).unwrap();
        assert_eq!(ab.saturating_duration_since(now), second / 4);
        let alone = share_at(now, Some(win), ab_fraction(SolverKind::Ab)).unwrap();
        assert_eq!(alone, win);
        // Past the end there is nothing left; without a limit, no share.
        let late = now + second * 2;
        assert_eq!(share_at(late, until, 0.5), Some(late));
        assert_eq!(share_at(now, None, 0.5), None);
    }
}
