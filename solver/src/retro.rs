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
//! after the index is dropped; one byte of value, one of leaf kind and a
//! `u32` distance per position. About 60-80 bytes per position with
//! typical branching.
//!
//! Reference: the retrograde analysis of endgame databases (Thompson;
//! Schaeffer et al., Chinook), applied to the reachable graph of one
//! position instead of a whole slice.

use crate::leaves::Leaves;
use crate::question::prover_of;
use engine::notation::fen::to_fen;
use engine::{Move, Position, Value};
use proofdb::{LeafSource, Outcome, ProofEntry, ProofTree, Question};
use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use thiserror::Error;

/// Limits of one retrograde analysis.
#[derive(Clone, Copy, Debug)]
pub struct RetroConfig {
    /// Most positions (leaves included) the graph may hold; beyond it the
    /// analysis gives up ([`RetroError::TooManyPositions`]).
    pub max_positions: usize,
    /// Give up ([`RetroError::OutOfTime`]) when this instant passes.
    pub deadline: Option<Instant>,
    /// Set from outside to give up ([`RetroError::Stopped`]).
    pub stop: Option<&'static AtomicBool>,
}

impl Default for RetroConfig {
    fn default() -> Self {
        RetroConfig {
            max_positions: 30_000_000,
            deadline: None,
            stop: None,
        }
    }
}

/// Why a retrograde analysis or one of its proofs did not come out. The
/// first three mean "unknown", not a failure of the position.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum RetroError {
    /// The reachable graph is larger than the cap.
    #[error("{fen}: more than {limit} positions reachable before the leaves")]
    TooManyPositions {
        /// The root.
        fen: String,
        /// The cap.
        limit: usize,
    },
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
    /// The root's value does not prove the question asked.
    #[error("{fen}: the value {value} does not prove the {question} question")]
    NotProved {
        /// The root.
        fen: String,
        /// Its value.
        value: Value,
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

/// Leaf byte: an interior position (its moves are in the graph).
const INTERIOR: u8 = 0;
/// Leaf byte: no legal move.
const TERMINAL: u8 = 1;
/// Leaf byte: value from the endgame databases.
const EGDB: u8 = 2;
/// Leaf byte: exact result from the proof store.
const STORE: u8 = 3;

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

/// The solved graph reachable from one root. Position 0 is the root.
pub struct Retro {
    /// Every position of the graph, the root first.
    positions: Vec<Position>,
    /// `succ[offsets[i]..offsets[i + 1]]` are the successors of position
    /// `i`, in the order of its [`Position::moves`] (empty for leaves).
    offsets: Vec<u32>,
    /// Successor ids.
    succ: Vec<u32>,
    /// `OPEN` (a draw), `WIN`, `LOSS` or `DRAW` (a drawn leaf), for the
    /// side to move.
    value: Vec<u8>,
    /// `INTERIOR`, `TERMINAL`, `EGDB` or `STORE`.
    leaf: Vec<u8>,
    /// For `WIN` and `LOSS`: the round in which the value resolved (0 for
    /// leaves); every move a proof follows goes to a smaller one.
    dist: Vec<u32>,
}

impl Retro {
    /// Enumerates the graph reachable from `root` down to the leaves of
    /// `leaves` and solves it. Fails (meaning "unknown") when the graph
    /// exceeds `cfg.max_positions`, the deadline passes or the stop flag
    /// is set.
    pub fn solve(
        root: Position,
        leaves: Leaves<'_>,
        cfg: &RetroConfig,
    ) -> Result<Retro, RetroError> {
        let mut r = Retro::build(root, leaves, cfg)?;
        r.analyse(cfg)?;
        Ok(r)
    }

    /// Whether to give up now, and why.
    fn check_limits(
        root: &Position,
        positions: usize,
        cfg: &RetroConfig,
    ) -> Result<(), RetroError> {
        if cfg.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
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

    /// Breadth-first enumeration of the graph, classifying each position
    /// as a leaf or expanding it.
    fn build(root: Position, leaves: Leaves<'_>, cfg: &RetroConfig) -> Result<Retro, RetroError> {
        let mut index = Index::default();
        let mut positions = vec![root];
        index.insert(root, 0);
        let mut offsets: Vec<u32> = vec![0];
        let mut succ: Vec<u32> = Vec::new();
        let mut value: Vec<u8> = Vec::new();
        let mut leaf: Vec<u8> = Vec::new();
        let mut i = 0;
        while i < positions.len() {
            if i % 4096 == 0 {
                Retro::check_limits(&root, positions.len(), cfg)?;
            }
            let p = positions[i];
            i += 1;
            if let Some(v) = leaves.oracle.probe(&p) {
                value.push(value_byte(v));
                leaf.push(EGDB);
            } else if let Some(Outcome::Exact(v)) = leaves.store.lookup(&p) {
                value.push(value_byte(v));
                leaf.push(STORE);
            } else {
                let moves = p.moves();
                if moves.is_empty() {
                    value.push(LOSS);
                    leaf.push(TERMINAL);
                } else {
                    value.push(OPEN);
                    leaf.push(INTERIOR);
                    for m in moves.iter() {
                        let c = p.play_unchecked(m);
                        let id = match index.entry(c) {
                            Entry::Occupied(e) => *e.get(),
                            Entry::Vacant(e) => {
                                if positions.len() >= cfg.max_positions {
                                    return Err(RetroError::TooManyPositions {
                                        fen: to_fen(&root),
                                        limit: cfg.max_positions,
                                    });
                                }
                                let id = positions.len() as u32;
                                positions.push(c);
                                *e.insert(id)
                            }
                        };
                        succ.push(id);
                    }
                }
            }
            let end = u32::try_from(succ.len())
                .map_err(|_| RetroError::TooManyMoves { fen: to_fen(&root) })?;
            offsets.push(end);
        }
        drop(index);
        let n = positions.len();
        Ok(Retro {
            positions,
            offsets,
            succ,
            value,
            leaf,
            dist: vec![0; n],
        })
    }

    /// The successors of position `i`.
    fn successors(&self, i: usize) -> &[u32] {
        &self.succ[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Backward induction from the decisive leaves, in rounds (a FIFO
    /// queue, so distances are non-decreasing in processing order).
    fn analyse(&mut self, cfg: &RetroConfig) -> Result<(), RetroError> {
        let n = self.positions.len();
        // Predecessors: counts, prefix sums, then filling with the offsets
        // as cursors (which shifts them by one slot; shifted back after).
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
        // Successors not yet known to win for their mover.
        let mut left: Vec<u32> = (0..n)
            .map(|i| self.offsets[i + 1] - self.offsets[i])
            .collect();
        let mut queue: VecDeque<u32> = (0..n as u32)
            .filter(|&i| matches!(self.value[i as usize], WIN | LOSS))
            .collect();
        let mut done = 0usize;
        while let Some(v) = queue.pop_front() {
            done += 1;
            if done % (1 << 20) == 0 {
                Retro::check_limits(&self.positions[0], n, cfg)?;
            }
            let v = v as usize;
            let (val, d) = (self.value[v], self.dist[v] + 1);
            for &p in &pred[poff[v] as usize..poff[v + 1] as usize] {
                let p = p as usize;
                if self.value[p] != OPEN {
                    continue;
                }
                if val == LOSS {
                    self.value[p] = WIN;
                } else {
                    left[p] -= 1;
                    if left[p] != 0 {
                        continue;
                    }
                    self.value[p] = LOSS;
                }
                self.dist[p] = d;
                queue.push_back(p as u32);
            }
        }
        Ok(())
    }

    /// Positions in the graph (leaves included): the "nodes" of the run.
    pub fn positions(&self) -> usize {
        self.positions.len()
    }

    /// The root.
    pub fn root(&self) -> Position {
        self.positions[0]
    }

    fn value_at(&self, i: usize) -> Value {
        match self.value[i] {
            WIN => Value::Win,
            LOSS => Value::Loss,
            _ => Value::Draw,
        }
    }

    fn leaf_at(&self, i: usize) -> Option<LeafSource> {
        match self.leaf[i] {
            TERMINAL => Some(LeafSource::Terminal),
            EGDB => Some(LeafSource::Egdb),
            STORE => Some(LeafSource::Store),
            _ => None,
        }
    }

    /// The exact value of the root for its side to move.
    pub fn value(&self) -> Value {
        self.value_at(0)
    }

    /// Every position of the graph with its value for the side to move
    /// and, for a leaf, where its value came from.
    pub fn entries(&self) -> impl Iterator<Item = (Position, Value, Option<LeafSource>)> + '_ {
        (0..self.positions.len()).map(|i| (self.positions[i], self.value_at(i), self.leaf_at(i)))
    }

    /// The questions the root's value settles, strongest first: a win
    /// proves `Win`, a loss `Loss`, a draw `AtMostDraw` and `AtLeastDraw`.
    pub fn questions(&self) -> Vec<Question> {
        match self.value() {
            Value::Win => vec![Question::Win],
            Value::Loss => vec![Question::Loss],
            Value::Draw => vec![Question::AtMostDraw, Question::AtLeastDraw],
        }
    }

    /// The root move that realises its value: the quickest win, a move
    /// that keeps a draw, nothing for a loss (or a leaf root).
    pub fn best_move(&self) -> Option<Move> {
        if self.leaf[0] != INTERIOR {
            return None;
        }
        let moves = self.positions[0].moves();
        let k = self.choose(0, &[], false)?;
        moves.as_slice().get(k).copied()
    }

    /// The index (into the moves of position `i`) of the move the side to
    /// move at `i` plays in a proof, `i` being a position it does not
    /// lose. For a win (`draw_enough` false, `i` a win): to a loss for the
    /// opponent with the smallest distance, so wins are finite. When a
    /// draw is enough: to any position that is not a win for the opponent,
    /// a leaf first, then one `seen` already (closing a loop), then the
    /// one whose mover has the fewest moves (the proof must answer them
    /// all).
    fn choose(&self, i: usize, seen: &[bool], draw_enough: bool) -> Option<usize> {
        let kids = self.successors(i);
        if self.value[i] == WIN && !draw_enough {
            return kids
                .iter()
                .enumerate()
                .filter(|(_, &c)| {
                    self.value[c as usize] == LOSS && self.dist[c as usize] < self.dist[i]
                })
                .min_by_key(|(_, &c)| self.dist[c as usize])
                .map(|(k, _)| k);
        }
        if self.value[i] == LOSS {
            return None;
        }
        kids.iter()
            .enumerate()
            .filter(|(_, &c)| self.value[c as usize] != WIN)
            .min_by_key(|(_, &c)| {
                let c = c as usize;
                let rank = if self.leaf[c] != INTERIOR {
                    0
                } else if seen.get(c).copied().unwrap_or(false) {
                    1
                } else {
                    2
                };
                (rank, self.offsets[c + 1] - self.offsets[c])
            })
            .map(|(k, _)| k)
    }

    /// A proof of `question` for the root, holding only positions reached
    /// from the root under the proving side's strategy: its chosen move
    /// where it moves ([`Retro::choose`]), every move where the opponent
    /// moves, leaves as they are. Win and loss proofs go down strictly
    /// decreasing distances (no cycle); draw proofs may loop. At most
    /// `max_nodes` positions.
    pub fn proof(&self, question: Question, max_nodes: usize) -> Result<ProofTree, RetroError> {
        let root = self.positions[0];
        let v = self.value();
        let holds = match question {
            Question::Win => v == Value::Win,
            Question::AtLeastDraw => v >= Value::Draw,
            Question::AtMostDraw => v <= Value::Draw,
            Question::Loss => v == Value::Loss,
        };
        if !holds {
            return Err(RetroError::NotProved {
                fen: to_fen(&root),
                value: v,
                question: question.name(),
            });
        }
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
            if let Some(src) = self.leaf_at(i) {
                nodes.push((pos, ProofEntry::Leaf(src)));
                continue;
            }
            let kids = self.successors(i);
            let next: Vec<u32> = if pos.side_to_move() == prover {
                // Reached only at positions the prover does not lose (the
                // opponent's moves lead to no loss of the prover's, and a
                // win proof keeps to wins); `choose` finds a move there.
                let Some(k) = self.choose(i, &seen, question.allows_cycles()) else {
                    return Err(RetroError::NotProved {
                        fen: to_fen(&pos),
                        value: self.value_at(i),
                        question: question.name(),
                    });
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
