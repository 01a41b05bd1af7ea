//! The playing search: iterative deepening, PVS with aspiration windows,
//! a two-level transposition table, enhanced transposition cutoffs,
//! killer and history ordering, capture play-out, extensions and
//! reductions, exact values and proved bounds from an [`Oracle`], draw
//! differentiation and repetition detection. Single thread; interruptible through a stop flag.
//!
//! Scores are centi-men (a man = 100) from the side to move's point of
//! view. Beyond the heuristic range:
//! - a side with no move loses: `-(MATE - ply)` (`MATE` = 30000);
//! - an oracle win scores `ORACLE_WIN - 16*ply + tiebreak` (about 20000,
//!   tiebreak in -15..=15 from the evaluation, so that the engine makes
//!   progress inside a won database position and prefers shorter routes);
//!   losses the negation;
//! - an oracle draw scores 0, or with draw differentiation a value in
//!   -8..=+33 (from -1/12 to +1/3 of a man, Chinook's band) from the root
//!   side's point of view, taken from a capture play-out with the oracle off;
//! - a repetition on the game history plus search path is a draw (0);
//! - a proved bound (at least / at most a draw, [`Oracle::probe_range`])
//!   cuts when the window lies beyond its draw end (score 0) and otherwise
//!   holds the searched score between 0 and the oracle win or loss score.
//!
//! Any score with absolute value above [`WIN_THRESHOLD`] is a proven
//! win or loss.

pub mod options;
pub mod timing;
pub mod tt;

pub use options::{OptionsError, SearchOptions};

use crate::board::{Color, Position};
use crate::eval;
use crate::hash;
use crate::moves::{Move, MoveList, MAX_MOVES};
use crate::value::{Oracle, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tt::{Bound, TranspositionTable};

/// Score of a position whose side to move has no move, at the root.
pub const MATE: i32 = 30000;
/// Base score of an oracle win.
pub const ORACLE_WIN: i32 = 20000;
/// Scores above this (in absolute value) are proven wins or losses.
pub const WIN_THRESHOLD: i32 = 15000;
/// Larger than any score.
pub const INFINITY: i32 = 31000;
/// Deepest ply the search goes to (extensions included).
pub const MAX_PLY: usize = 128;

/// When to stop: any limit that is set ends the search once reached.
/// With none set the search runs to [`MAX_PLY`] or until stopped.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    /// Nominal depth in plies.
    pub depth: Option<u32>,
    /// Time for this move: the iterations go on until it runs out (less
    /// a twenty-fifth, at most 10 ms, so that the answer arrives in time);
    /// the iteration then under way is interrupted, and its best move
    /// stands if its search finished.
    pub time: Option<Duration>,
    /// Node budget (interrupts when exceeded).
    pub nodes: Option<u64>,
    /// With `time`, the time the move should take (a share of a game
    /// clock; `time` is then the most it may take): no iteration starts
    /// past it, nor one not expected to finish within `time` (see
    /// [`timing`]). `None`: every iteration starts, and `time`
    /// interrupts the last (a fixed time per move, where time not used
    /// is lost).
    pub soft_time: Option<Duration>,
}

/// What a search found.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// Best move (`None` only when the root has no legal move).
    pub best_move: Option<Move>,
    /// Score of the best move (see the module doc for the scale).
    pub score: i32,
    /// Deepest completed nominal depth.
    pub depth: u32,
    /// Nodes visited (main search and play-out).
    pub nodes: u64,
    /// Principal variation starting with `best_move`.
    pub pv: Vec<Move>,
    /// Wall time used.
    pub elapsed: Duration,
}

impl SearchResult {
    /// A move played without a search (a proof's or a book's move, or
    /// the only one that keeps a proved value): depth 0, no nodes, the
    /// move as the whole variation.
    pub fn immediate(m: Move, score: i32, elapsed: Duration) -> SearchResult {
        SearchResult {
            best_move: Some(m),
            score,
            depth: 0,
            nodes: 0,
            pv: vec![m],
            elapsed,
        }
    }

    /// Nodes per second.
    pub fn nps(&self) -> f64 {
        self.nodes as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// A progress report after each completed iteration.
#[derive(Clone, Debug)]
pub struct Iteration {
    /// Nominal depth just completed.
    pub depth: u32,
    /// Score at that depth.
    pub score: i32,
    /// Nodes so far.
    pub nodes: u64,
    /// Time so far.
    pub elapsed: Duration,
    /// Principal variation.
    pub pv: Vec<Move>,
}

/// Text form of a score: `win in N` / `loss in N` beyond the
/// threshold, else centi-men.
pub fn score_text(score: i32) -> String {
    if score > WIN_THRESHOLD {
        if score > MATE - MAX_PLY as i32 * 2 {
            format!("win in {}", MATE - score)
        } else {
            "win (oracle)".to_string()
        }
    } else if score < -WIN_THRESHOLD {
        if score < -(MATE - MAX_PLY as i32 * 2) {
            format!("loss in {}", MATE + score)
        } else {
            "loss (oracle)".to_string()
        }
    } else {
        format!("{score}")
    }
}

/// The searcher: transposition table, ordering tables, options.
pub struct Searcher {
    tt: TranspositionTable,
    /// Search settings; change between searches.
    pub options: SearchOptions,
    history: Box<[[i32; 32]; 32]>,
    killers: [[Option<Move>; 2]; MAX_PLY],
    stop: Arc<AtomicBool>,
    nodes: u64,
    aborted: bool,
    deadline: Option<Instant>,
    node_limit: u64,
    /// Node count at which the limits are checked next.
    next_check: u64,
    /// The best root move of the iteration under way whose search
    /// finished inside or above the window, with its score: what an
    /// interrupted iteration leaves.
    iter_best: Option<(Move, i32)>,
    /// Hashes of the game history and the current path.
    stack: Vec<u64>,
    /// Index in `stack` of the first position after the last
    /// irreversible move, per stack entry.
    rev_start: Vec<usize>,
    root_side: Color,
    root_material: i32,
    root_eval: i32,
    root_depth: i32,
    pv: Box<[[Option<Move>; MAX_PLY]; MAX_PLY]>,
    pv_len: [usize; MAX_PLY],
    oracle_on: bool,
    probe_max_pieces: u32,
}

/// The score of a bound `v` on the value of a position at `ply` (the
/// highest score of that value when `upper`, else the lowest): a draw is
/// 0, an oracle win or loss as [`Searcher`] scores them, with the
/// evaluation's tie-break at its end of the range.
fn bound_score(v: Value, ply: usize, upper: bool) -> i32 {
    let tie = if upper { 15 } else { -15 };
    match v {
        Value::Draw => 0,
        Value::Win => ORACLE_WIN - 16 * ply as i32 + tie,
        Value::Loss => -(ORACLE_WIN - 16 * ply as i32) + tie,
    }
}

#[inline(always)]
fn to_tt(score: i32, ply: usize) -> i32 {
    if score > WIN_THRESHOLD {
        score + ply as i32
    } else if score < -WIN_THRESHOLD {
        score - ply as i32
    } else {
        score
    }
}

#[inline(always)]
fn from_tt(score: i32, ply: usize) -> i32 {
    if score > WIN_THRESHOLD {
        score - ply as i32
    } else if score < -WIN_THRESHOLD {
        score + ply as i32
    } else {
        score
    }
}

/// Whether the move from `a` to `b` could be undone (a king's quiet move):
/// the men and piece counts are unchanged.
fn reversible(a: &Position, b: &Position) -> bool {
    a.men(Color::Black) == b.men(Color::Black)
        && a.men(Color::White) == b.men(Color::White)
        && a.piece_count() == b.piece_count()
}

const PROGRESS_EVERY: u64 = 1024;

/// What a move's time keeps back so that the answer arrives within it
/// on a busy machine: a twenty-fifth of it, at most 10 ms (the limits
/// are checked every [`PROGRESS_EVERY`] nodes, well under a millisecond;
/// the rest is for the thread being descheduled).
fn time_margin(t: Duration) -> Duration {
    (t / 25).min(Duration::from_millis(10))
}

impl Searcher {
    /// A searcher with a transposition table of about `tt_mb` MiB and the
    /// full engine's options.
    pub fn new(tt_mb: usize) -> Searcher {
        Searcher::with_options(tt_mb, SearchOptions::default())
    }

    /// A searcher with a transposition table of about `tt_mb` MiB and the
    /// full-width options of fixed-depth analyses
    /// ([`SearchOptions::full_width`]).
    pub fn full_width(tt_mb: usize) -> Searcher {
        Searcher::with_options(tt_mb, SearchOptions::full_width())
    }

    /// A searcher with the given options. Panics when the table cannot be
    /// allocated; see [`Searcher::try_with_options`].
    pub fn with_options(tt_mb: usize, options: SearchOptions) -> Searcher {
        Searcher::try_with_options(tt_mb, options).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A searcher with the given options, or an error when its table of
    /// `tt_mb` MiB cannot be allocated (a size past the address space, or
    /// refused by the system) instead of an abort.
    pub fn try_with_options(
        tt_mb: usize,
        options: SearchOptions,
    ) -> Result<Searcher, tt::TableTooLarge> {
        Ok(Searcher {
            tt: TranspositionTable::try_new(tt_mb)?,
            options,
            history: Box::new([[0; 32]; 32]),
            killers: [[None; 2]; MAX_PLY],
            stop: Arc::new(AtomicBool::new(false)),
            nodes: 0,
            aborted: false,
            deadline: None,
            node_limit: u64::MAX,
            next_check: 0,
            iter_best: None,
            stack: Vec::with_capacity(512),
            rev_start: Vec::with_capacity(512),
            root_side: Color::Black,
            root_material: 0,
            root_eval: 0,
            root_depth: 0,
            pv: Box::new([[None; MAX_PLY]; MAX_PLY]),
            pv_len: [0; MAX_PLY],
            oracle_on: true,
            probe_max_pieces: 32,
        })
    }

    /// The flag that interrupts a running search (set it from another
    /// thread; [`Searcher::search`] clears it when it starts).
    pub fn stop_handle(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Only positions with at most this many pieces are probed (default
    /// 32: every position; set it to the database size when the oracle
    /// is the endgame databases alone, to save calls).
    pub fn set_probe_max_pieces(&mut self, n: u32) {
        self.probe_max_pieces = n;
    }

    /// Forgets everything learned (new game).
    pub fn clear(&mut self) {
        self.tt.clear();
        *self.history = [[0; 32]; 32];
        self.killers = [[None; 2]; MAX_PLY];
    }

    /// Static evaluation with this searcher's weights.
    #[inline]
    pub fn evaluate(&self, pos: &Position) -> i32 {
        self.options.eval.evaluate(pos)
    }

    /// Searches `pos` within `limits`. `history` is the game so far,
    /// oldest first, ending with the position before `pos` (it may be
    /// empty); repetitions of those positions count as draws. Exact values
    /// come from `oracle` (never probed at the root itself).
    pub fn search(
        &mut self,
        pos: &Position,
        limits: &Limits,
        oracle: &dyn Oracle,
        history: &[Position],
    ) -> SearchResult {
        self.search_with_progress(pos, limits, oracle, history, &mut |_| {})
    }

    /// As [`Searcher::search`], calling `progress` after each iteration.
    pub fn search_with_progress(
        &mut self,
        pos: &Position,
        limits: &Limits,
        oracle: &dyn Oracle,
        history: &[Position],
        progress: &mut dyn FnMut(&Iteration),
    ) -> SearchResult {
        self.search_among(pos, limits, oracle, history, None, progress)
    }

    /// As [`Searcher::search_with_progress`], choosing only among the
    /// root moves `among` (the legal moves equal to one of them; all legal
    /// moves when `None`, or when none of them is legal): a caller that
    /// knows some moves to lose a proved value leaves them out.
    pub fn search_among(
        &mut self,
        pos: &Position,
        limits: &Limits,
        oracle: &dyn Oracle,
        history: &[Position],
        among: Option<&[Move]>,
        progress: &mut dyn FnMut(&Iteration),
    ) -> SearchResult {
        let start = Instant::now();
        self.stop.store(false, Ordering::Relaxed);
        self.aborted = false;
        self.nodes = 0;
        self.deadline = limits
            .time
            .map(|t| start + t.saturating_sub(time_margin(t)));
        self.node_limit = limits.nodes.unwrap_or(u64::MAX);
        self.next_check = 0;
        self.tt.new_search();
        for row in self.history.iter_mut() {
            for h in row.iter_mut() {
                *h /= 8;
            }
        }
        self.killers = [[None; 2]; MAX_PLY];
        self.set_root(pos, history);
        self.oracle_on = true;

        let mut root_moves: Vec<Move> = pos.moves().iter().copied().collect();
        if let Some(among) = among {
            let kept: Vec<Move> = root_moves
                .iter()
                .filter(|m| among.iter().any(|a| a.same_move(m)))
                .copied()
                .collect();
            if !kept.is_empty() {
                root_moves = kept;
            }
        }
        let mut result = SearchResult {
            best_move: root_moves.first().copied(),
            score: if root_moves.is_empty() { -MATE } else { 0 },
            depth: 0,
            nodes: 0,
            pv: root_moves.first().copied().into_iter().collect(),
            elapsed: Duration::ZERO,
        };
        if root_moves.len() <= 1 {
            // Nothing to choose; still give a score when there is a move.
            if let Some(m) = root_moves.first() {
                let child = pos.play_unchecked(m);
                result.score = -self.quiesce_score(&child, oracle);
                result.depth = 1;
            }
            result.nodes = self.nodes;
            result.elapsed = start.elapsed();
            return result;
        }
        let max_depth = limits
            .depth
            .unwrap_or(MAX_PLY as u32 - 8)
            .clamp(1, MAX_PLY as u32 - 8);
        let step = self.options.step.clamp(1, 2);
        let mut depth = if step == 2 && max_depth.is_multiple_of(2) {
            2
        } else {
            1
        };
        let mut prev_score = 0;
        let mut restarted = false;
        let mut timer = timing::IterationTimer::new(start, limits.soft_time, self.deadline);
        while depth <= max_depth {
            let now = Instant::now();
            if !timer.may_start(now) {
                break;
            }
            timer.begin(now);
            self.root_depth = depth as i32;
            self.iter_best = None;
            let (mut alpha, mut beta) = if self.options.aspiration && depth > 2 {
                (prev_score - 30, prev_score + 30)
            } else {
                (-INFINITY, INFINITY)
            };
            let mut score;
            let mut failed_low = false;
            loop {
                score = self.root(pos, &mut root_moves, alpha, beta, depth as i32, oracle);
                if self.aborted {
                    break;
                }
                if score <= alpha {
                    failed_low = true;
                    alpha = -INFINITY;
                } else if score >= beta {
                    beta = INFINITY;
                } else {
                    break;
                }
            }
            if self.aborted {
                // The unfinished iteration's best move stands when its
                // search finished (inside or above the window): it is
                // the previous best, searched deeper, or a move that
                // beat it at the new depth.
                if let Some((m, s)) = self.iter_best {
                    if result.best_move.is_some_and(|b| !b.same_move(&m)) {
                        result.pv = self.pv_line();
                        if !result.pv.first().is_some_and(|f| f.same_move(&m)) {
                            result.pv = vec![m];
                        }
                    }
                    result.best_move = Some(m);
                    result.score = s;
                }
                break;
            }
            timer.finished(Instant::now());
            prev_score = score;
            result.best_move = Some(root_moves[0]);
            result.score = score;
            result.depth = depth;
            result.pv = self.pv_line();
            result.nodes = self.nodes;
            result.elapsed = start.elapsed();
            progress(&Iteration {
                depth,
                score,
                nodes: self.nodes,
                elapsed: result.elapsed,
                pv: result.pv.clone(),
            });
            if score.abs() > WIN_THRESHOLD && depth as i32 > (MATE - score.abs()).max(0) + 2 {
                break; // a forced win or loss is fully seen
            }
            if failed_low && self.options.restart_on_fail_low && !restarted && depth >= 5 {
                restarted = true;
                depth = depth.saturating_sub(4).max(1);
                continue;
            }
            depth += step;
            if depth > max_depth && depth - step < max_depth {
                depth = max_depth;
            }
        }
        result.nodes = self.nodes;
        result.elapsed = start.elapsed();
        result
    }

    /// Scores every root move by a search of `depth` plies (full window,
    /// so the scores are exact at that depth), best first. For move
    /// ordering in provers and for analysis.
    pub fn rank_moves(
        &mut self,
        pos: &Position,
        depth: u32,
        oracle: &dyn Oracle,
        history: &[Position],
    ) -> Vec<(Move, i32)> {
        self.stop.store(false, Ordering::Relaxed);
        self.aborted = false;
        self.deadline = None;
        self.node_limit = u64::MAX;
        self.next_check = 0;
        self.tt.new_search();
        self.set_root(pos, history);
        self.oracle_on = true;
        self.root_depth = depth.max(1) as i32;
        let mut out: Vec<(Move, i32)> = Vec::new();
        let h = hash::hash(pos);
        for m in pos.moves().iter() {
            let child = pos.play_unchecked(m);
            let ch = hash::update(pos, h, m);
            self.push(ch, reversible(pos, &child));
            let s = -self.pvs(
                &child,
                ch,
                -INFINITY,
                INFINITY,
                depth as i32 - 1,
                1,
                true,
                m.is_capture(),
                oracle,
            );
            self.pop();
            out.push((*m, s));
        }
        out.sort_by_key(|m| std::cmp::Reverse(m.1));
        out
    }

    /// Nodes visited by the last search so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    fn set_root(&mut self, pos: &Position, history: &[Position]) {
        self.stack.clear();
        self.rev_start.clear();
        let mut rs = 0;
        for (i, p) in history.iter().chain(std::iter::once(pos)).enumerate() {
            if i > 0 {
                let prev = if i - 1 < history.len() {
                    &history[i - 1]
                } else {
                    pos
                };
                if !reversible(prev, p) {
                    rs = i;
                }
            }
            self.stack.push(hash::hash(p));
            self.rev_start.push(rs);
        }
        self.root_side = pos.side_to_move();
        self.root_material = eval::material(pos);
        self.root_eval = self.evaluate(pos);
    }

    #[inline]
    fn push(&mut self, h: u64, rev: bool) {
        let n = self.stack.len();
        let rs = if rev { self.rev_start[n - 1] } else { n };
        self.stack.push(h);
        self.rev_start.push(rs);
    }

    #[inline]
    fn pop(&mut self) {
        self.stack.pop();
        self.rev_start.pop();
    }

    /// Whether the top of the stack repeats an earlier position.
    #[inline]
    fn repeated(&self) -> bool {
        let n = self.stack.len() - 1;
        let h = self.stack[n];
        let rs = self.rev_start[n];
        let mut j = n;
        while j >= rs + 2 {
            j -= 2;
            if self.stack[j] == h {
                return true;
            }
        }
        false
    }

    fn pv_line(&self) -> Vec<Move> {
        self.pv[0][..self.pv_len[0]]
            .iter()
            .map_while(|m| *m)
            .collect()
    }

    #[inline]
    fn check_limits(&mut self) {
        // The play-out counts nodes too, so the count may pass any
        // given multiple between two calls: check once it is reached.
        if self.nodes >= self.next_check {
            self.next_check = self.nodes + PROGRESS_EVERY;
            if self.stop.load(Ordering::Relaxed) || self.nodes >= self.node_limit {
                self.aborted = true;
            } else if let Some(d) = self.deadline {
                if Instant::now() >= d {
                    self.aborted = true;
                }
            }
        }
    }

    /// The root: searches `moves` (best first, reordered in place so the
    /// best is first) in the window (alpha, beta); returns a fail-soft
    /// score. On abort the return value is meaningless.
    fn root(
        &mut self,
        pos: &Position,
        moves: &mut [Move],
        alpha: i32,
        beta: i32,
        depth: i32,
        oracle: &dyn Oracle,
    ) -> i32 {
        let h = hash::hash(pos);
        let orig_alpha = alpha;
        let mut alpha = alpha;
        let mut best = -INFINITY;
        let mut best_i = 0;
        self.pv_len[0] = 0;
        for i in 0..moves.len() {
            let m = moves[i];
            let child = pos.play_unchecked(&m);
            let ch = hash::update(pos, h, &m);
            self.push(ch, reversible(pos, &child));
            let ext = self.extension(pos, &m, moves.len(), false, 0);
            let d = depth - 1 + ext;
            let next = Child {
                pos: &child,
                hash: ch,
                capture: m.is_capture(),
                depth: d,
                ply: 1,
            };
            let s = self.search_child(next, i == 0, true, alpha, beta, oracle);
            self.pop();
            if self.aborted {
                return best;
            }
            if s > best {
                best = s;
                best_i = i;
                if s > alpha {
                    self.iter_best = Some((m, s));
                    self.pv[0][0] = Some(m);
                    let n = self.pv_len[1];
                    for k in 0..n {
                        self.pv[0][k + 1] = self.pv[1][k];
                    }
                    self.pv_len[0] = n + 1;
                }
                if s > alpha {
                    alpha = s;
                }
                if s >= beta {
                    break;
                }
            }
        }
        if best_i > 0 {
            let m = moves[best_i];
            moves.copy_within(0..best_i, 1);
            moves[0] = m;
        }
        if self.pv_len[0] == 0 {
            self.pv[0][0] = Some(moves[0]);
            self.pv_len[0] = 1;
        }
        if self.options.tt {
            let bound = if best >= beta {
                Bound::Lower
            } else if best > orig_alpha {
                Bound::Exact
            } else {
                Bound::Upper
            };
            self.tt
                .store(h, depth, to_tt(best, 0), bound, Some(&moves[0]));
        }
        best
    }

    /// Extension in plies for playing `m` in `pos` (which has `n_moves`
    /// legal moves); `prev_capture` says whether `pos` was reached by a
    /// capture.
    #[inline]
    fn extension(
        &self,
        pos: &Position,
        m: &Move,
        n_moves: usize,
        prev_capture: bool,
        ply: usize,
    ) -> i32 {
        // Extensions stop well before the path limit and past twice the
        // nominal depth.
        if ply as i32 >= 2 * self.root_depth + 4 || ply + 16 >= MAX_PLY {
            return 0;
        }
        let o = &self.options;
        if o.ext_single && n_moves == 1 {
            return 1;
        }
        let side = pos.side_to_move();
        let from = m.from().bit();
        let to = m.to().bit();
        let is_man = pos.kings() & from == 0;
        if o.ext_promotion && is_man && to & side.crowning_row() != 0 {
            return 1;
        }
        if o.ext_recapture && prev_capture && m.is_capture() {
            return 1;
        }
        if o.ext_runaway && is_man && !m.is_capture() {
            let pre = match side {
                Color::Black => 0x0F00_0000u32,
                Color::White => 0x0000_00F0u32,
            };
            if to & pre != 0 {
                // both squares ahead empty or the crowning squares free
                let ahead = match side {
                    Color::Black => {
                        crate::geometry::step(to, crate::geometry::Dir::DownLeft)
                            | crate::geometry::step(to, crate::geometry::Dir::DownRight)
                    }
                    Color::White => {
                        crate::geometry::step(to, crate::geometry::Dir::UpLeft)
                            | crate::geometry::step(to, crate::geometry::Dir::UpRight)
                    }
                };
                if ahead & pos.pieces(side.opposite()) == 0 {
                    return 1;
                }
            }
        }
        0
    }

    #[inline]
    fn probe(&self, pos: &Position, oracle: &dyn Oracle) -> Option<Value> {
        if self.oracle_on && pos.piece_count() <= self.probe_max_pieces {
            oracle.probe(pos)
        } else {
            None
        }
    }

    /// The score of an exact value at `ply` (see the module doc).
    fn exact_score(&mut self, pos: &Position, v: Value, ply: usize, oracle: &dyn Oracle) -> i32 {
        match v {
            Value::Win => ORACLE_WIN - 16 * ply as i32 + (self.evaluate(pos) / 16).clamp(-15, 15),
            Value::Loss => {
                -(ORACLE_WIN - 16 * ply as i32) + (self.evaluate(pos) / 16).clamp(-15, 15)
            }
            Value::Draw => {
                if !self.options.draw_diff {
                    return 0;
                }
                let s = self.quiesce_score(pos, oracle);
                let root_view = if pos.side_to_move() == self.root_side {
                    s
                } else {
                    -s
                };
                let band = (root_view / 6).clamp(-8, 33);
                if pos.side_to_move() == self.root_side {
                    band
                } else {
                    -band
                }
            }
        }
    }

    /// Capture play-out score with the oracle off (for draw
    /// differentiation and single-move roots).
    fn quiesce_score(&mut self, pos: &Position, oracle: &dyn Oracle) -> i32 {
        let was = self.oracle_on;
        self.oracle_on = false;
        let s = self.quiesce(pos, -INFINITY, INFINITY, MAX_PLY - 40, oracle);
        self.oracle_on = was;
        s
    }

    /// Capture play-out: while the side to move must capture, every
    /// capture is searched; otherwise the evaluation stands. Fail-soft
    /// within (alpha, beta).
    fn quiesce(
        &mut self,
        pos: &Position,
        alpha: i32,
        beta: i32,
        ply: usize,
        oracle: &dyn Oracle,
    ) -> i32 {
        self.nodes += 1;
        if ply >= MAX_PLY - 1 {
            return self.evaluate(pos);
        }
        if !pos.has_capture() {
            return self.evaluate(pos);
        }
        if let Some(v) = self.probe(pos, oracle) {
            return self.exact_score(pos, v, ply, oracle);
        }
        let mut list = MoveList::new();
        pos.push_captures(&mut list);
        let mut alpha = alpha;
        let mut best = -INFINITY;
        for m in list.iter() {
            let child = pos.play_unchecked(m);
            let s = -self.quiesce(&child, -beta, -alpha, ply + 1, oracle);
            if s > best {
                best = s;
                if s > alpha {
                    alpha = s;
                    if s >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    /// Orders `list` in place: the table's move first; then, as taking is
    /// compulsory, either captures (most pieces taken first) or quiet
    /// moves: with `ordering` on, the two killers, then a man's crowning
    /// move, then the history score.
    fn order(&self, list: &mut MoveList, tt_hit: Option<&tt::Hit>, ply: usize, pos: &Position) {
        let n = list.len();
        let mut keys = [0i32; MAX_MOVES];
        let killers = self.killers[ply];
        for (i, m) in list.as_slice().iter().enumerate() {
            let mut k = 0;
            if let Some(h) = tt_hit {
                if h.is_best(m) {
                    k = 1 << 30;
                }
            }
            if k == 0 {
                if m.is_capture() {
                    k = (1 << 28) + m.captured().count_ones() as i32 * 16;
                } else if self.options.ordering {
                    if killers[0].is_some_and(|x| x.same_move(m)) {
                        k = 1 << 27;
                    } else if killers[1].is_some_and(|x| x.same_move(m)) {
                        k = (1 << 27) - 1;
                    } else {
                        k = self.history[m.from().index() as usize][m.to().index() as usize];
                        // crowning first among quiet moves
                        if pos.kings() & m.from().bit() == 0
                            && m.to().bit() & pos.side_to_move().crowning_row() != 0
                        {
                            k += 1 << 26;
                        }
                    }
                }
            }
            keys[i] = k;
        }
        // insertion sort, descending
        let moves = list.as_mut_slice();
        for i in 1..n {
            let (km, mm) = (keys[i], moves[i]);
            let mut j = i;
            while j > 0 && keys[j - 1] < km {
                keys[j] = keys[j - 1];
                moves[j] = moves[j - 1];
                j -= 1;
            }
            keys[j] = km;
            moves[j] = mm;
        }
    }

    /// The score of a child for the side that moved into it, from a node
    /// with the window `alpha..beta` whose PV-ness is `pv_node`: the first
    /// move gets the full window. A later move gets a null window (PVS)
    /// or the full one (plain alpha-beta), as a non-PV node either way.
    /// With PVS, one that lands inside the window is searched again as a
    /// PV node; plain alpha-beta does not search again, and its line is
    /// then cut after the move.
    fn search_child(
        &mut self,
        c: Child<'_>,
        first: bool,
        pv_node: bool,
        alpha: i32,
        beta: i32,
        oracle: &dyn Oracle,
    ) -> i32 {
        let (pos, h, d, ply, capture) = (c.pos, c.hash, c.depth, c.ply, c.capture);
        if first {
            return -self.pvs(pos, h, -beta, -alpha, d, ply, pv_node, capture, oracle);
        }
        let hi = if self.options.pvs {
            alpha + 1
        } else {
            self.pv_len[ply] = 0;
            beta
        };
        let s = -self.pvs(pos, h, -hi, -alpha, d, ply, false, capture, oracle);
        if s > alpha && s < beta && self.options.pvs && !self.aborted {
            return -self.pvs(pos, h, -beta, -alpha, d, ply, true, capture, oracle);
        }
        s
    }

    /// A late move's child (off the principal variation, [`SearchOptions::lmr`]):
    /// a null-window search a ply shallower first, and the full-depth
    /// one of [`Searcher::search_child`] only when that one beats alpha.
    fn search_late(&mut self, c: Child<'_>, alpha: i32, beta: i32, oracle: &dyn Oracle) -> i32 {
        let reduced = Child {
            depth: c.depth - 1,
            ..c
        };
        let s = self.search_child(reduced, false, false, alpha, alpha + 1, oracle);
        if s <= alpha || self.aborted {
            return s;
        }
        self.search_child(c, false, false, alpha, beta, oracle)
    }

    /// Whether `m` is one of the killers kept at `ply`.
    fn is_killer(&self, m: &Move, ply: usize) -> bool {
        self.killers[ply]
            .iter()
            .any(|k| k.is_some_and(|x| x.same_move(m)))
    }

    /// Principal variation search of `pos` (hash `h`, at distance `ply`
    /// from the root) to nominal `depth`, window (alpha, beta),
    /// alpha < beta. Fail-soft: a result <= alpha is an upper bound, >=
    /// beta a lower bound, otherwise exact at this depth. The top of the
    /// repetition stack must be `pos`. When the search is aborted the
    /// result is meaningless and must not be used.
    #[allow(clippy::too_many_arguments)]
    fn pvs(
        &mut self,
        pos: &Position,
        h: u64,
        alpha: i32,
        beta: i32,
        depth: i32,
        ply: usize,
        pv_node: bool,
        prev_capture: bool,
        oracle: &dyn Oracle,
    ) -> i32 {
        debug_assert!(alpha < beta);
        debug_assert_eq!(self.stack.last(), Some(&h));
        self.pv_len[ply] = 0;
        if self.repeated() {
            self.nodes += 1;
            return 0;
        }
        let range = if self.oracle_on && pos.piece_count() <= self.probe_max_pieces {
            oracle.probe_range(pos)
        } else {
            None
        };
        // A proved bound cuts when the window lies beyond it, and
        // otherwise holds the searched score inside it.
        let (low, high) = match range {
            Some((lo, hi)) if lo == hi => {
                self.nodes += 1;
                return self.exact_score(pos, lo, ply, oracle);
            }
            Some((lo, hi)) => (bound_score(lo, ply, false), bound_score(hi, ply, true)),
            None => (i32::MIN, i32::MAX),
        };
        if low >= beta || high <= alpha {
            self.nodes += 1;
            return if low >= beta { low } else { high };
        }
        self.expand(
            pos,
            h,
            alpha,
            beta,
            depth,
            ply,
            pv_node,
            prev_capture,
            oracle,
        )
        .clamp(low, high)
    }

    /// The part of [`Searcher::pvs`] past the repetition and oracle
    /// checks (same contract): capture play-out at the horizon, else the
    /// table and the moves.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn expand(
        &mut self,
        pos: &Position,
        h: u64,
        alpha: i32,
        beta: i32,
        depth: i32,
        ply: usize,
        pv_node: bool,
        prev_capture: bool,
        oracle: &dyn Oracle,
    ) -> i32 {
        if depth <= 0 || ply >= MAX_PLY - 2 {
            if self.options.quiescence {
                return self.quiesce(pos, alpha, beta, ply, oracle);
            }
            self.nodes += 1;
            return self.evaluate(pos);
        }
        self.nodes += 1;
        self.check_limits();
        if self.aborted {
            return 0;
        }
        let mut alpha = alpha;
        let tt_hit = if self.options.tt {
            self.tt.probe(h)
        } else {
            None
        };
        if let Some(hit) = &tt_hit {
            if hit.depth >= depth && !pv_node {
                let s = from_tt(hit.score, ply);
                match hit.bound {
                    Bound::Exact => return s,
                    Bound::Lower if s >= beta => return s,
                    Bound::Upper if s <= alpha => return s,
                    _ => {}
                }
            }
        }
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        if list.is_empty() {
            return -(MATE - ply as i32);
        }
        // Enhanced transposition cutoff: a child already known to refute.
        if self.options.etc && self.options.tt && depth >= 3 && !pv_node {
            for m in list.iter() {
                let ch = hash::update(pos, h, m);
                if let Some(ch_hit) = self.tt.probe(ch) {
                    if ch_hit.depth >= depth - 1
                        && matches!(ch_hit.bound, Bound::Upper | Bound::Exact)
                    {
                        let s = -from_tt(ch_hit.score, ply + 1);
                        if s >= beta {
                            return s;
                        }
                    }
                }
            }
        }
        // Reduction: away from the principal variation, a node whose
        // material and evaluation (for the root's side) are a man and
        // `reduce_eval` (default three quarters of a man) off the root's,
        // the same way, is searched one ply shallower: the game is
        // decided there.
        let mut depth = depth;
        if self.options.reduce && depth >= 3 && !pv_node && ply >= 2 {
            let mat = eval::material(pos);
            let ev = self.evaluate(pos);
            let same = pos.side_to_move() == self.root_side;
            let (mat_r, ev_r) = if same { (mat, ev) } else { (-mat, -ev) };
            let dm = mat_r - self.root_material;
            let de = ev_r - self.root_eval;
            let margin = self.options.reduce_eval;
            if (dm <= -100 && de <= -margin) || (dm >= 100 && de >= margin) {
                depth -= 1;
            }
        }
        self.order(&mut list, tt_hit.as_ref(), ply, pos);
        let n = list.len();
        let orig_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_move: Option<Move> = None;
        let late_from = if self.options.lmr && depth >= 3 && !pv_node {
            self.options.lmr_moves
        } else {
            usize::MAX
        };
        for (i, m) in list.as_slice().iter().enumerate() {
            let child = pos.play_unchecked(m);
            let ch = hash::update(pos, h, m);
            let ext = self.extension(pos, m, n, prev_capture, ply);
            let d = depth - 1 + ext;
            self.push(ch, reversible(pos, &child));
            let next = Child {
                pos: &child,
                hash: ch,
                capture: m.is_capture(),
                depth: d,
                ply: ply + 1,
            };
            let late = i >= late_from && ext == 0 && !m.is_capture() && !self.is_killer(m, ply);
            let s = if late {
                self.search_late(next, alpha, beta, oracle)
            } else {
                self.search_child(next, i == 0, pv_node, alpha, beta, oracle)
            };
            self.pop();
            if self.aborted {
                return 0;
            }
            if s > best {
                best = s;
                best_move = Some(*m);
                if s > alpha {
                    alpha = s;
                    if pv_node {
                        self.pv[ply][0] = Some(*m);
                        let len = self.pv_len[ply + 1];
                        for k in 0..len {
                            self.pv[ply][k + 1] = self.pv[ply + 1][k];
                        }
                        self.pv_len[ply] = len + 1;
                    }
                    if s >= beta {
                        if !m.is_capture() && self.options.ordering {
                            let k = &mut self.killers[ply];
                            if !k[0].is_some_and(|x| x.same_move(m)) {
                                k[1] = k[0];
                                k[0] = Some(*m);
                            }
                            let hh = &mut self.history[m.from().index() as usize]
                                [m.to().index() as usize];
                            *hh = (*hh + depth * depth).min(1 << 24);
                        }
                        break;
                    }
                }
            }
        }
        if self.options.tt {
            let bound = if best >= beta {
                Bound::Lower
            } else if best > orig_alpha {
                Bound::Exact
            } else {
                Bound::Upper
            };
            self.tt
                .store(h, depth, to_tt(best, ply), bound, best_move.as_ref());
        }
        best
    }
}

/// A child about to be searched ([`Searcher::search_child`]).
#[derive(Clone, Copy)]
struct Child<'p> {
    /// The position.
    pos: &'p Position,
    /// Its hash.
    hash: u64,
    /// Whether the move into it captured.
    capture: bool,
    /// The depth to search it to.
    depth: i32,
    /// Its ply from the root.
    ply: usize,
}
