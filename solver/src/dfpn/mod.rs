//! Depth-first proof-number search (Nagai's df-pn) in negamax form, with
//! the 1+epsilon threshold trick (Pawlewicz and Lew), a transposition
//! table keyed by the full position, a node budget, and garbage
//! collection of the least-worked entries when the table is full.
//!
//! Numbers are from the mover's view: `phi` is the cost of proving the
//! mover reaches its threshold, `delta` the cost of proving it does not.
//! `phi(n) = min delta(child)`, `delta(n) = sum phi(child)`. A proved
//! node is `(0, INF)`, a disproved one `(INF, 0)`.
//!
//! Repetitions: a child that repeats a position of the current path is a
//! draw, settled for whichever side a draw serves, and tagged with the
//! ply of the repeated position. A node settled through such a child
//! carries the tag up in the parent's local child list until the search
//! returns to the tagged ply, where the cycle is closed and the result
//! becomes plain.
//!
//! A tagged result holds on the path that settled it; elsewhere it may
//! not (the graph-history interaction). By default it is kept apart with
//! its proving move ([`Dfpn::looped`]), never for the search itself but
//! for proof extraction, which walks every position of a proof again and
//! closes its loops itself: without them it would search each again.
//!
//! With [`DfpnConfig::trust`] it goes into the table instead, marked as
//! held on trust, and so does every result that builds on a trusted one;
//! the search uses them like any other. Only results for the side a draw
//! serves can be trusted ones (a repetition never settles a node against
//! it, and a node is settled against it only by children settled against
//! it), so a result for the other side is always sound. A root settled
//! on trust is checked ([`closure`]): the trusted results it may rest on
//! (any trusted move of the draw side, not only the one its search
//! proved with) must form a closed set. Those in the largest one are
//! marked sound, with a move that stays in it; the others are reopened,
//! and the call goes on, still trusting: each check adds sound results
//! and reopens wrong ones, so a search settles soundly after a run of
//! failed checks (docs/measurements.md, df-pn, measures the choices).

use crate::budget::{Budget, CallLimited, CallLimits};
use crate::leaves::Leaves;
use crate::order::resolved;
use crate::question::{Res, Status, PLAIN};
use crate::table::{Key, MoveSlot, Table};
use closure::Look;
use engine::{Move, MoveList, Position};
use proofdb::Question;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub mod checkpoint;
pub mod closure;

pub use checkpoint::{CheckpointError, CheckpointStats, RecordError};

/// Infinite proof or disproof number.
pub const INF: u32 = u32::MAX;
/// Largest finite number (sums saturate here).
const BIG: u32 = INF - 1;

/// Limits of a df-pn search.
#[derive(Clone, Debug)]
pub struct DfpnConfig {
    /// Node budget, deadline, stop flag and progress counter of one call
    /// of [`Dfpn::prove`].
    pub limits: CallLimits,
    /// Table size (entries) that triggers garbage collection.
    pub table_entries: usize,
    /// The epsilon of the 1+epsilon trick.
    pub epsilon: f64,
    /// Deepest ply searched; deeper nodes are left open (they look
    /// expensive both ways, so the search turns elsewhere).
    pub max_ply: usize,
    /// Whether each call builds on results held on trust (see the module
    /// documentation), checked each time the root settles on them. It
    /// pays where the answer is the draw side's (a draw, or "not a win"
    /// against a side that only draws) and costs where it is the other
    /// side's: the wrong trusted results hide it until checks reopen them
    /// (figures in docs/measurements.md).
    pub trust: bool,
    /// The most pieces the databases answer for (0 without databases):
    /// the initial proof and disproof numbers of a child not searched yet
    /// grow with its pieces above it, so that lines that exchange pieces
    /// towards the databases are tried first.
    pub db_pieces: u32,
}

impl Default for DfpnConfig {
    fn default() -> Self {
        DfpnConfig {
            limits: CallLimits::default(),
            table_entries: 8_000_000,
            epsilon: 0.25,
            max_ply: 1000,
            trust: false,
            db_pieces: 0,
        }
    }
}

/// A table entry (the default one fills free slots).
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    /// Proof number for the mover, 0..=INF (0: proved).
    phi: u32,
    /// Disproof number for the mover, 0..=INF (0: disproved).
    delta: u32,
    /// Nodes spent below this entry, saturating at [`WORK_MAX`] (the
    /// garbage collector keeps the most worked entries), and the
    /// [`TRUSTED`] bit.
    work: u32,
    /// The proving move of a proved node, or the last move searched.
    best: MoveSlot,
}

/// A result that held through a repetition of the path it was searched
/// on, kept apart by a search that does not trust (see [`Dfpn::looped`]).
#[derive(Clone, Copy, Debug)]
struct Looped {
    status: Status,
    best: Option<Move>,
}

impl Default for Looped {
    /// What fills the side table's free slots.
    fn default() -> Self {
        Looped {
            status: Status::Unknown,
            best: None,
        }
    }
}

/// The bit of [`Entry::work`] marking a result held on trust (see the
/// module documentation).
const TRUSTED: u32 = 1 << 31;
/// The largest work count.
const WORK_MAX: u32 = TRUSTED - 1;

impl Entry {
    fn work(&self) -> u32 {
        self.work & WORK_MAX
    }
    fn trusted(&self) -> bool {
        self.work & TRUSTED != 0
    }
    fn settled(&self) -> bool {
        self.phi == 0 || self.delta == 0
    }
    /// A trusted result left by a search that trusted, which one that
    /// does not ignores.
    fn ignored(&self, trusting: bool) -> bool {
        !trusting && self.settled() && self.trusted()
    }
    fn status(&self) -> Status {
        if self.phi == 0 {
            Status::Success
        } else if self.delta == 0 {
            Status::Failure
        } else {
            Status::Unknown
        }
    }
}

/// Proof numbers of a node with their repetition tag ([`PLAIN`] unless
/// settled through a repetition on the path) and whether a settled result
/// rests on one held on trust.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pn {
    phi: u32,
    delta: u32,
    rep: u16,
    on_trust: bool,
}

impl Pn {
    const fn new(phi: u32, delta: u32) -> Pn {
        Pn {
            phi,
            delta,
            rep: PLAIN,
            on_trust: false,
        }
    }
    fn from_res(r: Res) -> Pn {
        let (phi, delta) = match r.status {
            Status::Success => (0, INF),
            Status::Failure => (INF, 0),
            Status::Unknown => (1, 1),
        };
        Pn {
            phi,
            delta,
            rep: r.rep,
            on_trust: false,
        }
    }
    fn settled(&self) -> bool {
        self.phi == 0 || self.delta == 0
    }
    /// A settled result the table marks as held on trust.
    fn trusted(&self) -> bool {
        self.settled() && (self.rep != PLAIN || self.on_trust)
    }
    fn res(self) -> Res {
        let status = if self.phi == 0 {
            Status::Success
        } else if self.delta == 0 {
            Status::Failure
        } else {
            Status::Unknown
        };
        Res {
            status,
            rep: if status == Status::Unknown {
                PLAIN
            } else {
                self.rep
            },
        }
    }
}

/// Largest initial proof number from the evaluation, in points (a unit
/// per point; [`crate::order::MAN`] is 100 points): reached at three men
/// ahead.
const MAX_INITIAL: i32 = 300;

/// Units the initial numbers gain per piece above the databases
/// ([`initial_numbers`]), against one for a child at them.
const PIECE_WEIGHT: u32 = 25;

/// The numbers of a child not searched yet, from its evaluation `score`
/// (its mover's view, its forced captures made; [`resolved`]) and its
/// distance from the databases: a mover that is behind is harder to
/// prove for and easier to refute, one that is ahead the other way round
/// (df-pn with heuristic initial numbers, as in df-pn+), and either proof
/// costs more the more pieces must come off before the databases settle
/// it.
///
/// One unit per point up to three men ([`MAX_INITIAL`]), at least 1, so
/// that the search still expands cheap-looking children first; never 0
/// (that would claim a result). Both numbers times `1 + PIECE_WEIGHT *
/// pieces_above`, `pieces_above` being the child's pieces above the
/// databases' (a capture it must make counts one piece off), so that a
/// line that exchanges pieces looks cheaper than one that keeps them,
/// and a child whose capture reaches the databases far cheaper still.
///
/// Measured 2026-11-27 (docs/measurements.md, df-pn): a unit per half man
/// at most 20 units, then per twentieth of a man (bench 11 -> 13 of 20 at
/// 10 s, sample median 10 -> 11 pieces), then per point at most 300 units
/// (bench 13 or 14 of 20, the 14th at the budget's edge, the draws it
/// settles near the budget 20-40% sooner). The factor of pieces above
/// the databases: the bench's draws that take more than a second settled
/// 20-50% sooner and the 14th well inside the budget (bench 14 of 20),
/// one more known position settled, the king endings of
/// solver/tests/extract.rs proved in 327 positions against 589; weights
/// of 5 to 125 measured alike, 1 slower; the square or cube of the
/// pieces above left the 14th open; their plain count (a child one piece
/// above costing the same as one at them) slowed a king ending's proof.
fn initial_numbers(score: i32, pieces_above: u32) -> Pn {
    let factor = PIECE_WEIGHT.saturating_mul(pieces_above).saturating_add(1);
    let units = |x: i32| {
        (1 + x.clamp(0, MAX_INITIAL) as u32)
            .saturating_mul(factor)
            .min(BIG)
    };
    Pn::new(units(-score), units(score))
}

/// The pieces of `pos` above `db_pieces`, counting a capture it must make
/// as one piece off.
fn pieces_above(pos: &Position, db_pieces: u32) -> u32 {
    let pieces = pos.piece_count() - u32::from(pos.has_capture());
    pieces.saturating_sub(db_pieces)
}

/// One child in a node's local list.
struct Child {
    mv: Move,
    pos: Position,
    irrev: usize,
    /// A settled value that must not come from the table (a leaf, or a
    /// result tagged with a repetition of the current path).
    fixed: Option<Pn>,
    /// Its numbers: from the table when the node was expanded, then what
    /// its search returned last. Not read from the table at every step:
    /// a sibling's search may change the child's entry through a
    /// transposition, but stale numbers only steer which child is
    /// searched next (a child settled meanwhile is found settled by the
    /// first node of its search). On the bench positions the node counts
    /// are the same as with a table read per child and step.
    last: Pn,
    /// Its evaluation for its mover once its forced captures are made
    /// ([`resolved`]; children are searched lowest first).
    score: i32,
}

impl Child {
    /// The numbers the node goes by.
    fn value(&self) -> Pn {
        self.fixed.unwrap_or(self.last)
    }
}

/// What the checks of trusted results ([`closure`]) did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TrustStats {
    /// Checks made (roots settled on trust).
    pub checks: u64,
    /// Checks after which the root's result held.
    pub held: u64,
    /// Trusted results found to hold.
    pub confirmed: u64,
    /// Trusted results reopened.
    pub reopened: u64,
}

/// The result of one [`Dfpn::prove`] call.
#[derive(Clone, Copy, Debug)]
pub struct DfpnOutcome {
    /// The root's result for its mover at the asked threshold.
    pub res: Res,
    /// The root move that proved or was searched last.
    pub best: Option<Move>,
}

/// A df-pn prover with its transposition table.
pub struct Dfpn<'a> {
    leaves: Leaves<'a>,
    cfg: DfpnConfig,
    tt: Table<Entry>,
    /// Results tagged with a repetition of their path by a search that
    /// does not trust: at most a quarter of `cfg.table_entries`, emptied
    /// when full (the latest matter most to an extraction, which
    /// searches as it goes). A table entry keeps its numbers meanwhile.
    looped: Table<Looped>,
    path: Vec<Position>,
    budget: Budget,
    trust: TrustStats,
    /// Where and how often the tables are written during a search.
    periodic: Option<Periodic>,
}

/// Checkpoints written as a search goes ([`Dfpn::checkpoint_every`]).
struct Periodic {
    path: PathBuf,
    context: String,
    every: Duration,
    /// When it was last written (wall time: checkpoints are for runs
    /// that are killed, whatever CPU they had).
    last: std::time::Instant,
    /// Why the last write failed.
    failed: Option<CheckpointError>,
    /// Whether a failed write stops the search.
    stop_on_failure: bool,
}

/// Nodes between two looks at the clock for a periodic checkpoint.
const CHECKPOINT_LOOK_EVERY: u64 = 1 << 20;

impl CallLimited for Dfpn<'_> {
    fn limits(&self) -> &CallLimits {
        &self.cfg.limits
    }
    fn limits_mut(&mut self) -> &mut CallLimits {
        &mut self.cfg.limits
    }
}

impl<'a> Dfpn<'a> {
    /// A prover consulting `leaves`, with limits `cfg`.
    pub fn new(leaves: Leaves<'a>, cfg: DfpnConfig) -> Dfpn<'a> {
        Dfpn {
            leaves,
            cfg,
            tt: Table::default(),
            looped: Table::default(),
            path: Vec::with_capacity(256),
            budget: Budget::default(),
            trust: TrustStats::default(),
            periodic: None,
        }
    }

    /// Writes the tables to `path` ([`checkpoint`]; the file says they
    /// were searched for `context`, which names the root and the leaves).
    /// When `path` is the periodic checkpoint's file
    /// ([`Dfpn::checkpoint_every`]), its clock starts again.
    pub fn save_checkpoint(
        &mut self,
        path: &Path,
        context: &str,
    ) -> Result<CheckpointStats, CheckpointError> {
        let stats = checkpoint::save(self, path, context)?;
        if let Some(p) = self.periodic.as_mut().filter(|p| p.path == path) {
            p.last = std::time::Instant::now();
        }
        Ok(stats)
    }

    /// Reads the tables back from a checkpoint written for `context`, and
    /// the node count: a search goes on from there. The tables should be
    /// empty; a file refused leaves them empty.
    pub fn load_checkpoint(
        &mut self,
        path: &Path,
        context: &str,
    ) -> Result<CheckpointStats, CheckpointError> {
        checkpoint::load(self, path, context)
    }

    /// Writes a checkpoint to `path` every `every` of searching (looked at
    /// once in a million nodes). A write that fails stops the search when
    /// `stop_on_failure`, else the search goes on; either way no write is
    /// tried again until the failure is taken ([`Dfpn::checkpoint_failure`]).
    pub fn checkpoint_every(
        &mut self,
        path: &Path,
        context: &str,
        every: Duration,
        stop_on_failure: bool,
    ) {
        self.periodic = Some(Periodic {
            path: path.to_path_buf(),
            context: context.to_string(),
            every,
            last: std::time::Instant::now(),
            failed: None,
            stop_on_failure,
        });
    }

    /// Writes no more periodic checkpoints.
    pub fn stop_checkpoints(&mut self) {
        self.periodic = None;
    }

    /// Why a periodic checkpoint could not be written, if one could not
    /// (taken: asked once).
    pub fn checkpoint_failure(&mut self) -> Option<CheckpointError> {
        self.periodic.as_mut().and_then(|p| p.failed.take())
    }

    /// Writes the periodic checkpoint when it is due.
    fn maybe_checkpoint(&mut self) {
        let Some(mut p) = self.periodic.take() else {
            return;
        };
        if p.failed.is_none() && p.last.elapsed() >= p.every {
            if let Err(e) = checkpoint::save(self, &p.path, &p.context) {
                p.failed = Some(e);
                if p.stop_on_failure {
                    self.budget.abort();
                }
            }
            p.last = std::time::Instant::now();
        }
        self.periodic = Some(p);
    }

    /// Nodes searched so far by this prover (all calls).
    pub fn nodes(&self) -> u64 {
        self.budget.nodes()
    }

    /// What the checks of trusted results did so far (all calls).
    pub fn trust_stats(&self) -> TrustStats {
        self.trust
    }

    /// Whether the last call ran out of budget.
    pub fn aborted(&self) -> bool {
        self.budget.aborted()
    }

    /// Changes the limits.
    pub fn set_config(&mut self, cfg: DfpnConfig) {
        self.cfg = cfg;
    }

    /// The sound proved status of `pos` at threshold `t`, if in the table
    /// (not one held on trust).
    pub fn proved(&self, pos: &Position, t: Question) -> Option<Status> {
        let e = self.tt.get(&Key::new(*pos, t))?;
        (e.settled() && !e.trusted()).then(|| e.status())
    }

    /// The stored proof and disproof numbers of `pos` at threshold `t`
    /// (the mover's view: `phi`, `delta`), when the table holds them.
    pub fn numbers(&self, pos: &Position, t: Question) -> Option<(u32, u32)> {
        self.tt.get(&Key::new(*pos, t)).map(|e| (e.phi, e.delta))
    }

    /// The stored best move of `pos` at threshold `t`.
    pub fn best_move(&self, pos: &Position, t: Question) -> Option<Move> {
        self.tt.get(&Key::new(*pos, t)).and_then(|e| e.best.get())
    }

    /// How the table settles `pos` at threshold `t` on trust (a result
    /// that relied on a repetition of its search path, or on another
    /// trusted result), with the proving move of a success: a hint for
    /// proof extraction, never a proof.
    pub fn looped(&self, pos: &Position, t: Question) -> Option<(Status, Option<Move>)> {
        let key = Key::new(*pos, t);
        match self.tt.get(&key) {
            Some(e) if e.settled() && e.trusted() => Some((e.status(), e.best.get())),
            _ => self.looped.get(&key).map(|l| (l.status, l.best)),
        }
    }

    /// Does the mover of `root` reach threshold `t`? `prefix` holds the
    /// positions before `root` on the path (for repetitions), so the root
    /// sits at ply `prefix.len()`. Returns `Success`/`Failure` when
    /// proved (tagged when it relies on a repetition of a prefix
    /// position), `Unknown` when the budget ran out. Uses at most
    /// `cfg.limits.max_nodes` nodes from this call on.
    pub fn prove(&mut self, root: Position, t: Question, prefix: &[Position]) -> DfpnOutcome {
        self.budget.begin();
        self.path.clear();
        self.path.extend_from_slice(prefix);
        let ply = prefix.len();
        let pn = match prefix.iter().position(|p| *p == root) {
            Some(k) => Pn::from_res(Res::repetition(t, k)),
            None => match self.leaf(&root, t) {
                Some(pn) => {
                    // The root is one node even when it is a leaf, as in
                    // alpha-beta; a leaf is settled whatever the budget.
                    let _ = self.budget.tick(&self.cfg.limits);
                    self.store(root, t, pn, 1, None);
                    pn
                }
                None => loop {
                    let pn = self.mid(root, t, INF, INF, ply, 0);
                    // A result tagged with a prefix position is the
                    // caller's to close; one settled on trust here is
                    // checked, and the search goes on if it fails.
                    if !(pn.settled() && pn.rep == PLAIN && pn.on_trust) {
                        break pn;
                    }
                    if self.check_trusted(root, t) {
                        break Pn {
                            on_trust: false,
                            ..pn
                        };
                    }
                    // A trusted result was wrong: it is reopened, the
                    // results that held are sound now, and the search goes
                    // on trusting (each failed check leaves fewer wrong
                    // results to find; every round searches a node).
                },
            },
        };
        DfpnOutcome {
            res: pn.res(),
            best: self.best_move(&root, t),
        }
    }

    /// The numbers of `pos` when the databases or the store settle it for
    /// a mover with threshold `t`: the one leaf check of the root
    /// ([`Dfpn::prove`]) and of every child ([`Dfpn::expand`]).
    fn leaf(&self, pos: &Position, t: Question) -> Option<Pn> {
        self.leaves
            .classify(pos, t)
            .map(|(s, _)| Pn::from_res(Res::plain(s)))
    }

    /// The numbers of a position settled without a search: a terminal
    /// one (its mover has lost) or a leaf ([`Dfpn::leaf`]).
    fn settled_without_search(&self, pos: &Position, t: Question) -> Option<Pn> {
        if pos.is_terminal() {
            Some(Pn::new(INF, 0))
        } else {
            self.leaf(pos, t)
        }
    }

    fn lookup(&self, pos: &Position, t: Question) -> Option<Pn> {
        let e = self.tt.get(&Key::new(*pos, t))?;
        (!e.ignored(self.cfg.trust)).then(|| Pn {
            on_trust: e.settled() && e.trusted(),
            ..Pn::new(e.phi, e.delta)
        })
    }

    /// Checks the trusted result of `root` at threshold `t` and those it
    /// rests on ([`closure::check`]): marks those that hold as sound,
    /// reopens the others. Whether the root's holds.
    fn check_trusted(&mut self, root: Position, t: Question) -> bool {
        let checked = closure::check(root, t, |pos, t| {
            let want = closure::draw_side_status(t);
            match self.tt.get(&Key::new(*pos, t)) {
                Some(e) if e.settled() => {
                    if e.status() != want {
                        Look::Fails
                    } else if e.trusted() {
                        Look::Trusted(e.best.get())
                    } else {
                        Look::Holds
                    }
                }
                _ => match self.settled_without_search(pos, t) {
                    Some(pn) if pn.res().status == want => Look::Holds,
                    _ => Look::Fails,
                },
            }
        });
        self.trust.checks += 1;
        self.trust.held += checked.root_holds as u64;
        self.trust.confirmed += checked.hold.len() as u64;
        self.trust.reopened += checked.refuted.len() as u64;
        for (pos, t, stay) in &checked.hold {
            if let Some(e) = self.tt.get_mut(&Key::new(*pos, *t)) {
                e.work &= WORK_MAX;
                // The move that keeps it in the closed set, which may not
                // be the one its search proved with.
                if stay.is_some() {
                    e.best = MoveSlot::new(*stay);
                }
            }
        }
        for (pos, t) in &checked.refuted {
            if let Some(e) = self.tt.get_mut(&Key::new(*pos, *t)) {
                e.phi = 1;
                e.delta = 1;
                e.work &= WORK_MAX;
            }
        }
        checked.root_holds
    }

    fn store(&mut self, pos: Position, t: Question, pn: Pn, work: u64, best: Option<Move>) {
        if self.tt.len() >= self.cfg.table_entries {
            self.collect_garbage();
        }
        let e = self.tt.get_or_insert_with(Key::new(pos, t), || Entry {
            phi: 1,
            delta: 1,
            work: 0,
            best: MoveSlot::NONE,
        });
        if e.settled() && !e.ignored(self.cfg.trust) {
            return; // settled entries stay settled
        }
        e.phi = pn.phi;
        e.delta = pn.delta;
        let work = e
            .work()
            .saturating_add(u32::try_from(work).unwrap_or(u32::MAX))
            .min(WORK_MAX);
        e.work = work | if pn.trusted() { TRUSTED } else { 0 };
        if best.is_some() {
            e.best = MoveSlot::new(best);
        }
    }

    fn remember_looped(&mut self, pos: Position, t: Question, status: Status, best: Option<Move>) {
        if self.looped.len() >= (self.cfg.table_entries / 4).max(1) {
            self.looped.clear();
        }
        self.looped
            .insert(Key::new(pos, t), Looped { status, best });
    }

    /// Frees at least half the table: drops the least-worked unsettled
    /// entries (and ignored ones) first, then the least-worked settled
    /// ones.
    fn collect_garbage(&mut self) {
        let target = self.cfg.table_entries / 2;
        let trusting = self.cfg.trust;
        let kept = move |e: &Entry| e.settled() && !e.ignored(trusting);
        let mut works: Vec<u32> = self
            .tt
            .values()
            .filter(|e| !kept(e))
            .map(|e| e.work())
            .collect();
        if !works.is_empty() {
            let excess = self.tt.len().saturating_sub(target).min(works.len());
            if excess > 0 {
                let (_, cut, _) = works.select_nth_unstable(excess - 1);
                let cut = *cut;
                self.tt.retain(|e| kept(e) || e.work() > cut);
            }
        }
        if self.tt.len() > target {
            let mut works: Vec<u32> = self.tt.values().map(|e| e.work()).collect();
            let excess = self.tt.len() - target;
            let (_, cut, _) = works.select_nth_unstable(excess - 1);
            let cut = *cut;
            self.tt.retain(|e| e.work() > cut);
        }
    }

    /// The multiple-iterative-deepening step: searches `pos` (at ply
    /// `ply`; `path[irrev..ply]` may repeat) until its `phi >= th_phi` or
    /// `delta >= th_delta`, or it is settled, or the budget runs out.
    /// Returns its numbers; a settled result with a tag below `ply` relies
    /// on that path repetition and is stored only on trust. `pos` is no leaf
    /// of the databases or the store: [`Dfpn::prove`] checks the root and
    /// [`Dfpn::expand`] every child.
    fn mid(
        &mut self,
        pos: Position,
        t: Question,
        th_phi: u32,
        th_delta: u32,
        ply: usize,
        irrev: usize,
    ) -> Pn {
        // An exhausted budget is acted on after the leaf checks below: a
        // leaf is still settled.
        let _ = self.budget.tick(&self.cfg.limits);
        if self.budget.nodes().is_multiple_of(CHECKPOINT_LOOK_EVERY) {
            self.maybe_checkpoint();
        }
        if ply >= self.cfg.max_ply {
            return Pn::new(BIG, BIG);
        }
        let start = self.budget.nodes();
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        if list.is_empty() {
            let pn = Pn::new(INF, 0);
            self.store(pos, t, pn, 1, None);
            return pn;
        }
        if let Some(pn) = self.lookup(&pos, t) {
            if pn.phi == 0 || pn.delta == 0 || self.budget.aborted() {
                return pn;
            }
        } else if self.budget.aborted() {
            // Unsearched: the numbers its parent gave it at expansion, so
            // that the parent stores nothing built on a made-up (1, 1).
            return initial_numbers(resolved(&pos), pieces_above(&pos, self.cfg.db_pieces));
        }
        let ct = t.child();
        self.path.truncate(ply);
        self.path.push(pos);
        let mut children = self.expand(&pos, &list, ct, ply, irrev);
        loop {
            let (pn, c1, delta2) = combine(&children);
            if pn.settled() {
                let pn = Pn {
                    on_trust: pn.on_trust,
                    ..Pn::from_res(pn.res().resolved_at(ply))
                };
                let best = (pn.phi == 0).then(|| children[c1].mv);
                // A result still tagged goes back up the path tagged (its
                // parent must see it) and into the table on trust, or
                // apart when the search does not trust.
                if pn.rep == PLAIN || self.cfg.trust {
                    self.store(pos, t, pn, self.budget.nodes() - start + 1, best);
                } else {
                    self.remember_looped(pos, t, pn.res().status, best);
                }
                return pn;
            }
            if pn.phi >= th_phi || pn.delta >= th_delta || self.budget.aborted() {
                let best = Some(children[c1].mv);
                self.store(pos, t, pn, self.budget.nodes() - start + 1, best);
                return pn;
            }
            let c = &children[c1];
            let cv = c.value();
            // Child thresholds: the child's phi may grow until this node's
            // delta reaches its threshold; its delta until it passes the
            // second-best sibling (times 1+epsilon) or this node's phi
            // threshold.
            let child_th_phi = if th_delta == INF {
                INF
            } else {
                (th_delta - pn.delta).saturating_add(cv.phi).min(BIG)
            };
            let widened = ((delta2 as f64) * (1.0 + self.cfg.epsilon)).ceil();
            let widened = if widened >= BIG as f64 {
                BIG
            } else {
                widened as u32
            };
            let child_th_delta = th_phi.min(widened.max(delta2.saturating_add(1)));
            let (cpos, cirrev) = (c.pos, c.irrev);
            let r = self.mid(cpos, ct, child_th_phi, child_th_delta, ply + 1, cirrev);
            self.path.truncate(ply + 1);
            let c = &mut children[c1];
            c.last = r;
            if r.settled() && r.rep != PLAIN {
                c.fixed = Some(r);
            }
        }
    }

    /// The children of `pos`, ordered by the evaluation (most promising
    /// for the mover first), with leaves and path repetitions settled.
    fn expand(
        &mut self,
        pos: &Position,
        list: &MoveList,
        ct: Question,
        ply: usize,
        irrev: usize,
    ) -> Vec<Child> {
        let mut children: Vec<Child> = list
            .iter()
            .map(|m| {
                let man_moved = pos.kings() & m.from().bit() == 0;
                Child {
                    mv: *m,
                    pos: pos.play_unchecked(m),
                    irrev: if m.is_capture() || man_moved {
                        ply + 1
                    } else {
                        irrev
                    },
                    fixed: None,
                    last: Pn::new(1, 1),
                    score: 0,
                }
            })
            .collect();
        // The children's table and store reads, all at once: each is a
        // cache miss, and issued together they overlap instead of coming
        // one by one between the leaf checks below.
        self.tt.warm(children.iter().map(|c| Key::new(c.pos, ct)));
        for c in &children {
            self.leaves.warm(&c.pos);
        }
        for c in &mut children {
            let child = c.pos;
            c.fixed = if let Some(k) = (c.irrev..=ply).find(|&k| self.path[k] == child) {
                Some(Pn::from_res(Res::repetition(ct, k)))
            } else {
                self.settled_without_search(&child, ct)
            };
            c.score = resolved(&child);
            c.last = match c.fixed {
                Some(v) => v,
                None => self.lookup(&child, ct).unwrap_or_else(|| {
                    initial_numbers(c.score, pieces_above(&child, self.cfg.db_pieces))
                }),
            };
        }
        children.sort_by_key(|c| c.score);
        children
    }
}

/// This node's numbers from its children's, the index of the child to
/// search (least delta), and the second least delta.
fn combine(children: &[Child]) -> (Pn, usize, u32) {
    let mut phi = INF;
    let mut delta: u32 = 0;
    let mut c1 = 0;
    let mut delta2 = INF;
    // The refuting child to go by: a sound one first, then one held on
    // trust, then the highest tag.
    let mut success: Option<(bool, u16)> = None;
    let mut fail_rep = PLAIN; // least tag among all children (all succeed)
    let mut fail_on_trust = false; // whether any child is held on trust
    for (i, c) in children.iter().enumerate() {
        let v = c.value();
        if v.delta < phi {
            delta2 = phi;
            phi = v.delta;
            c1 = i;
        } else if v.delta < delta2 {
            delta2 = v.delta;
        }
        if v.delta == 0 {
            let rank = (v.rep == PLAIN && !v.on_trust, v.rep);
            if success.is_none_or(|r| rank > r) {
                success = Some(rank);
                c1 = i;
            }
        }
        delta = if v.phi == INF {
            INF
        } else {
            delta.saturating_add(v.phi).min(BIG)
        };
        fail_rep = fail_rep.min(v.rep);
        fail_on_trust |= v.on_trust;
    }
    let pn = if phi == 0 {
        Pn {
            phi: 0,
            delta: INF,
            rep: success.map_or(PLAIN, |(_, rep)| rep),
            on_trust: children[c1].value().on_trust,
        }
    } else if delta == 0 {
        Pn {
            phi: INF,
            delta: 0,
            rep: fail_rep,
            on_trust: fail_on_trust,
        }
    } else {
        Pn::new(phi, delta)
    };
    (pn, c1, delta2)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A child farther from the databases costs more both ways; one at
    /// them keeps the plain numbers; none is ever 0 or infinite.
    #[test]
    fn initial_numbers_grow_with_the_pieces_above_the_databases() {
        let at = initial_numbers(40, 0);
        let near = initial_numbers(40, 1);
        let far = initial_numbers(40, 6);
        assert_eq!((at.phi, at.delta), (1, 41));
        assert_eq!((near.phi, near.delta), (26, 26 * 41));
        assert_eq!((far.phi, far.delta), (151, 151 * 41));
        let most = initial_numbers(-100_000, u32::MAX);
        assert_eq!((most.phi, most.delta), (BIG, BIG));
    }

    /// The pieces above the databases count a capture the mover must make
    /// as a piece off.
    #[test]
    fn pieces_above_counts_a_pending_capture_as_one_off() {
        let pos = |fen| engine::notation::fen::parse_fen(fen).expect("a valid FEN");
        // Eight pieces, no capture for Black to move.
        assert_eq!(pieces_above(&pos("B:W21,22,23,24:B1,2,3,4"), 6), 2);
        // Eight pieces, and White to move must take 18.
        assert_eq!(pieces_above(&pos("W:W22,30,31,32:B18,1,2,3"), 6), 1);
        assert_eq!(pieces_above(&pos("B:W21,22,23,24:B1,2,3,4"), 8), 0);
    }

    /// An entry takes 20 bytes, and a table slot 36 with its key: the
    /// table's memory per position (48 with a 64-bit work count and an
    /// `Option<Move>`).
    #[test]
    fn a_table_entry_is_compact() {
        assert_eq!(std::mem::size_of::<Entry>(), 20);
        assert_eq!(crate::table::slot_bytes::<Entry>(), 36);
    }

    /// A failed check of trusted results does not end the trust: the
    /// search goes on building on trusted results and checks again, and
    /// its answer is the right one (two kings do not beat two).
    #[test]
    fn the_search_still_trusts_after_a_failed_check() {
        use crate::budget::CallLimits;
        use engine::NoOracle;
        use proofdb::outcome::NoResults;
        let pos = engine::notation::fen::parse_fen("W:WK1,K2:BK3,K10").unwrap();
        let cfg = DfpnConfig {
            limits: CallLimits::nodes(1_000_000),
            trust: true,
            ..DfpnConfig::default()
        };
        let mut df = Dfpn::new(Leaves::new(&NoOracle, &NoResults), cfg);
        let o = df.prove(pos, Question::Win, &[]);
        let stats = df.trust_stats();
        assert_eq!(o.res.status, Status::Failure);
        assert!(stats.checks >= 2 && stats.held < stats.checks, "{stats:?}");
        assert!(stats.confirmed > 0 && stats.reopened > 0, "{stats:?}");
    }
}
