//! A hash map keyed by the full position (12 bytes of bitboards plus the
//! side to move) and the node threshold, never by a hash alone.

use engine::{Move, Position, Square, Value};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Key of a table entry: the position and the mover's threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    /// The full position.
    pub pos: Position,
    /// The mover's threshold ([`Value::Win`] or [`Value::Draw`]).
    pub win: bool,
}

impl Key {
    /// The key of `pos` searched at threshold `t`.
    #[inline]
    pub fn new(pos: Position, t: Value) -> Key {
        Key {
            pos,
            win: t == Value::Win,
        }
    }
}

/// A move or none in the 8 bytes of a move (an `Option<Move>` takes 12):
/// none is a quiet move from a square to itself, which no move is (a
/// king's capture may end where it started, a quiet move never does).
#[derive(Clone, Copy, Debug)]
pub struct MoveSlot(Move);

/// The square of [`MoveSlot::NONE`].
const NONE_SQUARE: Square = match Square::from_index(0) {
    Some(s) => s,
    None => panic!("square 0 exists"),
};

impl MoveSlot {
    /// No move.
    pub const NONE: MoveSlot = MoveSlot(Move::new(NONE_SQUARE, NONE_SQUARE, 0));

    /// The slot holding `m`.
    #[inline]
    pub fn new(m: Option<Move>) -> MoveSlot {
        m.map_or(MoveSlot::NONE, MoveSlot)
    }

    /// The move held, if any.
    #[inline]
    pub fn get(self) -> Option<Move> {
        let m = self.0;
        (m.is_capture() || m.from() != m.to()).then_some(m)
    }
}

/// A fast multiplicative hasher for integer-only keys.
#[derive(Default, Clone, Copy)]
pub struct MixHasher(u64);

impl Hasher for MixHasher {
    #[inline]
    fn finish(&self) -> u64 {
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(26) ^ i).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
}

/// A map keyed by [`Key`].
pub type Table<V> = HashMap<Key, V, BuildHasherDefault<MixHasher>>;

#[cfg(test)]
mod tests {
    use super::*;
    use engine::MoveList;

    #[test]
    fn a_move_slot_holds_every_move_and_none() {
        assert_eq!(MoveSlot::NONE.get(), None);
        assert_eq!(MoveSlot::new(None).get(), None);
        assert_eq!(std::mem::size_of::<MoveSlot>(), std::mem::size_of::<Move>());
        // Every move of a few positions, and a king's capture that ends on
        // its own square (four pieces taken around a loop).
        let mut moves: Vec<Move> = Vec::new();
        let mut pos = Position::initial();
        for _ in 0..20 {
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            let Some(&m) = list.iter().next() else { break };
            moves.extend(list.iter().copied());
            pos = pos.play_unchecked(&m);
        }
        let s = Square::from_number(14).unwrap();
        moves.push(Move::new(
            s,
            s,
            (1 << 9) | (1 << 10) | (1 << 17) | (1 << 18),
        ));
        for m in moves {
            assert_eq!(MoveSlot::new(Some(m)).get(), Some(m), "{m:?}");
        }
    }
}
