//! Endgame database indexing: bijection on every table up to 4 pieces,
//! property tests above, and position counts against OEIS A055213.

use engine::egdb::index::{TableIndex, TableKey};
use engine::egdb::slice::{all_slices, slices_with};
use engine::Position;
use proptest::prelude::*;

/// OEIS A055213: number of n-piece placements at checkers (no side to
/// move; men never on their own crowning row), n = 1..7, as published by
/// J. Schaeffer (Chinook) and listed at https://oeis.org/A055213.
const A055213: [u64; 7] = [
    120,
    6972,
    261_224,
    7_092_774,
    148_688_232,
    2_503_611_964,
    34_779_531_480,
];

fn c(n: u64, k: u64) -> u64 {
    if k > n {
        return 0;
    }
    let mut r: u128 = 1;
    for i in 0..k {
        r = r * (n - i) as u128 / (i + 1) as u128;
    }
    r as u64
}

/// Placements of `bm` black men, `bk` black kings, `wm` white men and `wk`
/// white kings, counted by rows: black men on row 0 (4 squares, never
/// white men there), white men on row 7, both on rows 1-6 (24 squares).
fn placements(bm: u64, bk: u64, wm: u64, wk: u64) -> u64 {
    let mut total = 0;
    for j in 0..=bm.min(4) {
        for i in 0..=wm.min(4) {
            let middle = c(4, j) * c(24, bm - j) * c(4, i) * c(24 - (bm - j), wm - i);
            total += middle;
        }
    }
    let men = bm + wm;
    total * c(32 - men, bk) * c(32 - men - bk, wk)
}

/// (all placements of n pieces, placements where both sides have a piece).
fn expected(n: u64) -> (u64, u64) {
    let mut all = 0;
    let mut both = 0;
    for nb in 0..=n {
        let nw = n - nb;
        for bm in 0..=nb {
            for wm in 0..=nw {
                let p = placements(bm, nb - bm, wm, nw - wm);
                all += p;
                if nb > 0 && nw > 0 {
                    both += p;
                }
            }
        }
    }
    (all, both)
}

#[test]
fn combinatorics_reproduce_a055213() {
    for n in 1..=7u64 {
        assert_eq!(expected(n).0, A055213[n as usize - 1], "n = {n}");
    }
}

#[test]
fn table_sizes_add_up_to_the_published_counts() {
    for n in 2..=7u32 {
        let total: u64 = slices_with(n)
            .iter()
            .flat_map(|s| s.tables())
            .map(|t| TableIndex::new(t).size())
            .sum();
        assert_eq!(total, expected(n as u64).1, "{n} pieces");
        // The padded index of the decoded tables (no table read) holds
        // every position and wastes little: 1.9% at 6 pieces, 3.1% at 7.
        let padded: u64 = slices_with(n)
            .iter()
            .flat_map(|s| s.tables())
            .map(|t| TableIndex::new(t).padded_size())
            .sum();
        assert!(
            padded >= total && padded * 100 <= total * 104,
            "{n} pieces: {padded} padded places for {total} positions"
        );
        println!(
            "{n} pieces: {padded} padded places for {total} positions (+{:.1}%)",
            (padded as f64 / total as f64 - 1.0) * 100.0
        );
    }
    // Figures printed for the report (`-- --nocapture`).
    for n in 2..=7u64 {
        let (all, both) = expected(n);
        let slices = slices_with(n as u32);
        let (largest, size) = slices
            .iter()
            .map(|s| {
                let size: u64 = s
                    .tables()
                    .into_iter()
                    .map(|t| TableIndex::new(t).size())
                    .sum();
                (s.name(), size)
            })
            .max_by_key(|x| x.1)
            .unwrap();
        println!(
            "{n} pieces: A055213 {all}, both sides present {both}, {} slices, largest {largest} \
             with {size} positions",
            slices.len()
        );
    }
}

fn check_round_trip(t: &TableIndex, idx: u64) -> Position {
    let p = t.position(idx);
    assert!(p.validity_check().is_ok(), "{} #{idx}: {p:?}", t.key());
    assert_eq!(TableKey::of(&p), t.key(), "#{idx} {p:?}");
    assert_eq!(t.index(&p), idx, "{} {p:?}", t.key());
    check_padded(t, &p, idx);
    p
}

/// The padded index of `p` (gap-free index `idx`) is where `men_rows`
/// puts `idx`, inside `padded_size`.
fn check_padded(t: &TableIndex, p: &Position, idx: u64) {
    let padded = t.padded_index(&t.index_parts(p));
    let (dense, start) = t
        .men_rows()
        .find(|(d, _)| d.contains(&idx))
        .expect("a row holds every index");
    assert_eq!(padded, start + (idx - dense.start), "{} {p:?}", t.key());
    assert!(padded < t.padded_size(), "{} {p:?}", t.key());
}

#[test]
fn every_table_up_to_four_pieces_is_a_bijection() {
    for s in all_slices(4) {
        for key in s.tables() {
            let t = TableIndex::new(key);
            let mut seen = std::collections::HashSet::new();
            for idx in 0..t.size() {
                let p = check_round_trip(&t, idx);
                assert!(seen.insert(p.parts()), "duplicate {p:?}");
            }
            // The padded rows follow one another without overlapping.
            let mut end = 0;
            for (dense, start) in t.men_rows() {
                assert!(start >= end, "{}: rows overlap", t.key());
                end = start + (dense.end - dense.start);
            }
            assert!(end <= t.padded_size());
        }
    }
}

fn big_tables() -> Vec<TableIndex> {
    (5..=7)
        .flat_map(slices_with)
        .flat_map(|s| s.tables())
        .map(TableIndex::new)
        .filter(|t| t.size() > 0)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]
    #[test]
    fn tables_of_five_to_seven_pieces_round_trip(sel in any::<u64>(), r in any::<u64>()) {
        thread_local! {
            static TABLES: Vec<TableIndex> = big_tables();
        }
        TABLES.with(|tables| {
            let t = &tables[(sel % tables.len() as u64) as usize];
            check_round_trip(t, r % t.size());
            check_round_trip(t, 0);
            check_round_trip(t, t.size() - 1);
        });
    }
}

#[test]
fn sequential_enumeration_matches_unindexing() {
    for s in (2..=5).flat_map(slices_with).step_by(7) {
        for key in s.tables() {
            let t = TableIndex::new(key);
            let n = t.size().min(200_000);
            let mut next = n / 3;
            t.for_each_position(n / 3..n, |i, p| {
                assert_eq!(i, next);
                assert_eq!(p, t.position(i), "{} #{i}", t.key());
                next += 1;
            });
            assert_eq!(next, n);
        }
    }
}
