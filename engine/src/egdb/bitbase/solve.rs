//! Retrograde analysis of one slice over [`Layout`]'s words: 32
//! positions (the set piece's squares) at a time.
//!
//! Per context and side to move, four words (bit planes): `win`, `loss`
//! (decided values), `frozen` (squares that are no position of the slice,
//! and capture positions, whose value the forward pass settles) and
//! `no_loss` (a move out of the slice keeps the position from losing).
//!
//! 1. Forward pass: capture positions get their value by probing their
//!    captures in the smaller slices; a quiet move out of the slice (a
//!    man past its lead row, or crowned) is probed: a lost successor
//!    makes a win, a drawn one sets `no_loss`. Only canonical places are
//!    probed (the set piece on the lowest square of its kind); the other
//!    places of a position copy them.
//! 2. Levels. A level's entries are the words that gained decided bits.
//!    Their predecessors (un-moves of the side that moved: the set piece
//!    shifts within the word, another piece carries the word to another
//!    context) get the new losses as wins at once (a word OR), and their
//!    words are marked for a loss check. A loss check asks, for every
//!    undecided bit, whether every move in the slice reaches a won
//!    position: the AND over its moves of the successors' `win` words,
//!    stopping as soon as no bit is left. The first level checks every
//!    word (positions without a move are lost).
//! 3. Undecided positions are draws.
//!
//! The values are a least fixed point, so the order in which words are
//! updated does not change them; words are read and written with relaxed
//! atomics by the threads of a level.

use super::layout::{Context, Layout};
use super::masks::{capture_squares, directions, exit_squares, kinds_of, steps};
use super::words::SliceWords;
use crate::board::Color;
use crate::egdb::build::{capture_value, exit_value, BuildProgress, Missing, Solved};
use crate::egdb::codec;
use crate::egdb::file::Counts;
use crate::egdb::index::TableIndex;
use crate::egdb::index::TableKey;
use crate::egdb::probe::Egdb;
use crate::egdb::scratch::{ByteArray, Storage};
use crate::egdb::slice::SliceKey;
use crate::egdb::EgdbError;
use crate::geometry::{opposite, step, Dir, ROW_0, ROW_7};
use crate::moves::MoveList;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Instant;

/// Entries whose predecessors are found before any is updated
/// ([`Solver::apply`]).
const PUSH_BATCH: usize = 16;

/// The four planes of one context and side to move.
#[derive(Default)]
struct Cell {
    win: AtomicU32,
    loss: AtomicU32,
    frozen: AtomicU32,
    no_loss: AtomicU32,
}

/// A word that gained decided bits at a level: context, side to move
/// (0 Black, 1 White), the new wins and the new losses.
#[derive(Clone, Copy, Debug)]
struct Entry {
    context: u64,
    side: u8,
    wins: u32,
    losses: u32,
}

/// The bytes a build of `slice` holds: per context and side to move, the
/// planes ([`Cell`]) and the pending word (the labelled places and the
/// invalid contexts included; the marks and a level's loss checks are
/// a bit per context more).
pub fn build_memory(slice: SliceKey) -> u64 {
    let per_context = std::mem::size_of::<Cell>() + std::mem::size_of::<AtomicU64>();
    Layout::new(slice).contexts() * 2 * per_context as u64
}

fn colour_of(side: usize) -> Color {
    if side == 0 {
        Color::Black
    } else {
        Color::White
    }
}

/// The bitbase solver of one slice.
struct Solver<'a> {
    layout: Layout,
    /// Whether the slice is one table (the same material on both
    /// sides): the forward pass then solves Black to move only.
    one_table: bool,
    cells: [Vec<Cell>; 2],
    db: &'a Egdb,
    /// The slices held as words ([`Egdb::held_words`]): moves out of the
    /// slice into them are read a word at a time.
    held: Vec<&'a SliceWords>,
}

impl Solver<'_> {
    /// Calls `f(successor context, destination square)` for every quiet
    /// move in the slice of a piece of `x` other than the set piece, in
    /// context `c`.
    #[inline(always)]
    fn context_moves(&self, c: u64, ctx: &Context, x: Color, mut f: impl FnMut(u64, u32)) {
        let occ = ctx.occupied();
        let (mk, kk) = kinds_of(x);
        let (rows, _) = self.layout.men_rows(x);
        for (kind, dirs, blocked) in [
            (mk, directions(x, false), occ | !rows),
            (kk, directions(x, true), occ),
        ] {
            let set = ctx.sets[kind];
            steps(set, blocked, dirs, |a, b| {
                if let Some(c2) = self.layout.with_set(c, kind, set ^ (1 << a) ^ (1 << b)) {
                    f(c2, b);
                }
            });
        }
    }

    /// Calls `f(predecessor context, its sets)` for every un-move of a
    /// piece of `x` other than the set piece in context `c` (the
    /// predecessor has `x` to move and moved into `c`).
    #[inline(always)]
    fn context_unmoves(&self, c: u64, ctx: &Context, x: Color, mut f: impl FnMut(u64, &Context)) {
        let occ = ctx.occupied();
        let (mk, kk) = kinds_of(x);
        for (kind, dirs) in [
            (mk, directions(x.opposite(), false)),
            (kk, directions(x, true)),
        ] {
            let set = ctx.sets[kind];
            steps(set, occ, dirs, |b, a| {
                let pred_set = set ^ (1 << a) ^ (1 << b);
                if let Some(c0) = self.layout.with_set(c, kind, pred_set) {
                    let mut pred = *ctx;
                    pred.sets[kind] = pred_set;
                    f(c0, &pred);
                }
            });
        }
    }

    /// The squares from which the set piece moves in `dir` to a square
    /// of the slice (free, and within its lead's rows for a man), in `ctx`.
    #[inline(always)]
    fn set_piece_moves(&self, ctx: &Context, squares: u32, dir: Dir) -> u32 {
        let mut to = !ctx.occupied();
        if !self.layout.set_is_king() {
            to &= self.layout.men_rows(self.layout.set_colour()).0;
        }
        squares & step(to, opposite(dir))
    }

    /// The forward pass over contexts `range`: capture positions and
    /// moves out of the slice, canonical places only.
    fn forward(&self, c: u64, list: &mut MoveList) -> Result<u64, Missing> {
        let layout = &self.layout;
        let Some(ctx) = layout.context(c) else {
            for cells in &self.cells {
                cells[c as usize].frozen.store(u32::MAX, Relaxed);
            }
            return Ok(0);
        };
        let squares = layout.set_squares(&ctx);
        let canon = squares & layout.canonical_squares(&ctx);
        let sides = if self.one_table { 1 } else { 2 };
        let mut by_words = 0;
        for side in 0..sides {
            let x = colour_of(side);
            let captures = capture_squares(layout, &ctx, squares, x);
            let exits_at = exit_squares(layout, &ctx, squares, x) & !captures;
            let (mut win, mut loss, frozen, mut no_loss) = (0u32, 0u32, !squares | captures, 0u32);
            let (covered, won, not_lost) = self.exit_words(&ctx, x, exits_at & canon);
            win |= won;
            no_loss |= not_lost & !won;
            by_words += covered.count_ones() as u64;
            let mut bits = (captures | exits_at) & canon & !covered;
            while bits != 0 {
                let s = bits.trailing_zeros();
                bits &= bits - 1;
                let bit = 1u32 << s;
                let pos = layout.position(&ctx, s, x);
                let view = if x == Color::Black {
                    pos
                } else {
                    pos.flipped()
                };
                debug_assert_eq!(view.black_has_capture_flat(), captures & bit != 0);
                if captures & bit != 0 {
                    list.clear();
                    view.push_captures(list);
                    match capture_value(&view, self.db, list)? {
                        crate::Value::Win => win |= bit,
                        crate::Value::Loss => loss |= bit,
                        crate::Value::Draw => {}
                    }
                } else {
                    match exit_value(&view, self.db)? {
                        crate::Value::Win => win |= bit,
                        crate::Value::Draw => no_loss |= bit,
                        crate::Value::Loss => {}
                    }
                }
            }
            let cell = &self.cells[side][c as usize];
            cell.win.store(win, Relaxed);
            cell.loss.store(loss, Relaxed);
            cell.frozen.store(frozen, Relaxed);
            cell.no_loss.store(no_loss, Relaxed);
        }
        Ok(by_words)
    }

    /// The squares of `open` (canonical places of context `ctx`, `x` to
    /// move, each with a move out of the slice and no capture) all of
    /// whose moves out of the slice reach slices held as words, with those
    /// of them the mover wins and those it does not lose: `(covered, won,
    /// not lost)`. Only moves of men of the context (the set piece is not
    /// one of `x`'s men) into a slice in this frame and set-piece kind
    /// are read this way; the other squares are probed one by one.
    #[inline]
    fn exit_words(&self, ctx: &Context, x: Color, open: u32) -> (u32, u32, u32) {
        let layout = &self.layout;
        let (mk, kk) = kinds_of(x);
        if open == 0 || self.held.is_empty() || layout.set_kind() == mk {
            return (0, 0, 0);
        }
        let empty = !ctx.occupied();
        let (rows, _) = layout.men_rows(x);
        let crown = if x == Color::Black { ROW_7 } else { ROW_0 };
        let to_move = 1 - x as usize;
        let (mut covered, mut won, mut not_lost) = (open, 0u32, 0u32);
        for &dir in directions(x, false) {
            let mut leaving = step(ctx.sets[mk], dir) & empty & !rows;
            while leaving != 0 {
                let to = leaving & leaving.wrapping_neg();
                leaving &= leaving - 1;
                let mut next = *ctx;
                next.sets[mk] ^= step(to, opposite(dir));
                if to & crown != 0 {
                    next.sets[kk] |= to;
                } else {
                    next.sets[mk] |= to;
                }
                // With the set piece on `to` the move is not there.
                let legal = open & !to;
                match self.held_word(&next, legal, to_move) {
                    Some((valid, win, loss)) => {
                        covered &= valid | to;
                        won |= loss & legal & valid;
                        not_lost |= !win & legal & valid;
                    }
                    None => covered &= to,
                }
                if covered == 0 {
                    return (0, 0, 0);
                }
            }
        }
        (covered, won & covered, not_lost & covered)
    }

    /// For the context `next` of another slice (in this frame), with
    /// `side` to move: the squares where the set piece makes a position of
    /// that slice, and its win and loss words, when that slice is held as
    /// words with this set piece (in its own frame, which is this one or
    /// its colour-reversed image: the words are then bit-reversed).
    /// `squares` (not empty) are the set piece's squares asked for; their
    /// slice is the same for all.
    #[inline]
    fn held_word(&self, next: &Context, squares: u32, side: usize) -> Option<(u32, u32, u32)> {
        if squares == 0 {
            return None;
        }
        let board = self
            .layout
            .position(next, squares.trailing_zeros(), Color::Black);
        let key = TableKey::of(&board);
        let slice = SliceKey::of(key);
        // The kinds of the colour-reversed board: the colours exchanged.
        let reversed = !key.is_canonical();
        let set_kind = self.layout.set_kind() ^ if reversed { 2 } else { 0 };
        let words = self
            .held
            .iter()
            .find(|w| w.layout.slice() == slice && w.layout.set_kind() == set_kind)?;
        if !reversed {
            let c = words.layout.number(next)? as usize;
            return Some((
                words.layout.set_squares(next),
                words.win[side][c],
                words.loss[side][c],
            ));
        }
        let image = Context {
            sets: [2, 3, 0, 1].map(|kind| next.sets[kind].reverse_bits()),
        };
        let c = words.layout.number(&image)? as usize;
        let side = 1 - side;
        Some((
            words.layout.set_squares(&image).reverse_bits(),
            words.win[side][c].reverse_bits(),
            words.loss[side][c].reverse_bits(),
        ))
    }

    /// The places that are not canonical copy what the forward pass found
    /// at their canonical place (captures and moves out of the slice).
    fn copy_forward(&self, c: u64) {
        let layout = &self.layout;
        let Some(ctx) = layout.context(c) else { return };
        let squares = layout.set_squares(&ctx);
        let others = squares & !layout.canonical_squares(&ctx);
        for side in 0..2 {
            let x = colour_of(side);
            // A slice of one table solves White to move as the
            // colour-reversed Black to move.
            let mirrored = self.one_table && side == 1;
            let to_copy = if mirrored { squares } else { others };
            if to_copy == 0 {
                continue;
            }
            // The forward pass froze this word's capture squares, but for
            // the side a one-table slice mirrors, which it did not solve.
            let captures = if mirrored {
                capture_squares(layout, &ctx, squares, x)
            } else {
                self.cells[side][c as usize].frozen.load(Relaxed) & squares
            };
            let exits_at = exit_squares(layout, &ctx, squares, x) & !captures;
            let (mut win, mut loss, mut no_loss) = (0u32, 0u32, 0u32);
            let mut bits = (captures | exits_at) & to_copy;
            while bits != 0 {
                let s = bits.trailing_zeros();
                bits &= bits - 1;
                let bit = 1u32 << s;
                let (c0, s0) = if mirrored {
                    let (b, w, k, _) = layout.position(&ctx, s, x).flipped().parts();
                    layout
                        .place(b, w, k)
                        .expect("a position of the slice has a place")
                } else {
                    layout.canonical_place(c, &ctx, s)
                };
                let cell = &self.cells[if mirrored { 0 } else { side }][c0 as usize];
                let at = |plane: &AtomicU32| plane.load(Relaxed) >> s0 & 1 != 0;
                if at(&cell.win) {
                    win |= bit;
                }
                if at(&cell.loss) {
                    loss |= bit;
                }
                if at(&cell.no_loss) {
                    no_loss |= bit;
                }
            }
            let cell = &self.cells[side][c as usize];
            cell.win.fetch_or(win, Relaxed);
            cell.loss.fetch_or(loss, Relaxed);
            cell.frozen.fetch_or(!squares | captures, Relaxed);
            cell.no_loss.fetch_or(no_loss, Relaxed);
        }
    }

    /// The undecided positions of context `c`, `side` to move, all of
    /// whose moves in the slice reach positions won by the other side:
    /// they are lost (marked, and returned).
    fn check_losses(&self, c: u64, side: usize) -> u32 {
        let cell = &self.cells[side][c as usize];
        let mut cand = !(cell.win.load(Relaxed)
            | cell.loss.load(Relaxed)
            | cell.frozen.load(Relaxed)
            | cell.no_loss.load(Relaxed));
        if cand == 0 {
            return 0;
        }
        let layout = &self.layout;
        let Some(ctx) = layout.context(c) else {
            return 0;
        };
        let x = colour_of(side);
        let other = &self.cells[1 - side];
        if layout.set_colour() == x {
            let squares = layout.set_squares(&ctx);
            let here = other[c as usize].win.load(Relaxed);
            for &dir in directions(x, layout.set_is_king()) {
                let legal = self.set_piece_moves(&ctx, squares, dir);
                cand &= step(here, opposite(dir)) | !legal;
                if cand == 0 {
                    return 0;
                }
            }
        }
        self.context_moves(c, &ctx, x, |c2, b| {
            if cand != 0 {
                cand &= other[c2 as usize].win.load(Relaxed) | 1 << b;
            }
        });
        if cand != 0 {
            cell.loss.fetch_or(cand, Relaxed);
        }
        cand
    }

    /// Wins for the positions `bits` of context `c`, `side` to move;
    /// returns the bits newly won.
    #[inline(always)]
    fn add_wins(&self, c: u64, side: usize, bits: u32) -> u32 {
        let cell = &self.cells[side][c as usize];
        let open = !(cell.frozen.load(Relaxed) | cell.loss.load(Relaxed) | cell.win.load(Relaxed));
        let new = bits & open;
        if new == 0 {
            return 0;
        }
        new & !cell.win.fetch_or(new, Relaxed)
    }

    /// The predecessors of entry `e`, as [`Target`]s: its losses win
    /// them, its wins mark them for a loss check.
    fn predecessors(&self, e: &Entry, targets: &mut Vec<Target>) {
        let layout = &self.layout;
        let Some(ctx) = layout.context(e.context) else {
            return;
        };
        let side = 1 - e.side as usize; // the predecessors' side to move
        let x = colour_of(side);
        if layout.set_colour() == x {
            let squares = layout.set_squares(&ctx);
            let mut won = 0;
            let mut check = false;
            for &dir in directions(x, layout.set_is_king()) {
                let from = |bits: u32| step(bits, opposite(dir)) & squares;
                won |= from(e.losses);
                check |= from(e.wins) != 0;
            }
            if won != 0 || check {
                targets.push(Target {
                    context: e.context,
                    side: side as u8,
                    wins: won,
                    check,
                });
            }
        }
        self.context_unmoves(e.context, &ctx, x, |c0, pred| {
            let squares = layout.set_squares(pred);
            let won = e.losses & squares;
            let check = e.wins & squares != 0;
            if won != 0 || check {
                targets.push(Target {
                    context: c0,
                    side: side as u8,
                    wins: won,
                    check,
                });
            }
        });
    }

    /// Applies `targets`: wins added (those gained noted in `pending`),
    /// words marked in `dirty`. Every target's word is loaded first, in a
    /// loop of its own, so that their cache misses overlap.
    fn apply(&self, targets: &[Target], dirty: &[Vec<AtomicU64>; 2], pending: &Pending) {
        let mut touched = 0u32;
        for t in targets {
            touched ^= self.cells[t.side as usize][t.context as usize]
                .win
                .load(Relaxed);
        }
        std::hint::black_box(touched);
        for t in targets {
            let side = t.side as usize;
            if t.wins != 0 {
                let gained = self.add_wins(t.context, side, t.wins);
                pending.note(t.context, side, gained, 0);
            }
            if t.check {
                dirty[side][(t.context / 64) as usize].fetch_or(1 << (t.context % 64), Relaxed);
            }
        }
    }
}

/// The bits decided since their word was last pushed to its
/// predecessors: per side to move, a word of new wins and new losses per
/// context (packed, wins high), and a mark per group of 64 contexts
/// holding one.
struct Pending {
    bits: [Vec<AtomicU64>; 2],
    groups: [Vec<AtomicU64>; 2],
}

impl Pending {
    /// Nothing pending, for `n` contexts.
    fn new(n: usize) -> Pending {
        let zeros = |len: usize| (0..len).map(|_| AtomicU64::new(0)).collect::<Vec<_>>();
        Pending {
            bits: [zeros(n), zeros(n)],
            groups: [zeros(n.div_ceil(64 * 64)), zeros(n.div_ceil(64 * 64))],
        }
    }

    /// `wins` and `losses` of context `c`, `side` to move, are new.
    #[inline(always)]
    fn note(&self, c: u64, side: usize, wins: u32, losses: u32) {
        if wins | losses == 0 {
            return;
        }
        self.bits[side][c as usize].fetch_or((wins as u64) << 32 | losses as u64, Relaxed);
        let group = c / 64;
        self.groups[side][(group / 64) as usize].fetch_or(1 << (group % 64), Relaxed);
    }

    /// Takes the pending entries of the groups marked in mark word `m` of
    /// `side`, calling `f` with each.
    #[inline(always)]
    fn take(&self, side: usize, m: usize, mut f: impl FnMut(Entry)) {
        let mut groups = self.groups[side][m].swap(0, Relaxed);
        while groups != 0 {
            let group = m as u64 * 64 + groups.trailing_zeros() as u64;
            groups &= groups - 1;
            let end = ((group + 1) * 64).min(self.bits[side].len() as u64);
            for c in group * 64..end {
                let d = self.bits[side][c as usize].swap(0, Relaxed);
                if d != 0 {
                    f(Entry {
                        context: c,
                        side: side as u8,
                        wins: (d >> 32) as u32,
                        losses: d as u32,
                    });
                }
            }
        }
    }
}

/// A predecessor word of an entry: the wins it gets, whether it needs a
/// loss check.
#[derive(Clone, Copy, Debug)]
struct Target {
    context: u64,
    side: u8,
    wins: u32,
    check: bool,
}

/// Solves `slice` with the bitbase builder, probing `db` for every value
/// outside it (and reading the slices `db` holds as words); the same
/// result as [`crate::egdb::build::solve_slice`]. The result carries the
/// slice's own words ([`Solved::words`]) when they take at most
/// `keep_words` bytes (0: never).
pub fn solve_slice(
    slice: SliceKey,
    db: &Egdb,
    progress: &dyn BuildProgress,
    storage: &Storage,
    keep_words: u64,
) -> Result<Solved, EgdbError> {
    let started = Instant::now();
    let layout = Layout::new(slice);
    let n = layout.contexts() as usize;
    let cells = [
        (0..n).map(|_| Cell::default()).collect::<Vec<_>>(),
        (0..n).map(|_| Cell::default()).collect::<Vec<_>>(),
    ];
    let solver = Solver {
        layout,
        one_table: slice.tables().len() == 1,
        cells,
        db,
        held: db.held_words().slices().collect(),
    };
    let failure: Mutex<Option<Missing>> = Mutex::new(None);
    const CHUNK: u64 = 1 << 12;
    let chunks = (n as u64).div_ceil(CHUNK);
    let positions_per_context = (slice.positions() as f64 / n.max(1) as f64).max(0.0);
    let exit_words: u64 = (0..chunks)
        .into_par_iter()
        .map(|k| {
            let mut list = MoveList::new();
            let end = ((k + 1) * CHUNK).min(n as u64);
            let mut by_words = 0;
            for c in k * CHUNK..end {
                match solver.forward(c, &mut list) {
                    Ok(n) => by_words += n,
                    Err(e) => {
                        *failure.lock().expect("no poisoning") = Some(e);
                        return by_words;
                    }
                }
            }
            progress.advance(((end - k * CHUNK) as f64 * positions_per_context) as u64);
            by_words
        })
        .sum();
    if let Some(e) = failure.lock().expect("no poisoning").take() {
        return Err(match e {
            Missing::Probe(p) => crate::egdb::build::missing_for(db, &p, slice),
            Missing::TooManyMoves(moves) => EgdbError::TooManyMoves {
                slice: slice.name(),
                moves,
            },
        });
    }
    (0..chunks).into_par_iter().for_each(|k| {
        for c in k * CHUNK..((k + 1) * CHUNK).min(n as u64) {
            solver.copy_forward(c);
        }
    });
    let forward_seconds = started.elapsed().as_secs_f64();

    // Levels. The first checks every word for losses.
    let dirty: [Vec<AtomicU64>; 2] = std::array::from_fn(|_| {
        (0..n.div_ceil(64))
            .map(|_| AtomicU64::new(u64::MAX))
            .collect()
    });
    let pending = Pending::new(n);
    (0..chunks).into_par_iter().for_each(|k| {
        for c in k * CHUNK..((k + 1) * CHUNK).min(n as u64) {
            for side in 0..2 {
                let cell = &solver.cells[side][c as usize];
                pending.note(c, side, cell.win.load(Relaxed), cell.loss.load(Relaxed));
            }
        }
    });
    let mut levels = 0;
    loop {
        // Pushes: every pending word's predecessors (a word that gains
        // bits while this runs is pushed now or at the next pass).
        let pushed: u64 = (0..2)
            .map(|side| {
                let (solver, pending, dirty) = (&solver, &pending, &dirty);
                (0..pending.groups[side].len())
                    .into_par_iter()
                    .map(move |m| {
                        let mut entries = Vec::new();
                        pending.take(side, m, |e| entries.push(e));
                        let mut targets = Vec::new();
                        for batch in entries.chunks(PUSH_BATCH) {
                            targets.clear();
                            for e in batch {
                                solver.predecessors(e, &mut targets);
                            }
                            solver.apply(&targets, dirty, pending);
                        }
                        entries.len() as u64
                    })
                    .sum::<u64>()
            })
            .sum();
        // Loss checks of the marked words.
        let lost: u64 = (0..2)
            .map(|side| {
                let (solver, pending) = (&solver, &pending);
                dirty[side]
                    .par_iter()
                    .enumerate()
                    .map(move |(w, word)| {
                        let mut bits = word.swap(0, Relaxed);
                        let mut found = 0;
                        while bits != 0 {
                            let c = w as u64 * 64 + bits.trailing_zeros() as u64;
                            bits &= bits - 1;
                            if c >= solver.layout.contexts() {
                                continue;
                            }
                            let losses = solver.check_losses(c, side);
                            if losses != 0 {
                                pending.note(c, side, 0, losses);
                                found += 1;
                            }
                        }
                        found
                    })
                    .sum::<u64>()
            })
            .sum();
        if pushed == 0 && lost == 0 {
            break;
        }
        levels += 1;
        progress.propagating(levels, pushed + lost);
    }
    let propagation_seconds = started.elapsed().as_secs_f64() - forward_seconds;

    // Values, in the file's order.
    let mut values = Vec::new();
    let mut counts = Vec::new();
    for (t, key) in slice.tables().into_iter().enumerate() {
        let index = TableIndex::new(key);
        let size = index.size();
        let mut v = ByteArray::new(size as usize, storage)?;
        const VCHUNK: usize = 1 << 16;
        const VALUE_BATCH: usize = 64;
        let side = t; // table 0: Black to move; table 1: White to move
        let c = v
            .par_chunks_mut(VCHUNK)
            .enumerate()
            .map(|(k, out)| {
                let base = (k * VCHUNK) as u64;
                let mut counts = Counts::default();
                let len = out.len() as u64;
                // Places a batch at a time, then their words: the loads
                // are independent, so their cache misses overlap.
                let mut places: Vec<(u64, u32)> = Vec::with_capacity(VALUE_BATCH);
                let mut start = 0usize;
                let mut flush =
                    |places: &mut Vec<(u64, u32)>, start: usize, counts: &mut Counts| {
                        let mut words = [(0u32, 0u32, 0u32); VALUE_BATCH];
                        for (k, &(c, _)) in places.iter().enumerate() {
                            let cell = &solver.cells[side][c as usize];
                            words[k] = (
                                cell.win.load(Relaxed),
                                cell.loss.load(Relaxed),
                                cell.frozen.load(Relaxed),
                            );
                        }
                        for (k, &(_, s)) in places.iter().enumerate() {
                            let (w, l, f) = words[k];
                            let code = if w >> s & 1 != 0 {
                                counts.wins += 1;
                                codec::WIN
                            } else if l >> s & 1 != 0 {
                                counts.losses += 1;
                                codec::LOSS
                            } else {
                                counts.draws += 1;
                                codec::DRAW
                            };
                            out[start + k] = if f >> s & 1 != 0 {
                                codec::DONT_CARE
                            } else {
                                code
                            };
                        }
                        places.clear();
                    };
                index.for_each_position(base..base + len, |i, pos| {
                    let board = if t == 0 { pos } else { pos.flipped() };
                    let (b, w, kings, _) = board.parts();
                    if places.is_empty() {
                        start = (i - base) as usize;
                    }
                    places.push(
                        solver
                            .layout
                            .place(b, w, kings)
                            .expect("a position of the slice has a place"),
                    );
                    if places.len() == VALUE_BATCH {
                        flush(&mut places, start, &mut counts);
                    }
                });
                if !places.is_empty() {
                    flush(&mut places, start, &mut counts);
                }
                counts
            })
            .reduce(Counts::default, |a, b| a + b);
        values.push(v);
        counts.push(c);
    }
    let keep = SliceWords::bytes_for(n as u64) <= keep_words;
    let words = keep.then(|| SliceWords {
        win: std::array::from_fn(|side| {
            solver.cells[side]
                .par_iter()
                .map(|cell| cell.win.load(Relaxed))
                .collect()
        }),
        loss: std::array::from_fn(|side| {
            solver.cells[side]
                .par_iter()
                .map(|cell| cell.loss.load(Relaxed))
                .collect()
        }),
        layout: solver.layout,
    });
    let mut solved = Solved::timed(
        values,
        counts,
        levels,
        started,
        [forward_seconds, propagation_seconds],
    );
    solved.words = words;
    solved.exit_words = exit_words;
    Ok(solved)
}
