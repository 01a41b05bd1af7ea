//! Zobrist hashing: a 64-bit key per position, updated incrementally by
//! [`update`] when a move is made.

use crate::board::{Color, Position};
use crate::moves::Move;
use crate::square::Squares;

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

const fn build_keys() -> ([[u64; 32]; 4], u64) {
    let mut keys = [[0u64; 32]; 4];
    let mut state = 0x0C4E_C4E2_5EED_2007u64;
    let mut kind = 0;
    while kind < 4 {
        let mut sq = 0;
        while sq < 32 {
            let (s, v) = splitmix(state);
            state = s;
            keys[kind][sq] = v;
            sq += 1;
        }
        kind += 1;
    }
    let (_, side) = splitmix(state);
    (keys, side)
}

const KEYS_AND_SIDE: ([[u64; 32]; 4], u64) = build_keys();
/// Keys per piece kind (0 black man, 1 black king, 2 white man, 3 white
/// king) and square index.
pub const PIECE_KEYS: [[u64; 32]; 4] = KEYS_AND_SIDE.0;
/// Key mixed in when White is to move.
pub const WHITE_TO_MOVE_KEY: u64 = KEYS_AND_SIDE.1;

#[inline(always)]
fn kind(color: Color, king: bool) -> usize {
    (color as usize) * 2 + king as usize
}

/// The Zobrist key of `pos`, computed from scratch.
pub fn hash(pos: &Position) -> u64 {
    let mut h = 0;
    for color in [Color::Black, Color::White] {
        for s in Squares(pos.men(color)) {
            h ^= PIECE_KEYS[kind(color, false)][s.index() as usize];
        }
        for s in Squares(pos.kings_of(color)) {
            h ^= PIECE_KEYS[kind(color, true)][s.index() as usize];
        }
    }
    if pos.side_to_move() == Color::White {
        h ^= WHITE_TO_MOVE_KEY;
    }
    h
}

/// The key after playing `mv` in `before`, given `before`'s key `h`.
#[inline]
pub fn update(before: &Position, h: u64, mv: &Move) -> u64 {
    let side = before.side_to_move();
    let from = mv.from().index() as usize;
    let to = mv.to().index() as usize;
    let was_king = before.kings() & (1 << from) != 0;
    let is_king = was_king || (1u32 << to) & side.crowning_row() != 0;
    let mut h = h ^ WHITE_TO_MOVE_KEY;
    h ^= PIECE_KEYS[kind(side, was_king)][from];
    h ^= PIECE_KEYS[kind(side, is_king)][to];
    let them = side.opposite();
    for s in Squares(mv.captured()) {
        let king = before.kings() & s.bit() != 0;
        h ^= PIECE_KEYS[kind(them, king)][s.index() as usize];
    }
    h
}
