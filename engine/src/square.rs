//! Squares of the 32-square playing area, numbered 1-32 as in PDN.

use std::fmt;

/// One of the 32 playable squares. Holds the bit index (0-31); the PDN
/// number is `index + 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square(u8);

impl Square {
    /// The square with bit index `index` (0-31), or `None` when out of range.
    pub const fn from_index(index: u8) -> Option<Square> {
        if index < 32 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The square with PDN number `number` (1-32), or `None` when out of range.
    pub const fn from_number(number: u8) -> Option<Square> {
        if number >= 1 && number <= 32 {
            Some(Square(number - 1))
        } else {
            None
        }
    }

    /// The lowest set bit of a non-zero bitboard as a square.
    #[inline]
    pub fn from_bit(bits: u32) -> Square {
        debug_assert!(bits != 0);
        Square(bits.trailing_zeros() as u8)
    }

    /// Bit index, 0-31.
    #[inline]
    pub const fn index(self) -> u8 {
        self.0
    }

    /// PDN square number, 1-32.
    #[inline]
    pub const fn number(self) -> u8 {
        self.0 + 1
    }

    /// The single-bit bitboard of this square.
    #[inline]
    pub const fn bit(self) -> u32 {
        1u32 << self.0
    }

    /// Board row 0-7 counted from Black's side (squares 1-4 are row 0).
    #[inline]
    pub const fn row(self) -> u8 {
        self.0 / 4
    }

    /// Board file 0-7 from the left of the usual diagram (square 29 is file
    /// 0, square 4 is file 7).
    #[inline]
    pub const fn file(self) -> u8 {
        let c = self.0 % 4;
        if self.row().is_multiple_of(2) {
            2 * c + 1
        } else {
            2 * c
        }
    }

    /// All 32 squares in numbering order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0u8..32).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.number())
    }
}

/// Iterates over the squares of a bitboard, lowest first.
#[derive(Clone, Copy, Debug)]
pub struct Squares(pub u32);

impl Iterator for Squares {
    type Item = Square;
    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            let s = Square::from_bit(self.0);
            self.0 &= self.0 - 1;
            Some(s)
        }
    }
}
