//! The independent proof checker. It shares only the rules (the engine's
//! move generation) and the database and store probes with the solvers;
//! it uses none of their search code.
//!
//! A proof is accepted when: the root is in it; every node's entry fits
//! its side to move (the proving side has a [`ProofEntry::Prover`] move
//! or is a leaf, the opponent has [`ProofEntry::Opponent`] or is a leaf);
//! every claimed move is legal; every reply of the opponent and every
//! proving move leads to a position of the proof; every leaf really is
//! terminal for the opponent, or has a database value or a stored result
//! strong enough for the question; and, for win and loss proofs, no
//! position repeats along any line (the proof is finite). Draw proofs may
//! loop: a loop is a repetition, a draw.

use engine::notation::fen::to_fen;
use engine::{Color, Move, MoveList, Oracle, Position};
use proofdb::{LeafSource, ProofEntry, ProofTree, Question, ResultSource};
use std::collections::HashMap;
use thiserror::Error;

/// Why a proof was rejected. Every message names the node by its FEN.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum VerifyError {
    /// The root position has no entry.
    #[error("the root {0} is not in the proof")]
    MissingRoot(String),
    /// One position listed twice with different entries.
    #[error("node {0} is listed twice with different entries")]
    Duplicate(String),
    /// A position reached by the proof has no entry.
    #[error("node {parent}: after {mv} the position {child} is not in the proof")]
    MissingChild {
        /// The node whose move leads out of the proof.
        parent: String,
        /// The move.
        mv: String,
        /// The position it leads to.
        child: String,
    },
    /// The proving move is not legal.
    #[error("node {fen}: the move {mv} is not legal")]
    IllegalMove {
        /// The node.
        fen: String,
        /// The move as claimed.
        mv: String,
    },
    /// An entry that does not fit the side to move.
    #[error("node {fen}: {what}")]
    WrongEntry {
        /// The node.
        fen: String,
        /// What is wrong.
        what: String,
    },
    /// A leaf that does not hold.
    #[error("node {fen}: leaf does not hold: {why}")]
    BadLeaf {
        /// The node.
        fen: String,
        /// Why.
        why: String,
    },
    /// A win or loss proof that loops.
    #[error("node {0} repeats along a line of a {1} proof (a cycle; only draw proofs may loop)")]
    Cycle(String, &'static str),
}

/// What a verified proof holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifyReport {
    /// Positions reachable from the root (checked).
    pub nodes: usize,
    /// Of which leaves.
    pub leaves: usize,
    /// Leaves by source: terminal, database, store.
    pub terminal: usize,
    /// Leaves read from the endgame databases.
    pub egdb: usize,
    /// Leaves found in the proof store.
    pub store: usize,
    /// Entries not reachable from the root (ignored).
    pub unreachable: usize,
    /// Longest line (win and loss proofs) or largest distance from the
    /// root (draw proofs), in plies.
    pub depth: usize,
    /// Whether the proof loops (draw proofs only).
    pub has_cycles: bool,
}

fn fen(p: &Position) -> String {
    to_fen(p)
}

/// Checks `tree` against the rules, the databases `oracle` and the store
/// `store`.
pub fn verify(
    tree: &ProofTree,
    oracle: &dyn Oracle,
    store: &dyn ResultSource,
) -> Result<VerifyReport, VerifyError> {
    let q = tree.question;
    let root_side = tree.root.side_to_move();
    let prover = match q {
        Question::Win | Question::AtLeastDraw => root_side,
        Question::AtMostDraw | Question::Loss => root_side.opposite(),
    };
    // The value the proving side needs, from its own view.
    let need = q.prover_threshold();
    let acyclic = matches!(q, Question::Win | Question::Loss);

    let mut map: HashMap<Position, ProofEntry> = HashMap::with_capacity(tree.nodes.len());
    for (p, e) in &tree.nodes {
        if let Some(old) = map.insert(*p, *e) {
            if old != *e {
                return Err(VerifyError::Duplicate(fen(p)));
            }
        }
    }
    if !map.contains_key(&tree.root) {
        return Err(VerifyError::MissingRoot(fen(&tree.root)));
    }

    // Check every node reachable from the root, depth-first, with colours
    // for cycle detection: 1 = on the current line, 2 = finished.
    let mut colour: HashMap<Position, u8> = HashMap::with_capacity(map.len());
    let mut longest: HashMap<Position, usize> = HashMap::new();
    let mut report = VerifyReport::default();
    // Stack of (position, its successors, next successor index).
    let mut stack: Vec<(Position, Vec<Position>, usize)> = Vec::new();
    let succ = check_node(&tree.root, &map, prover, need, oracle, store, &mut report)?;
    colour.insert(tree.root, 1);
    stack.push((tree.root, succ, 0));
    while let Some((pos, succ, i)) = stack.last_mut() {
        if *i < succ.len() {
            let child = succ[*i];
            *i += 1;
            match colour.get(&child) {
                Some(1) => {
                    if acyclic {
                        return Err(VerifyError::Cycle(fen(&child), q.name()));
                    }
                    report.has_cycles = true;
                }
                Some(_) => {}
                None => {
                    let s = check_node(&child, &map, prover, need, oracle, store, &mut report)?;
                    colour.insert(child, 1);
                    stack.push((child, s, 0));
                }
            }
        } else {
            let pos = *pos;
            if acyclic {
                let d = succ
                    .iter()
                    .map(|c| longest.get(c).copied().unwrap_or(0) + 1)
                    .max()
                    .unwrap_or(0);
                longest.insert(pos, d);
            }
            colour.insert(pos, 2);
            stack.pop();
        }
    }
    report.nodes = colour.len();
    report.unreachable = map.len() - colour.len();
    report.depth = if acyclic {
        longest.get(&tree.root).copied().unwrap_or(0)
    } else {
        bfs_depth(&tree.root, &map)
    };
    Ok(report)
}

/// The largest shortest distance from the root over the proof's nodes.
fn bfs_depth(root: &Position, map: &HashMap<Position, ProofEntry>) -> usize {
    let mut dist: HashMap<Position, usize> = HashMap::new();
    let mut queue = std::collections::VecDeque::new();
    dist.insert(*root, 0);
    queue.push_back(*root);
    let mut max = 0;
    while let Some(p) = queue.pop_front() {
        let d = dist[&p];
        max = max.max(d);
        let children: Vec<Position> = match map.get(&p) {
            Some(ProofEntry::Prover(m)) => p.play(m).into_iter().collect(),
            Some(ProofEntry::Opponent) => p.moves().iter().map(|m| p.play_unchecked(m)).collect(),
            _ => Vec::new(),
        };
        for c in children {
            if map.contains_key(&c) && !dist.contains_key(&c) {
                dist.insert(c, d + 1);
                queue.push_back(c);
            }
        }
    }
    max
}

fn legal(pos: &Position) -> MoveList {
    let mut l = MoveList::new();
    pos.legal_moves(&mut l);
    l
}

/// Checks one node and returns the positions it leads to (all in `map`).
fn check_node(
    pos: &Position,
    map: &HashMap<Position, ProofEntry>,
    prover: Color,
    need: Question,
    oracle: &dyn Oracle,
    store: &dyn ResultSource,
    report: &mut VerifyReport,
) -> Result<Vec<Position>, VerifyError> {
    let entry = map[pos];
    let mover = pos.side_to_move();
    let moves = legal(pos);
    let follow = |mv: &Move, child: Position| -> Result<Position, VerifyError> {
        if map.contains_key(&child) {
            Ok(child)
        } else {
            Err(VerifyError::MissingChild {
                parent: fen(pos),
                mv: mv.to_string(),
                child: fen(&child),
            })
        }
    };
    match entry {
        ProofEntry::Prover(claimed) => {
            if mover != prover {
                return Err(VerifyError::WrongEntry {
                    fen: fen(pos),
                    what: format!(
                        "a proving move {claimed} at a node where the opponent ({mover}) moves"
                    ),
                });
            }
            let Some(m) = moves.iter().find(|m| m.same_move(&claimed)) else {
                return Err(VerifyError::IllegalMove {
                    fen: fen(pos),
                    mv: claimed.to_string(),
                });
            };
            Ok(vec![follow(m, pos.play_unchecked(m))?])
        }
        ProofEntry::Opponent => {
            if mover == prover {
                return Err(VerifyError::WrongEntry {
                    fen: fen(pos),
                    what: format!("an opponent node where the proving side ({mover}) moves"),
                });
            }
            moves
                .iter()
                .map(|m| follow(m, pos.play_unchecked(m)))
                .collect()
        }
        ProofEntry::Leaf(src) => {
            report.leaves += 1;
            let bad = |why: String| VerifyError::BadLeaf { fen: fen(pos), why };
            match src {
                LeafSource::Terminal => {
                    if !moves.is_empty() {
                        return Err(bad(format!("not terminal ({} legal moves)", moves.len())));
                    }
                    if mover == prover {
                        return Err(bad(
                            "terminal, but the proving side is the one without a move".into(),
                        ));
                    }
                    report.terminal += 1;
                }
                LeafSource::Egdb => {
                    let Some(v) = oracle.probe(pos) else {
                        return Err(bad(
                            "not in the endgame databases given to the verifier".into()
                        ));
                    };
                    let for_prover = if mover == prover { v } else { v.negate() };
                    if !need.reached_by(for_prover) {
                        return Err(bad(format!(
                            "database value {v} for the side to move is not enough (the proving side needs {need})"
                        )));
                    }
                    report.egdb += 1;
                }
                LeafSource::Store => {
                    let Some(o) = store.lookup(pos) else {
                        return Err(bad("not in the proof store".into()));
                    };
                    let (lo, hi) = o.range();
                    let lo_p = if mover == prover { lo } else { hi.negate() };
                    if !need.reached_by(lo_p) {
                        return Err(bad(format!(
                            "stored result {o} for the side to move is not enough (the proving side needs {need})"
                        )));
                    }
                    report.store += 1;
                }
            }
            Ok(Vec::new())
        }
    }
}
