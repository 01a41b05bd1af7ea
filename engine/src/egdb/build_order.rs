//! The order in which a build holds the states of a table: the file's
//! order ([`TableIndex`]) or the same positions with the two sides' kings
//! ranked the other way round, so that the states a propagation step
//! touches lie close together.
//!
//! A build's propagation un-moves a piece of the side to move of the
//! predecessor's table (Black): the predecessors of one position differ
//! from one another only in Black's pieces. In the file's order the kings
//! are ranked Black first, so a black king's move lands anywhere among
//! the table's king placements: one cache miss (and one page walk) per
//! predecessor. Ranked White first ([`KingOrder::WhiteMajor`]), every
//! black king's move keeps the white kings and so stays in one run of
//! states, the black-king placements for those white kings.
//!
//! A slice's two tables are the same material with the colours reversed,
//! and their frontiers are read in their own order. With the first table
//! in the file's order and the second White first, both directions of a
//! slice keep the same physical side's kings as the major rank: the
//! frontier of the first table, read in order, keeps that side's kings
//! (its Black) for a long run, so the predecessors it writes in the second
//! table (whose White they are) stay in one run of states across many
//! frontier positions; the frontier of the second table keeps them too,
//! and its predecessors in the first table fall in the few rows of that
//! side's kings one king's move away. The values are put back into the
//! file's order once, at the end ([`BuildTable::file_values`]).

use super::index::{
    binom, colex_rank_in, colex_unrank, next_combination, select_positions, TableIndex, TableKey,
};
use crate::board::{Color, Position};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

/// Which side's kings a table's king placements are ranked by first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KingOrder {
    /// The file's order: the black kings' placement, then the white
    /// kings' among the squares left.
    BlackMajor,
    /// The white kings' placement, then the black kings' among the
    /// squares left.
    WhiteMajor,
}

/// One table of a slice being built, its positions numbered in a
/// [`KingOrder`]: the men's part of the index is the file's, the kings'
/// part is ranked in that order.
#[derive(Clone, Debug)]
pub(crate) struct BuildTable {
    table: TableIndex,
    order: KingOrder,
    /// Kings of the side ranked first.
    major_kings: u32,
    /// Kings of the side ranked second.
    minor_kings: u32,
    /// Placements of the second side's kings for one of the first's.
    minor: u64,
    /// Placements of the kings for one men placement.
    kings: u64,
}

impl BuildTable {
    /// The table `key` in `order`. Where a side has no king the two
    /// orders are the same, and the table is held in the file's.
    pub(crate) fn new(key: TableKey, order: KingOrder) -> BuildTable {
        let table = TableIndex::new(key);
        let (nb, nw) = (key.black.kings as u32, key.white.kings as u32);
        let order = if nb == 0 || nw == 0 {
            KingOrder::BlackMajor
        } else {
            order
        };
        let men = key.black.men as u32 + key.white.men as u32;
        let (major_kings, minor_kings) = match order {
            KingOrder::BlackMajor => (nb, nw),
            KingOrder::WhiteMajor => (nw, nb),
        };
        let minor = binom(32 - men - major_kings, minor_kings);
        let kings = table.kings_per_men();
        debug_assert_eq!(binom(32 - men, major_kings) * minor, kings);
        BuildTable {
            table,
            order,
            major_kings,
            minor_kings,
            minor,
            kings,
        }
    }

    /// The table's index in the file's order.
    #[cfg(test)]
    pub(crate) fn table(&self) -> &TableIndex {
        &self.table
    }

    /// Number of positions.
    pub(crate) fn size(&self) -> u64 {
        self.table.size()
    }

    /// The kings `(black, white)` as `(ranked first, ranked second)`, and
    /// back (the swap is its own inverse).
    #[inline(always)]
    fn major_minor(&self, a: u32, b: u32) -> (u32, u32) {
        match self.order {
            KingOrder::BlackMajor => (a, b),
            KingOrder::WhiteMajor => (b, a),
        }
    }

    /// The index of `pos` (Black to move, in this table) in this order.
    #[inline(always)]
    pub(crate) fn index(&self, pos: &Position) -> u64 {
        if self.order == KingOrder::BlackMajor {
            return self.table.index(pos);
        }
        let (b, w, k, _) = pos.parts();
        let free = !((b | w) & !k);
        let (major, minor) = self.major_minor(b & k, w & k);
        self.table.men_number(pos) * self.kings
            + colex_rank_in(major, free) * self.minor
            + colex_rank_in(minor, free & !major)
    }

    /// What the positions one black king's move away from `pos` (in this
    /// table, Black to move) share: their index from the black kings
    /// alone ([`BlackKingMoves::index`]).
    #[inline(always)]
    pub(crate) fn black_king_moves(&self, pos: &Position) -> BlackKingMoves {
        let (b, w, k, _) = pos.parts();
        let free = !((b | w) & !k);
        let base = self.table.men_number(pos) * self.kings;
        let white_kings = w & k;
        match self.order {
            KingOrder::BlackMajor => BlackKingMoves {
                base,
                universe: free,
                white_kings,
                minor: self.minor,
                black_major: true,
            },
            KingOrder::WhiteMajor => BlackKingMoves {
                base: base + colex_rank_in(white_kings, free) * self.minor,
                universe: free & !white_kings,
                white_kings,
                minor: self.minor,
                black_major: false,
            },
        }
    }

    /// The position with index `idx < size()` in this order, unranked in
    /// full (the reference for [`PositionCursor::position`]).
    #[cfg(test)]
    pub(crate) fn position(&self, idx: u64) -> Position {
        if self.order == KingOrder::BlackMajor {
            return self.table.position(idx);
        }
        let (black_men, white_men) = self.table.men_sets(idx / self.kings);
        let rank = idx % self.kings;
        let free = !(black_men | white_men);
        let major = select_positions(colex_unrank(rank / self.minor, self.major_kings), free);
        let minor = select_positions(
            colex_unrank(rank % self.minor, self.minor_kings),
            free & !major,
        );
        let (black_kings, white_kings) = self.major_minor(major, minor);
        Position::from_bitboards_unchecked(
            black_men | black_kings,
            white_men | white_kings,
            black_kings | white_kings,
            Color::Black,
        )
    }

    /// A reader of positions by index that remembers the men and the
    /// first-ranked kings of the last one ([`PositionCursor::position`]):
    /// the positions of a frontier, read in increasing order, share them
    /// in long runs.
    pub(crate) fn cursor(&self) -> PositionCursor<'_> {
        PositionCursor {
            table: self,
            men_idx: u64::MAX,
            major_rank: u64::MAX,
            men: (0, 0),
            free: 0,
            major: 0,
        }
    }

    /// Calls `f(index, position)` for every index in `range`, in
    /// increasing order (the kings advance by next combination, as in
    /// [`TableIndex::for_each_position`]).
    pub(crate) fn for_each_position(
        &self,
        range: std::ops::Range<u64>,
        f: impl FnMut(u64, Position),
    ) {
        self.table
            .for_each_in_king_order(range, self.order == KingOrder::WhiteMajor, f)
    }

    /// Writes `code(state)` for every position into `out` (one byte a
    /// position), in the file's order, from `states` held in this order.
    ///
    /// White first, in tiles: [`FILE_TILE`] consecutive black-king
    /// placements of the file's order (rows of the output), and for each
    /// white-king placement in turn the states of those black kings,
    /// which lie next to one another in the states' row of those white
    /// kings. A state's row is read once a tile instead of once a
    /// position (a 589 M-position table read position by position missed
    /// the caches at every read), and each output row is written in
    /// order. Within one men placement, a placement's rank among the
    /// squares the other side's kings leave is its count among the
    /// placements before it that avoid them (colex order over a set keeps
    /// its order over a subset), so the loop ranks one set a step.
    pub(crate) fn file_values(
        &self,
        states: &[AtomicU8],
        out: &mut [u8],
        code: impl Fn(u8) -> u8 + Sync,
    ) {
        const CHUNK: usize = 1 << 16;
        assert_eq!(out.len() as u64, self.size(), "one byte a position");
        if self.order == KingOrder::BlackMajor {
            out.par_chunks_mut(CHUNK)
                .zip(states.par_chunks(CHUNK))
                .for_each(|(o, s)| {
                    for (v, s) in o.iter_mut().zip(s) {
                        *v = code(s.load(Relaxed));
                    }
                });
            return;
        }
        // White first: the kings' part is (white, black) here and (black,
        // white) in the file; both sides have kings ([`BuildTable::new`]);
        // the squares without men number the same in every men placement
        // of a table.
        let (nb, nw) = (self.minor_kings, self.major_kings);
        debug_assert!(nb > 0 && nw > 0);
        let key = self.table.key();
        let squares = 32 - key.black.men as u32 - key.white.men as u32;
        let all = if squares == 32 {
            u32::MAX
        } else {
            (1u32 << squares) - 1
        };
        let file_row = binom(squares - nb, nw) as usize; // white kings per black
        let state_row = self.minor as usize; // black kings per white
        let kings = self.kings as usize;
        let whites_end = 1u64 << squares;
        out.par_chunks_mut(kings)
            .enumerate()
            .for_each(|(placement, placement_out)| {
                let base = placement * kings;
                placement_out
                    .par_chunks_mut(FILE_TILE * file_row)
                    .enumerate()
                    .for_each(|(tile, tile_out)| {
                        let rows = tile_out.len() / file_row;
                        // The tile's black kings (dense over the squares
                        // without men) and how many white placements each
                        // row has had.
                        let mut blacks = [0u32; FILE_TILE];
                        let mut written = [0usize; FILE_TILE];
                        blacks[0] = colex_unrank((tile * FILE_TILE) as u64, nb);
                        for r in 1..rows {
                            blacks[r] = next_combination(blacks[r - 1] as u64) as u32;
                        }
                        let mut whites = (1u64 << nw) - 1;
                        let mut white_rank = 0;
                        while whites < whites_end {
                            let w = whites as u32;
                            let row = base + white_rank * state_row;
                            let mut black_rank = None;
                            for r in 0..rows {
                                if blacks[r] & w != 0 {
                                    continue;
                                }
                                let b = black_rank.get_or_insert_with(|| {
                                    colex_rank_in(blacks[r], all & !w) as usize
                                });
                                let s = states[row + *b].load(Relaxed);
                                tile_out[r * file_row + written[r]] = code(s);
                                written[r] += 1;
                                *b += 1;
                            }
                            white_rank += 1;
                            whites = next_combination(whites);
                        }
                    });
            });
    }
}

/// Black-king placements of the file's order that
/// [`BuildTable::file_values`] puts back together.
const FILE_TILE: usize = 64;

/// Reads positions of a [`BuildTable`] by index, reusing the men and the
/// first-ranked kings of the last position read ([`BuildTable::cursor`]).
pub(crate) struct PositionCursor<'a> {
    table: &'a BuildTable,
    /// Men placement of the last position, or `u64::MAX`.
    men_idx: u64,
    /// Rank of its first-ranked kings, or `u64::MAX`.
    major_rank: u64,
    /// Its black and white men.
    men: (u32, u32),
    /// Squares without a man.
    free: u32,
    /// Its first-ranked kings.
    major: u32,
}

impl PositionCursor<'_> {
    /// The position with index `idx` in the cursor's table.
    #[inline]
    pub(crate) fn position(&mut self, idx: u64) -> Position {
        let t = self.table;
        let men_idx = idx / t.kings;
        if men_idx != self.men_idx {
            self.men_idx = men_idx;
            self.men = t.table.men_sets(men_idx);
            self.free = !(self.men.0 | self.men.1);
            self.major_rank = u64::MAX;
        }
        let rank = idx % t.kings;
        let major_rank = rank / t.minor;
        if major_rank != self.major_rank {
            self.major_rank = major_rank;
            self.major = select_positions(colex_unrank(major_rank, t.major_kings), self.free);
        }
        let minor = select_positions(
            colex_unrank(rank % t.minor, t.minor_kings),
            self.free & !self.major,
        );
        let (black_kings, white_kings) = t.major_minor(self.major, minor);
        let (black_men, white_men) = self.men;
        Position::from_bitboards_unchecked(
            black_men | black_kings,
            white_men | white_kings,
            black_kings | white_kings,
            Color::Black,
        )
    }
}

/// The index in a [`BuildTable`] of the positions that differ from one
/// another only in the black kings ([`BuildTable::black_king_moves`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct BlackKingMoves {
    /// Index of the first position of the run the black kings are ranked
    /// in.
    base: u64,
    /// Squares the black kings are ranked among (White first: without the
    /// white kings).
    universe: u32,
    /// The white kings.
    white_kings: u32,
    /// Placements of the second side's kings for one of the first's.
    minor: u64,
    /// Whether the black kings are ranked first.
    black_major: bool,
}

impl BlackKingMoves {
    /// The index of the position with the black kings `black_kings`.
    #[inline(always)]
    pub(crate) fn index(&self, black_kings: u32) -> u64 {
        if self.black_major {
            self.base
                + colex_rank_in(black_kings, self.universe) * self.minor
                + colex_rank_in(self.white_kings, self.universe & !black_kings)
        } else {
            self.base + colex_rank_in(black_kings, self.universe)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::egdb::slice::slices_with;

    /// Every table of up to five pieces, in both orders, over a run of
    /// positions from a third of the way and over the last ones:
    /// `for_each_position` visits each index once with its position,
    /// which `position` and a cursor give and `index` inverts, and
    /// `black_king_moves` gives its index from the black kings.
    #[test]
    fn both_orders_number_every_position_once() {
        for pieces in 2..=5 {
            for slice in slices_with(pieces) {
                for key in slice.tables() {
                    for order in [KingOrder::BlackMajor, KingOrder::WhiteMajor] {
                        let t = BuildTable::new(key, order);
                        let n = t.size();
                        for start in [n / 3, n.saturating_sub(3000)] {
                            let end = n.min(start + 20_000);
                            let mut cursor = t.cursor();
                            let mut seen = 0;
                            t.for_each_position(start..end, |i, pos| {
                                assert_eq!(i, start + seen, "{key} {order:?}");
                                seen += 1;
                                assert_eq!(t.index(&pos), i, "{key} {order:?}");
                                assert_eq!(t.position(i), pos, "{key} {order:?}");
                                assert_eq!(cursor.position(i), pos, "{key} {order:?}");
                                let (b, _, k, _) = pos.parts();
                                let moves = t.black_king_moves(&pos);
                                assert_eq!(moves.index(b & k), i, "{key} {order:?}");
                            });
                            assert_eq!(seen, end - start, "{key} {order:?}");
                        }
                    }
                }
            }
        }
    }

    /// On tables of five to seven pieces, sampled, in both orders: the
    /// index of every position with one black king moved to any free
    /// square is the one `black_king_moves` gives from the black kings
    /// alone.
    #[test]
    fn black_king_moves_index_every_black_king_placement() {
        let keys: Vec<TableKey> = (5..=7)
            .flat_map(slices_with)
            .flat_map(|s| s.tables())
            .filter(|k| k.black.kings > 0)
            .collect();
        let mut rng = crate::rng::XorShift64::new(27);
        for _ in 0..300 {
            let key = keys[(rng.next_u64() % keys.len() as u64) as usize];
            for order in [KingOrder::BlackMajor, KingOrder::WhiteMajor] {
                let t = BuildTable::new(key, order);
                let idx = rng.next_u64() % t.size();
                let p = t.position(idx);
                let moves = t.black_king_moves(&p);
                let (b, w, k, _) = p.parts();
                for from in crate::square::Squares(b & k) {
                    for to in crate::square::Squares(!(b | w)) {
                        let moved = b & k & !(1 << from.index()) | 1 << to.index();
                        let q = Position::from_bitboards_unchecked(
                            b & !k | moved,
                            w,
                            moved | w & k,
                            Color::Black,
                        );
                        assert_eq!(moves.index(moved), t.index(&q), "{key} {order:?} #{idx}");
                    }
                }
            }
        }
    }

    /// The white-major order is a different numbering of the same
    /// positions where there are kings of both sides, and `file_values`
    /// puts states back into the file's order.
    #[test]
    fn file_values_undo_the_order() {
        for slice in slices_with(4) {
            for key in slice.tables() {
                let t = BuildTable::new(key, KingOrder::WhiteMajor);
                let file = t.table();
                let states: Vec<AtomicU8> = (0..t.size())
                    .map(|i| AtomicU8::new(file.index(&t.position(i)) as u8))
                    .collect();
                let mut values = vec![0; t.size() as usize];
                t.file_values(&states, &mut values, |s| s);
                for (i, v) in values.iter().enumerate() {
                    assert_eq!(*v, i as u8, "{key} {i}");
                }
            }
        }
        let key = slices_with(4)
            .into_iter()
            .flat_map(|s| s.tables())
            .find(|k| k.black.kings == 2 && k.white.kings == 2)
            .expect("a table of two kings each");
        let t = BuildTable::new(key, KingOrder::WhiteMajor);
        assert!((0..t.size()).any(|i| t.table().index(&t.position(i)) != i));
    }
}
