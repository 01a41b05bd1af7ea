//! Word operations over a context: the squares of the set piece where
//! the side to move must capture, and where it has a quiet move out of
//! the slice. The forward pass probes only those squares.

use super::layout::{Context, Layout, BLACK_KINGS, BLACK_MEN, WHITE_KINGS, WHITE_MEN};
use crate::board::Color;
use crate::geometry::{jump, opposite, step, Dir, DIRS, NEIGHBOUR, NONE};

/// Calls `f(from, to)` for every step of a piece of `pieces` in one of
/// `dirs` to a square not in `blocked`.
#[inline(always)]
pub fn steps(pieces: u32, blocked: u32, dirs: &[Dir], mut f: impl FnMut(u32, u32)) {
    let mut rest = pieces;
    while rest != 0 {
        let from = rest.trailing_zeros();
        rest &= rest - 1;
        for &dir in dirs {
            let to = NEIGHBOUR[dir as usize][from as usize];
            if to != NONE && blocked & (1 << to) == 0 {
                f(from, u32::from(to));
            }
        }
    }
}

/// The directions a piece of `colour` moves in (a man forward only).
#[inline(always)]
pub fn directions(colour: Color, king: bool) -> &'static [Dir] {
    if king {
        &DIRS
    } else if colour == Color::Black {
        &DIRS[..2]
    } else {
        &DIRS[2..]
    }
}

/// The men and kings kinds of `colour`.
#[inline(always)]
pub fn kinds_of(colour: Color) -> (usize, usize) {
    match colour {
        Color::Black => (BLACK_MEN, BLACK_KINGS),
        Color::White => (WHITE_MEN, WHITE_KINGS),
    }
}

/// The squares among `squares` where the set piece leaves at least one of
/// `targets` free (a move that needs a target square is then there): all
/// of `squares` with two or more targets, all but the one with one, none
/// without.
#[inline(always)]
fn unless_all_blocked(targets: u32, squares: u32) -> u32 {
    match targets.count_ones() {
        0 => 0,
        1 => squares & !targets,
        _ => squares,
    }
}

/// The squares among `squares` (the set piece's) where `x` to move has a
/// capture in context `ctx`.
#[inline(always)]
pub fn capture_squares(layout: &Layout, ctx: &Context, squares: u32, x: Color) -> u32 {
    let empty = !ctx.occupied();
    let (mk, kk) = kinds_of(x);
    let (ymk, ykk) = kinds_of(x.opposite());
    let (men, kings) = (ctx.sets[mk], ctx.sets[kk]);
    let prey = ctx.sets[ymk] | ctx.sets[ykk];
    let forward = directions(x, false);
    let set_is_ours = layout.set_colour() == x;
    let mut landings = 0u32;
    let mut out = 0u32;
    for dir in DIRS {
        let back = opposite(dir);
        let movers = kings | if forward.contains(&dir) { men } else { 0 };
        // A piece of the context jumps one of the context.
        let jumpers = step(step(empty, back) & prey, back) & movers;
        landings |= jump(jumpers, dir);
        if !set_is_ours {
            // A piece of the context jumps the set piece.
            out |= step(movers, dir) & step(empty, back);
        }
    }
    if set_is_ours {
        // The set piece jumps a piece of the context.
        for &dir in directions(x, layout.set_is_king()) {
            let back = opposite(dir);
            out |= step(prey, back) & step(step(empty, back), back);
        }
    }
    (out & squares) | unless_all_blocked(landings, squares)
}

/// The squares among `squares` where `x` to move has a quiet move out of
/// the slice (a man past its lead row, or crowned), captures aside.
#[inline(always)]
pub fn exit_squares(layout: &Layout, ctx: &Context, squares: u32, x: Color) -> u32 {
    let empty = !ctx.occupied();
    let (mk, _) = kinds_of(x);
    let (rows, _) = layout.men_rows(x);
    let men = ctx.sets[mk];
    let mut targets = 0u32;
    let mut out = 0u32;
    let set_is_our_man = layout.set_kind() == mk;
    for &dir in directions(x, false) {
        targets |= step(men, dir) & empty & !rows;
        if set_is_our_man {
            out |= step(empty & !rows, opposite(dir));
        }
    }
    (out & squares) | unless_all_blocked(targets, squares)
}
