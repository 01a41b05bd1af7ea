//! Pessimistic alpha-beta: a depth-limited heuristic search in which every
//! position that is neither terminal, nor in the endgame databases, nor in
//! the proof store, nor repeated on the path, counts against the side
//! trying to prove (it is [`Status::Unknown`], never a success). A result
//! that survives is a proof.
//!
//! Every node is searched with a null window on its threshold (the binary
//! question "does the mover reach `t`?"), so values are three-valued:
//! success, failure, unknown. At the proving side's nodes the search goes
//! on past unknown children (another move may prove); at the opponent's
//! nodes it stops at the first unknown child (the node can no longer be
//! proved at this depth: the pessimistic cutoff). Iterative deepening,
//! a transposition table keyed by the full position, transposition-table
//! and history move ordering behind a small evaluation, enhanced
//! transposition cutoffs near the root, and extensions for forced moves
//! and captures at the horizon.

use crate::budget::{Budget, CallLimited, CallLimits};
use crate::leaves::Leaves;
use crate::order::evaluate;
use crate::question::{Res, Status, PLAIN};
use crate::table::{Key, MoveSlot, Table};
use engine::{Color, Move, MoveList, Position};
use proofdb::Question;

/// Limits of an alpha-beta search.
#[derive(Clone, Debug)]
pub struct AbConfig {
    /// Node budget, deadline, stop flag and progress counter of one call
    /// of [`AlphaBeta::prove`].
    pub limits: CallLimits,
    /// Deepest iteration (plies, before extensions).
    pub max_depth: i32,
    /// Table size (entries) that triggers garbage collection.
    pub table_entries: usize,
    /// Remaining depth from which enhanced transposition cutoffs are tried.
    pub etc_depth: i32,
}

impl Default for AbConfig {
    fn default() -> Self {
        AbConfig {
            limits: CallLimits::default(),
            max_depth: 240,
            table_entries: 8_000_000,
            etc_depth: 4,
        }
    }
}

/// What a table entry says of its position at its threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Plain proved status (`Success` or `Failure`), valid on any path at
    /// any depth.
    Proved(Status),
    /// A status that held only because of a repetition on the path where
    /// it was found. A move-ordering hint only; never a cutoff.
    Repeated,
    /// Searched to `depth` (remaining plies) without a result, with the
    /// cutoff policy of the given proving side.
    Open(i32, Color),
}

/// A transposition-table entry.
#[derive(Clone, Copy, Debug)]
struct Entry {
    /// What is known.
    kind: Kind,
    /// The move that proved, refuted, or was searched first last time.
    best: MoveSlot,
}

impl Default for Entry {
    /// What fills the table's free slots.
    fn default() -> Self {
        Entry {
            kind: Kind::Repeated,
            best: MoveSlot::NONE,
        }
    }
}

/// The result of one [`AlphaBeta::prove`] call.
#[derive(Clone, Copy, Debug)]
pub struct AbOutcome {
    /// The root's result for its mover at the asked threshold.
    pub res: Res,
    /// Depth of the last iteration.
    pub depth: i32,
    /// The root move that proved or refuted, when known.
    pub best: Option<Move>,
}

/// A pessimistic alpha-beta prover with its transposition table.
pub struct AlphaBeta<'a> {
    leaves: Leaves<'a>,
    cfg: AbConfig,
    tt: Table<Entry>,
    history: Box<[[u32; 32]; 32]>,
    path: Vec<Position>,
    /// Move lists by ply (see `search`).
    lists: Vec<MoveList>,
    budget: Budget,
    horizon_hits: u64,
    prover: Color,
}

impl CallLimited for AlphaBeta<'_> {
    fn limits(&self) -> &CallLimits {
        &self.cfg.limits
    }
    fn limits_mut(&mut self) -> &mut CallLimits {
        &mut self.cfg.limits
    }
}

impl<'a> AlphaBeta<'a> {
    /// A prover consulting `leaves`, with limits `cfg`.
    pub fn new(leaves: Leaves<'a>, cfg: AbConfig) -> AlphaBeta<'a> {
        AlphaBeta {
            leaves,
            cfg,
            tt: Table::default(),
            history: Box::new([[0; 32]; 32]),
            path: Vec::with_capacity(256),
            lists: Vec::new(),
            budget: Budget::default(),
            horizon_hits: 0,
            prover: Color::Black,
        }
    }

    /// Nodes searched so far by this prover (all calls).
    pub fn nodes(&self) -> u64 {
        self.budget.nodes()
    }

    /// Whether the last call ran out of budget.
    pub fn aborted(&self) -> bool {
        self.budget.aborted()
    }

    /// Changes the limits (for example a fresh deadline).
    pub fn set_config(&mut self, cfg: AbConfig) {
        self.cfg = cfg;
    }

    /// The plain proved status of `pos` at threshold `t`, if stored.
    pub fn proved(&self, pos: &Position, t: Question) -> Option<Status> {
        match self.tt.get(&Key::new(*pos, t))?.kind {
            Kind::Proved(s) => Some(s),
            _ => None,
        }
    }

    /// The stored best move of `pos` at threshold `t`.
    pub fn best_move(&self, pos: &Position, t: Question) -> Option<Move> {
        self.tt.get(&Key::new(*pos, t)).and_then(|e| e.best.get())
    }

    /// Does the mover of `root` reach threshold `t`? `prover` is the side
    /// trying to prove (the cutoff policy: at its nodes the search goes
    /// past unknown children; `None`: each iteration tries the root's
    /// side to move first, then its opponent, so proofs and disproofs are
    /// both found). `prefix` holds the positions before `root` on the path
    /// (for repetitions; empty for a fresh question), so the root sits at
    /// ply `prefix.len()`.
    ///
    /// Returns `Success`/`Failure` when proved (a result tagged with a ply
    /// below `prefix.len()` relies on a repetition of that prefix
    /// position), `Unknown` when the budget or the depth ran out. Uses at
    /// most `cfg.limits.max_nodes` nodes from this call on.
    pub fn prove(
        &mut self,
        root: Position,
        t: Question,
        prover: Option<Color>,
        prefix: &[Position],
    ) -> AbOutcome {
        self.budget.begin();
        let ply = prefix.len();
        let provers: Vec<Color> = match prover {
            Some(c) => vec![c],
            None => vec![root.side_to_move(), root.side_to_move().opposite()],
        };
        let mut last = AbOutcome {
            res: Res::UNKNOWN,
            depth: 0,
            best: None,
        };
        for depth in 1..=self.cfg.max_depth {
            let mut complete = true;
            for &p in &provers {
                self.prover = p;
                self.path.clear();
                self.path.extend_from_slice(prefix);
                self.horizon_hits = 0;
                let res = self.search(root, t, depth, ply, 0);
                last = AbOutcome {
                    res,
                    depth,
                    best: self.best_move(&root, t),
                };
                if res.status != Status::Unknown || self.budget.aborted() {
                    return last;
                }
                complete &= self.horizon_hits == 0;
            }
            if complete {
                break;
            }
        }
        last
    }

    fn store(&mut self, pos: Position, t: Question, kind: Kind, best: Option<Move>) {
        if self.tt.len() >= self.cfg.table_entries {
            self.collect_garbage();
        }
        let key = Key::new(pos, t);
        match self.tt.get_mut(&key) {
            Some(e) => {
                if matches!(e.kind, Kind::Proved(_)) && !matches!(kind, Kind::Proved(_)) {
                    return;
                }
                e.kind = kind;
                if best.is_some() {
                    e.best = MoveSlot::new(best);
                }
            }
            None => {
                self.tt.insert(
                    key,
                    Entry {
                        kind,
                        best: MoveSlot::new(best),
                    },
                );
            }
        }
    }

    /// Drops open and repetition entries; then, if still over half full,
    /// everything (proved entries are only a speed-up).
    fn collect_garbage(&mut self) {
        self.tt.retain(|e| matches!(e.kind, Kind::Proved(_)));
        if self.tt.len() >= self.cfg.table_entries / 2 {
            self.tt.clear();
        }
    }

    /// Searches `pos` (at ply `ply`, with `depth` plies left) for its
    /// mover against threshold `t`. Positions `path[irrev..ply]` are the
    /// ones `pos` may repeat. Contract: a `Success`/`Failure` result is a
    /// proof (plain, or relying on the tagged path repetition); `Unknown`
    /// claims nothing.
    fn search(&mut self, pos: Position, t: Question, depth: i32, ply: usize, irrev: usize) -> Res {
        debug_assert!(self.path.len() >= ply);
        for k in irrev..ply {
            if self.path[k] == pos {
                return Res::repetition(t, k);
            }
        }
        if self.budget.tick(&self.cfg.limits) {
            return Res::UNKNOWN;
        }
        // One move list per ply, kept between calls: a fresh list would be
        // zeroed at every node (1 KiB, about a tenth of the search's time).
        if self.lists.len() <= ply {
            self.lists.resize_with(ply + 1, MoveList::new);
        }
        pos.legal_moves(&mut self.lists[ply]);
        let n = self.lists[ply].len();
        if n == 0 {
            // The mover has lost: a loss reaches no threshold.
            return Res::plain(Status::Failure);
        }
        if let Some((s, _)) = self.leaves.classify(&pos, t) {
            return Res::plain(s);
        }
        let mut tt_move = None;
        if let Some(e) = self.tt.get(&Key::new(pos, t)) {
            match e.kind {
                Kind::Proved(s) => return Res::plain(s),
                Kind::Open(d, p) if d >= depth && p == self.prover => {
                    self.horizon_hits += 1;
                    return Res::UNKNOWN;
                }
                _ => {}
            }
            tt_move = e.best.get();
        }
        let forcing = self.lists[ply].as_slice()[0].is_capture();
        if depth <= 0 && !forcing {
            self.horizon_hits += 1;
            return Res::UNKNOWN;
        }
        let ct = t.child();
        if depth >= self.cfg.etc_depth {
            let refuted = self.lists[ply].iter().copied().find(|m| {
                let child = pos.play_unchecked(m);
                matches!(
                    self.tt.get(&Key::new(child, ct)),
                    Some(e) if e.kind == Kind::Proved(Status::Failure)
                )
            });
            if let Some(m) = refuted {
                self.store(pos, t, Kind::Proved(Status::Success), Some(m));
                return Res::plain(Status::Success);
            }
        }
        order_moves(&self.history, &pos, &mut self.lists[ply], tt_move);
        self.path.truncate(ply);
        self.path.push(pos);
        let prover_moves = pos.side_to_move() == self.prover;
        let single = n == 1;
        let mut min_rep = PLAIN;
        let mut all_fail = true;
        for i in 0..n {
            let m = self.lists[ply].as_slice()[i];
            let child = pos.play_unchecked(&m);
            let extend = single || (depth <= 0 && forcing);
            let cd = if extend { depth } else { depth - 1 };
            let man_moved = pos.kings() & m.from().bit() == 0;
            let cirrev = if m.is_capture() || man_moved {
                ply + 1
            } else {
                irrev
            };
            let r = self.search(child, ct, cd, ply + 1, cirrev).negate();
            match r.status {
                Status::Success => {
                    let r = r.resolved_at(ply);
                    self.reward(&m, depth);
                    let kind = if r.is_plain() {
                        Kind::Proved(Status::Success)
                    } else {
                        Kind::Repeated
                    };
                    self.store(pos, t, kind, Some(m));
                    return r;
                }
                Status::Failure => min_rep = min_rep.min(r.rep),
                Status::Unknown => {
                    all_fail = false;
                    if !prover_moves {
                        if !self.budget.aborted() {
                            self.store(pos, t, Kind::Open(depth, self.prover), Some(m));
                        }
                        return Res::UNKNOWN;
                    }
                }
            }
            if self.budget.aborted() {
                return Res::UNKNOWN;
            }
        }
        if all_fail {
            let r = Res {
                status: Status::Failure,
                rep: min_rep,
            }
            .resolved_at(ply);
            let kind = if r.is_plain() {
                Kind::Proved(Status::Failure)
            } else {
                Kind::Repeated
            };
            self.store(pos, t, kind, None);
            return r;
        }
        if !self.budget.aborted() {
            self.store(pos, t, Kind::Open(depth, self.prover), None);
        }
        Res::UNKNOWN
    }

    fn reward(&mut self, m: &Move, depth: i32) {
        let d = depth.clamp(1, 60) as u32;
        let h = &mut self.history[m.from().index() as usize][m.to().index() as usize];
        *h = h.saturating_add(d * d);
    }
}

/// Orders moves: the table move first, then by `history` and the
/// evaluation of the resulting position (worst for the opponent first).
fn order_moves(
    history: &[[u32; 32]; 32],
    pos: &Position,
    list: &mut MoveList,
    tt_move: Option<Move>,
) {
    if list.len() < 2 {
        return;
    }
    let mut scored: Vec<(i64, Move)> = list
        .iter()
        .map(|m| {
            let child = pos.play_unchecked(m);
            let mut s = -(evaluate(&child) as i64) * 8;
            s += history[m.from().index() as usize][m.to().index() as usize] as i64;
            if tt_move.is_some_and(|b| b.same_move(m)) {
                s = i64::MAX;
            }
            (s, *m)
        })
        .collect();
    scored.sort_by_key(|m| std::cmp::Reverse(m.0));
    for (slot, (_, m)) in list.as_mut_slice().iter_mut().zip(scored) {
        *slot = m;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table bucket (key and entry) takes 36 bytes (40 with an
    /// `Option<Move>`).
    #[test]
    fn a_table_entry_is_compact() {
        assert_eq!(std::mem::size_of::<(Key, Entry)>(), 36);
    }
}
