//! The position: three bitboards and the side to move.

use crate::geometry::{ROW_0, ROW_7};
use crate::square::Square;
use std::fmt;
use thiserror::Error;

/// A side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Color {
    /// Moves first, starts on squares 1-12, moves towards 32.
    Black = 0,
    /// Starts on squares 21-32, moves towards 1.
    White = 1,
}

impl Color {
    /// The other side.
    #[inline]
    pub const fn opposite(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// The row on which this side's men are crowned.
    #[inline]
    pub const fn crowning_row(self) -> u32 {
        match self {
            Color::Black => ROW_7,
            Color::White => ROW_0,
        }
    }

    /// `"Black"` or `"White"`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::Black => "Black",
            Color::White => "White",
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A position as given, before it is checked: one bitboard per kind of
/// piece and the side to move. Turn it into a [`Position`] with
/// [`Position::from_setup`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Setup {
    /// Black men.
    pub black_men: u32,
    /// Black kings.
    pub black_kings: u32,
    /// White men.
    pub white_men: u32,
    /// White kings.
    pub white_kings: u32,
    /// Side to move; `None` until given.
    pub side: Option<Color>,
}

/// Why a [`Setup`] is not a legal position.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum PositionError {
    /// Two pieces on one square.
    #[error("two pieces on square {square}")]
    Overlap {
        /// The doubly occupied square.
        square: Square,
    },
    /// A man on the row where it would already have been crowned.
    #[error("{color} man on square {square}, its own crowning row")]
    ManOnCrowningRow {
        /// The man's colour.
        color: Color,
        /// Its square.
        square: Square,
    },
    /// More pieces than a side starts with.
    #[error("{color} has {count} pieces, more than 12")]
    TooManyPieces {
        /// The side.
        color: Color,
        /// Its number of pieces.
        count: u32,
    },
    /// No side to move was given.
    #[error("no side to move")]
    NoSideToMove,
}

/// A legal position: black pieces, white pieces, kings (of either colour),
/// side to move. 16 bytes; copied to make a move.
///
/// Invariants (see [`Position::validity_check`]): black and white do not
/// overlap, kings are a subset of the pieces, no man stands on its own
/// crowning row, at most 12 pieces a side.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(C)]
pub struct Position {
    black: u32,
    white: u32,
    kings: u32,
    side: Color,
}

impl Position {
    /// The starting position: Black on 1-12, White on 21-32, Black to move.
    pub const fn initial() -> Position {
        Position {
            black: 0x0000_0FFF,
            white: 0xFFF0_0000,
            kings: 0,
            side: Color::Black,
        }
    }

    /// Checks a [`Setup`] and makes it a position.
    pub fn from_setup(setup: &Setup) -> Result<Position, PositionError> {
        let boards = [
            setup.black_men,
            setup.black_kings,
            setup.white_men,
            setup.white_kings,
        ];
        let mut seen = 0u32;
        for b in boards {
            let clash = seen & b;
            if clash != 0 {
                return Err(PositionError::Overlap {
                    square: Square::from_bit(clash),
                });
            }
            seen |= b;
        }
        if setup.black_men & ROW_7 != 0 {
            return Err(PositionError::ManOnCrowningRow {
                color: Color::Black,
                square: Square::from_bit(setup.black_men & ROW_7),
            });
        }
        if setup.white_men & ROW_0 != 0 {
            return Err(PositionError::ManOnCrowningRow {
                color: Color::White,
                square: Square::from_bit(setup.white_men & ROW_0),
            });
        }
        let black = setup.black_men | setup.black_kings;
        let white = setup.white_men | setup.white_kings;
        for (color, bb) in [(Color::Black, black), (Color::White, white)] {
            if bb.count_ones() > 12 {
                return Err(PositionError::TooManyPieces {
                    color,
                    count: bb.count_ones(),
                });
            }
        }
        let side = setup.side.ok_or(PositionError::NoSideToMove)?;
        Ok(Position {
            black,
            white,
            kings: setup.black_kings | setup.white_kings,
            side,
        })
    }

    /// Builds a position from raw bitboards without any check. For search
    /// code that has the invariants by construction (database unindexing,
    /// colour mirroring); `debug_assert`s them.
    #[inline]
    pub fn from_bitboards_unchecked(black: u32, white: u32, kings: u32, side: Color) -> Position {
        let p = Position {
            black,
            white,
            kings,
            side,
        };
        debug_assert!(p.validity_check().is_ok(), "invalid position {p:?}");
        p
    }

    /// The position as a [`Setup`].
    pub fn to_setup(&self) -> Setup {
        Setup {
            black_men: self.black & !self.kings,
            black_kings: self.black & self.kings,
            white_men: self.white & !self.kings,
            white_kings: self.white & self.kings,
            side: Some(self.side),
        }
    }

    /// Checks every invariant of the representation.
    pub fn validity_check(&self) -> Result<(), PositionError> {
        Position::from_setup(&self.to_setup()).map(|_| ())
    }

    /// Black pieces (men and kings).
    #[inline]
    pub const fn black(&self) -> u32 {
        self.black
    }
    /// White pieces (men and kings).
    #[inline]
    pub const fn white(&self) -> u32 {
        self.white
    }
    /// Kings of both colours.
    #[inline]
    pub const fn kings(&self) -> u32 {
        self.kings
    }
    /// Side to move.
    #[inline]
    pub const fn side_to_move(&self) -> Color {
        self.side
    }
    /// All pieces of `color`.
    #[inline]
    pub const fn pieces(&self, color: Color) -> u32 {
        match color {
            Color::Black => self.black,
            Color::White => self.white,
        }
    }
    /// Men of `color`.
    #[inline]
    pub const fn men(&self, color: Color) -> u32 {
        self.pieces(color) & !self.kings
    }
    /// Kings of `color`.
    #[inline]
    pub const fn kings_of(&self, color: Color) -> u32 {
        self.pieces(color) & self.kings
    }
    /// Occupied squares.
    #[inline]
    pub const fn occupied(&self) -> u32 {
        self.black | self.white
    }
    /// Empty squares.
    #[inline]
    pub const fn empty(&self) -> u32 {
        !(self.black | self.white)
    }
    /// Number of pieces on the board.
    #[inline]
    pub const fn piece_count(&self) -> u32 {
        (self.black | self.white).count_ones()
    }

    /// The same pieces with the other side to move.
    #[inline]
    pub const fn with_side(&self, side: Color) -> Position {
        Position {
            black: self.black,
            white: self.white,
            kings: self.kings,
            side,
        }
    }

    /// The colour-reversed position: the board turned half a turn and the
    /// colours swapped, so that Black's pieces become White's. Values are
    /// unchanged by this symmetry.
    #[inline]
    pub const fn flipped(&self) -> Position {
        Position {
            black: self.white.reverse_bits(),
            white: self.black.reverse_bits(),
            kings: self.kings.reverse_bits(),
            side: self.side.opposite(),
        }
    }

    /// The position with Black to move that has the same value: itself
    /// when Black is to move, else [`Position::flipped`]. Computed without
    /// a branch on the side (for probes of many unrelated positions, half
    /// of them with White to move, where such a branch mispredicts): one
    /// 64-bit reversal turns both colours' bitboards at once.
    #[inline(always)]
    pub fn black_to_move_view(&self) -> Position {
        let both = (((self.black as u64) << 32) | self.white as u64).reverse_bits();
        let m = ((self.side == Color::White) as u32).wrapping_neg();
        let pick = |keep: u32, turned: u32| (keep & !m) | (turned & m);
        Position {
            black: pick(self.black, (both >> 32) as u32),
            white: pick(self.white, both as u32),
            kings: pick(self.kings, self.kings.reverse_bits()),
            side: Color::Black,
        }
    }

    /// What stands on `sq`: `None` when empty, else its colour and whether
    /// it is a king.
    pub fn piece_at(&self, sq: Square) -> Option<(Color, bool)> {
        let b = sq.bit();
        let king = self.kings & b != 0;
        if self.black & b != 0 {
            Some((Color::Black, king))
        } else if self.white & b != 0 {
            Some((Color::White, king))
        } else {
            None
        }
    }

    /// Raw parts: (black, white, kings, side). Used by hashing, indexing
    /// and storage keys.
    #[inline]
    pub const fn parts(&self) -> (u32, u32, u32, Color) {
        (self.black, self.white, self.kings, self.side)
    }

    /// A text diagram with square numbers, Black at the top. `b`/`w` are
    /// men, `B`/`W` kings; empty dark squares show their number.
    pub fn diagram(&self) -> String {
        let mut out = String::new();
        for row in 0..8u8 {
            out.push_str("  ");
            for file in 0..8u8 {
                let dark = (row % 2 == 0) == (file % 2 == 1);
                if !dark {
                    out.push_str("  . ");
                    continue;
                }
                let sq = Square::from_index(row * 4 + file / 2).expect("row*4+file/2 < 32");
                let cell = match self.piece_at(sq) {
                    None => format!("{:>3} ", sq.number()),
                    Some((Color::Black, false)) => "  b ".to_string(),
                    Some((Color::Black, true)) => "  B ".to_string(),
                    Some((Color::White, false)) => "  w ".to_string(),
                    Some((Color::White, true)) => "  W ".to_string(),
                };
                out.push_str(&cell);
            }
            out.push('\n');
        }
        out.push_str(&format!("  {} to move\n", self.side));
        out
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Position {{ black: {:#010x}, white: {:#010x}, kings: {:#010x}, side: {:?} }}",
            self.black, self.white, self.kings, self.side
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_is_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<Position>(), 16);
    }

    #[test]
    fn setup_errors_name_the_problem() {
        let s = Setup {
            black_men: 1 << 29,
            side: Some(Color::Black),
            ..Setup::default()
        };
        assert_eq!(
            Position::from_setup(&s),
            Err(PositionError::ManOnCrowningRow {
                color: Color::Black,
                square: Square::from_number(30).unwrap()
            })
        );
        let s = Setup {
            black_men: 1,
            white_kings: 1,
            side: Some(Color::Black),
            ..Setup::default()
        };
        assert!(matches!(
            Position::from_setup(&s),
            Err(PositionError::Overlap { .. })
        ));
        let s = Setup {
            black_kings: 0x1FFF,
            side: Some(Color::White),
            ..Setup::default()
        };
        assert!(matches!(
            Position::from_setup(&s),
            Err(PositionError::TooManyPieces { count: 13, .. })
        ));
    }

    #[test]
    fn flip_is_an_involution_and_maps_start_to_itself() {
        let p = Position::initial();
        assert_eq!(p.flipped().flipped(), p);
        assert_eq!(p.flipped().with_side(Color::Black), p);
        assert!(p.validity_check().is_ok());
    }
}
