//! [`LiveResults`]: the run's in-memory view of a store's outcomes, looked
//! up at every child of every node the searches expand.
//!
//! Nearly every lookup is for a position the store does not hold, and a
//! map of millions of positions answers each of them with a cache miss
//! (a large share of a df-pn search's time over a large store:
//! docs/measurements.md, "Figures behind the code"). So a position's hash first meets a filter
//! (two bits in one word; at least a byte a position when loaded): a
//! position whose two bits are not both set is absent. The filter is read
//! without a lock, and [`ResultSource::warm`] reads the words of a node's
//! children all at once, so that their misses overlap. Only a position
//! the filter lets through takes the map's read lock.

use crate::cache::{merge_into, ResultCache};
use crate::error::Result;
use crate::outcome::{Outcome, ResultSource};
use crate::store::Store;
use engine::Position;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Filter bits per position at the load: 16, so a store that doubles
/// during a run still has 8 (about 5% of absent positions let through;
/// a fuller filter lets more through and stays correct).
const FILTER_BITS_PER_POSITION: usize = 16;
/// Fewest filter words: 16 MB, 16 bits for each of 8 M positions (8 for
/// each of 16 M) that a run proves from an empty store.
const MIN_FILTER_WORDS: usize = 1 << 21;

/// A 64-bit hash of a position, its bits well mixed (the filter word and
/// its two bits come from different bits of it).
fn position_hash(pos: &Position) -> u64 {
    let (black, white, kings, side) = pos.parts();
    let side = u64::from(side == engine::Color::White);
    let men = u64::from(black) | u64::from(white) << 32;
    let rest = u64::from(kings) | side << 32;
    let mut h = men.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ rest.wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
    h ^= h >> 29;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^ (h >> 32)
}

/// An in-memory view of a store's outcomes that grows as a run proves
/// more: loaded once, then every result the run stores is added, so the
/// searches of one run see each other's results without a SQL query per
/// node. Shared between threads.
#[derive(Debug)]
pub struct LiveResults {
    /// Two bits set for each position held; a power of two of words,
    /// sized at the start.
    filter: Box<[AtomicU64]>,
    map: RwLock<HashMap<Position, Outcome>>,
}

impl Default for LiveResults {
    /// Empty, with room in the filter for a run's results.
    fn default() -> Self {
        LiveResults::with_room(0)
    }
}

impl LiveResults {
    /// Empty, with a filter sized for `positions` positions (at least
    /// [`MIN_FILTER_WORDS`] words).
    fn with_room(positions: usize) -> LiveResults {
        let words = (positions.saturating_mul(FILTER_BITS_PER_POSITION) / 64)
            .max(MIN_FILTER_WORDS)
            .next_power_of_two();
        LiveResults::with_filter_words(words)
    }

    /// Empty, with a filter of `words` words (a power of two).
    fn with_filter_words(words: usize) -> LiveResults {
        debug_assert!(words.is_power_of_two());
        LiveResults {
            filter: (0..words).map(|_| AtomicU64::new(0)).collect(),
            map: RwLock::default(),
        }
    }

    /// Loads every result of `store`.
    pub fn load(store: &Store) -> Result<LiveResults> {
        let map = ResultCache::load(store)?.into_map();
        let live = LiveResults::with_room(map.len());
        for pos in map.keys() {
            live.mark(pos);
        }
        *live.write() = map;
        Ok(live)
    }

    fn read(&self) -> RwLockReadGuard<'_, HashMap<Position, Outcome>> {
        self.map.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, HashMap<Position, Outcome>> {
        self.map.write().unwrap_or_else(|e| e.into_inner())
    }

    /// The filter word of hash `h` and its two bits.
    fn place(&self, h: u64) -> (&AtomicU64, u64) {
        let word = (h >> 12) as usize & (self.filter.len() - 1);
        (&self.filter[word], 1 << (h & 63) | 1 << ((h >> 6) & 63))
    }

    /// Sets the filter bits of `pos`.
    fn mark(&self, pos: &Position) {
        let (word, bits) = self.place(position_hash(pos));
        word.fetch_or(bits, Ordering::Relaxed);
    }

    /// Whether the position of hash `h` may be held (it is not when this
    /// says no).
    fn may_hold(&self, h: u64) -> bool {
        let (word, bits) = self.place(h);
        word.load(Ordering::Relaxed) & bits == bits
    }

    /// Adds what was proved of `pos`, intersected with what is held. A
    /// contradiction leaves the held outcome as it was and is returned.
    pub fn insert(
        &self,
        pos: Position,
        outcome: Outcome,
    ) -> std::result::Result<(), crate::OutcomeConflict> {
        merge_into(&mut self.write(), pos, outcome)?;
        self.mark(&pos);
        Ok(())
    }

    /// Adds what the verified proof `tree` proves of every position it
    /// reaches (its root included).
    pub fn insert_tree(&self, tree: &crate::ProofTree) {
        let positions = tree.proved_positions();
        let mut map = self.write();
        for (p, o) in positions {
            // A verified proof never contradicts another; were it to,
            // what was held stays.
            if merge_into(&mut map, p, o).is_ok() {
                self.mark(&p);
            }
        }
    }

    /// Number of positions held.
    pub fn len(&self) -> usize {
        self.read().len()
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl ResultSource for LiveResults {
    fn lookup(&self, pos: &Position) -> Option<Outcome> {
        if !self.may_hold(position_hash(pos)) {
            return None;
        }
        self.read().get(pos).copied()
    }

    /// Reads `pos`'s filter word, so that its lookup finds it cached.
    fn warm(&self, pos: &Position) {
        let (word, _) = self.place(position_hash(pos));
        std::hint::black_box(word.load(Ordering::Relaxed));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::notation::fen::parse_fen;
    use engine::Value;

    /// Every position inserted is found with its outcome, through filter
    /// growths; positions never inserted are not.
    #[test]
    fn finds_what_it_holds_and_nothing_else() {
        let live = LiveResults::default();
        let held = distinct_positions();
        let (inserted, absent) = held.split_at(held.len() / 2);
        for (i, p) in inserted.iter().enumerate() {
            let o = if i % 2 == 0 {
                Outcome::Exact(Value::Draw)
            } else {
                Outcome::AtLeastDraw
            };
            live.insert(*p, o).unwrap();
        }
        assert_eq!(live.len(), inserted.len());
        for (i, p) in inserted.iter().enumerate() {
            let want = if i % 2 == 0 {
                Outcome::Exact(Value::Draw)
            } else {
                Outcome::AtLeastDraw
            };
            assert_eq!(live.lookup(p), Some(want), "{p:?}");
        }
        for p in absent {
            assert_eq!(live.lookup(p), None, "{p:?}");
        }
    }

    /// A bound added to a held bound narrows it; a contradiction is
    /// refused and leaves what was held.
    #[test]
    fn inserts_intersect() {
        let live = LiveResults::default();
        let pos = parse_fen("B:W21,22:B1,2").unwrap();
        live.insert(pos, Outcome::AtLeastDraw).unwrap();
        live.insert(pos, Outcome::AtMostDraw).unwrap();
        assert_eq!(live.lookup(&pos), Some(Outcome::Exact(Value::Draw)));
        assert!(live.insert(pos, Outcome::Exact(Value::Win)).is_err());
        assert_eq!(live.lookup(&pos), Some(Outcome::Exact(Value::Draw)));
    }

    /// A filter holding 8 bits a position (half what a load gives)
    /// turns most absent positions away without a map lookup.
    #[test]
    fn the_filter_turns_most_absent_positions_away() {
        let positions = distinct_positions();
        let (held, absent) = positions.split_at(positions.len() / 2);
        let live = LiveResults::with_filter_words((held.len() * 8 / 64).next_power_of_two());
        for p in held {
            live.insert(*p, Outcome::AtLeastDraw).unwrap();
        }
        assert!(held.iter().all(|p| live.may_hold(position_hash(p))));
        let passed = absent
            .iter()
            .filter(|p| live.may_hold(position_hash(p)))
            .count();
        assert!(
            passed * 10 < absent.len(),
            "{passed} of {} absent positions passed",
            absent.len()
        );
    }

    /// Black men on two squares and a white king on a third, White to
    /// move: 11,340 distinct positions.
    fn distinct_positions() -> Vec<Position> {
        let mut out = Vec::new();
        // A black man on 29-32 would have been crowned.
        for a in 1..=28u32 {
            for b in (a + 1)..=28 {
                for k in (1..=32u32).filter(|&k| k != a && k != b) {
                    out.push(parse_fen(&format!("W:WK{k}:B{a},{b}")).unwrap());
                }
            }
        }
        out
    }
}
