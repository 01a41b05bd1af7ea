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
//! their subtree is complete; a failed branch is rolled back.

use crate::budget::{CallLimited, CallLimits};
use crate::clock::Instant;
use crate::dfpn::Dfpn;
use crate::leaves::Leaves;
use crate::prover::AlphaBeta;
use crate::question::{prover_of, question_goal, Res, Status, Threshold};
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
    pub t: Threshold,
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
    fn known(&self, pos: &Position, t: Threshold) -> Option<Known>;
    /// The result of a position for its mover, searching at most
    /// `q.nodes` nodes (and no more than the search's own budget).
    fn status(&mut self, q: ProofQuery<'_>) -> Res;
    /// A move to try first at `pos` for threshold `t`.
    fn hint(&self, pos: &Position, t: Threshold) -> Option<Move>;
}

impl ProofSearch for AlphaBeta<'_> {
    fn known(&self, pos: &Position, t: Threshold) -> Option<Known> {
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
    fn hint(&self, pos: &Position, t: Threshold) -> Option<Move> {
        self.best_move(pos, t)
    }
}

impl ProofSearch for Dfpn<'_> {
    fn known(&self, pos: &Position, t: Threshold) -> Option<Known> {
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
    fn hint(&self, pos: &Position, t: Threshold) -> Option<Move> {
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
fn looped_failure(dfpn: &Dfpn<'_>, pos: &Position, t: Threshold) -> Option<Known> {
    match dfpn.looped(pos, t) {
        Some((Status::Failure, _)) => Some(Known::Hint(Status::Failure)),
        _ => None,
    }
}

/// The proving move of a success df-pn settled at `pos` through a
/// repetition of its search path, unless the table holds a plain result.
fn looped_success_move(dfpn: &Dfpn<'_>, pos: &Position, t: Threshold) -> Option<Move> {
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
    fn known(&self, pos: &Position, t: Threshold) -> Option<Known> {
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
    fn hint(&self, pos: &Position, t: Threshold) -> Option<Move> {
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
    index: HashMap<Position, usize>,
    path: Vec<Position>,
    on_path: HashMap<Position, u32>,
    limits: CallLimits,
    /// Positions visited in this round.
    visits: usize,
    /// The largest node budget of a search in this round ([`ROUNDS`]).
    budget: u64,
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

/// Extracts a proof of `question` at `root` with `search`, whose table
/// should hold the proof found, within `limits`, whose `max_nodes`
/// counts the tree's positions (its progress counter is not used): gives
/// up with [`ExtractError::OutOfTime`] once the deadline has passed and
/// with [`ExtractError::Stopped`] once the stop flag is set (give the
/// search the same deadline and flag, or a position it cannot settle may
/// hold the extraction past them).
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
        index: HashMap::new(),
        path: Vec::new(),
        on_path: HashMap::new(),
        limits,
        visits: 0,
        budget: 0,
    };
    for budget in ROUNDS {
        x.budget = budget;
        x.nodes.clear();
        x.index.clear();
        x.visits = 0;
        if x.node(root, t)? {
            return Ok(ProofTree {
                root,
                question,
                nodes: x.nodes,
            });
        }
    }
    Err(ExtractError::NotProved {
        fen: engine::notation::fen::to_fen(&root),
        question: question.name(),
    })
}

impl Extractor<'_, '_> {
    fn add(&mut self, pos: Position, e: ProofEntry) {
        self.index.insert(pos, self.nodes.len());
        self.nodes.push((pos, e));
    }

    fn rollback(&mut self, mark: usize) {
        for (p, _) in self.nodes.drain(mark..) {
            self.index.remove(&p);
        }
    }

    fn push(&mut self, pos: Position) {
        self.path.push(pos);
        *self.on_path.entry(pos).or_insert(0) += 1;
    }

    fn pop(&mut self) {
        if let Some(p) = self.path.pop() {
            if let Some(c) = self.on_path.get_mut(&p) {
                *c -= 1;
                if *c == 0 {
                    self.on_path.remove(&p);
                }
            }
        }
    }

    /// Proves `pos` (mover's threshold `t`) into the node set; `Ok(false)`
    /// when it cannot, with nothing added.
    fn node(&mut self, pos: Position, t: Threshold) -> Result<bool, ExtractError> {
        if self.index.contains_key(&pos) {
            return Ok(true);
        }
        if self.on_path.contains_key(&pos) {
            return Ok(self.cycles);
        }
        self.visits += 1;
        let max = usize::try_from(self.limits.max_nodes).unwrap_or(usize::MAX);
        if self.nodes.len() >= max || self.visits > max.saturating_mul(4) {
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
        self.push(pos);
        let result = if prover_moves {
            self.prover_node(pos, t, ct, &list, mark)
        } else {
            self.opponent_node(pos, ct, &list, mark)
        };
        self.pop();
        result
    }

    /// One move of the prover at `pos` whose position can be proved:
    /// first the moves whose results the search already holds, then the
    /// others, and those whose hint failed here, searched with growing
    /// node budgets up to the round's ([`ROUNDS`]).
    fn prover_node(
        &mut self,
        pos: Position,
        t: Threshold,
        ct: Threshold,
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
    fn leaf_status(&self, pos: &Position, t: Threshold) -> Option<Status> {
        if pos.is_terminal() {
            return Some(Status::Failure);
        }
        self.leaves.classify(pos, t).map(|(s, _)| s)
    }

    fn opponent_node(
        &mut self,
        pos: Position,
        ct: Threshold,
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
