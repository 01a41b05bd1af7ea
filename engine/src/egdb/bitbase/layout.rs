//! Where the bitbase builder keeps a slice's positions: one 32-bit word
//! per placement of every piece but one (a *context*), the bits of the
//! word standing for the squares of that one piece (the *set piece*).
//!
//! The board is in the absolute frame of the slice's canonical table
//! (Black holds the canonical table's Black side); the side to move is a
//! separate plane, so table 0 of the file is Black to move and table 1 is
//! the colour-reversed image of White to move.
//!
//! A context is four sets, one per kind (black men, black kings, white
//! men, white kings), the set piece's kind holding one piece fewer. Each
//! set is ranked on its own (colex over the squares, within the rows its
//! lead allows), and the context number is the mixed-radix number of the
//! four ranks, so a move of one piece changes one digit. Sets of two
//! kinds may overlap: such contexts are invalid and hold nothing. The set
//! piece is a labelled piece: a position with `n` pieces of the set
//! piece's kind has `n` places (one per choice of the set piece), all
//! holding the same value; the *canonical* place has the set piece on the
//! lowest square of its kind.

use crate::board::{Color, Position};
use crate::egdb::index::{binom, TableKey};
use crate::egdb::slice::SliceKey;

/// The kinds of pieces, in the order of [`Layout`]'s arrays.
pub const BLACK_MEN: usize = 0;
/// Black kings.
pub const BLACK_KINGS: usize = 1;
/// White men.
pub const WHITE_MEN: usize = 2;
/// White kings.
pub const WHITE_KINGS: usize = 3;

/// The piece sets of one context, as bitboards of the absolute frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Context {
    /// One bitboard per kind ([`BLACK_MEN`], ...).
    pub sets: [u32; 4],
}

impl Context {
    /// Squares held by any piece of the context.
    #[inline(always)]
    pub fn occupied(&self) -> u32 {
        self.sets[0] | self.sets[1] | self.sets[2] | self.sets[3]
    }

    /// Whether no two sets share a square.
    #[inline(always)]
    pub fn is_disjoint(&self) -> bool {
        let [a, b, c, d] = self.sets;
        (a & b) | (a & c) | (a & d) | (b & c) | (b & d) | (c & d) == 0
    }
}

/// One kind's digit of the context number.
#[derive(Clone, Debug)]
struct Digit {
    /// Pieces of this kind in the context.
    count: u32,
    /// Colex rank of the first allowed set (subtracted).
    base: u64,
    /// Number of allowed sets.
    radix: u64,
    /// Weight of the digit in the context number.
    stride: u64,
    /// Whether the sets are ranked in White's frame (bit-reversed).
    reversed: bool,
    /// The allowed sets, by digit (absolute frame).
    sets: Vec<u32>,
}

impl Digit {
    /// The digit of `set` (absolute frame), if it is an allowed set.
    #[inline(always)]
    fn of(&self, set: u32) -> Option<u64> {
        let own = if self.reversed {
            set.reverse_bits()
        } else {
            set
        };
        let r = colex(own).checked_sub(self.base)?;
        (r < self.radix).then_some(r)
    }
}

/// The colex rank of a set of squares.
#[inline(always)]
pub fn colex(mut set: u32) -> u64 {
    let mut r = 0;
    let mut i = 1;
    while set != 0 {
        r += binom(set.trailing_zeros(), i);
        set &= set - 1;
        i += 1;
    }
    r
}

/// The layout of one slice: its contexts and the set piece.
#[derive(Clone, Debug)]
pub struct Layout {
    slice: SliceKey,
    key: TableKey,
    /// The set piece's kind ([`BLACK_MEN`], ...).
    set_kind: usize,
    digits: [Digit; 4],
    contexts: u64,
    /// Rows Black's men may stand on (absolute), and the lead row.
    black_rows: u32,
    black_lead_row: u32,
    /// The same for White's men (absolute frame).
    white_rows: u32,
    white_lead_row: u32,
}

/// Squares of rows `0..r` of the absolute frame.
const fn rows_up_to(r: u32) -> u32 {
    if r >= 8 {
        u32::MAX
    } else {
        (1u32 << (4 * r)) - 1
    }
}

impl Layout {
    /// The layout of `slice`: the set piece is of the king kind with the
    /// fewest pieces, else of the men kind with the fewest.
    pub fn new(slice: SliceKey) -> Layout {
        let key = slice.canonical();
        let counts = [
            key.black.men as u32,
            key.black.kings as u32,
            key.white.men as u32,
            key.white.kings as u32,
        ];
        let pick = |kinds: [usize; 2]| {
            kinds
                .into_iter()
                .filter(|&k| counts[k] > 0)
                .min_by_key(|&k| counts[k])
        };
        let set_kind = pick([WHITE_KINGS, BLACK_KINGS])
            .or_else(|| pick([WHITE_MEN, BLACK_MEN]))
            .expect("a slice has pieces");
        let lb = key.black.lead as u32;
        let lw = key.white.lead as u32;
        let black_rows = rows_up_to(lb + 1);
        let black_lead_row = 0xF << (4 * lb);
        let white_rows = !rows_up_to(7 - lw);
        let white_lead_row = 0xF << (4 * (7 - lw));
        let mut digits: [Digit; 4] = std::array::from_fn(|kind| {
            let count = counts[kind] - u32::from(kind == set_kind);
            let men = kind == BLACK_MEN || kind == WHITE_MEN;
            let (base, radix, universe_bits) = if !men || count == 0 {
                if men {
                    (0, 1, 0)
                } else {
                    (0, binom(32, count), 32)
                }
            } else {
                let lead = if kind == BLACK_MEN { lb } else { lw };
                if kind == set_kind {
                    // The set piece may hold the lead: the others only
                    // need to stay within the lead's rows.
                    (0, binom(4 * lead + 4, count), 4 * lead + 4)
                } else {
                    let lo = binom(4 * lead, count);
                    (lo, binom(4 * lead + 4, count) - lo, 4 * lead + 4)
                }
            };
            Digit {
                count,
                base,
                radix,
                stride: 0,
                reversed: kind == WHITE_MEN,
                sets: enumerate_sets(count, universe_bits, base, radix, kind == WHITE_MEN),
            }
        });
        // The black kings vary fastest, then the white kings, the black
        // men and the white men.
        let mut stride = 1;
        for kind in [WHITE_KINGS, BLACK_KINGS, WHITE_MEN, BLACK_MEN] {
            digits[kind].stride = stride;
            stride *= digits[kind].radix;
        }
        Layout {
            slice,
            key,
            set_kind,
            digits,
            contexts: stride,
            black_rows,
            black_lead_row,
            white_rows,
            white_lead_row,
        }
    }

    /// The slice.
    pub fn slice(&self) -> SliceKey {
        self.slice
    }

    /// The canonical table (its Black side is Black on the board).
    pub fn key(&self) -> TableKey {
        self.key
    }

    /// The set piece's kind.
    pub fn set_kind(&self) -> usize {
        self.set_kind
    }

    /// The set piece's colour.
    pub fn set_colour(&self) -> Color {
        if self.set_kind <= BLACK_KINGS {
            Color::Black
        } else {
            Color::White
        }
    }

    /// Whether the set piece is a king.
    pub fn set_is_king(&self) -> bool {
        self.set_kind == BLACK_KINGS || self.set_kind == WHITE_KINGS
    }

    /// Number of contexts (valid or not).
    pub fn contexts(&self) -> u64 {
        self.contexts
    }

    /// The weight of `kind`'s digit in a context number.
    #[inline(always)]
    pub fn stride(&self, kind: usize) -> u64 {
        self.digits[kind].stride
    }

    /// The squares `colour`'s men may stand on in this slice, and the
    /// lead row (absolute frame).
    #[inline(always)]
    pub fn men_rows(&self, colour: Color) -> (u32, u32) {
        match colour {
            Color::Black => (self.black_rows, self.black_lead_row),
            Color::White => (self.white_rows, self.white_lead_row),
        }
    }

    /// The context number `c`'s sets; `None` when two sets overlap.
    #[inline(always)]
    pub fn context(&self, c: u64) -> Option<Context> {
        let mut sets = [0u32; 4];
        for (kind, d) in self.digits.iter().enumerate() {
            sets[kind] = d.sets[((c / d.stride) % d.radix) as usize];
        }
        let ctx = Context { sets };
        ctx.is_disjoint().then_some(ctx)
    }

    /// The digit of `kind` in context number `c`.
    #[inline(always)]
    pub fn digit(&self, c: u64, kind: usize) -> u64 {
        let d = &self.digits[kind];
        (c / d.stride) % d.radix
    }

    /// Context number `c` with `kind`'s set replaced by `set`; `None` when
    /// `set` is not allowed (a man's move that changes the lead).
    #[inline(always)]
    pub fn with_set(&self, c: u64, kind: usize, set: u32) -> Option<u64> {
        let d = &self.digits[kind];
        let new = d.of(set)?;
        let old = (c / d.stride) % d.radix;
        Some(c - old * d.stride + new * d.stride)
    }

    /// The context number of `ctx` (sets of allowed ranks assumed).
    pub fn number(&self, ctx: &Context) -> Option<u64> {
        let mut c = 0;
        for (kind, d) in self.digits.iter().enumerate() {
            if ctx.sets[kind].count_ones() != d.count {
                return None;
            }
            c += d.of(ctx.sets[kind])? * d.stride;
        }
        Some(c)
    }

    /// The squares the set piece may stand on in `ctx`: free squares,
    /// and for a man the rows of its lead (the lead row itself when no
    /// other man of its colour holds it).
    #[inline(always)]
    pub fn set_squares(&self, ctx: &Context) -> u32 {
        let free = !ctx.occupied();
        let colour = match self.set_kind {
            BLACK_MEN => Color::Black,
            WHITE_MEN => Color::White,
            _ => return free,
        };
        let (rows, lead_row) = self.men_rows(colour);
        if ctx.sets[self.set_kind] & lead_row != 0 {
            free & rows
        } else {
            free & lead_row
        }
    }

    /// The squares where the set piece stands on the lowest square of its
    /// kind (the canonical place of a position).
    #[inline(always)]
    pub fn canonical_squares(&self, ctx: &Context) -> u32 {
        let same = ctx.sets[self.set_kind];
        if same == 0 {
            u32::MAX
        } else {
            (same & same.wrapping_neg()) - 1
        }
    }

    /// The position of context `ctx` with the set piece on square `s`
    /// and `side` to move (absolute frame).
    #[inline(always)]
    pub fn position(&self, ctx: &Context, s: u32, side: Color) -> Position {
        let mut sets = ctx.sets;
        sets[self.set_kind] |= 1 << s;
        Position::from_bitboards_unchecked(
            sets[BLACK_MEN] | sets[BLACK_KINGS],
            sets[WHITE_MEN] | sets[WHITE_KINGS],
            sets[BLACK_KINGS] | sets[WHITE_KINGS],
            side,
        )
    }

    /// The canonical place (context number, square) of a board of this
    /// slice (absolute frame: Black holds the canonical Black side).
    #[inline(always)]
    pub fn place(&self, black: u32, white: u32, kings: u32) -> Option<(u64, u32)> {
        let mut sets = [black & !kings, black & kings, white & !kings, white & kings];
        let same = sets[self.set_kind];
        if same == 0 {
            return None;
        }
        let s = same.trailing_zeros();
        sets[self.set_kind] &= same - 1;
        let c = self.number(&Context { sets })?;
        Some((c, s))
    }

    /// The canonical place of the position at context `c` (sets `ctx`)
    /// with the set piece on `s`: only the set piece's kind's digit
    /// changes (the set piece becomes the lowest piece of its kind).
    #[inline(always)]
    pub fn canonical_place(&self, c: u64, ctx: &Context, s: u32) -> (u64, u32) {
        let all = ctx.sets[self.set_kind] | 1 << s;
        let low = all.trailing_zeros();
        if low == s {
            return (c, s);
        }
        let c0 = self
            .with_set(c, self.set_kind, all & (all - 1))
            .expect("the same squares in another order");
        (c0, low)
    }
}

/// The `radix` allowed sets of `count` squares below bit `universe_bits`
/// from colex rank `base` on, in rank order (absolute frame: reversed
/// from White's when `reversed`).
fn enumerate_sets(
    count: u32,
    universe_bits: u32,
    base: u64,
    radix: u64,
    reversed: bool,
) -> Vec<u32> {
    if count == 0 {
        return vec![0];
    }
    // In colex order the sets of a fixed size are the bit patterns of
    // that size in increasing numeric order.
    let mut out = Vec::with_capacity(radix as usize);
    let mut x: u64 = (1u64 << count) - 1;
    let mut rank = 0u64;
    let limit = if universe_bits >= 32 {
        1u64 << 32
    } else {
        1u64 << universe_bits
    };
    while x < limit && (out.len() as u64) < radix {
        if rank >= base {
            let set = x as u32;
            out.push(if reversed { set.reverse_bits() } else { set });
        }
        rank += 1;
        // Gosper's next pattern with the same number of bits.
        let c = x & x.wrapping_neg();
        let r = x + c;
        x = (((r ^ x) >> 2) / c) | r;
    }
    debug_assert_eq!(out.len() as u64, radix);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::egdb::index::TableIndex;

    /// Every position of every table of a few slices has a canonical
    /// place, which gives the position back.
    #[test]
    fn places_round_trip() {
        for name in [
            "1m1k@3-0m2k",
            "2m0k@4-1m1k@2",
            "0m2k-0m2k",
            "2m1k@6-2m0k@5",
            "3m0k@5-1m0k@6",
        ] {
            let slice = SliceKey::parse(name).unwrap();
            let layout = Layout::new(slice);
            for (t, key) in slice.tables().into_iter().enumerate() {
                let index = TableIndex::new(key);
                index.for_each_position(0..index.size(), |_, pos| {
                    let board = if t == 0 { pos } else { pos.flipped() };
                    let (b, w, k, _) = board.parts();
                    let (c, s) = layout.place(b, w, k).expect("a place");
                    let ctx = layout.context(c).expect("a valid context");
                    assert!(
                        layout.set_squares(&ctx) & (1 << s) != 0,
                        "{name}: {s} allowed"
                    );
                    assert!(layout.canonical_squares(&ctx) & (1 << s) != 0);
                    let side = if t == 0 { Color::Black } else { Color::White };
                    assert_eq!(layout.position(&ctx, s, side), board.with_side(side));
                });
            }
        }
    }

    /// Every place of every valid context is a position of the slice.
    #[test]
    fn every_place_is_in_the_slice() {
        for name in ["1m1k@3-0m2k", "2m0k@4-1m1k@2", "2m1k@6-2m0k@5"] {
            let slice = SliceKey::parse(name).unwrap();
            let layout = Layout::new(slice);
            let key = slice.canonical();
            let mut places = 0u64;
            let mut canonical = 0u64;
            for c in 0..layout.contexts() {
                let Some(ctx) = layout.context(c) else {
                    continue;
                };
                let squares = layout.set_squares(&ctx);
                let mut bits = squares;
                while bits != 0 {
                    let s = bits.trailing_zeros();
                    bits &= bits - 1;
                    let pos = layout.position(&ctx, s, Color::Black);
                    assert_eq!(TableKey::of(&pos), key, "{name} context {c} square {s}");
                    places += 1;
                }
                canonical += (squares & layout.canonical_squares(&ctx)).count_ones() as u64;
            }
            assert_eq!(canonical, TableIndex::new(key).size(), "{name}");
            assert!(places >= canonical);
        }
    }
}
