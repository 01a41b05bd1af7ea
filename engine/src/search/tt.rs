//! The transposition table: two-level buckets, Chinook/Breuker style.
//!
//! Each bucket holds two entries. Slot 0 is *depth-preferred*: a new
//! result replaces it only when it was searched at least as deep, or when
//! the old entry is from an earlier search (generation). Anything that does
//! not go into slot 0 goes into slot 1, which is *always-replace*. Probing
//! looks at both.
//!
//! Entry fields (12 bytes):
//!
//! | field   | type | range and meaning |
//! |---------|------|-------------------|
//! | `check` | u32  | the upper 32 bits of the 64-bit Zobrist key (the lower bits chose the bucket); 0 with `bound == 0` is an empty slot |
//! | `score` | i16  | -32000..=32000 centi-men, side to move's view; won/lost scores (|score| > [`super::WIN_THRESHOLD`]) are stored relative to this node (distance from here, not from the root) |
//! | `depth` | u8   | remaining depth of the search that produced the entry, 0..=255 plies (0 = quiescence level) |
//! | `meta`  | u8   | bits 0-1 bound: 0 empty, 1 upper (fail low: value <= score), 2 lower (fail high: value >= score), 3 exact; bits 2-7 generation 0..=63 (search counter mod 64) |
//! | `from`  | u8   | best move's start square index 0..=31, or 255 for none |
//! | `to`    | u8   | best move's end square index 0..=31 (meaningless when `from` is 255) |
//! | `cap`   | u16  | fold of the best move's captured-squares bitboard (`c ^ c >> 16`, low 16 bits); tells apart king captures with the same start and end |

use crate::moves::Move;

/// What a stored score is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true value is at most the score.
    Upper = 1,
    /// The true value is at least the score.
    Lower = 2,
    /// The score is the true value (at that depth).
    Exact = 3,
}

/// One stored search result (see the module doc for the field ranges).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct Entry {
    check: u32,
    score: i16,
    depth: u8,
    meta: u8,
    from: u8,
    to: u8,
    cap: u16,
}

/// The part of an entry a probe returns.
#[derive(Clone, Copy, Debug)]
pub struct Hit {
    /// Stored score (node-relative for won/lost scores).
    pub score: i32,
    /// Remaining depth it was searched to.
    pub depth: i32,
    /// What the score bounds.
    pub bound: Bound,
    /// Best move as (from index, to index, captured fold), if any.
    pub best: Option<(u8, u8, u16)>,
}

impl Hit {
    /// Whether `m` is the stored best move.
    #[inline]
    pub fn is_best(&self, m: &Move) -> bool {
        match self.best {
            Some((f, t, c)) => {
                m.from().index() == f && m.to().index() == t && fold(m.captured()) == c
            }
            None => false,
        }
    }
}

#[inline(always)]
fn fold(c: u32) -> u16 {
    (c ^ (c >> 16)) as u16
}

/// The table: a power-of-two number of two-entry buckets.
pub struct TranspositionTable {
    buckets: Vec<[Entry; 2]>,
    mask: u64,
    generation: u8,
}

/// A table size the machine cannot hold: more than fits an address, or
/// an allocation the system refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a transposition table of {mb} MiB cannot be allocated")]
pub struct TableTooLarge {
    /// The size asked for, in MiB.
    pub mb: usize,
}

impl TranspositionTable {
    /// A table of about `mb` mebibytes (at least one bucket). Panics when
    /// it cannot be allocated; see [`TranspositionTable::try_new`].
    pub fn new(mb: usize) -> TranspositionTable {
        TranspositionTable::try_new(mb).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A table of about `mb` mebibytes (at least one bucket), or an error
    /// when the size does not fit an address or the allocation is refused
    /// (instead of an abort).
    pub fn try_new(mb: usize) -> Result<TranspositionTable, TableTooLarge> {
        let too_large = TableTooLarge { mb };
        let bytes = mb.max(1).checked_mul(1 << 20).ok_or(too_large.clone())?;
        let n = (bytes / std::mem::size_of::<[Entry; 2]>()).max(1);
        let n = if n.is_power_of_two() {
            n
        } else {
            n.next_power_of_two() / 2
        };
        let mut buckets = Vec::new();
        buckets.try_reserve_exact(n).map_err(|_| too_large)?;
        buckets.resize(n, [Entry::default(); 2]);
        Ok(TranspositionTable {
            buckets,
            mask: n as u64 - 1,
            generation: 0,
        })
    }

    /// Empties every bucket.
    pub fn clear(&mut self) {
        for b in self.buckets.iter_mut() {
            *b = [Entry::default(); 2];
        }
        self.generation = 0;
    }

    /// Starts a new search: older entries lose their depth priority.
    pub fn new_search(&mut self) {
        self.generation = (self.generation + 1) & 63;
    }

    /// Looks `key` up.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Hit> {
        let b = &self.buckets[(key & self.mask) as usize];
        let check = (key >> 32) as u32;
        for e in b {
            if e.meta & 3 != 0 && e.check == check {
                let bound = match e.meta & 3 {
                    1 => Bound::Upper,
                    2 => Bound::Lower,
                    _ => Bound::Exact,
                };
                return Some(Hit {
                    score: e.score as i32,
                    depth: e.depth as i32,
                    bound,
                    best: (e.from != 255).then_some((e.from, e.to, e.cap)),
                });
            }
        }
        None
    }

    /// Stores a result. `score` must be node-relative and within i16.
    #[inline]
    pub fn store(&mut self, key: u64, depth: i32, score: i32, bound: Bound, best: Option<&Move>) {
        debug_assert!((-32000..=32000).contains(&score));
        let check = (key >> 32) as u32;
        let generation = self.generation;
        let b = &mut self.buckets[(key & self.mask) as usize];
        let (from, to, cap) = match best {
            Some(m) => (m.from().index(), m.to().index(), fold(m.captured())),
            None => (255, 0, 0),
        };
        let depth = depth.clamp(0, 255) as u8;
        let mut e = Entry {
            check,
            score: score as i16,
            depth,
            meta: bound as u8 | (generation << 2),
            from,
            to,
            cap,
        };
        let slot0 = &b[0];
        let same0 = slot0.check == check && slot0.meta & 3 != 0;
        let old_gen = (slot0.meta >> 2) != generation;
        if same0 || slot0.meta & 3 == 0 || old_gen || depth >= slot0.depth {
            if same0 && e.from == 255 {
                // keep the old best move for ordering
                e.from = slot0.from;
                e.to = slot0.to;
                e.cap = slot0.cap;
            }
            // the displaced deeper entry moves to the always-replace slot
            if !same0 && slot0.meta & 3 != 0 && b[1].check != check {
                b[1] = b[0];
            } else if b[1].check == check {
                b[1] = Entry::default();
            }
            b[0] = e;
        } else {
            if b[1].check == check && b[1].meta & 3 != 0 && e.from == 255 {
                e.from = b[1].from;
                e.to = b[1].to;
                e.cap = b[1].cap;
            }
            b[1] = e;
        }
    }

    /// Permille of slots in the first 1000 buckets that hold an entry of
    /// the current search.
    pub fn hashfull(&self) -> u32 {
        let n = self.buckets.len().min(500);
        let mut used = 0;
        for b in &self.buckets[..n] {
            for e in b {
                if e.meta & 3 != 0 && (e.meta >> 2) == self.generation {
                    used += 1;
                }
            }
        }
        (used * 1000 / (2 * n)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_size_past_the_address_space_is_an_error_not_an_abort() {
        for mb in [usize::MAX, usize::MAX >> 20, 1 << 50] {
            assert_eq!(
                TranspositionTable::try_new(mb).err(),
                Some(TableTooLarge { mb })
            );
        }
        assert!(TranspositionTable::try_new(1).is_ok());
    }

    #[test]
    fn store_and_probe_both_levels() {
        let mut t = TranspositionTable::new(1);
        assert_eq!(std::mem::size_of::<Entry>(), 12);
        let k1 = 0x1234_5678_0000_0010u64;
        let k2 = 0x9999_0000_0000_0010u64; // same bucket
        t.store(k1, 8, 50, Bound::Exact, None);
        t.store(k2, 2, -7, Bound::Lower, None);
        // deep entry stays in slot 0, shallow one in slot 1
        let h1 = t.probe(k1).unwrap();
        assert_eq!((h1.depth, h1.score, h1.bound), (8, 50, Bound::Exact));
        let h2 = t.probe(k2).unwrap();
        assert_eq!((h2.depth, h2.score, h2.bound), (2, -7, Bound::Lower));
        assert!(t.probe(0x5555_0000_0000_0010).is_none());
    }
}
