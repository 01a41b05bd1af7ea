//! A hash map keyed by the full position (12 bytes of bitboards plus the
//! side to move) and the node threshold, never by a hash alone.

use engine::{Position, Value};
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
