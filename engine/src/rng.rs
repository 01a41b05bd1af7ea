//! The one pseudo-random generator of the project: Marsaglia's xorshift64
//! (shifts 13, 7, 17). Deterministic from its seed, so that a sample of
//! positions, an opening choice or a test failure reproduces; not for
//! anything that must be unpredictable.

/// Seed used by [`XorShift64::default`] and in place of a zero seed
/// (which xorshift never leaves): the golden ratio's 64-bit fraction.
pub const DEFAULT_SEED: u64 = 0x9E37_79B9_7F4A_7C15;

/// A xorshift64 generator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XorShift64(u64);

impl Default for XorShift64 {
    fn default() -> Self {
        XorShift64(DEFAULT_SEED)
    }
}

impl XorShift64 {
    /// A generator starting from `seed` ([`DEFAULT_SEED`] for 0).
    pub const fn new(seed: u64) -> XorShift64 {
        XorShift64(if seed == 0 { DEFAULT_SEED } else { seed })
    }

    /// The next number of the sequence (never 0).
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (`n` > 0), by remainder: close enough to
    /// uniform for `n` far below 2^64.
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0, "below(0)");
        self.next_u64() % n
    }

    /// An index into a slice of `len` elements (`len` > 0).
    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sequence_is_marsaglias_and_never_zero() {
        let mut r = XorShift64::new(1);
        // Marsaglia (2003), xorshift64 with (13, 7, 17) from 1.
        assert_eq!(r.next_u64(), 1_082_269_761);
        assert_eq!(XorShift64::new(0), XorShift64::default());
        let mut r = XorShift64::default();
        assert!((0..10_000).all(|_| r.next_u64() != 0));
        assert!((0..1000).all(|_| r.below(7) < 7));
    }
}
