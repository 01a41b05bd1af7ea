//! Proof-tree extraction after a successful search.
//!
//! From the root, the proving side gets one move whose resulting
//! position the search shows to be proved, the opponent gets every move,
//! down to leaves (terminal positions, database positions, stored
//! results). A position the search's table does not settle plainly is
//! followed where df-pn settled it through a repetition of its own path
//! ([`crate::dfpn::Dfpn::looped`]), and searched again in the context of
//! the extraction path where the search holds nothing or that walk
//! fails. Either way the extractor closes a loop only on a position of
//! the path being extracted, and only in a draw proof (where
//! a closed loop is a draw), so a hint that does not hold here fails and
//! is rolled back; a win proof comes out acyclic. Nodes are added after
//! their subtree is complete; a failed branch is rolled back, but for the
//! subtrees in it that prove their positions on their own ([`SEALED`]).

use crate::budget::{CallLimited, CallLimits};
use crate::clock::Instant;
use crate::dfpn::Dfpn;
use crate::leaves::Leaves;
use crate::prover::AlphaBeta;
use crate::question::{prover_of, question_goal, Res, Status};
use engine::{Color, Move, MoveList, Position};
use proofdb::{LeafSource, ProofEntry, ProofTree, Question};
use std::collections::HashMap;
use thiserror::Error;

/// What the extractor asks a search about one position.
#[derive(Clone, Copy, Debug)]
pub struct ProofQuery<'p> {
    /// The position.
    pub pos: &'p Position,
    /// Its mover's threshold.
    pub t: Question,
    /// The side trying to prove.
    pub prover: Color,
    /// The positions before it (`path.len()` is its ply).
    pub path: &'p [Position],
    /// Node budget of the search.
    pub nodes: u64,
}

/// What a search holds for a position without searching again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Known {
    /// A result that holds wherever the position occurs.
    Plain(Status),
    /// A result that held on the path it was searched on (a df-pn result
    /// that relied on a repetition of that path): the extractor walks it,
    /// and searches the position again where the walk fails.
    Hint(Status),
}

/// A search the extractor can ask about single positions.
pub trait ProofSearch {
    /// What the search holds for `pos` at threshold `t` without searching.
    fn known(&self, pos: &Position, t: Question) -> Option<Known>;
    /// The result of a position for its mover, searching at most
    /// `q.nodes` nodes (and no more than the search's own budget).
    fn status(&mut self, q: ProofQuery<'_>) -> Res;
    /// A move to try first at `pos` for threshold `t`.
    fn hint(&self, pos: &Position, t: Question) -> Option<Move>;
}

impl ProofSearch for AlphaBeta<'_> {
    fn known(&self, pos: &Position, t: Question) -> Option<Known> {
        self.proved(pos, t).map(Known::Plain)
    }
    fn status(&mut self, q: ProofQuery<'_>) -> Res {
        if let Some(s) = self.proved(q.pos, q.t) {
            return Res::plain(s);
        }
        let budget = self.max_nodes();
        self.set_max_nodes(budget.min(q.nodes));
        let r = self.prove(*q.pos, q.t, Some(q.prover), q.path).res;
        self.set_max_nodes(budget);
        r
    }
    fn hint(&self, pos: &Position, t: Question) -> Option<Move> {
        self.best_move(pos, t)
    }
}

impl ProofSearch for Dfpn<'_> {
    fn known(&self, pos: &Position, t: Question) -> Option<Known> {
        self.proved(pos, t)
            .map(Known::Plain)
            .or_else(|| looped_failure(self, pos, t))
    }
    fn status(&mut self, q: ProofQuery<'_>) -> Res {
        if let Some(s) = self.proved(q.pos, q.t) {
            return Res::plain(s);
        }
        let budget = self.max_nodes();
        self.set_max_nodes(budget.min(q.nodes));
        let r = self.prove(*q.pos, q.t, q.path).res;
        self.set_max_nodes(budget);
        r
    }
    fn hint(&self, pos: &Position, t: Question) -> Option<Move> {
        looped_success_move(self, pos, t).or_else(|| self.best_move(pos, t))
    }
}

/// A failure df-pn settled at `pos` through a repetition of its search
/// path ([`Dfpn::looped`]): a result for the extractor to walk. Where that
/// path's repetition is not on the extraction path, walking it finds
/// other closings or fails and is rolled back, so a stale hint costs
/// time, never a wrong proof. (Only a failure of a proving side's child
/// moves the extractor; a repetition never fails the side a draw serves,
/// so the hints come from draw proofs.)
fn looped_failure(dfpn: &Dfpn<'_>, pos: &Position, t: Question) -> Option<Known> {
    match dfpn.looped(pos, t) {
        Some((Status::Failure, _)) => Some(Known::Hint(Status::Failure)),
        _ => None,
    }
}

/// The proving move of a success df-pn settled at `pos` through a
/// repetition of its search path, unless the table holds a plain result.
fn looped_success_move(dfpn: &Dfpn<'_>, pos: &Position, t: Question) -> Option<Move> {
    if dfpn.proved(pos, t).is_some() {
        return None;
    }
    match dfpn.looped(pos, t) {
        Some((Status::Success, m)) => m,
        _ => None,
    }
}

/// A df-pn search's table consulted first, then an alpha-beta prover for
/// every position the table does not settle plainly, then df-pn again
/// for what alpha-beta leaves open (give the prover a small node budget
/// per call, [`AlphaBeta::set_config`]). df-pn finds proofs
/// where alpha-beta runs out of budget, but re-proving the positions its
/// table could not keep (results relying on a repetition of the path)
/// with df-pn gives long, wide trees; alpha-beta's iterative deepening
/// finds the shallow ones.
pub struct DfpnThenAb<'s, 'a> {
    /// The search that settled the question.
    pub dfpn: &'s mut Dfpn<'a>,
    /// The prover asked about everything else.
    pub ab: &'s mut AlphaBeta<'a>,
}

impl ProofSearch for DfpnThenAb<'_, '_> {
    fn known(&self, pos: &Position, t: Question) -> Option<Known> {
        self.dfpn
            .proved(pos, t)
            .or_else(|| self.ab.proved(pos, t))
            .map(Known::Plain)
            .or_else(|| looped_failure(self.dfpn, pos, t))
    }
    fn status(&mut self, q: ProofQuery<'_>) -> Res {
        if let Some(s) = self.dfpn.proved(q.pos, q.t) {
            return Res::plain(s);
        }
        let r = self.ab.status(q);
        if r.status != Status::Unknown {
            return r;
        }
        self.dfpn.status(q)
    }
    fn hint(&self, pos: &Position, t: Question) -> Option<Move> {
        if self.dfpn.proved(pos, t).is_some() {
            return self.dfpn.best_move(pos, t);
        }
        looped_success_move(self.dfpn, pos, t)
            .or_else(|| self.ab.hint(pos, t))
            .or_else(|| self.dfpn.best_move(pos, t))
    }
}

/// Why no proof tree came out.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum ExtractError {
    /// The tree grew past the limit.
    #[error("proof tree larger than {0} nodes")]
    TooLarge(usize),
    /// The deadline passed before the tree was complete.
    #[error("time ran out after {0} positions of the proof tree")]
    OutOfTime(usize),
    /// The stop flag was set before the tree was complete.
    #[error("stopped after {0} positions of the proof tree")]
    Stopped(usize),
    /// The search could not re-prove the root (budget too small).
    #[error("could not re-prove {fen} for the {question} question")]
    NotProved {
        /// The root.
        fen: String,
        /// The question.
        question: &'static str,
    },
}

struct Extractor<'s, 'l> {
    search: &'s mut dyn ProofSearch,
    leaves: Leaves<'l>,
    prover: Color,
    cycles: bool,
    nodes: Vec<(Position, ProofEntry)>,
    /// Per node (in `nodes`' order): its place in the order of discovery,
    /// or [`SEALED`] once it belongs to a closed part of the proof.
    discovered: Vec<u64>,
    index: HashMap<Position, usize>,
    path: Vec<Position>,
    /// The positions on `path`, with their places in the order of
    /// discovery.
    on_path: HashMap<Position, u64>,
    /// Per position of `path`: the earliest discovery its subtree so far
    /// closes a loop on, through the path or an unsealed node (Tarjan's
    /// low-link).
    lows: Vec<u64>,
    /// The next place in the order of discovery.
    next_discovery: u64,
    limits: CallLimits,
    /// Positions visited in this round.
    visits: usize,
    /// The largest node budget of a search in this round ([`ROUNDS`]).
    budget: u64,
    /// Whether this round visited positions more than four times the
    /// tree's limit (the same positions again and again, as branches
    /// fail and are rolled back): the round ends, the next one goes on.
    revisiting: bool,
}

/// The node budgets of extraction's rounds. The first round walks only
/// what the search already holds (no search at all); each later round
/// starts again from the root (the search keeps what it found) and, at a
/// prover's position that holds no settled move, searches the moves in
/// turn with each budget up to its own: every open move with the
/// smallest, those still open with the next. The last is the search's
/// own budget. A proof inside what the search found is taken before one
/// that wanders into positions that take searching (they made proofs of
/// king endings larger than a million positions where the walk found one
/// of 435,000), and a move the search cannot settle quickly does not
/// hold up one it can.
const ROUNDS: [u64; 4] = [0, 4_096, 262_144, u64::MAX];

/// Positions visited between two looks at the clock.
const CLOCK_EVERY: usize = 1 << 10;

/// The discovery mark of a sealed node: it and every node it reaches
/// form a proof of their own, whatever path leads to them.
///
/// A draw proof may close a loop on a position of the extraction path,
/// so a finished subtree may hold only while the positions it loops on
/// are proved too: a failed branch rolls it back with them. A subtree
/// whose loops all close inside it (a root of a strongly connected part
/// of the proof's graph, found as Tarjan's algorithm does, by the
/// earliest discovery each subtree reaches) holds on its own: it is
/// sealed, and stays in the set when a branch above it fails and in the
/// rounds that follow, so a position proved once is not extracted again.
/// (A win proof never loops: each of its finished subtrees is sealed.)
/// Sealed nodes that the final proof does not reach are dropped at the
/// end.
const SEALED: u64 = u64::MAX;

/// Extracts a proof of `question` at `root` with `search`, whose table
/// should hold the proof found, within `limits`, whose `max_nodes`
/// counts the tree's positions (its progress counter is not used): gives
/// up with [`ExtractError::OutOfTime`] once the deadline has passed and
/// with [`ExtractError::Stopped`] once the stop flag is set (give the
/// search the same deadline and flag, or a position it cannot settle may
/// hold the extraction past them). A round that visits more than four
/// times `max_nodes` positions (walking king endings' loops, the same
/// positions again and again as branches fail) gives way to the next
/// round; in the last, or once the tree itself reaches `max_nodes`, the
/// extraction gives up with [`ExtractError::TooLarge`].
pub fn extract(
    search: &mut dyn ProofSearch,
    leaves: Leaves<'_>,
    root: Position,
    question: Question,
    limits: CallLimits,
) -> Result<ProofTree, ExtractError> {
    let (t, _) = question_goal(question);
    let mut x = Extractor {
        search,
        leaves,
        prover: prover_of(question, root.side_to_move()),
        cycles: question.allows_cycles(),
        nodes: Vec::new(),
        discovered: Vec::new(),
        index: HashMap::new(),
        path: Vec::new(),
        on_path: HashMap::new(),
        lows: Vec::new(),
        next_discovery: 0,
        limits,
        visits: 0,
        budget: 0,
        revisiting: false,
    };
    for (round, budget) in ROUNDS.into_iter().enumerate() {
        // A failed round leaves only sealed nodes, proofs of their own
        // that the next round reuses.
        x.budget = budget;
        x.visits = 0;
        x.revisiting = false;
        let proved = match x.node(root, t) {
            Err(ExtractError::TooLarge(_)) if x.revisiting && round + 1 < ROUNDS.len() => {
                // Only sealed nodes stay for the next round.
                x.rollback(0);
                continue;
            }
            r => r?,
        };
        if proved {
            // Sealed subtrees of failed branches the proof does not use.
            let mut tree = ProofTree {
                root,
                question,
                nodes: x.nodes,
            };
            tree.drop_unreached();
            return Ok(tree);
        }
    }
    Err(ExtractError::NotProved {
        fen: engine::notation::fen::to_fen(&root),
        question: question.name(),
    })
}

impl Extractor<'_, '_> {
    /// Adds `pos`, a leaf (sealed) or the position at the top of the path
    /// (its discovery mark is set when its node is finished).
    fn add(&mut self, pos: Position, e: ProofEntry) {
        self.index.insert(pos, self.nodes.len());
        self.nodes.push((pos, e));
        self.discovered.push(SEALED);
    }

    /// Drops the unsealed nodes from `mark` on; sealed ones stay.
    fn rollback(&mut self, mark: usize) {
        let mut kept = mark;
        for i in mark..self.nodes.len() {
            let pos = self.nodes[i].0;
            if self.discovered[i] == SEALED {
                self.nodes.swap(kept, i);
                self.discovered.swap(kept, i);
                self.index.insert(pos, kept);
                kept += 1;
            } else {
                self.index.remove(&pos);
            }
        }
        self.nodes.truncate(kept);
        self.discovered.truncate(kept);
    }

    /// Lowers the low-link of the position at the top of the path to
    /// `discovery` (nothing at the root, which has no parent).
    fn loops_on(&mut self, discovery: u64) {
        if let Some(low) = self.lows.last_mut() {
            *low = (*low).min(discovery);
        }
    }

    fn push(&mut self, pos: Position) -> u64 {
        let d = self.next_discovery;
        self.next_discovery += 1;
        self.path.push(pos);
        self.on_path.insert(pos, d);
        self.lows.push(d);
        d
    }

    /// Pops the top of the path: its low-link.
    fn pop(&mut self) -> u64 {
        if let Some(p) = self.path.pop() {
            self.on_path.remove(&p);
        }
        self.lows.pop().unwrap_or(SEALED)
    }

    /// Proves `pos` (mover's threshold `t`) into the node set; `Ok(false)`
    /// when it cannot, with nothing added but sealed subtrees.
    fn node(&mut self, pos: Position, t: Question) -> Result<bool, ExtractError> {
        if let Some(&i) = self.index.get(&pos) {
            let d = self.discovered[i];
            if d != SEALED {
                self.loops_on(d);
            }
            return Ok(true);
        }
        if let Some(&d) = self.on_path.get(&pos) {
            if self.cycles {
                self.loops_on(d);
            }
            return Ok(self.cycles);
        }
        self.visits += 1;
        let max = usize::try_from(self.limits.max_nodes).unwrap_or(usize::MAX);
        if self.visits > max.saturating_mul(4) {
            self.revisiting = true;
        }
        if self.nodes.len() >= max || self.revisiting {
            return Err(ExtractError::TooLarge(max));
        }
        if self.visits.is_multiple_of(CLOCK_EVERY) {
            if self.limits.stop_requested() {
                return Err(ExtractError::Stopped(self.nodes.len()));
            }
            if self.limits.deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(ExtractError::OutOfTime(self.nodes.len()));
            }
        }
        let prover_moves = pos.side_to_move() == self.prover;
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        if list.is_empty() {
            if prover_moves {
                return Ok(false);
            }
            self.add(pos, ProofEntry::Leaf(LeafSource::Terminal));
            return Ok(true);
        }
        if let Some((s, src)) = self.leaves.classify(&pos, t) {
            let want = if prover_moves {
                Status::Success
            } else {
                Status::Failure
            };
            if s == want {
                self.add(pos, ProofEntry::Leaf(src));
                return Ok(true);
            }
            return Ok(false);
        }
        let ct = t.child();
        let mark = self.nodes.len();
        let d = self.push(pos);
        let result = if prover_moves {
            self.prover_node(pos, t, ct, &list, mark)
        } else {
            self.opponent_node(pos, ct, &list, mark)
        };
        let low = self.pop();
        if !result? {
            return Ok(false);
        }
        if low >= d {
            // Every loop of the subtree closes inside it: a proof of its
            // own (its nodes are the last added).
            for m in &mut self.discovered[mark..] {
                *m = SEALED;
            }
        } else {
            if let Some(m) = self.discovered.last_mut() {
                *m = d;
            }
            self.loops_on(low);
        }
        Ok(true)
    }

    /// One move of the prover at `pos` whose position can be proved:
    /// first the moves whose results the search already holds, then the
    /// others, and those whose hint failed here, searched with growing
    /// node budgets up to the round's ([`ROUNDS`]).
    fn prover_node(
        &mut self,
        pos: Position,
        t: Question,
        ct: Question,
        list: &MoveList,
        mark: usize,
    ) -> Result<bool, ExtractError> {
        let mut moves: Vec<Move> = list.iter().copied().collect();
        if let Some(h) = self.search.hint(&pos, t) {
            if let Some(i) = moves.iter().position(|m| m.same_move(&h)) {
                moves[..=i].rotate_right(1);
            }
        }
        let mut open = Vec::with_capacity(moves.len());
        for m in moves {
            let child = pos.play_unchecked(&m);
            let known = if self.index.contains_key(&child)
                || (self.cycles && self.on_path.contains_key(&child))
            {
                Some(Known::Plain(Status::Failure))
            } else {
                self.search
                    .known(&child, ct)
                    .or_else(|| self.leaf_status(&child, ct).map(Known::Plain))
            };
            match known {
                Some(Known::Plain(Status::Failure) | Known::Hint(Status::Failure)) => {
                    if self.node(child, ct)? {
                        self.add(pos, ProofEntry::Prover(m));
                        return Ok(true);
                    }
                    self.rollback(mark);
                    // A hint that does not hold on this path leaves the
                    // move to the searches below, which see this path.
                    if matches!(known, Some(Known::Hint(_))) {
                        open.push(m);
                    }
                }
                Some(Known::Plain(_)) => {}
                Some(Known::Hint(_)) | None => open.push(m),
            }
        }
        let cap = self.budget;
        for budget in ROUNDS.into_iter().filter(|&b| b > 0 && b <= cap) {
            let mut left = Vec::with_capacity(open.len());
            for m in open {
                let child = pos.play_unchecked(&m);
                let r = self.search.status(ProofQuery {
                    pos: &child,
                    t: ct,
                    prover: self.prover,
                    path: &self.path,
                    nodes: budget,
                });
                match r.status {
                    Status::Failure => {
                        if self.node(child, ct)? {
                            self.add(pos, ProofEntry::Prover(m));
                            return Ok(true);
                        }
                        self.rollback(mark);
                    }
                    Status::Success => {}
                    Status::Unknown => left.push(m),
                }
            }
            open = left;
            if open.is_empty() {
                break;
            }
        }
        Ok(false)
    }

    /// The status of a terminal or database position for its mover at
    /// threshold `t` (searches do not keep the leaves they met as
    /// children).
    fn leaf_status(&self, pos: &Position, t: Question) -> Option<Status> {
        if pos.is_terminal() {
            return Some(Status::Failure);
        }
        self.leaves.classify(pos, t).map(|(s, _)| s)
    }

    fn opponent_node(
        &mut self,
        pos: Position,
        ct: Question,
        list: &MoveList,
        mark: usize,
    ) -> Result<bool, ExtractError> {
        for m in list.iter() {
            let child = pos.play_unchecked(m);
            if !self.node(child, ct)? {
                self.rollback(mark);
                return Ok(false);
            }
        }
        self.add(pos, ProofEntry::Opponent);
        Ok(true)
    }
}
