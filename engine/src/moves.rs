//! Moves and legal move generation.
//!
//! Captures are compulsory and a capture must be completed: a generated
//! capture always runs until no further jump is possible, or until a man
//! reaches its crowning row (crowning ends the move). Men capture forward
//! only; kings in all four directions, and a king may pass over or land on
//! its own starting square during a jump.
//!
//! A [`Move`] is identified by its start, end and set of captured pieces.
//! Two capture *paths* that share all three (a king taking the same pieces
//! clockwise and anticlockwise) are one move; the move records how many
//! paths produce it in [`Move::paths`], so perft can count either way.

use crate::board::{Color, Position};
use crate::geometry::{jump, jump_over, step, Dir, EVEN_NOT_RIGHT_EDGE, ODD_NOT_LEFT_EDGE};
use crate::square::Square;
use std::fmt;

/// A move: from, to, the captured pieces, and the number of distinct jump
/// paths that give exactly this move (1 for every non-king move). 8 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    from: u8,
    to: u8,
    paths: u16,
    captured: u32,
}

impl Move {
    /// A move from `from` to `to` capturing the pieces on `captured`, made
    /// by one path.
    #[inline]
    pub const fn new(from: Square, to: Square, captured: u32) -> Move {
        Move {
            from: from.index(),
            to: to.index(),
            paths: 1,
            captured,
        }
    }

    /// Start square.
    #[inline]
    pub fn from(&self) -> Square {
        Square::from_index(self.from).expect("move squares are < 32")
    }
    /// End square.
    #[inline]
    pub fn to(&self) -> Square {
        Square::from_index(self.to).expect("move squares are < 32")
    }
    /// Captured pieces (empty for a quiet move).
    #[inline]
    pub const fn captured(&self) -> u32 {
        self.captured
    }
    /// Whether the move captures.
    #[inline]
    pub const fn is_capture(&self) -> bool {
        self.captured != 0
    }
    /// How many jump paths make this move (1 for quiet moves and men).
    #[inline]
    pub const fn paths(&self) -> u32 {
        self.paths as u32
    }
    /// Whether `self` and `other` are the same move (start, end, captured
    /// set), whatever their path counts.
    #[inline]
    pub const fn same_move(&self, other: &Move) -> bool {
        self.from == other.from && self.to == other.to && self.captured == other.captured
    }
}

impl fmt::Display for Move {
    /// Short PDN form: `9-13` or `15x22` (start and end only).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sep = if self.is_capture() { 'x' } else { '-' };
        write!(f, "{}{}{}", self.from().number(), sep, self.to().number())
    }
}

/// Capacity of a [`MoveList`]. No legal checkers position comes near it
/// (moves are distinct, so duplicate capture paths take one slot).
pub const MAX_MOVES: usize = 128;

/// A fixed-capacity list of moves, filled by the generators.
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: usize,
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl MoveList {
    /// An empty list.
    #[inline]
    pub const fn new() -> MoveList {
        MoveList {
            moves: [Move {
                from: 0,
                to: 0,
                paths: 0,
                captured: 0,
            }; MAX_MOVES],
            len: 0,
        }
    }
    /// Number of moves.
    #[inline]
    pub const fn len(&self) -> usize {
        self.len
    }
    /// Whether there are none.
    #[inline]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The moves.
    #[inline]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }
    /// The moves, mutably (for reordering).
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len]
    }
    /// Iterates over the moves.
    #[inline]
    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.as_slice().iter()
    }
    /// Removes every move.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }
    /// Sum of [`Move::paths`] over the list: the move count under the
    /// every-path convention of perft.
    pub fn path_count(&self) -> u64 {
        self.iter().map(|m| m.paths() as u64).sum()
    }

    #[inline(always)]
    fn push(&mut self, m: Move) {
        debug_assert!(self.len < MAX_MOVES, "move list overflow");
        if self.len < MAX_MOVES {
            self.moves[self.len] = m;
            self.len += 1;
        }
    }

    /// Adds a king capture, merging it with an identical one found at or
    /// after index `first` (same start, end and captured set).
    #[inline]
    fn push_merging(&mut self, first: usize, m: Move) {
        for existing in &mut self.moves[first..self.len] {
            if existing.same_move(&m) {
                existing.paths += 1;
                return;
            }
        }
        self.push(m);
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[inline(always)]
fn forward_dirs(color: Color) -> [Dir; 2] {
    match color {
        Color::Black => [Dir::DownRight, Dir::DownLeft],
        Color::White => [Dir::UpRight, Dir::UpLeft],
    }
}

#[inline(always)]
fn backward_dirs(color: Color) -> [Dir; 2] {
    forward_dirs(color.opposite())
}

/// Pieces among `movers` that can jump an opponent piece (on `them`) in
/// direction `dir` onto an empty square.
#[inline(always)]
fn jumpers(movers: u32, them: u32, empty: u32, dir: Dir) -> u32 {
    let back = crate::geometry::opposite(dir);
    step(step(empty, back) & them, back) & movers
}

impl Position {
    /// [`Position::has_capture`] for a position with Black to move,
    /// without a data-dependent branch (the kings' backward jumps are
    /// computed whether there are kings or not): for probes of many
    /// unrelated positions, where branches mispredict.
    #[inline(always)]
    pub fn black_has_capture_flat(&self) -> bool {
        debug_assert_eq!(self.side_to_move(), Color::Black);
        let (us, them, k, _) = self.parts();
        let empty = !(us | them);
        let kings = us & k;
        let [f1, f2] = forward_dirs(Color::Black);
        let [b1, b2] = backward_dirs(Color::Black);
        (jumpers(us, them, empty, f1)
            | jumpers(us, them, empty, f2)
            | jumpers(kings, them, empty, b1)
            | jumpers(kings, them, empty, b2))
            != 0
    }

    /// Whether the side to move has a capture (and so must capture).
    #[inline]
    pub fn has_capture(&self) -> bool {
        let side = self.side_to_move();
        let us = self.pieces(side);
        let them = self.pieces(side.opposite());
        let empty = self.empty();
        let kings = us & self.kings();
        let [f1, f2] = forward_dirs(side);
        let [b1, b2] = backward_dirs(side);
        if jumpers(us, them, empty, f1) | jumpers(us, them, empty, f2) != 0 {
            return true;
        }
        kings != 0 && jumpers(kings, them, empty, b1) | jumpers(kings, them, empty, b2) != 0
    }

    /// Generates every legal move: the captures when there is one, else the
    /// quiet moves.
    #[inline]
    pub fn legal_moves(&self, list: &mut MoveList) {
        list.clear();
        if self.has_capture() {
            self.push_captures(list);
        } else {
            self.push_quiet_moves(list);
        }
    }

    /// The legal moves as a new list.
    pub fn moves(&self) -> MoveList {
        let mut l = MoveList::new();
        self.legal_moves(&mut l);
        l
    }

    /// Appends every capture of the side to move (empty if none).
    pub fn push_captures(&self, list: &mut MoveList) {
        let side = self.side_to_move();
        let (_, them, kings, men, empty) = sides(self, side);
        let fwd = forward_dirs(side);
        let crown = side.crowning_row();
        let mut men_jumping =
            (jumpers(men, them, empty, fwd[0]) | jumpers(men, them, empty, fwd[1])) & men;
        while men_jumping != 0 {
            let from = men_jumping.trailing_zeros() as u8;
            men_jumping &= men_jumping - 1;
            man_jumps(from, from, 0, them, empty, &fwd, crown, list);
        }
        let mut k = kings;
        while k != 0 {
            let from = k.trailing_zeros() as u8;
            k &= k - 1;
            let first = list.len();
            // The king leaves its square: it may pass over or land on it.
            king_jumps(from, from, 0, them, empty | (1 << from), first, list);
        }
    }

    /// Appends every non-capturing move of the side to move. Does not check
    /// that no capture exists; use [`Position::legal_moves`] for legality.
    pub fn push_quiet_moves(&self, list: &mut MoveList) {
        let side = self.side_to_move();
        let us = self.pieces(side);
        let kings = us & self.kings();
        let empty = self.empty();
        match side {
            Color::Black => {
                push_shifted_down(us, empty, list);
                push_shifted_up(kings, empty, list);
            }
            Color::White => {
                push_shifted_up(us, empty, list);
                push_shifted_down(kings, empty, list);
            }
        }
    }

    /// Number of legal moves, counting every capture path
    /// (`distinct == false`) or every distinct move (`distinct == true`).
    /// Faster than generating when there is no capture.
    #[inline]
    pub fn count_moves(&self, distinct: bool) -> u64 {
        match self.side_to_move() {
            Color::Black => self.count_moves_for::<true>(distinct),
            Color::White => self.count_moves_for::<false>(distinct),
        }
    }

    /// [`Position::count_moves`] with the side to move fixed at compile
    /// time (`BLACK`), so every direction and mask is a constant.
    #[inline(always)]
    fn count_moves_for<const BLACK: bool>(&self, distinct: bool) -> u64 {
        let side = if BLACK { Color::Black } else { Color::White };
        let (us, them, kings, men, empty) = sides(self, side);
        let fwd = forward_dirs(side);
        let [b1, b2] = backward_dirs(side);
        let men_jumping = jumpers(men, them, empty, fwd[0]) | jumpers(men, them, empty, fwd[1]);
        let kings_jumping = if kings == 0 {
            0
        } else {
            jumpers(kings, them, empty, fwd[0])
                | jumpers(kings, them, empty, fwd[1])
                | jumpers(kings, them, empty, b1)
                | jumpers(kings, them, empty, b2)
        };
        if men_jumping | kings_jumping != 0 {
            if distinct && kings_jumping != 0 {
                // Kings' paths may coincide as moves: only a list merges them.
                let mut l = MoveList::new();
                self.push_captures(&mut l);
                return l.len() as u64;
            }
            // Men's capture paths are always distinct moves (each jump
            // goes one row pair forward, so the captured set fixes the
            // path), and every king path counts under every-path counting.
            let crown = side.crowning_row();
            let mut n = 0;
            let mut m = men_jumping;
            while m != 0 {
                let at = m & m.wrapping_neg();
                m ^= at;
                n += man_jump_paths::<BLACK>(at, them, empty, crown);
            }
            let mut k = kings_jumping;
            while k != 0 {
                let at = k & k.wrapping_neg();
                k ^= at;
                n += king_jump_paths(at, them, empty | at);
            }
            return n;
        }
        let (down, up) = match side {
            Color::Black => (us, kings),
            Color::White => (kings, us),
        };
        let mut n = 0;
        if down != 0 {
            n += (down << 4 & empty).count_ones()
                + (((down & ODD_NOT_LEFT_EDGE) << 3) & empty).count_ones()
                + (((down & EVEN_NOT_RIGHT_EDGE) << 5) & empty).count_ones();
        }
        if up != 0 {
            n += (up >> 4 & empty).count_ones()
                + (((up & EVEN_NOT_RIGHT_EDGE) >> 3) & empty).count_ones()
                + (((up & ODD_NOT_LEFT_EDGE) >> 5) & empty).count_ones();
        }
        n as u64
    }

    /// Plays `mv` without checking that it is legal here. `mv` must come
    /// from this position's generator (or be checked with
    /// [`Position::play`]); the result is then a valid position with the
    /// other side to move.
    #[inline]
    pub fn play_unchecked(&self, mv: &Move) -> Position {
        let (mut black, mut white, mut kings, side) = self.parts();
        let from = 1u32 << mv.from;
        let to = 1u32 << mv.to;
        let moved = from ^ to; // zero when a king returns to its square
        let cap = mv.captured;
        match side {
            Color::Black => {
                black ^= moved;
                white &= !cap;
            }
            Color::White => {
                white ^= moved;
                black &= !cap;
            }
        }
        kings &= !cap;
        if kings & from != 0 {
            kings ^= moved;
        } else if to & side.crowning_row() != 0 {
            kings |= to;
        }
        Position::from_bitboards_unchecked(black, white, kings, side.opposite())
    }

    /// Plays `mv` if it is legal here.
    pub fn play(&self, mv: &Move) -> Option<Position> {
        self.moves()
            .iter()
            .any(|m| m.same_move(mv))
            .then(|| self.play_unchecked(mv))
    }

    /// Whether the side to move has no legal move (and so has lost).
    #[inline]
    pub fn is_terminal(&self) -> bool {
        self.count_moves(true) == 0
    }
}

#[inline(always)]
fn push_targets(mut targets: u32, delta: i32, list: &mut MoveList) {
    while targets != 0 {
        let to = targets.trailing_zeros() as i32;
        targets &= targets - 1;
        let from = to - delta;
        list.push(Move {
            from: from as u8,
            to: to as u8,
            paths: 1,
            captured: 0,
        });
    }
}

#[inline(always)]
fn push_shifted_down(movers: u32, empty: u32, list: &mut MoveList) {
    if movers == 0 {
        return;
    }
    push_targets((movers << 4) & empty, 4, list);
    push_targets(((movers & ODD_NOT_LEFT_EDGE) << 3) & empty, 3, list);
    push_targets(((movers & EVEN_NOT_RIGHT_EDGE) << 5) & empty, 5, list);
}

#[inline(always)]
fn push_shifted_up(movers: u32, empty: u32, list: &mut MoveList) {
    if movers == 0 {
        return;
    }
    push_targets((movers >> 4) & empty, -4, list);
    push_targets(((movers & EVEN_NOT_RIGHT_EDGE) >> 3) & empty, -3, list);
    push_targets(((movers & ODD_NOT_LEFT_EDGE) >> 5) & empty, -5, list);
}

/// Number of maximal jump paths of a man on the single bit `at` (which
/// must have at least one jump); `them` loses each piece as it is taken.
#[inline]
fn man_jump_paths<const BLACK: bool>(at: u32, them: u32, empty: u32, crown: u32) -> u64 {
    let [d1, d2] = forward_dirs(if BLACK { Color::Black } else { Color::White });
    let over1 = step(at, d1) & them;
    let land1 = jump(at, d1) & empty;
    let over2 = step(at, d2) & them;
    let land2 = jump(at, d2) & empty;
    let mut n = 0;
    if over1 != 0 && land1 != 0 {
        n += if land1 & crown != 0 {
            1
        } else {
            man_jump_paths::<BLACK>(land1, them ^ over1, empty, crown)
        };
    }
    if over2 != 0 && land2 != 0 {
        n += if land2 & crown != 0 {
            1
        } else {
            man_jump_paths::<BLACK>(land2, them ^ over2, empty, crown)
        };
    }
    n.max(1)
}

/// Number of maximal jump paths of a king on the single bit `at`;
/// `empty` must include the king's starting square.
fn king_jump_paths(at: u32, them: u32, empty: u32) -> u64 {
    let mut n = 0;
    for d in crate::geometry::DIRS {
        let over = step(at, d) & them;
        if over == 0 {
            continue;
        }
        let land = jump(at, d) & empty;
        if land == 0 {
            continue;
        }
        n += king_jump_paths(land, them ^ over, empty);
    }
    n.max(1)
}

/// `pos` as `side`'s moves see it: `side`'s pieces, the opponent's,
/// `side`'s kings, `side`'s men, and the empty squares.
#[inline(always)]
pub(crate) fn sides(pos: &Position, side: Color) -> (u32, u32, u32, u32, u32) {
    let us = pos.pieces(side);
    let kings = us & pos.kings();
    (
        us,
        pos.pieces(side.opposite()),
        kings,
        us & !kings,
        pos.empty(),
    )
}

/// Continues a man's jump from `at`; `captured` holds the pieces taken so
/// far. Pushes one move per maximal path.
#[allow(clippy::too_many_arguments)]
fn man_jumps(
    origin: u8,
    at: u8,
    captured: u32,
    them: u32,
    empty: u32,
    dirs: &[Dir; 2],
    crown: u32,
    list: &mut MoveList,
) {
    let mut extended = false;
    for &d in dirs {
        let Some((ob, land)) = jump_over(at, d, them & !captured, empty) else {
            continue;
        };
        extended = true;
        if (1u32 << land) & crown != 0 {
            list.push(Move {
                from: origin,
                to: land,
                paths: 1,
                captured: captured | ob,
            });
        } else {
            man_jumps(origin, land, captured | ob, them, empty, dirs, crown, list);
        }
    }
    if !extended && captured != 0 {
        list.push(Move {
            from: origin,
            to: at,
            paths: 1,
            captured,
        });
    }
}

/// Continues a king's jump from `at`. `empty` includes the king's own
/// starting square. Identical moves reached by different paths are merged
/// into one entry (from index `first` on) with its path count raised.
fn king_jumps(
    origin: u8,
    at: u8,
    captured: u32,
    them: u32,
    empty: u32,
    first: usize,
    list: &mut MoveList,
) {
    let mut extended = false;
    for d in crate::geometry::DIRS {
        let Some((ob, land)) = jump_over(at, d, them & !captured, empty) else {
            continue;
        };
        extended = true;
        king_jumps(origin, land, captured | ob, them, empty, first, list);
    }
    if !extended && captured != 0 {
        list.push_merging(
            first,
            Move {
                from: origin,
                to: at,
                paths: 1,
                captured,
            },
        );
    }
}
