//! The bitboard generator against the independent 8x8 reference generator
//! of `common/reference.rs`, on random positions with kings and captures.

mod common;

use common::reference::{square_number, RefBoard};
use engine::perft::{perft, Counting};
use engine::{Color, Position};

use engine::rng::XorShift64 as Rng;

/// A random legal position with up to `max_per_side` pieces a side,
/// `king_pct` percent of them kings.
fn random_position(rng: &mut Rng, max_per_side: u64, king_pct: u64) -> Position {
    let (mut black, mut white, mut kings) = (0u32, 0u32, 0u32);
    for color in 0..2 {
        let n = 1 + rng.below(max_per_side);
        let mut placed = 0;
        while placed < n {
            let sq = rng.below(32) as u32;
            let bit = 1u32 << sq;
            if (black | white) & bit != 0 {
                continue;
            }
            let king = rng.below(100) < king_pct;
            let crown_row = if color == 0 { 0xF000_0000 } else { 0x0000_000F };
            if !king && bit & crown_row != 0 {
                continue;
            }
            if color == 0 {
                black |= bit;
            } else {
                white |= bit;
            }
            if king {
                kings |= bit;
            }
            placed += 1;
        }
    }
    let side = if rng.below(2) == 0 {
        Color::Black
    } else {
        Color::White
    };
    Position::from_bitboards_unchecked(black, white, kings, side)
}

fn reference(pos: &Position) -> RefBoard {
    let (b, w, k, side) = pos.parts();
    RefBoard::from_bits(b, w, k, side == Color::Black)
}

#[test]
fn move_lists_match_the_reference_on_random_positions() {
    let mut rng = Rng::new(0x5EED_1234_ABCD_0001);
    let mut with_duplicates = 0;
    for _ in 0..20_000 {
        let pos = random_position(&mut rng, 12, 40);
        let r = reference(&pos);
        let mut ours: Vec<(u8, u8, Vec<u8>, u32)> = pos
            .moves()
            .iter()
            .map(|m| {
                let caps = engine::square::Squares(m.captured())
                    .map(|s| s.number())
                    .collect();
                (m.from().number(), m.to().number(), caps, m.paths())
            })
            .collect();
        ours.sort();
        let all_paths = r.moves_every_path();
        let mut theirs: Vec<(u8, u8, Vec<u8>, u32)> = r
            .moves_distinct()
            .iter()
            .map(|m| {
                let paths = all_paths.iter().filter(|p| *p == m).count() as u32;
                let mut caps: Vec<u8> = m
                    .captured
                    .iter()
                    .map(|&(r, f)| square_number(r, f))
                    .collect();
                caps.sort();
                (
                    square_number(m.from.0, m.from.1),
                    square_number(m.to.0, m.to.1),
                    caps,
                    paths,
                )
            })
            .collect();
        theirs.sort();
        assert_eq!(ours, theirs, "{pos:?}");
        if ours.iter().any(|m| m.3 > 1) {
            with_duplicates += 1;
        }
    }
    // The sample must exercise duplicate capture paths.
    eprintln!("{with_duplicates} positions with duplicate capture paths");
    assert!(
        with_duplicates > 0,
        "no position with duplicate paths drawn"
    );
}

#[test]
fn perft_matches_the_reference_on_random_positions() {
    let mut rng = Rng::new(0x0DDB_A11C_0FFE_E002);
    for _ in 0..150 {
        let pos = random_position(&mut rng, 8, 30);
        let r = reference(&pos);
        for (counting, distinct) in [(Counting::EveryPath, false), (Counting::Distinct, true)] {
            assert_eq!(
                perft(&pos, 4, counting),
                r.perft(4, distinct),
                "{pos:?} {counting:?}"
            );
        }
    }
}
