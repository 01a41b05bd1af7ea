//! Exact retrograde analysis over the graph reachable from one position.
//!
//! From the root every position reachable by legal moves is enumerated,
//! stopping at leaves: positions with a value in the endgame databases,
//! positions with an exact result in the proof store (a stored bound is
//! expanded like any other position), and terminal positions (no legal
//! move: the side to move has lost). On that finite graph the values are
//! then computed backwards, as the endgame databases are built: a position
//! is a win when some move reaches a loss for the opponent, a loss when
//! every move reaches a win for the opponent, and whatever is unresolved
//! when nothing changes any more is a draw (each side can keep out of a
//! loss forever; endless play is a draw). That is the databases' own
//! semantics, so no repetition rule and no graph-history interaction is
//! involved: the values are exact whatever the path.
//!
//! Each decisive position records the round in which it resolved (its
//! distance: leaves 0; a win one more than its quickest losing successor,
//! a loss one more than its slowest winning one). Win and loss proofs
//! follow strictly decreasing distances, so they are finite; draw proofs
//! are closed sets of positions and may loop.
//!
//! Memory: the positions (16 bytes each) and, while the graph is built, a
//! hash index of them; successors as one `u32` array (compressed sparse
//! rows, in the order of [`Position::moves`]), predecessors built from it
//! after the index is dropped; one byte of kind per position and, per
//! analysis, one byte of value and a `u32` distance (the measured bytes
//! per position and speed are in docs/measurements.md).
//!
//! A graph cut short (the position cap or the expansion time reached)
//! leaves a frontier of unexpanded positions; two analyses, the frontier
//! counted as lost and then as won for the root's side, bound the root's
//! value (see [`Retro`]).
//!
//! Reference: the retrograde analysis of endgame databases (Thompson;
//! Schaeffer et al., Chinook), applied to the reachable graph of one
//! position instead of a whole slice.

use crate::clock::Instant;
use crate::leaves::Leaves;
use crate::question::prover_of;
use engine::notation::fen::to_fen;
use engine::{Move, MoveList, Position, Value};
use proofdb::{LeafSource, Outcome, ProofEntry, ProofTree, Question};
use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use thiserror::Error;

/// Limits of one retrograde analysis.
#[derive(Clone, Debug)]
pub struct RetroConfig {
    /// Most positions (leaves included) the graph may hold. When the next
    /// new position would pass it, expansion stops: the positions not
    /// expanded yet that are not leaves form the frontier, and the
    /// analysis gives bounds (see [`Retro::bounds`]).
    pub max_positions: usize,
    /// Expansion also stops when this instant passes (leaving time for
    /// the analysis and the proofs before `deadline`).
    pub expand_until: Option<Instant>,
    /// Give up ([`RetroError::OutOfTime`]) when this instant passes.
    pub deadline: Option<Instant>,
    /// Set from outside to give up ([`RetroError::Stopped`]).
    pub stop: Option<Arc<AtomicBool>>,
    /// Positions expanded are added here as the graph is built (4,096 at
    /// a time), for a report from another thread.
    pub progress: Option<Arc<AtomicU64>>,
}

impl Default for RetroConfig {
    fn default() -> Self {
        RetroConfig {
            max_positions: 30_000_000,
            expand_until: None,
            deadline: None,
            stop: None,
            progress: None,
        }
    }
}

/// Why a retrograde analysis or one of its proofs did not come out. The
/// first three mean "unknown", not a failure of the position.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum RetroError {
    /// The graph has more moves than a `u32` edge index holds.
    #[error("{fen}: more than {} moves in the reachable graph", u32::MAX)]
    TooManyMoves {
        /// The root.
        fen: String,
    },
    /// The deadline passed.
    #[error("{fen}: time ran out after {positions} positions")]
    OutOfTime {
        /// The root.
        fen: String,
        /// Positions enumerated by then.
        positions: usize,
    },
    /// Stopped from outside.
    #[error("{fen}: stopped after {positions} positions")]
    Stopped {
        /// The root.
        fen: String,
        /// Positions enumerated by then.
        positions: usize,
    },
    /// The analysis does not prove the question asked.
    #[error("{fen}: the value, between {lo} and {hi}, does not prove the {question} question")]
    NotProved {
        /// The root.
        fen: String,
        /// Lower bound of its value.
        lo: Value,
        /// Upper bound of its value.
        hi: Value,
        /// The question.
        question: &'static str,
    },
    /// The proof would hold more positions than allowed.
    #[error("{fen}: the {question} proof has more than {limit} positions")]
    ProofTooLarge {
        /// The root.
        fen: String,
        /// The question.
        question: &'static str,
        /// The limit.
        limit: usize,
    },
}

/// Value byte: not resolved (a draw once the analysis is over).
const OPEN: u8 = 0;
/// Value byte: the side to move wins.
const WIN: u8 = 1;
/// Value byte: the side to move loses.
const LOSS: u8 = 2;
/// Value byte: a leaf whose value is a draw.
const DRAW: u8 = 3;

/// Kind byte: an interior position (its moves are in the graph).
const INTERIOR: u8 = 0;
/// Kind byte: a leaf with no legal move.
const TERMINAL: u8 = 1;
/// Kind byte: a leaf valued by the endgame databases.
const EGDB: u8 = 2;
/// Kind byte: a leaf with an exact result in the proof store.
const STORE: u8 = 3;
/// Kind byte: not expanded (the cap or the expansion time was reached);
/// its value is unknown and it never appears in a proof.
const FRONTIER: u8 = 4;

fn value_byte(v: Value) -> u8 {
    match v {
        Value::Win => WIN,
        Value::Loss => LOSS,
        Value::Draw => DRAW,
    }
}

/// A multiply-xorshift hasher for the position index (the default
/// SipHash costs more than the move generation it would index).
#[derive(Default)]
struct PosHasher(u64);

impl Hasher for PosHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u8(&mut self, x: u8) {
        self.write_u64(x as u64);
    }
    fn write_u32(&mut self, x: u32) {
        self.write_u64(x as u64);
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(23) ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
    fn write_isize(&mut self, x: isize) {
        self.write_u64(x as u64);
    }
    fn finish(&self) -> u64 {
        // splitmix64's finaliser: every output bit depends on every input.
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

type Index = HashMap<Position, u32, BuildHasherDefault<PosHasher>>;

/// One backward induction over the graph, the frontier valued for one
/// side.
struct Analysis {
    /// `OPEN` (a draw), `WIN`, `LOSS` or `DRAW` (a drawn leaf), for the
    /// side to move.
    value: Vec<u8>,
    /// For `WIN` and `LOSS`: the round in which the value resolved (0 for
    /// leaves and the frontier); every move a win or loss proof follows
    /// goes to a smaller one.
    dist: Vec<u32>,
}

/// The graph reachable from one root, solved. Position 0 is the root.
///
/// When the whole graph fits, one analysis gives every position its exact
/// value. When expansion stopped early, two analyses bound the root's
/// value: `lower` values every frontier position as a loss for the
/// root's side (a win for its mover when that is the opponent, a loss
/// when it is the root's side), `upper` the other way round. Values
/// only grow with the leaves' values, so the true value lies between
/// them, and a proof taken from the analysis that is pessimistic for its
/// proving side never enters the frontier (the proving side never moves
/// to a position valued as its own loss, and the opponent's positions
/// in the proof have no move to one).
pub struct Retro {
    /// Every position of the graph, the root first.
    positions: Vec<Position>,
    /// `succ[offsets[i]..offsets[i + 1]]` are the successors of position
    /// `i`, in the order of its [`Position::moves`] (empty for leaves and
    /// the frontier).
    offsets: Vec<u32>,
    /// Successor ids.
    succ: Vec<u32>,
    /// `INTERIOR`, `TERMINAL`, `EGDB`, `STORE` or `FRONTIER`.
    kind: Vec<u8>,
    /// Frontier positions.
    frontier: usize,
    /// The pessimistic analysis for the root's side (the only one when
    /// there is no frontier).
    lower: Analysis,
    /// The optimistic one, when there is a frontier.
    upper: Option<Analysis>,
}

impl Retro {
    /// Enumerates the graph reachable from `root` down to the leaves of
    /// `leaves` (at most `cfg.max_positions` positions, expanding until
    /// `cfg.expand_until`) and solves it. Fails (meaning "unknown") when
    /// the deadline passes or the stop flag is set.
    pub fn solve(
        root: Position,
        leaves: Leaves<'_>,
        cfg: &RetroConfig,
    ) -> Result<Retro, RetroError> {
        let (positions, offsets, succ, kind, value) = build(root, leaves, cfg)?;
        let frontier = kind.iter().filter(|&&k| k == FRONTIER).count();
        let mut r = Retro {
            positions,
            offsets,
            succ,
            kind,
            frontier,
            lower: Analysis {
                value: Vec::new(),
                dist: Vec::new(),
            },
            upper: None,
        };
        let pred = r.predecessors();
        let side = root.side_to_move();
        r.lower = r.analyse(&value, &pred, side.opposite(), cfg)?;
        if frontier > 0 {
            r.upper = Some(r.analyse(&value, &pred, side, cfg)?);
        }
        Ok(r)
    }

    /// The successors of position `i`.
    fn successors(&self, i: usize) -> &[u32] {
        &self.succ[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// The predecessor lists in compressed sparse rows: offsets, ids.
    fn predecessors(&self) -> (Vec<u32>, Vec<u32>) {
        let n = self.positions.len();
        // Counts, prefix sums, then filling with the offsets as cursors
        // (which shifts them by one slot; shifted back after).
        let mut poff = vec![0u32; n + 1];
        for &c in &self.succ {
            poff[c as usize + 1] += 1;
        }
        for i in 0..n {
            poff[i + 1] += poff[i];
        }
        let mut pred = vec![0u32; self.succ.len()];
        for v in 0..n {
            for k in self.offsets[v]..self.offsets[v + 1] {
                let c = self.succ[k as usize] as usize;
                pred[poff[c] as usize] = v as u32;
                poff[c] += 1;
            }
        }
        for c in (1..=n).rev() {
            poff[c] = poff[c - 1];
        }
        poff[0] = 0;
        (poff, pred)
    }

    /// Backward induction from the decisive leaves, in rounds (a FIFO
    /// queue, so distances are non-decreasing in processing order), with
    /// the leaves' values `leaf_value` and every frontier position a win
    /// for its mover when that is `good`, a loss otherwise.
    fn analyse(
        &self,
        leaf_value: &[u8],
        (poff, pred): &(Vec<u32>, Vec<u32>),
        good: engine::Color,
        cfg: &RetroConfig,
    ) -> Result<Analysis, RetroError> {
        let n = self.positions.len();
        let mut value = leaf_value.to_vec();
        for ((v, &k), pos) in value.iter_mut().zip(&self.kind).zip(&self.positions) {
            if k == FRONTIER {
                *v = if pos.side_to_move() == good {
                    WIN
                } else {
                    LOSS
                };
            }
        }
        let mut dist = vec![0u32; n];
        // Successors not yet known to win for their mover.
        let mut left: Vec<u32> = (0..n)
            .map(|i| self.offsets[i + 1] - self.offsets[i])
            .collect();
        let mut queue: VecDeque<u32> = (0..n as u32)
            .filter(|&i| matches!(value[i as usize], WIN | LOSS))
            .collect();
        let mut done = 0usize;
        while let Some(v) = queue.pop_front() {
            done += 1;
            if done.is_multiple_of(1 << 20) {
                check_limits(&self.positions[0], n, cfg)?;
            }
            let v = v as usize;
            let (val, d) = (value[v], dist[v] + 1);
            for &p in &pred[poff[v] as usize..poff[v + 1] as usize] {
                let p = p as usize;
                if value[p] != OPEN {
                    continue;
                }
                if val == LOSS {
                    value[p] = WIN;
                } else {
                    left[p] -= 1;
                    if left[p] != 0 {
                        continue;
                    }
                    value[p] = LOSS;
                }
                dist[p] = d;
                queue.push_back(p as u32);
            }
        }
        Ok(Analysis { value, dist })
    }

    /// Positions in the graph (leaves and frontier included): the "nodes"
    /// of the run.
    pub fn positions(&self) -> usize {
        self.positions.len()
    }

    /// Positions left unexpanded (0 when the whole graph was solved).
    pub fn frontier(&self) -> usize {
        self.frontier
    }

    /// The root.
    pub fn root(&self) -> Position {
        self.positions[0]
    }

    fn leaf_at(&self, i: usize) -> Option<LeafSource> {
        match self.kind[i] {
            TERMINAL => Some(LeafSource::Terminal),
            EGDB => Some(LeafSource::Egdb),
            STORE => Some(LeafSource::Store),
            _ => None,
        }
    }

    /// Bounds on the root's value for its side to move (equal when the
    /// whole graph was solved).
    pub fn bounds(&self) -> (Value, Value) {
        let hi = self.upper.as_ref().unwrap_or(&self.lower);
        (value_of(self.lower.value[0]), value_of(hi.value[0]))
    }

    /// What the analysis established for the root: an exact value, a
    /// bound, or nothing.
    pub fn outcome(&self) -> Option<Outcome> {
        let (lo, hi) = self.bounds();
        Outcome::from_range(lo, hi)
    }

    /// Every position of the graph with its value for the side to move
    /// (exact when [`Retro::frontier`] is 0, the lower bound of the
    /// root's side otherwise) and, for a leaf, where its value came from.
    pub fn entries(&self) -> impl Iterator<Item = (Position, Value, Option<LeafSource>)> + '_ {
        (0..self.positions.len()).map(|i| {
            (
                self.positions[i],
                value_of(self.lower.value[i]),
                self.leaf_at(i),
            )
        })
    }

    /// The questions the bounds settle, in the order the searches ask
    /// them: `Win` for a win; `AtMostDraw` when the value is at most a
    /// draw (not with `Loss`, which subsumes it) and `AtLeastDraw` when it
    /// is at least a draw (not with `Win`); `Loss` for a loss.
    pub fn questions(&self) -> Vec<Question> {
        let (lo, hi) = self.bounds();
        let mut q = Vec::new();
        if lo == Value::Win {
            q.push(Question::Win);
        }
        if hi == Value::Draw {
            q.push(Question::AtMostDraw);
        }
        if lo == Value::Draw {
            q.push(Question::AtLeastDraw);
        }
        if hi == Value::Loss {
            q.push(Question::Loss);
        }
        q
    }

    /// The root move that realises its lower bound: the quickest win, or
    /// a move that keeps at least a draw; nothing for a possible loss (or
    /// a leaf root).
    pub fn best_move(&self) -> Option<Move> {
        if self.kind[0] != INTERIOR {
            return None;
        }
        let moves = self.positions[0].moves();
        let k = choose(self, &self.lower, 0, &[], false)?;
        moves.as_slice().get(k).copied()
    }

    /// A proof of `question` for the root, holding only positions reached
    /// from the root under the proving side's strategy: its chosen move
    /// where it moves (see `choose`), every move where the opponent moves,
    /// leaves as they are. Win and loss proofs go down strictly
    /// decreasing distances (no cycle); draw proofs may loop. At most
    /// `max_nodes` positions.
    pub fn proof(&self, question: Question, max_nodes: usize) -> Result<ProofTree, RetroError> {
        let root = self.positions[0];
        let (lo, hi) = self.bounds();
        let not_proved = |fen: String| RetroError::NotProved {
            fen,
            lo,
            hi,
            question: question.name(),
        };
        let holds = match question {
            Question::Win => lo == Value::Win,
            Question::AtLeastDraw => lo >= Value::Draw,
            Question::AtMostDraw => hi <= Value::Draw,
            Question::Loss => hi == Value::Loss,
        };
        if !holds {
            return Err(not_proved(to_fen(&root)));
        }
        // The analysis pessimistic for the proving side.
        let a = if question.prover_moves_first() {
            &self.lower
        } else {
            self.upper.as_ref().unwrap_or(&self.lower)
        };
        let prover = prover_of(question, root.side_to_move());
        let mut seen = vec![false; self.positions.len()];
        let mut nodes = Vec::new();
        let mut queue = VecDeque::from([0usize]);
        seen[0] = true;
        while let Some(i) = queue.pop_front() {
            if nodes.len() >= max_nodes {
                return Err(RetroError::ProofTooLarge {
                    fen: to_fen(&root),
                    question: question.name(),
                    limit: max_nodes,
                });
            }
            let pos = self.positions[i];
            if self.kind[i] == FRONTIER {
                // Cannot happen (see the type's comment); never a leaf.
                return Err(not_proved(to_fen(&pos)));
            }
            if let Some(src) = self.leaf_at(i) {
                nodes.push((pos, ProofEntry::Leaf(src)));
                continue;
            }
            let kids = self.successors(i);
            let next: Vec<u32> = if pos.side_to_move() == prover {
                // Reached only at positions the prover does not lose (the
                // opponent's moves lead to no loss of the prover's, and a
                // win proof keeps to wins); `choose` finds a move there.
                let Some(k) = choose(self, a, i, &seen, question.allows_cycles()) else {
                    return Err(not_proved(to_fen(&pos)));
                };
                let moves = pos.moves();
                nodes.push((pos, ProofEntry::Prover(moves.as_slice()[k])));
                vec![kids[k]]
            } else {
                nodes.push((pos, ProofEntry::Opponent));
                kids.to_vec()
            };
            for c in next {
                let c = c as usize;
                if !seen[c] {
                    seen[c] = true;
                    queue.push_back(c);
                }
            }
        }
        Ok(ProofTree {
            root,
            question,
            nodes,
        })
    }
}

fn value_of(b: u8) -> Value {
    match b {
        WIN => Value::Win,
        LOSS => Value::Loss,
        _ => Value::Draw,
    }
}

/// The index (into the moves of position `i`) of the move the side to
/// move at `i` plays in a proof under analysis `a`, `i` being a position
/// it does not lose. For a win (`draw_enough` false, `i` a win): to a
/// loss for the opponent with the smallest distance, so wins are finite.
/// When a draw is enough: to any position that is not a win for the
/// opponent, a leaf first, then one `seen` already (closing a loop), then
/// the one whose mover has the fewest moves (the proof must answer them
/// all).
fn choose(r: &Retro, a: &Analysis, i: usize, seen: &[bool], draw_enough: bool) -> Option<usize> {
    let kids = r.successors(i);
    if a.value[i] == WIN && !draw_enough {
        return kids
            .iter()
            .enumerate()
            .filter(|(_, &c)| a.value[c as usize] == LOSS && a.dist[c as usize] < a.dist[i])
            .min_by_key(|(_, &c)| a.dist[c as usize])
            .map(|(k, _)| k);
    }
    if a.value[i] == LOSS {
        return None;
    }
    kids.iter()
        .enumerate()
        .filter(|(_, &c)| a.value[c as usize] != WIN && r.kind[c as usize] != FRONTIER)
        .min_by_key(|(_, &c)| {
            let c = c as usize;
            let rank = if r.kind[c] != INTERIOR {
                0
            } else if seen.get(c).copied().unwrap_or(false) {
                1
            } else {
                2
            };
            (rank, r.offsets[c + 1] - r.offsets[c])
        })
        .map(|(k, _)| k)
}

/// Whether to give up now, and why.
fn check_limits(root: &Position, positions: usize, cfg: &RetroConfig) -> Result<(), RetroError> {
    if cfg.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed)) {
        return Err(RetroError::Stopped {
            fen: to_fen(root),
            positions,
        });
    }
    if cfg.deadline.is_some_and(|d| Instant::now() >= d) {
        return Err(RetroError::OutOfTime {
            fen: to_fen(root),
            positions,
        });
    }
    Ok(())
}

/// The graph as built: positions, successor offsets and ids, kinds, leaf
/// values.
type Graph = (Vec<Position>, Vec<u32>, Vec<u32>, Vec<u8>, Vec<u8>);

/// Breadth-first enumeration of the graph, classifying each position as
/// a leaf or expanding it; once the cap or the expansion time is reached,
/// the positions not expanded that are not leaves become the frontier.
fn build(root: Position, leaves: Leaves<'_>, cfg: &RetroConfig) -> Result<Graph, RetroError> {
    let mut index = Index::default();
    let mut positions = vec![root];
    index.insert(root, 0);
    let mut offsets: Vec<u32> = vec![0];
    let mut succ: Vec<u32> = Vec::new();
    let mut value: Vec<u8> = Vec::new();
    let mut kind: Vec<u8> = Vec::new();
    let mut expanding = true;
    // One list for every position (a new one would be zeroed each time).
    let mut moves = MoveList::new();
    let mut i = 0;
    while i < positions.len() {
        if i.is_multiple_of(4096) {
            if let Some(p) = cfg.progress.as_ref().filter(|_| i > 0) {
                p.fetch_add(4096, Ordering::Relaxed);
            }
            check_limits(&root, positions.len(), cfg)?;
            if cfg.expand_until.is_some_and(|d| Instant::now() >= d) {
                expanding = false;
            }
        }
        let p = positions[i];
        i += 1;
        if let Some(v) = leaves.oracle.probe(&p) {
            value.push(value_byte(v));
            kind.push(EGDB);
        } else if let Some(Outcome::Exact(v)) = leaves.store.lookup(&p) {
            value.push(value_byte(v));
            kind.push(STORE);
        } else {
            p.legal_moves(&mut moves);
            value.push(if moves.is_empty() { LOSS } else { OPEN });
            kind.push(if moves.is_empty() {
                TERMINAL
            } else if expanding {
                INTERIOR
            } else {
                FRONTIER
            });
            if !moves.is_empty() && expanding {
                let start = succ.len();
                for m in moves.iter() {
                    let c = p.play_unchecked(m);
                    let id = match index.entry(c) {
                        Entry::Occupied(e) => *e.get(),
                        Entry::Vacant(e) => {
                            if positions.len() >= cfg.max_positions {
                                // Not all of its moves fit: it joins the
                                // frontier, and so does every later one.
                                expanding = false;
                                break;
                            }
                            let id = positions.len() as u32;
                            positions.push(c);
                            *e.insert(id)
                        }
                    };
                    succ.push(id);
                }
                if !expanding {
                    succ.truncate(start);
                    *kind.last_mut().expect("pushed above") = FRONTIER;
                }
            }
        }
        let end = u32::try_from(succ.len())
            .map_err(|_| RetroError::TooManyMoves { fen: to_fen(&root) })?;
        offsets.push(end);
    }
    Ok((positions, offsets, succ, kind, value))
}
