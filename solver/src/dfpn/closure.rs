//! Checking the results df-pn holds on trust.
//!
//! A repetition is a draw, so it settles every node for the side a draw
//! serves (the *draw side*: at a node with threshold [`Question::AtLeastDraw`] the
//! mover, with [`Question::Win`] its opponent). df-pn keeps such results in
//! its table before they are known to hold off the path they were found
//! on, marked as held on trust, and builds on them. They can be wrong: a
//! result that relied on a repeated position is wrong when that position
//! turns out lost for the draw side. Results for the other side never rest
//! on a repetition or on a trusted result (a node fails for the draw side
//! only when its children do), so they need no check.
//!
//! A draw-side result holds when its position lies in a *closed set*:
//! where the draw side moves, one move leads into the set or to a position
//! settled soundly for it; where the other side moves, every move does.
//! Play that stays in such a set forever is a draw, which the draw side's
//! question accepts. [`check`] builds the graph of the trusted results that
//! the root's may rest on (every trusted move of the draw side, not only
//! the one its search proved with) and removes, until nothing changes,
//! every node of the other side one of whose successors is not settled for
//! the draw side (or is removed), and every node of the draw side all of
//! whose trusted moves are removed. What is left is the largest closed
//! set: those results hold, each draw-side one with a move that stays in
//! it.

use crate::question::Status;
use engine::{Move, MoveList, Position};
use proofdb::Question;
use std::collections::HashMap;

/// The status a draw settles for a mover with threshold `t`.
pub fn draw_side_status(t: Question) -> Status {
    if t == Question::Win {
        Status::Failure
    } else {
        Status::Success
    }
}

/// What the search holds of one position for the draw side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Look {
    /// Settled for the draw side soundly (a leaf, a terminal position or
    /// a checked result).
    Holds,
    /// Settled for the draw side on trust, with the proving move where the
    /// draw side moves.
    Trusted(Option<Move>),
    /// Not settled for the draw side.
    Fails,
}

/// The outcome of [`check`].
#[derive(Debug, Default)]
pub struct Checked {
    /// Whether the root's result holds.
    pub root_holds: bool,
    /// Trusted results that hold (the largest closed set), with their
    /// thresholds and, where the draw side moves, a move that stays in the
    /// set or reaches a sound result (none where the other side moves).
    pub hold: Vec<(Position, Question, Option<Move>)>,
    /// Trusted results that do not follow from what is settled.
    pub refuted: Vec<(Position, Question)>,
}

struct Node {
    pos: Position,
    t: Question,
    best: Option<Move>,
    /// Whether the draw side moves here (one successor in the set is
    /// enough) or the other side (every successor must be).
    draw_side_moves: bool,
    /// This node's successors in the graph: `edges[succ.0..succ.1]`, with
    /// the moves to them at the same places of `check`'s `moves_of_edges`.
    succ: (u32, u32),
    /// A draw-side move to a position settled soundly for the draw side.
    sound_move: Option<Move>,
    /// Whether the node is removed from the set.
    refuted: bool,
}

/// Checks the trusted result of `root` (threshold `t`; `look(root, t)`
/// must be [`Look::Trusted`]) and every trusted result it may rest on,
/// with `look` telling what the search holds of a position.
pub fn check(root: Position, t: Question, look: impl Fn(&Position, Question) -> Look) -> Checked {
    let best = match look(&root, t) {
        Look::Trusted(m) => m,
        Look::Holds => {
            return Checked {
                root_holds: true,
                ..Checked::default()
            }
        }
        Look::Fails => return Checked::default(),
    };
    let mut nodes = vec![new_node(root, t, best)];
    let mut ids: HashMap<Position, u32> = HashMap::from([(root, 0)]);
    let mut edges: Vec<u32> = Vec::new();
    let mut moves_of_edges: Vec<Move> = Vec::new();
    let mut list = MoveList::new();
    // A node's moves to trusted results: the move, the position it
    // reaches and the proving move held there.
    let mut trusted: Vec<(Move, Position, Option<Move>)> = Vec::new();
    let mut next = 0;
    // Nodes are expanded in the order they were found, so each one's
    // successors are contiguous in `edges`.
    while next < nodes.len() {
        let (pos, t, best) = (nodes[next].pos, nodes[next].t, nodes[next].best);
        let ct = t.child();
        let draw_side_moves = draw_side_status(t) == Status::Success;
        list.clear();
        pos.legal_moves(&mut list);
        // The proving move first, so that it is the one kept when it
        // stays in the set.
        let mut moves: Vec<Move> = list.iter().copied().collect();
        if let Some(i) = best.and_then(|b| moves.iter().position(|m| *m == b)) {
            moves.swap(0, i);
        }
        trusted.clear();
        let mut refuted = false;
        let mut sound_move = None;
        for m in &moves {
            let child = pos.play_unchecked(m);
            let l = if ids.contains_key(&child) {
                Look::Trusted(None)
            } else {
                look(&child, ct)
            };
            match (l, draw_side_moves) {
                (Look::Holds, true) => {
                    sound_move = Some(*m);
                    break;
                }
                (Look::Fails, false) => {
                    refuted = true;
                    break;
                }
                (Look::Trusted(b), _) => trusted.push((*m, child, b)),
                (Look::Fails, true) | (Look::Holds, false) => {}
            }
        }
        let start = edges.len() as u32;
        if sound_move.is_none() && !refuted {
            for &(m, child, b) in &trusted {
                edges.push(node_id(&mut nodes, &mut ids, child, ct, b));
                moves_of_edges.push(m);
            }
            // A draw-side node with no trusted move left has nothing to
            // stay in the set by.
            refuted = draw_side_moves && trusted.is_empty();
        }
        let n = &mut nodes[next];
        n.draw_side_moves = draw_side_moves;
        n.succ = (start, edges.len() as u32);
        n.sound_move = sound_move;
        n.refuted = refuted;
        next += 1;
    }
    refute_backwards(&mut nodes, &edges);
    let mut out = Checked {
        root_holds: !nodes[0].refuted,
        ..Checked::default()
    };
    for n in &nodes {
        if n.refuted {
            out.refuted.push((n.pos, n.t));
        } else {
            let (a, b) = (n.succ.0 as usize, n.succ.1 as usize);
            let stay = n.draw_side_moves.then(|| {
                n.sound_move.or_else(|| {
                    (a..b)
                        .find(|&i| !nodes[edges[i] as usize].refuted)
                        .map(|i| moves_of_edges[i])
                })
            });
            out.hold.push((n.pos, n.t, stay.flatten()));
        }
    }
    out
}

fn new_node(pos: Position, t: Question, best: Option<Move>) -> Node {
    Node {
        pos,
        t,
        best,
        draw_side_moves: false,
        succ: (0, 0),
        sound_move: None,
        refuted: false,
    }
}

/// Removes, until nothing changes, every node of the other side with a
/// removed successor and every draw-side node whose successors are all
/// removed (a draw-side node settled by a sound move has none, and
/// stays): walks the edges backwards from the nodes refuted by
/// themselves.
fn refute_backwards(nodes: &mut [Node], edges: &[u32]) {
    // Predecessors, grouped by node: those of `i` are
    // `preds[pred_start[i]..pred_start[i + 1]]`.
    let mut pred_start = vec![0u32; nodes.len() + 1];
    for &e in edges {
        pred_start[e as usize + 1] += 1;
    }
    for i in 1..pred_start.len() {
        pred_start[i] += pred_start[i - 1];
    }
    let mut preds = vec![0u32; edges.len()];
    let mut fill = pred_start.clone();
    for (i, n) in nodes.iter().enumerate() {
        for &e in &edges[n.succ.0 as usize..n.succ.1 as usize] {
            preds[fill[e as usize] as usize] = i as u32;
            fill[e as usize] += 1;
        }
    }
    // The successors not yet removed of each draw-side node.
    let mut live: Vec<u32> = nodes.iter().map(|n| n.succ.1 - n.succ.0).collect();
    let mut work: Vec<u32> = (0..nodes.len() as u32)
        .filter(|&i| nodes[i as usize].refuted)
        .collect();
    while let Some(i) = work.pop() {
        let (a, b) = (pred_start[i as usize], pred_start[i as usize + 1]);
        for &p in &preds[a as usize..b as usize] {
            let n = &mut nodes[p as usize];
            if n.refuted {
                continue;
            }
            if n.draw_side_moves {
                live[p as usize] -= 1;
                if live[p as usize] > 0 {
                    continue;
                }
            }
            n.refuted = true;
            work.push(p);
        }
    }
}

/// The node of `pos`, added (to be expanded) when new.
fn node_id(
    nodes: &mut Vec<Node>,
    ids: &mut HashMap<Position, u32>,
    pos: Position,
    t: Question,
    best: Option<Move>,
) -> u32 {
    *ids.entry(pos).or_insert_with(|| {
        nodes.push(new_node(pos, t, best));
        nodes.len() as u32 - 1
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::notation::fen::parse_fen;
    use engine::Color;

    /// White kings against Black kings: repetitions everywhere.
    fn root() -> Position {
        parse_fen("W:WK18,K22:BK29,K30").unwrap()
    }

    #[test]
    fn a_result_resting_on_sound_ones_holds() {
        let r = root();
        let out = check(r, Question::AtLeastDraw, |p, _| {
            if *p == r {
                Look::Trusted(None)
            } else {
                Look::Holds
            }
        });
        assert!(out.root_holds);
        assert_eq!(out.hold.len(), 1);
        let (pos, t, stay) = out.hold[0];
        assert_eq!((pos, t), (r, Question::AtLeastDraw));
        assert!(
            stay.is_some(),
            "the draw side keeps a move to a sound result"
        );
        assert!(out.refuted.is_empty());
    }

    #[test]
    fn trusted_results_that_only_loop_hold() {
        // Every position trusted but the terminal ones (taken as settled
        // for the draw side): the reachable graph is one closed set of
        // loops.
        let out = check(root(), Question::AtLeastDraw, |p, _| {
            if p.is_terminal() {
                Look::Holds
            } else {
                Look::Trusted(None)
            }
        });
        assert!(out.root_holds);
        assert!(out.refuted.is_empty());
        assert!(out.hold.len() > 100, "{} nodes", out.hold.len());
    }

    #[test]
    fn a_reply_that_escapes_the_set_refutes_the_chain() {
        // White (the draw side at threshold Draw) keeps trusted results
        // only at the root; every Black position is trusted. A Black
        // reply that does not come back to the root leads to a White
        // position not settled, so the Black node falls and the root with
        // it.
        let r = root();
        let out = check(r, Question::AtLeastDraw, |p, _| {
            if *p == r || p.side_to_move() == Color::Black {
                Look::Trusted(None)
            } else {
                Look::Fails
            }
        });
        assert!(!out.root_holds);
        assert!(out.hold.is_empty());
        let mut list = MoveList::new();
        r.legal_moves(&mut list);
        assert_eq!(
            out.refuted.len(),
            1 + list.len(),
            "the root and each of its trusted moves"
        );
    }

    /// The draw side stays in the set by any of its trusted moves, not
    /// only the one its search proved with: a proving move into a trap
    /// gives way to one that holds (kept as the node's move), and with
    /// no such move the root falls.
    #[test]
    fn the_draw_side_stays_by_any_trusted_move() {
        let r = root();
        let mut list = MoveList::new();
        r.legal_moves(&mut list);
        let moves: Vec<Move> = list.iter().copied().collect();
        let (good, bad) = (moves[moves.len() - 1], moves[0]);
        let good_child = r.play_unchecked(&good);
        let bad_child = r.play_unchecked(&bad);
        let trap = bad_child.play_unchecked(&first_move(&bad_child));
        let mut replies = MoveList::new();
        good_child.legal_moves(&mut replies);
        assert!(
            replies.iter().all(|m| good_child.play_unchecked(m) != trap),
            "the failing position must not be a reply to the good move"
        );
        for good_trusted in [true, false] {
            let out = check(r, Question::AtLeastDraw, |p, _| {
                if *p == r {
                    Look::Trusted(Some(bad))
                } else if *p == bad_child || (*p == good_child && good_trusted) {
                    Look::Trusted(None)
                } else if p.side_to_move() == Color::White {
                    if *p == trap {
                        Look::Fails
                    } else {
                        Look::Holds
                    }
                } else {
                    Look::Fails
                }
            });
            assert_eq!(out.root_holds, good_trusted);
            assert!(out.refuted.contains(&(bad_child, Question::Win)));
            if good_trusted {
                let stay = out.hold.iter().find(|h| h.0 == r).map(|h| h.2);
                assert_eq!(stay, Some(Some(good)));
            }
        }
    }

    fn first_move(p: &Position) -> Move {
        let mut list = MoveList::new();
        p.legal_moves(&mut list);
        list.iter().copied().next().unwrap()
    }
}
