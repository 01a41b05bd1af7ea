//! Slices and their gap-free position index (combinatorial number system).
//!
//! A *table* holds the positions with Black to move and a given material
//! and leading-man rank for each side ([`TableKey`]). Positions with White
//! to move are looked up as their colour-reversed image
//! ([`crate::Position::flipped`]), which has Black to move.
//!
//! Each side is described in its own frame: Black's squares as they are,
//! White's squares bit-reversed (square `i` becomes `31 - i`), so that in
//! both frames men move towards higher rows and are crowned on row 7. The
//! *rank* of a man is its row in its own frame (0-6) and a side's *lead*
//! is the rank of its most advanced man.
//!
//! The index of a position in its table (see docs/egdb-format.txt):
//!
//! ```text
//! index = (men_offset[black_rank] + white_rank) * KINGS + bk_rank * WK + wk_rank
//! ```
//!
//! * `black_rank`: colex rank of the black men's squares (each square a
//!   number 0-27), minus `C(4 * lead, men)`: the sets whose highest square
//!   lies on the lead row are exactly the colex ranks in
//!   `[C(4 lead, m), C(4 lead + 4, m))`.
//! * `white_rank`: the same for White's men in White's frame, but over the
//!   squares of rows `0..=lead` not taken by a black man, renumbered
//!   densely; `men_offset` is the prefix sum of the number of white sets
//!   for each black set, so the men part has no gaps.
//! * `bk_rank`: colex rank of the black kings among the squares free of
//!   men (renumbered densely), `wk_rank` of the white kings among the
//!   squares still free; `WK = C(32 - men - bk, wk)`,
//!   `KINGS = C(32 - men, bk) * WK`.
//!
//! Every index in `0..size` is a legal position of the table and every
//! position of the table has one index: the index is gap-free. Beside it,
//! the *padded* index ([`TableIndex::padded_index`]) gives every black men
//! set as many white sets as the widest one has, so that it needs no table
//! read; [`TableIndex::men_rows`] maps one onto the other.

use crate::board::{Color, Position};
use std::fmt;

/// Largest number of pieces the slice identifiers are laid out for.
pub const MAX_PIECES: u32 = 8;

const fn binomials() -> [[u64; 33]; 33] {
    let mut t = [[0u64; 33]; 33];
    let mut n = 0;
    while n < 33 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
}

static BINOM: [[u64; 33]; 33] = binomials();

/// The binomial coefficient `C(n, k)` for `n <= 32` (0 when `k > n`).
#[inline(always)]
pub fn binom(n: u32, k: u32) -> u64 {
    if k > n {
        0
    } else {
        BINOM[n as usize][k as usize]
    }
}

/// Rows `0..r` (bits `0..4r`).
#[inline(always)]
pub(crate) const fn rows_below(r: u32) -> u32 {
    if r >= 8 {
        u32::MAX
    } else {
        (1u32 << (4 * r)) - 1
    }
}

/// `BINOM_ROWS[n][i]` = C(n, i) for n <= 32; row 33 is all zeros (the
/// "no element" row of the branch-free ranks).
static BINOM_ROWS: [[u32; 8]; 34] = binom_rows();

const fn binom_rows() -> [[u32; 8]; 34] {
    let mut t = [[0u32; 8]; 34];
    let mut n = 0;
    while n < 33 {
        let mut k = 0;
        while k < 8 {
            t[n][k] = BINOM[n][k] as u32;
            k += 1;
        }
        n += 1;
    }
    t
}

/// Colex rank of the set bits of `set`, each bit's number being the count
/// of `universe` bits below it (`set` must be a subset of `universe`).
///
/// The first two steps have no data-dependent branch (a step past the
/// last element adds from row 33, all zeros): probes of unrelated
/// positions meet sets of every size, and a loop's exit would mispredict
/// at each. A loop finishes sets of more than two elements (two steps
/// before the loop measured faster than one, three or more: the extra
/// steps cost more on small sets than the mispredictions they save).
#[inline(always)]
pub(crate) fn colex_rank_in(set: u32, universe: u32) -> u64 {
    let mut r = 0u64;
    let mut s = set;
    // `i` is the binomial's lower term, not a walk over `BINOM_ROWS`.
    #[allow(clippy::needless_range_loop)]
    for i in 1..3 {
        let low = s & s.wrapping_neg();
        let pos = (universe & low.wrapping_sub(1)).count_ones();
        let row = if low == 0 { 33 } else { pos as usize };
        r += BINOM_ROWS[row][i] as u64;
        s &= s.wrapping_sub(1);
    }
    let mut i = 3;
    while s != 0 {
        let sq = s.trailing_zeros();
        s &= s - 1;
        r += binom((universe & ((1u32 << sq) - 1)).count_ones(), i);
        i += 1;
    }
    r
}

/// Colex rank of the set bits of `set` (bit numbers as they are).
#[inline(always)]
fn colex_rank(set: u32) -> u64 {
    colex_rank_in(set, u32::MAX)
}

/// The `k`-subset of `0..32` with colex rank `r`, as dense positions
/// (bitboard of positions).
#[inline]
fn colex_unrank_search(mut r: u64, k: u32) -> u32 {
    let mut set = 0u32;
    let mut hi = 32u32; // exclusive upper bound for the next element
    for i in (1..=k).rev() {
        // Largest c < hi with C(c, i) <= r, by binary search in [i - 1, hi).
        let mut lo = i - 1;
        let mut h = hi;
        while h - lo > 1 {
            let mid = (lo + h) / 2;
            if binom(mid, i) <= r {
                lo = mid;
            } else {
                h = mid;
            }
        }
        r -= binom(lo, i);
        set |= 1 << lo;
        hi = lo;
    }
    set
}

/// `k`-subsets of `0..32` in colex order (that is, in increasing order of
/// their bitmasks), for `k` = 1 to 4.
fn unrank_tables() -> &'static [Vec<u32>; 5] {
    static T: std::sync::OnceLock<[Vec<u32>; 5]> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        let mut t: [Vec<u32>; 5] = Default::default();
        for (k, v) in t.iter_mut().enumerate() {
            let n = binom(32, k as u32) as usize;
            v.reserve(n);
            let mut x: u64 = (1u64 << k) - 1;
            for _ in 0..n {
                v.push(x as u32);
                x = next_combination(x);
            }
        }
        t
    })
}

/// The next larger integer with the same number of set bits (Gosper).
#[inline(always)]
pub(crate) fn next_combination(x: u64) -> u64 {
    if x == 0 {
        return u64::MAX;
    }
    let c = x & x.wrapping_neg();
    let r = x + c;
    (((r ^ x) >> 2) / c) | r
}

/// The `k`-subset of `0..32` with colex rank `r`, as dense positions
/// (bitboard of positions).
#[inline]
pub(crate) fn colex_unrank(r: u64, k: u32) -> u32 {
    if k == 0 {
        0
    } else if k <= 4 {
        unrank_tables()[k as usize][r as usize]
    } else {
        colex_unrank_search(r, k)
    }
}

const fn select_table() -> [[u8; 8]; 256] {
    let mut t = [[0u8; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut n = 0;
        let mut bit = 0;
        while bit < 8 {
            if b & (1 << bit) != 0 {
                t[b][n] = bit as u8;
                n += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    t
}

/// `SELECT_IN_BYTE[b][n]`: bit number of the `n`-th set bit of `b`.
static SELECT_IN_BYTE: [[u8; 8]; 256] = select_table();

/// Bit number of the `n`-th (from 0) set bit of `mask` (which has more
/// than `n` set bits).
#[inline(always)]
fn select_nth(mask: u32, mut n: u32) -> u32 {
    let mut shift = 0;
    loop {
        let byte = (mask >> shift) & 0xFF;
        let c = byte.count_ones();
        if n < c || shift == 24 {
            return shift + SELECT_IN_BYTE[byte as usize][(n & 7) as usize] as u32;
        }
        n -= c;
        shift += 8;
    }
}

/// The squares of `universe` at the dense positions in `positions`.
#[inline]
pub(crate) fn select_positions(positions: u32, universe: u32) -> u32 {
    let mut out = 0;
    let mut p = positions;
    while p != 0 {
        let n = p.trailing_zeros();
        p &= p - 1;
        out |= 1 << select_nth(universe, n);
    }
    out
}

/// One side's material in a table: men, kings, and the rank (0-6, own
/// frame) of its most advanced man (0 when it has no men).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Material {
    /// Number of men.
    pub men: u8,
    /// Number of kings.
    pub kings: u8,
    /// Rank of the leading man in the side's own frame (0 without men).
    pub lead: u8,
}

impl Material {
    /// The side described by its men (own frame) and number of kings.
    #[inline(always)]
    pub fn of(men_own: u32, kings: u32) -> Material {
        Material {
            men: men_own.count_ones() as u8,
            kings: kings as u8,
            lead: lead_rank(men_own) as u8,
        }
    }

    /// [`Material::of`] for men given in the OTHER frame (bit-reversed from
    /// the own one), without reversing them: the lead rank comes from the
    /// lowest man instead of the highest.
    #[inline(always)]
    pub fn of_reversed(men_other_frame: u32, kings: u32) -> Material {
        let lead = if men_other_frame == 0 {
            0
        } else {
            (31 - men_other_frame.trailing_zeros()) / 4
        };
        Material {
            men: men_other_frame.count_ones() as u8,
            kings: kings as u8,
            lead: lead as u8,
        }
    }

    /// Number of pieces.
    pub const fn pieces(&self) -> u32 {
        self.men as u32 + self.kings as u32
    }

    /// Whether the side can exist: at least one piece, the men fit in the
    /// rows up to the lead, the lead is 0 without men.
    pub const fn is_valid(&self) -> bool {
        let m = self.men as u32;
        self.pieces() >= 1
            && self.lead <= 6
            && if m == 0 {
                self.lead == 0
            } else {
                4 * (self.lead as u32 + 1) >= m
            }
    }

    /// Dense identifier `< 448` for sides with at most 7 men and 7 kings.
    #[inline(always)]
    pub const fn id(&self) -> usize {
        (self.men as usize * 8 + self.kings as usize) * 7 + self.lead as usize
    }

    /// Dense number `< SIDE_SLOTS` of a valid side of at most
    /// `MAX_PIECES - 1` pieces (what a table of at most `MAX_PIECES`
    /// pieces has); `None` for any other.
    #[inline(always)]
    pub fn slot(&self) -> Option<usize> {
        match SIDE_SLOT.get(self.id()).copied() {
            Some(s) if s != NO_SLOT => Some(s as usize),
            _ => None,
        }
    }

    /// Text form: `2m1k@5` (men, kings, lead rank when there are men).
    pub fn name(&self) -> String {
        if self.men > 0 {
            format!("{}m{}k@{}", self.men, self.kings, self.lead)
        } else {
            format!("{}m{}k", self.men, self.kings)
        }
    }
}

/// [`SIDE_SLOT`] entry of a side without a slot.
const NO_SLOT: u16 = u16::MAX;

/// `SIDE_SLOT[Material::id()]`: the side's [`Material::slot`], or [`NO_SLOT`].
static SIDE_SLOT: [u16; 448] = side_slots().0;

/// Number of [`Material::slot`]s.
pub const SIDE_SLOTS: usize = side_slots().1;

/// Numbers the valid sides of at most `MAX_PIECES - 1` pieces in the
/// order of their ids.
const fn side_slots() -> ([u16; 448], usize) {
    let mut t = [NO_SLOT; 448];
    let mut n = 0;
    let mut men = 0;
    while men < 8 {
        let mut kings = 0;
        while kings < 8 {
            let mut lead = 0;
            while lead < 7 {
                let side = Material { men, kings, lead };
                if side.is_valid() && side.pieces() < MAX_PIECES {
                    t[side.id()] = n as u16;
                    n += 1;
                }
                lead += 1;
            }
            kings += 1;
        }
        men += 1;
    }
    (t, n)
}

/// Rank of the most advanced man of `men_own` (own frame), 0 without men.
#[inline(always)]
pub fn lead_rank(men_own: u32) -> u32 {
    if men_own == 0 {
        0
    } else {
        (31 - men_own.leading_zeros()) / 4
    }
}

/// A table: the positions with Black to move, Black's material `black`
/// and White's material `white`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TableKey {
    /// Black's side (the side to move).
    pub black: Material,
    /// White's side.
    pub white: Material,
}

impl TableKey {
    /// The table of a position with Black to move.
    #[inline(always)]
    pub fn of(pos: &Position) -> TableKey {
        debug_assert_eq!(pos.side_to_move(), Color::Black);
        let (b, w, k, _) = pos.parts();
        TableKey {
            black: Material::of(b & !k, (b & k).count_ones()),
            white: Material::of_reversed(w & !k, (w & k).count_ones()),
        }
    }

    /// The table with the colours exchanged.
    pub const fn mirrored(&self) -> TableKey {
        TableKey {
            black: self.white,
            white: self.black,
        }
    }

    /// Whether this table is the first of its pair (the one the file is
    /// named after): Black's side is not smaller than White's.
    pub fn is_canonical(&self) -> bool {
        self.black >= self.white
    }

    /// Number of pieces.
    pub const fn pieces(&self) -> u32 {
        self.black.pieces() + self.white.pieces()
    }

    /// Dense identifier `< SIDE_SLOTS * SIDE_SLOTS` of a table of at most
    /// [`MAX_PIECES`] pieces with valid sides ([`Material::slot`]); `None`
    /// for any other: a lookup array indexed by it takes 152 KB (a tenth
    /// of one indexed by both sides' [`Material::id`]s) and stays in the caches.
    #[inline(always)]
    pub fn slot_id(&self) -> Option<usize> {
        Some(self.black.slot()? * SIDE_SLOTS + self.white.slot()?)
    }

    /// Text form, e.g. `2m1k@5-1m0k@3`.
    pub fn name(&self) -> String {
        format!("{}-{}", self.black.name(), self.white.name())
    }
}

impl fmt::Display for TableKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// What the index of a position needs of its table besides the men
/// offsets: a few words, copied out of [`TableIndex`] by probes that keep
/// them in a compact array of their own ([`TableIndex::shape`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexShape {
    /// `C(4 * lead, men)` for Black: subtracted from the colex rank.
    black_base: u32,
    /// White's men.
    white_men: u32,
    /// Squares White's men may use (own frame, rows up to its lead).
    white_region: u32,
    /// Squares of the rows below White's lead (own frame).
    white_below: u32,
    /// Placements of the white kings for one black-king placement.
    white_kings: u32,
    /// Placements of the kings for one men placement.
    kings: u32,
    /// Row width of the padded index ([`TableIndex::padded_index`]).
    widest: u32,
}

impl IndexShape {
    /// The index parts of `pos` (see [`TableIndex::index_parts`]).
    #[inline(always)]
    pub fn parts(&self, pos: &Position) -> IndexParts {
        let (b, w, k, _) = pos.parts();
        let black_men = b & !k;
        let white_men = w & !k;
        let black_rank = colex_rank(black_men) - self.black_base as u64;
        // Both sets of men into White's frame with one 64-bit reversal:
        // the high half is White's men, the low half Black's.
        let reversed = (((black_men as u64) << 32) | white_men as u64).reverse_bits();
        let (white_own, black_in_white) = ((reversed >> 32) as u32, reversed as u32);
        let avail = self.white_region & !black_in_white;
        // Without men, White has one set, rank 0 (C(n, 0) = 1 is not
        // subtracted: a mask, not a branch on the table).
        let below = binom((avail & self.white_below).count_ones(), self.white_men);
        let white_rank = colex_rank_in(white_own, avail)
            - (below & ((self.white_men != 0) as u64).wrapping_neg());
        let free = !(black_men | white_men);
        let bk_rank = colex_rank_in(b & k, free);
        let wk_rank = colex_rank_in(w & k, free & !(b & k));
        IndexParts {
            black_rank,
            white_rank,
            kings: bk_rank * self.white_kings as u64 + wk_rank,
        }
    }

    /// The padded index of `parts` (see [`TableIndex::padded_index`]).
    #[inline(always)]
    pub fn padded_index(&self, parts: &IndexParts) -> u64 {
        (parts.black_rank * self.widest as u64 + parts.white_rank) * self.kings as u64 + parts.kings
    }
}

/// The index of one table: position <-> number in `0..size()`.
///
/// In declaration order (`repr(C)`): what [`TableIndex::index`] reads
/// comes first, in one cache line.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct TableIndex {
    /// `men_offset[r]`: index of the first men placement whose black set
    /// has rank `r`; one more entry holding the number of men placements.
    men_offset: Vec<u64>,
    /// `C(4 * lead, men)` for Black: subtracted from the colex rank.
    black_base: u64,
    /// Placements of the kings for one men placement.
    kings: u64,
    /// Placements of the white kings for one black-king placement.
    white_kings: u64,
    /// The most white men sets any black men set has: the row width of
    /// the padded index ([`TableIndex::padded_index`]).
    widest: u64,
    key: TableKey,
    /// The same words as `u32`s, for [`TableIndex::shape`].
    shape: IndexShape,
    /// Black men of each black rank.
    black_sets: Vec<u32>,
    size: u64,
}

/// A position's index before the one table read it needs (see
/// [`TableIndex::index_parts`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexParts {
    /// Rank of the black men set among the table's black sets.
    pub black_rank: u64,
    /// Rank of the white men set given the black one.
    pub white_rank: u64,
    /// Rank of the kings' placement given the men.
    pub kings: u64,
}

/// Rows a side's men may use in its own frame given its lead: rows
/// `0..=lead`.
#[inline(always)]
fn men_region(side: Material) -> u32 {
    rows_below(side.lead as u32 + 1)
}

impl TableIndex {
    /// Builds the index of `key` (which must have valid sides). Costs one
    /// pass over the black men sets.
    pub fn new(key: TableKey) -> TableIndex {
        let b = key.black;
        let w = key.white;
        let bm = b.men as u32;
        let wm = w.men as u32;
        let (black_base, black_sets) = if bm == 0 {
            (0, 1)
        } else {
            let lo = binom(4 * b.lead as u32, bm);
            (lo, binom(4 * b.lead as u32 + 4, bm) - lo)
        };
        let mut men_offset = Vec::with_capacity(black_sets as usize + 1);
        let mut sets = Vec::with_capacity(black_sets as usize);
        let mut total = 0u64;
        let mut widest = 0u64;
        for r in 0..black_sets {
            men_offset.push(total);
            let black_men = if bm == 0 {
                0
            } else {
                colex_unrank(r + black_base, bm)
            };
            sets.push(black_men);
            let n = white_sets(black_men, w);
            widest = widest.max(n);
            total += n;
        }
        men_offset.push(total);
        let men = bm + wm;
        let white_kings = binom(32 - men - b.kings as u32, w.kings as u32);
        let kings = binom(32 - men, b.kings as u32) * white_kings;
        // Every count fits 32 bits up to MAX_PIECES pieces (the most king
        // placements, 4 v 4 kings, are 736,281,000).
        let word = |x: u64| u32::try_from(x).expect("a table of at most MAX_PIECES pieces");
        let shape = IndexShape {
            black_base: word(black_base),
            white_men: wm,
            white_region: men_region(w),
            white_below: rows_below(w.lead as u32),
            white_kings: word(white_kings),
            kings: word(kings),
            widest: word(widest),
        };
        TableIndex {
            key,
            shape,
            men_offset,
            black_sets: sets,
            black_base,
            kings,
            white_kings,
            widest,
            size: total * kings,
        }
    }

    /// The index of a position in the PADDED layout: every black men set
    /// gets the same number of white men sets, the most any has, so the
    /// index needs no table read, at the price of unused places (a few
    /// percent more than [`TableIndex::size`]; docs/measurements.md).
    /// [`TableIndex::padded_size`] bounds it; [`TableIndex::men_rows`]
    /// maps the gap-free index onto it.
    #[inline(always)]
    pub fn padded_index(&self, parts: &IndexParts) -> u64 {
        self.shape.padded_index(parts)
    }

    /// One more than the largest [`TableIndex::padded_index`].
    pub fn padded_size(&self) -> u64 {
        self.black_sets.len() as u64 * self.widest * self.kings
    }

    /// For each black men set in rank order: the range of its positions
    /// in the gap-free index and where they start in the padded one
    /// ([`TableIndex::padded_index`]), in increasing order of both.
    pub fn men_rows(&self) -> impl Iterator<Item = (std::ops::Range<u64>, u64)> + '_ {
        let row = self.widest * self.kings;
        self.men_offset
            .windows(2)
            .enumerate()
            .map(move |(r, w)| (w[0] * self.kings..w[1] * self.kings, r as u64 * row))
    }

    /// The table.
    pub fn key(&self) -> TableKey {
        self.key
    }

    /// Number of positions (every index below it is a position).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The index of `pos`, which must have Black to move and belong to this
    /// table ([`TableKey::of`]).
    #[inline(always)]
    pub fn index(&self, pos: &Position) -> u64 {
        let parts = self.index_parts(pos);
        self.index_from(&parts, self.men_offset(&parts))
    }

    /// The index of `pos` in three steps, for probes that interleave them
    /// over many positions: [`TableIndex::index_parts`] (arithmetic only),
    /// [`TableIndex::men_offset`] (one table read), then
    /// [`TableIndex::index_from`].
    #[inline(always)]
    pub fn index_parts(&self, pos: &Position) -> IndexParts {
        debug_assert_eq!(TableKey::of(pos), self.key);
        self.shape.parts(pos)
    }

    /// What [`TableIndex::index_parts`] and [`TableIndex::padded_index`]
    /// read of the table.
    pub fn shape(&self) -> IndexShape {
        self.shape
    }

    /// The first men placement of the black men set of `parts`.
    #[inline(always)]
    pub fn men_offset(&self, parts: &IndexParts) -> u64 {
        self.men_offset[parts.black_rank as usize]
    }

    /// The index from its parts and [`TableIndex::men_offset`].
    #[inline(always)]
    pub fn index_from(&self, parts: &IndexParts, men_offset: u64) -> u64 {
        (men_offset + parts.white_rank) * self.kings + parts.kings
    }

    /// Calls `f(index, position)` for every index in `range` in
    /// increasing order: the same as [`TableIndex::position`] on each, but
    /// the kings advance incrementally (next combination) instead of being
    /// unranked each time.
    pub fn for_each_position(&self, range: std::ops::Range<u64>, f: impl FnMut(u64, Position)) {
        self.for_each_in_king_order(range, false, f)
    }

    /// [`TableIndex::for_each_position`] over the same men placements
    /// with the kings' part of the index ranked White first when
    /// `white_first` (the white kings' placement among the squares
    /// without men, then the black kings' among the squares left), as a
    /// build may hold them (`build_order`).
    pub(crate) fn for_each_in_king_order(
        &self,
        range: std::ops::Range<u64>,
        white_first: bool,
        mut f: impl FnMut(u64, Position),
    ) {
        let (start, end) = (range.start, range.end.min(self.size));
        let (nbk, nwk) = (self.key.black.kings as u32, self.key.white.kings as u32);
        let (major_kings, minor_kings) = if white_first { (nwk, nbk) } else { (nbk, nwk) };
        let men = self.key.black.men as u32 + self.key.white.men as u32;
        let minor = self.kings / binom(32 - men, major_kings);
        let mut idx = start;
        while idx < end {
            let (black_men, white_men) = self.men_sets(idx / self.kings);
            let free = !(black_men | white_men);
            let free_squares = squares_of(free);
            let rank = idx % self.kings;
            let mut major_dense = colex_unrank(rank / minor, major_kings) as u64;
            let mut minor_rank = rank % minor;
            let major_end = 1u64 << free.count_ones();
            // One men placement: every remaining king placement.
            while major_dense < major_end || major_kings == 0 {
                let major = map_dense(major_dense as u32, &free_squares);
                let free2 = free & !major;
                let free2_squares = squares_of(free2);
                let minor_end = 1u64 << free2.count_ones();
                let mut minor_dense = colex_unrank(minor_rank, minor_kings) as u64;
                while minor_dense < minor_end || minor_kings == 0 {
                    let minor = map_dense(minor_dense as u32, &free2_squares);
                    let (black_kings, white_kings) = if white_first {
                        (minor, major)
                    } else {
                        (major, minor)
                    };
                    f(
                        idx,
                        Position::from_bitboards_unchecked(
                            black_men | black_kings,
                            white_men | white_kings,
                            black_kings | white_kings,
                            Color::Black,
                        ),
                    );
                    idx += 1;
                    if idx == end {
                        return;
                    }
                    if minor_kings == 0 {
                        break;
                    }
                    minor_dense = next_combination(minor_dense);
                }
                minor_rank = 0;
                if major_kings == 0 {
                    break;
                }
                major_dense = next_combination(major_dense);
            }
        }
    }

    /// The men placement number of `pos` (Black to move, in this
    /// table): its index divided by [`TableIndex::kings_per_men`].
    #[inline(always)]
    pub(crate) fn men_number(&self, pos: &Position) -> u64 {
        let parts = self.index_parts(pos);
        self.men_offset(&parts) + parts.white_rank
    }

    /// Placements of the kings for one men placement.
    pub(crate) fn kings_per_men(&self) -> u64 {
        self.kings
    }

    /// The black and the white men of men placement `men_idx`.
    pub(crate) fn men_sets(&self, men_idx: u64) -> (u32, u32) {
        let black_rank = self.men_offset.partition_point(|&o| o <= men_idx) - 1;
        let white_rank = men_idx - self.men_offset[black_rank];
        let w = self.key.white;
        let black_men = self.black_sets[black_rank];
        let avail = white_universe(black_men, w);
        let white_men = if w.men == 0 {
            0
        } else {
            let base = binom(
                (avail & rows_below(w.lead as u32)).count_ones(),
                w.men as u32,
            );
            select_positions(colex_unrank(white_rank + base, w.men as u32), avail).reverse_bits()
        };
        (black_men, white_men)
    }

    /// The position with index `idx < size()` (Black to move).
    pub fn position(&self, idx: u64) -> Position {
        debug_assert!(idx < self.size);
        let men_idx = idx / self.kings;
        let kings_idx = idx % self.kings;
        let (black_men, white_men) = self.men_sets(men_idx);
        let b = self.key.black;
        let w = self.key.white;
        let free = !(black_men | white_men);
        let bk_rank = kings_idx / self.white_kings;
        let wk_rank = kings_idx % self.white_kings;
        let black_kings = select_positions(colex_unrank(bk_rank, b.kings as u32), free);
        let white_kings =
            select_positions(colex_unrank(wk_rank, w.kings as u32), free & !black_kings);
        Position::from_bitboards_unchecked(
            black_men | black_kings,
            white_men | white_kings,
            black_kings | white_kings,
            Color::Black,
        )
    }
}

/// The squares of `set`, lowest first.
fn squares_of(set: u32) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (i, sq) in crate::square::Squares(set).enumerate() {
        out[i] = sq.index();
    }
    out
}

/// The squares `squares[p]` for each dense position `p` set in `dense`.
#[inline(always)]
fn map_dense(dense: u32, squares: &[u8; 32]) -> u32 {
    let mut out = 0;
    let mut d = dense;
    while d != 0 {
        out |= 1 << squares[d.trailing_zeros() as usize];
        d &= d - 1;
    }
    out
}

/// Squares (White's frame) available to White's men given Black's men:
/// rows up to White's lead, minus the squares of black men.
#[inline(always)]
fn white_universe(black_men: u32, white: Material) -> u32 {
    men_region(white) & !black_men.reverse_bits()
}

/// Number of white men sets with the lead of `white` given Black's men.
fn white_sets(black_men: u32, white: Material) -> u64 {
    let wm = white.men as u32;
    if wm == 0 {
        return 1;
    }
    let avail = white_universe(black_men, white);
    let le = avail.count_ones();
    let lt = (avail & rows_below(white.lead as u32)).count_ones();
    binom(le, wm) - binom(lt, wm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_side_read_from_the_other_frame_is_the_same_side() {
        // Every set of up to three men on the 28 squares men may hold.
        for a in 0..28u32 {
            for b in a..28 {
                for c in b..28 {
                    let men = (1u32 << a) | (1 << b) | (1 << c);
                    for k in 0..3 {
                        assert_eq!(
                            Material::of_reversed(men.reverse_bits(), k),
                            Material::of(men, k)
                        );
                    }
                }
            }
        }
        assert_eq!(Material::of_reversed(0, 2), Material::of(0, 2));
    }

    #[test]
    fn colex_ranks_of_every_size_match_the_sum_of_binomials() {
        // Sets of 0 to 7 elements in a universe with holes.
        let universe = 0xF7DF_BEFDu32;
        let squares: Vec<u32> = (0..32).filter(|b| universe & (1 << b) != 0).collect();
        let mut rng = crate::rng::XorShift64::new(0x1234_5678_9ABC_DEF0);
        for _ in 0..20_000 {
            let k = rng.below(8) as usize;
            let mut set = 0u32;
            while (set.count_ones() as usize) < k {
                set |= 1 << squares[rng.below(squares.len() as u64) as usize];
            }
            let expected: u64 = squares
                .iter()
                .filter(|&&b| set & (1 << b) != 0)
                .enumerate()
                .map(|(i, &b)| binom((universe & ((1u32 << b) - 1)).count_ones(), i as u32 + 1))
                .sum();
            assert_eq!(colex_rank_in(set, universe), expected, "{set:#x}");
        }
    }

    #[test]
    fn every_table_up_to_the_largest_has_its_own_slot() {
        let mut seen = std::collections::HashSet::new();
        for slice in crate::egdb::slice::all_slices(MAX_PIECES) {
            for key in slice.tables() {
                let id = key.slot_id().unwrap_or_else(|| panic!("{key} has no slot"));
                assert!(id < SIDE_SLOTS * SIDE_SLOTS, "{key}: {id}");
                assert!(seen.insert(id), "{key}: slot {id} taken twice");
            }
        }
        assert_eq!(
            Material {
                men: 0,
                kings: 1,
                lead: 3
            }
            .slot(),
            None,
            "a lead without men is not a side"
        );
    }

    #[test]
    fn binomials_match_pascal() {
        assert_eq!(binom(32, 4), 35960);
        assert_eq!(binom(28, 0), 1);
        assert_eq!(binom(3, 5), 0);
        assert_eq!(binom(32, 16), 601_080_390);
    }

    #[test]
    fn select_finds_the_nth_bit() {
        let m = 0b1011_0000_0000_0001_0100_0000_0010_0110u32;
        let bits: Vec<u32> = (0..32).filter(|b| m & (1 << b) != 0).collect();
        for (n, &b) in bits.iter().enumerate() {
            assert_eq!(select_nth(m, n as u32), b);
        }
        assert_eq!(select_positions(0b101, m), 1 << 1 | 1 << 5);
    }

    #[test]
    fn colex_round_trips() {
        for k in 0..7 {
            for r in (0..binom(32, k)).step_by(97) {
                let s = colex_unrank(r, k);
                assert_eq!(colex_rank(s), r);
                assert_eq!(colex_unrank_search(r, k), s);
            }
        }
        for k in 0..4 {
            for r in 0..binom(10, k) {
                let s = colex_unrank(r, k);
                assert_eq!(colex_rank(s), r);
                assert!(s < 1 << 10);
            }
        }
    }
}
