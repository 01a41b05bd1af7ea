//! The proof-tree manager (DESIGN.md "Walking a ballot", after Chinook's
//! 2007 manager): keeps a ballot root's partial proof tree, scores its open
//! nodes with proof and disproof numbers, and hands the most-proving node
//! to a solver with a small budget; a node the solver cannot settle is
//! expanded instead. The root question is proved or disproved when its
//! numbers reach zero.
//!
//! The tree is an AND/OR tree for one binary question about the root's
//! side to move (`Win`, or `AtLeastDraw`). At the root side's nodes one
//! child must hold (OR); at the opponent's nodes every child must (AND). A
//! position that repeats one of its ancestors is never used to prove or
//! disprove anything (its numbers stay infinite both ways), so a result
//! never depends on the path (no graph-history interaction).

use crate::job::StopFlag;
use engine::Position;
use proofdb::Question;
use solver::clock::{Clock, Stopwatch};
use solver::Status;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// What answering one question cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    /// Solver nodes searched.
    pub nodes: u64,
    /// Time the answer took, on the manager's [`ManagerBudget::clock`]
    /// (the solving thread's and the caller's:
    /// [`solver::clock::Stopwatch::total`]).
    pub time: Duration,
}

/// Answers binary questions about positions within a budget (the solvers,
/// behind the store and the databases).
pub trait QuestionSolver {
    /// Does the side to move of `pos` achieve `question`?
    fn answer(
        &self,
        pos: &Position,
        question: Question,
        budget: Duration,
        stop: &StopFlag,
    ) -> (Status, Cost);
}

const INF: u32 = u32::MAX / 4;

#[derive(Clone, Debug)]
struct Node {
    pos: Position,
    parent: Option<usize>,
    children: Vec<usize>,
    /// Proof number: how hard to show the root's question holds here.
    pn: u32,
    /// Disproof number.
    dn: u32,
    /// Whether this node is a root-side (OR) node.
    or_node: bool,
    /// Whether the solver was already asked here with no answer.
    tried: bool,
}

/// Settings of a manager run.
#[derive(Clone, Copy, Debug)]
pub struct ManagerBudget {
    /// Budget of one solver call.
    pub per_call: Duration,
    /// Total time.
    pub total: Duration,
    /// Most nodes kept in the tree.
    pub max_nodes: usize,
    /// What the times count: the manager's own work between answers on
    /// this clock and the answers' [`Cost::time`] add up to the total.
    pub clock: Clock,
}

/// The outcome of a manager run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ManagerResult {
    /// Proved ([`Status::Success`]), disproved ([`Status::Failure`]),
    /// or still open.
    pub answer: Status,
    /// Solver calls made.
    pub calls: u64,
    /// Nodes searched by the solver in all calls.
    pub solver_nodes: u64,
    /// Time the solver calls took ([`Cost::time`]).
    pub solver_time: Duration,
    /// Time the run took, the solver calls' included.
    pub time: Duration,
    /// Nodes in the manager's tree.
    pub tree_nodes: usize,
    /// Root proof and disproof numbers at the end.
    pub root_pn_dn: (u32, u32),
}

/// The manager for one root and question.
pub struct Manager<'a> {
    nodes: Vec<Node>,
    goal: Question,
    solver: &'a dyn QuestionSolver,
}

impl<'a> Manager<'a> {
    /// A manager for `goal` of `root`'s side to move: [`Question::Win`]
    /// or [`Question::AtLeastDraw`], a question whose proving side moves
    /// first (the others are left open: [`Status::Unknown`]).
    pub fn new(root: Position, goal: Question, solver: &'a dyn QuestionSolver) -> Self {
        Manager {
            nodes: vec![Node {
                pos: root,
                parent: None,
                children: Vec::new(),
                pn: 1,
                dn: 1,
                or_node: true,
                tried: false,
            }],
            goal,
            solver,
        }
    }

    /// The question asked of the side to move at an opponent (AND) node
    /// whose "No" proves the root's question there: against a root win
    /// question the opponent must fail to draw; against "at least a draw"
    /// the opponent must fail to win.
    fn opponent_question(&self) -> Question {
        match self.goal {
            Question::Win => Question::AtLeastDraw,
            _ => Question::Win,
        }
    }

    fn set_proved(&mut self, i: usize, holds: bool) {
        let n = &mut self.nodes[i];
        if holds {
            n.pn = 0;
            n.dn = INF;
        } else {
            n.pn = INF;
            n.dn = 0;
        }
    }

    fn repeats_ancestor(&self, i: usize, pos: &Position) -> bool {
        let mut cur = Some(i);
        while let Some(c) = cur {
            if self.nodes[c].pos == *pos {
                return true;
            }
            cur = self.nodes[c].parent;
        }
        false
    }

    /// Asks the solver about leaf `i`; returns what that cost.
    fn solve_leaf(&mut self, i: usize, budget: Duration, stop: &StopFlag) -> Cost {
        let node = self.nodes[i].clone();
        let (q, yes_holds) = if node.or_node {
            (self.goal, true)
        } else {
            (self.opponent_question(), false)
        };
        let (answer, spent) = self.solver.answer(&node.pos, q, budget, stop);
        match answer {
            Status::Success => self.set_proved(i, yes_holds),
            Status::Failure => self.set_proved(i, !yes_holds),
            Status::Unknown => self.nodes[i].tried = true,
        }
        spent
    }

    fn expand(&mut self, i: usize) {
        let pos = self.nodes[i].pos;
        let or_child = !self.nodes[i].or_node;
        let moves = pos.moves();
        for m in moves.iter() {
            let child = pos.play_unchecked(m);
            let k = self.nodes.len();
            let looped = self.repeats_ancestor(i, &child);
            self.nodes.push(Node {
                pos: child,
                parent: Some(i),
                children: Vec::new(),
                pn: if looped { INF } else { 1 },
                dn: if looped { INF } else { 1 },
                or_node: or_child,
                tried: looped,
            });
            self.nodes[i].children.push(k);
        }
        if moves.is_empty() {
            // No move: the side to move has lost.
            let holds = !self.nodes[i].or_node;
            self.set_proved(i, holds);
        }
    }

    fn update_numbers(&mut self, i: usize) {
        let n = &self.nodes[i];
        if n.children.is_empty() {
            return;
        }
        let (mut sum_pn, mut min_pn, mut sum_dn, mut min_dn) = (0u32, INF, 0u32, INF);
        for &c in &n.children {
            let ch = &self.nodes[c];
            sum_pn = sum_pn.saturating_add(ch.pn).min(INF);
            sum_dn = sum_dn.saturating_add(ch.dn).min(INF);
            min_pn = min_pn.min(ch.pn);
            min_dn = min_dn.min(ch.dn);
        }
        let n = &mut self.nodes[i];
        if n.or_node {
            n.pn = min_pn;
            n.dn = sum_dn;
        } else {
            n.pn = sum_pn;
            n.dn = min_dn;
        }
    }

    fn select_most_proving(&self) -> usize {
        let mut i = 0;
        while !self.nodes[i].children.is_empty() {
            let n = &self.nodes[i];
            let pick = n
                .children
                .iter()
                .copied()
                .filter(|&c| {
                    let ch = &self.nodes[c];
                    if n.or_node {
                        ch.pn == n.pn
                    } else {
                        ch.dn == n.dn
                    }
                })
                .find(|&c| self.nodes[c].pn < INF || self.nodes[c].dn < INF);
            match pick {
                Some(c) => i = c,
                None => break,
            }
        }
        i
    }

    fn back_up(&mut self, mut i: usize) {
        loop {
            self.update_numbers(i);
            match self.nodes[i].parent {
                Some(p) => i = p,
                None => break,
            }
        }
    }

    /// Runs until the root is settled, the budget is spent, the tree is
    /// full or `stop` is set.
    pub fn run(&mut self, budget: ManagerBudget, stop: &StopFlag) -> ManagerResult {
        // Time is the manager's own work between answers (`own`, and
        // since the last answer) plus the answers' time.
        let mut watch = Stopwatch::start(budget.clock);
        let (mut own, mut solver_time) = (Duration::ZERO, Duration::ZERO);
        let (mut calls, mut solver_nodes) = (0u64, 0u64);
        let spent =
            |watch: &Stopwatch, own: Duration, solver: Duration| watch.elapsed() + own + solver;
        loop {
            let root = &self.nodes[0];
            let settled = root.pn == 0 || root.dn == 0 || (root.pn >= INF && root.dn >= INF);
            if settled
                || stop.load(Ordering::Relaxed)
                || spent(&watch, own, solver_time) >= budget.total
                || self.nodes.len() >= budget.max_nodes
            {
                break;
            }
            let leaf = self.select_most_proving();
            if !self.nodes[leaf].children.is_empty() {
                break; // every branch is dead
            }
            if self.nodes[leaf].tried {
                self.expand(leaf);
            } else {
                let left = budget.total.saturating_sub(spent(&watch, own, solver_time));
                own += watch.elapsed();
                let cost = self.solve_leaf(leaf, budget.per_call.min(left), stop);
                watch = Stopwatch::start(budget.clock);
                solver_nodes += cost.nodes;
                solver_time += cost.time;
                calls += 1;
            }
            self.back_up(leaf);
        }
        let root = &self.nodes[0];
        ManagerResult {
            answer: if root.pn == 0 {
                Status::Success
            } else if root.dn == 0 {
                Status::Failure
            } else {
                Status::Unknown
            },
            calls,
            solver_nodes,
            solver_time,
            time: spent(&watch, own, solver_time),
            tree_nodes: self.nodes.len(),
            root_pn_dn: (root.pn, root.dn),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Color;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    /// A sound but short-sighted solver (forced results within 3 plies),
    /// so the manager has to expand to prove anything deeper.
    struct Exhaustive;

    fn wins(pos: &Position, depth: u32) -> bool {
        // Side to move wins within `depth` plies (opponent left without a move).
        if depth == 0 {
            return false;
        }
        pos.moves()
            .iter()
            .any(|m| loses(&pos.play_unchecked(m), depth - 1))
    }

    fn loses(pos: &Position, depth: u32) -> bool {
        let moves = pos.moves();
        if moves.is_empty() {
            return true;
        }
        if depth == 0 {
            return false;
        }
        moves
            .iter()
            .all(|m| wins(&pos.play_unchecked(m), depth - 1))
    }

    impl QuestionSolver for Exhaustive {
        fn answer(
            &self,
            pos: &Position,
            q: Question,
            _b: Duration,
            _s: &StopFlag,
        ) -> (Status, Cost) {
            // Sound but short-sighted: a win or loss within 3 plies is real.
            let cost = Cost {
                nodes: 10,
                time: Duration::from_micros(1),
            };
            match q {
                Question::Win if wins(pos, 3) => (Status::Success, cost),
                Question::AtLeastDraw if loses(pos, 3) => (Status::Failure, cost),
                _ => (Status::Unknown, cost),
            }
        }
    }

    fn budget() -> ManagerBudget {
        ManagerBudget {
            per_call: Duration::from_millis(10),
            total: Duration::from_secs(10),
            max_nodes: 100_000,
            clock: Clock::Cpu,
        }
    }

    /// Small random positions (kings and men, 2 v 2) from a fixed seed.
    fn candidates() -> impl Iterator<Item = Position> {
        let mut rng = engine::rng::XorShift64::default();
        std::iter::from_fn(move || loop {
            let mut bits = [0u32; 4];
            let mut used = 0u32;
            for b in bits.iter_mut() {
                let sq = 1u32 << rng.below(32);
                if used & sq == 0 {
                    *b = sq;
                    used |= sq;
                }
            }
            let (black, white) = (bits[0] | bits[1], bits[2] | bits[3]);
            let kings = bits[1] | bits[3];
            if black.count_ones() + white.count_ones() < 4
                || (black & !kings) & 0xF000_0000 != 0
                || (white & !kings) & 0x0000_000F != 0
            {
                continue;
            }
            return Some(Position::from_bitboards_unchecked(
                black,
                white,
                kings,
                Color::White,
            ));
        })
    }

    /// The first three of 3000 [`candidates`] that `wanted` accepts
    /// (asserting that there are three).
    fn three_candidates(wanted: impl Fn(&Position) -> bool) -> Vec<Position> {
        let roots: Vec<Position> = candidates()
            .take(3000)
            .filter(|p| wanted(p))
            .take(3)
            .collect();
        assert_eq!(roots.len(), 3, "the seed gives enough test positions");
        roots
    }

    #[test]
    fn proves_wins_deeper_than_the_solver_sees() {
        let stop = Arc::new(AtomicBool::new(false));
        for root in three_candidates(|p| !wins(p, 3) && wins(p, 7)) {
            let mut m = Manager::new(root, Question::Win, &Exhaustive);
            let r = m.run(budget(), &stop);
            assert_eq!(r.answer, Status::Success, "{root:?}");
            assert!(r.calls > 1 && r.tree_nodes > 1);
        }
    }

    #[test]
    fn disproves_a_draw_for_a_side_that_loses() {
        let stop = Arc::new(AtomicBool::new(false));
        for root in three_candidates(|p| !loses(p, 3) && loses(p, 6)) {
            let mut m = Manager::new(root, Question::AtLeastDraw, &Exhaustive);
            assert_eq!(m.run(budget(), &stop).answer, Status::Failure, "{root:?}");
        }
    }

    #[test]
    fn never_proves_what_is_false() {
        // Positions with no forced win in 7: the manager may prove a deeper
        // win, but any "Yes" must be a real win, checked at depth 11.
        let stop = Arc::new(AtomicBool::new(false));
        let small = ManagerBudget {
            max_nodes: 3_000,
            ..budget()
        };
        for root in candidates().take(300).filter(|p| !wins(p, 7)).take(20) {
            let mut m = Manager::new(root, Question::Win, &Exhaustive);
            if m.run(small, &stop).answer == Status::Success {
                assert!(wins(&root, 11), "{root:?}");
            }
        }
    }
}
