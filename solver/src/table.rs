//! A hash map keyed by the full position (12 bytes of bitboards plus the
//! side to move) and the node threshold, never by a hash alone.

use engine::{Color, Move, Position, Square};
use proofdb::Question;

/// Key of a table entry: the position and the mover's threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    /// The full position.
    pub pos: Position,
    /// The mover's threshold: `true` for [`Question::Win`], `false` for
    /// [`Question::AtLeastDraw`].
    pub win: bool,
}

impl Key {
    /// The key of `pos` searched at threshold `t`.
    #[inline]
    pub fn new(pos: Position, t: Question) -> Key {
        Key {
            pos,
            win: t == Question::Win,
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

impl Default for MoveSlot {
    /// No move.
    fn default() -> Self {
        MoveSlot::NONE
    }
}

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

/// A map keyed by [`Key`]: open addressing with linear probing in one
/// flat array of slots, each holding its key and value together.
///
/// The searches look up every child of every node they expand, at random
/// places in a table of gigabytes: each lookup is a cache miss. A slot
/// holds the whole key (16 bytes) and its value, and an entry usually
/// sits in its home slot or the next few, so a lookup reads one place
/// that is known before it starts: [`Table::warm`] reads the places of
/// many lookups at once, so that their misses overlap (a general hash map
/// gives no way to do that).
///
/// The array doubles when it would pass `MAX_LOAD_TENTHS` tenths full;
/// removals ([`Table::retain`]) re-place the entries left so that every
/// lookup still finds its key. `V::default()` fills the free slots and is
/// never read.
#[derive(Clone, Debug)]
pub struct Table<V> {
    /// A power of two of slots (or none before the first insertion).
    slots: Vec<Slot<V>>,
    /// Occupied slots.
    len: usize,
}

/// A key as a slot holds it: the bitboards, then the side to move, the
/// threshold and whether the slot is taken as bits of one word (all
/// zero: a free slot).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
struct Packed {
    black: u32,
    white: u32,
    kings: u32,
    flags: u32,
}

/// [`Packed::flags`]: the slot holds an entry.
const TAKEN: u32 = 1;
/// [`Packed::flags`]: White is to move.
const WHITE_TO_MOVE: u32 = 2;
/// [`Packed::flags`]: the threshold is a win.
const WIN: u32 = 4;

impl Packed {
    #[inline(always)]
    fn of(key: &Key) -> Packed {
        let (black, white, kings, side) = key.pos.parts();
        Packed {
            black,
            white,
            kings,
            flags: TAKEN
                | if side == Color::White {
                    WHITE_TO_MOVE
                } else {
                    0
                }
                | if key.win { WIN } else { 0 },
        }
    }

    /// The key held (a taken slot's).
    fn key(&self) -> Key {
        let side = if self.flags & WHITE_TO_MOVE != 0 {
            Color::White
        } else {
            Color::Black
        };
        Key {
            pos: Position::from_bitboards_unchecked(self.black, self.white, self.kings, side),
            win: self.flags & WIN != 0,
        }
    }

    #[inline(always)]
    fn taken(&self) -> bool {
        self.flags & TAKEN != 0
    }

    /// The home slot's hash: every bit mixed into the low bits (a
    /// multiply, then a shift-xor and a multiply to spread the high bits
    /// down).
    #[inline(always)]
    fn hash(&self) -> u64 {
        let x = self.black as u64 | (self.white as u64) << 32;
        let y = (self.kings as u64) << 32 | self.flags as u64;
        let mut z = x.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ y.wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
        z ^= z >> 29;
        z = z.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z ^ (z >> 32)
    }
}

/// A slot: the key first, so that its first byte and the next slot's
/// bound the slot in memory ([`Table::warm`]).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
struct Slot<V> {
    key: Packed,
    value: V,
}

/// Bytes a slot of a table of `V` takes (the table's memory per entry,
/// over its free slots).
pub const fn slot_bytes<V>() -> usize {
    std::mem::size_of::<Slot<V>>()
}

/// The array grows before more than this many tenths of it are taken:
/// linear probing stays short (docs/measurements.md), and a table of
/// 40 M entries takes 64 M slots, as a general hash map of that size
/// does.
const MAX_LOAD_TENTHS: usize = 7;

/// Slots of the first array.
const FIRST_SLOTS: usize = 1024;

impl<V> Default for Table<V> {
    fn default() -> Self {
        Table {
            slots: Vec::new(),
            len: 0,
        }
    }
}

impl<V: Copy + Default> Table<V> {
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the table has no entry.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The slot holding `key`, or the free slot where it would go.
    #[inline(always)]
    fn find(&self, key: &Packed) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = key.hash() as usize & mask;
        loop {
            let k = &self.slots[i].key;
            if k == key || !k.taken() {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    /// The taken slot holding `key`.
    #[inline(always)]
    fn slot_of(&self, key: &Key) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let i = self.find(&Packed::of(key));
        self.slots[i].key.taken().then_some(i)
    }

    /// The value of `key`.
    #[inline]
    pub fn get(&self, key: &Key) -> Option<&V> {
        self.slot_of(key).map(|i| &self.slots[i].value)
    }

    /// The value of `key`, to change.
    #[inline]
    pub fn get_mut(&mut self, key: &Key) -> Option<&mut V> {
        self.slot_of(key).map(|i| &mut self.slots[i].value)
    }

    /// The value of `key`, inserting `make()` first when it has none.
    #[inline]
    pub fn get_or_insert_with(&mut self, key: Key, make: impl FnOnce() -> V) -> &mut V {
        if (self.len + 1) * 10 > self.slots.len() * MAX_LOAD_TENTHS {
            self.grow();
        }
        let packed = Packed::of(&key);
        let i = self.find(&packed);
        let slot = &mut self.slots[i];
        if !slot.key.taken() {
            *slot = Slot {
                key: packed,
                value: make(),
            };
            self.len += 1;
        }
        &mut slot.value
    }

    /// Sets the value of `key`.
    #[inline]
    pub fn insert(&mut self, key: Key, value: V) {
        *self.get_or_insert_with(key, || value) = value;
    }

    /// Reads the slots of `keys`, so that lookups that follow find them
    /// in the cache: these reads do not wait for each other, so their
    /// cache misses overlap (a lookup branches on what it reads, which
    /// holds up the next one). A slot may straddle two cache lines; its
    /// first byte and the next slot's lie in both.
    #[inline]
    pub fn warm(&self, keys: impl Iterator<Item = Key>) {
        if self.slots.is_empty() {
            return;
        }
        let mask = self.slots.len() - 1;
        let touched = keys
            .map(|key| {
                let i = Packed::of(&key).hash() as usize & mask;
                self.slots[i].key.black ^ self.slots[(i + 1) & mask].key.black
            })
            .fold(0, |a, b| a ^ b);
        std::hint::black_box(touched);
    }

    /// The values, in no particular order.
    pub fn values(&self) -> impl Iterator<Item = &V> + '_ {
        self.slots
            .iter()
            .filter(|s| s.key.taken())
            .map(|s| &s.value)
    }

    /// The entries with their keys, in the order of their slots.
    pub fn entries(&self) -> impl Iterator<Item = (Key, &V)> + '_ {
        self.slots
            .iter()
            .filter(|s| s.key.taken())
            .map(|s| (s.key.key(), &s.value))
    }

    /// Removes every entry (the array keeps its size).
    pub fn clear(&mut self) {
        self.slots.fill(Slot::default());
        self.len = 0;
    }

    /// Keeps only the entries whose value `keep` is true of.
    pub fn retain(&mut self, mut keep: impl FnMut(&V) -> bool) {
        for slot in &mut self.slots {
            if slot.key.taken() && !keep(&slot.value) {
                *slot = Slot::default();
                self.len -= 1;
            }
        }
        self.replace_all();
    }

    /// Moves every entry to the first free slot from its home, in the
    /// order of the array starting after a free slot: after removals, a
    /// key may sit past a slot freed between its home and itself, where
    /// a lookup would stop. Each entry's run from its home lies in its
    /// cluster, which starts after a free slot, so it never moves forward.
    fn replace_all(&mut self) {
        let n = self.slots.len();
        let Some(free) = self.slots.iter().position(|s| !s.key.taken()) else {
            return;
        };
        for j in 1..n {
            let i = (free + j) & (n - 1);
            if self.slots[i].key.taken() {
                let slot = std::mem::take(&mut self.slots[i]);
                let to = self.find(&slot.key);
                self.slots[to] = slot;
            }
        }
    }

    /// Number of slots (free and taken).
    pub fn slots(&self) -> usize {
        self.slots.len()
    }

    /// Makes the array at least `n` slots long (rounded up to a power of
    /// two), re-placing every entry. Entries inserted in the slot order
    /// of a table of that size ([`Table::entries`]) then land where they
    /// were: into a smaller array that order piles them into long runs,
    /// and each insertion walks one.
    pub fn reserve_slots(&mut self, n: usize) {
        let n = n.max(FIRST_SLOTS).next_power_of_two();
        if n > self.slots.len() {
            self.resize(n);
        }
    }

    /// Doubles the array (or makes the first one) and re-places every
    /// entry.
    fn grow(&mut self) {
        self.resize((self.slots.len() * 2).max(FIRST_SLOTS));
    }

    /// Re-places every entry in an array of `n` slots (a power of two
    /// larger than the entries).
    fn resize(&mut self, n: usize) {
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); n]);
        for slot in old.into_iter().filter(|s| s.key.taken()) {
            let to = self.find(&slot.key);
            self.slots[to] = slot;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::rng::XorShift64;
    use engine::MoveList;

    /// Distinct keys: the positions of random games, at both thresholds.
    fn keys(n: usize) -> Vec<Key> {
        let mut seen = std::collections::HashSet::new();
        let mut rng = XorShift64::new(0x2545_F491_4F6C_DD1D);
        let mut pos = Position::initial();
        while seen.len() < n {
            let x = rng.next_u64();
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            if list.is_empty() {
                pos = Position::initial();
                continue;
            }
            let m = list.as_slice()[(x % list.len() as u64) as usize];
            pos = pos.play_unchecked(&m);
            let t = if x & 1 == 0 {
                Question::Win
            } else {
                Question::AtLeastDraw
            };
            seen.insert(Key::new(pos, t));
        }
        seen.into_iter().collect()
    }

    #[test]
    fn the_table_behaves_as_a_map_through_growth_removals_and_clearing() {
        let keys = keys(6_000);
        let mut table: Table<u32> = Table::default();
        let mut map = std::collections::HashMap::new();
        let mut rng = XorShift64::default();
        for round in 0..40_000u32 {
            let x = rng.next_u64();
            let key = keys[(x % keys.len() as u64) as usize];
            match (x >> 32) % 8 {
                0..=2 => {
                    table.insert(key, round);
                    map.insert(key, round);
                }
                3 => {
                    *table.get_or_insert_with(key, || round) += 1;
                    *map.entry(key).or_insert(round) += 1;
                }
                4 => {
                    if let Some(v) = table.get_mut(&key) {
                        *v ^= 1;
                    }
                    if let Some(v) = map.get_mut(&key) {
                        *v ^= 1;
                    }
                }
                _ => assert_eq!(table.get(&key), map.get(&key), "round {round}"),
            }
            if round % 5_000 == 4_999 {
                // Removals that leave holes inside clusters.
                let odd = |v: &u32| !v.is_multiple_of(3);
                table.retain(odd);
                map.retain(|_, v| odd(v));
            }
            if round == 30_000 {
                table.clear();
                map.clear();
            }
            assert_eq!(table.len(), map.len(), "round {round}");
        }
        for key in &keys {
            assert_eq!(table.get(key), map.get(key));
        }
        let mut values: Vec<u32> = table.values().copied().collect();
        let mut expected: Vec<u32> = map.values().copied().collect();
        values.sort_unstable();
        expected.sort_unstable();
        assert_eq!(values, expected);
        let entries: std::collections::HashMap<Key, u32> =
            table.entries().map(|(k, v)| (k, *v)).collect();
        assert_eq!(entries, map);
    }

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
