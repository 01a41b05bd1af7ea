//! The evaluation's features: small integers counted on the board, each
//! from the side to move's point of view (its count minus the opponent's),
//! plus the game phase used to blend opening and endgame weights.

use crate::board::{Color, Position};
use crate::geometry::{step, Dir, ROW_0, ROW_7};

/// Number of features.
pub const N_FEATURES: usize = 13;

/// Feature names, in index order (used by the weights file and `tune`).
pub const FEATURE_NAMES: [&str; N_FEATURES] = [
    "man",
    "king",
    "back_rank",
    "centre_men",
    "centre_kings",
    "mobility",
    "advancement",
    "runaway",
    "king_mobility",
    "trapped_kings",
    "edge_kings",
    "to_move",
    "threats",
];

/// Index of the man count (the unit of the scale: a man is worth 100).
pub const MAN: usize = 0;
/// Index of the king count.
pub const KING: usize = 1;

/// Full phase: the opening end of the blend.
pub const PHASE_MAX: i32 = 256;

/// The four central squares 14, 15, 18, 19.
const CENTRE: u32 = (1 << 13) | (1 << 14) | (1 << 17) | (1 << 18);
/// The wider centre for kings: 10, 11, 14, 15, 18, 19, 22, 23.
const KING_CENTRE: u32 = CENTRE | (1 << 9) | (1 << 10) | (1 << 21) | (1 << 22);
/// The board's edge squares (files 0 and 7, rows 0 and 7).
const EDGE: u32 =
    ROW_0 | ROW_7 | (1 << 4) | (1 << 12) | (1 << 20) | (1 << 11) | (1 << 19) | (1 << 27);

const fn build_cones(black: bool) -> [u32; 32] {
    let mut t = [0u32; 32];
    let mut s = 0;
    while s < 32 {
        // Squares ahead of a man on `s`, widening by one file per row:
        // where an enemy piece could stand to stop it before it crowns.
        let mut cone = 0u32;
        let mut front = 1u32 << s;
        let mut k = 0;
        while k < 8 {
            front = if black {
                step(front, Dir::DownLeft) | step(front, Dir::DownRight)
            } else {
                step(front, Dir::UpLeft) | step(front, Dir::UpRight)
            };
            // widen: also the squares beside the previous front
            cone |= front;
            k += 1;
        }
        t[s] = cone;
        s += 1;
    }
    t
}

/// `CONE[colour][sq]`: the forward cone of a man of that colour on `sq`.
const CONE: [[u32; 32]; 2] = [build_cones(true), build_cones(false)];

/// Men within three rows of crowning (rows 4-6 for Black, 1-3 for White).
const NEAR_CROWN: [u32; 2] = [0x0FFF_0000, 0x0000_FFF0];

#[inline(always)]
fn moves_down(p: u32, empty: u32) -> u32 {
    (step(p, Dir::DownLeft) & empty).count_ones() + (step(p, Dir::DownRight) & empty).count_ones()
}
#[inline(always)]
fn moves_up(p: u32, empty: u32) -> u32 {
    (step(p, Dir::UpLeft) & empty).count_ones() + (step(p, Dir::UpRight) & empty).count_ones()
}

/// Kings among `kings` that have no empty neighbour.
#[inline(always)]
fn trapped(kings: u32, empty: u32) -> u32 {
    let free = step(empty, Dir::DownLeft)
        | step(empty, Dir::DownRight)
        | step(empty, Dir::UpLeft)
        | step(empty, Dir::UpRight);
    (kings & !free).count_ones()
}

/// Pieces of `movers` (moving in `dirs`) that can jump a piece of `them`.
#[inline(always)]
fn attackers(movers: u32, them: u32, empty: u32, dirs: [Dir; 2]) -> u32 {
    let mut a = 0;
    for d in dirs {
        let back = crate::geometry::opposite(d);
        a |= step(step(empty, back) & them, back) & movers;
    }
    a
}

/// `ADVANCED[colour]`: the squares at least 1, 2, ... 6 rows ahead of
/// that colour's back rank; a man counts once in each that holds it, so
/// the counts add up to the rows it has advanced.
const ADVANCED: [[u32; 6]; 2] = [
    [
        0xFFFF_FFF0,
        0xFFFF_FF00,
        0xFFFF_F000,
        0xFFFF_0000,
        0xFFF0_0000,
        0xFF00_0000,
    ],
    [
        0x0FFF_FFFF,
        0x00FF_FFFF,
        0x000F_FFFF,
        0x0000_FFFF,
        0x0000_0FFF,
        0x0000_00FF,
    ],
];

/// Per-colour counts, index 0 Black, 1 White.
#[inline(always)]
fn side_counts(pos: &Position, c: Color) -> [i32; N_FEATURES] {
    let (_, them, kings, men, empty) = crate::moves::sides(pos, c);
    let adv: u32 = ADVANCED[c as usize]
        .iter()
        .map(|&rows| (men & rows).count_ones())
        .sum();
    let (fwd_moves, back_rank, fwd_dirs) = match c {
        Color::Black => (
            moves_down(men, empty),
            (men & ROW_0).count_ones(),
            [Dir::DownLeft, Dir::DownRight],
        ),
        Color::White => (
            moves_up(men, empty),
            (men & ROW_7).count_ones(),
            [Dir::UpLeft, Dir::UpRight],
        ),
    };
    let king_moves = moves_down(kings, empty) + moves_up(kings, empty);
    let mut runaway = 0;
    let mut near = men & NEAR_CROWN[c as usize];
    while near != 0 {
        let s = near.trailing_zeros() as usize;
        near &= near - 1;
        if CONE[c as usize][s] & them == 0 {
            runaway += 1;
        }
    }
    let threats = attackers(men, them, empty, fwd_dirs)
        | attackers(kings, them, empty, [Dir::DownLeft, Dir::DownRight])
        | attackers(kings, them, empty, [Dir::UpLeft, Dir::UpRight]);
    [
        men.count_ones() as i32,
        kings.count_ones() as i32,
        back_rank as i32,
        (men & CENTRE).count_ones() as i32,
        (kings & KING_CENTRE).count_ones() as i32,
        (fwd_moves + king_moves) as i32,
        adv as i32,
        runaway,
        king_moves as i32,
        trapped(kings, empty) as i32,
        (kings & EDGE).count_ones() as i32,
        0,
        threats.count_ones() as i32,
    ]
}

/// The feature vector of `pos` from the side to move's point of view:
/// each entry is the side to move's count minus the opponent's, except
/// `to_move`, which is always 1.
#[inline]
pub fn features(pos: &Position) -> [i32; N_FEATURES] {
    let side = pos.side_to_move();
    let a = side_counts(pos, side);
    let b = side_counts(pos, side.opposite());
    let mut f = [0i32; N_FEATURES];
    for i in 0..N_FEATURES {
        f[i] = a[i] - b[i];
    }
    f[11] = 1;
    f
}

/// The game phase in `0..=PHASE_MAX`: `PHASE_MAX` with 24 pieces on the
/// board, falling linearly to 0 at 6 pieces or fewer.
#[inline]
pub fn phase(pos: &Position) -> i32 {
    let n = pos.piece_count() as i32;
    ((n - 6).clamp(0, 18) * PHASE_MAX) / 18
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen::parse_fen;

    #[test]
    fn start_position_is_symmetric() {
        let f = features(&Position::initial());
        for (i, v) in f.iter().enumerate() {
            if i != 11 {
                assert_eq!(*v, 0, "{}", FEATURE_NAMES[i]);
            }
        }
        assert_eq!(phase(&Position::initial()), PHASE_MAX);
    }

    #[test]
    fn flipping_the_colours_keeps_the_features() {
        let p = parse_fen("W:W12,15,16,25,30,32,K5:B3,7,9,14,18,24,K27").unwrap();
        assert_eq!(features(&p), features(&p.flipped()));
    }

    #[test]
    fn runaway_and_trapped_kings_are_seen() {
        // Black man on 22, nothing of White's ahead (the white man on 32
        // is off its cone and far from crowning): a runaway for Black only.
        let p = parse_fen("B:W32:B22").unwrap();
        assert_eq!(features(&p)[7], 1);
        // With a white man on 5 White has a runaway too: they cancel.
        let p = parse_fen("B:W5:B22").unwrap();
        assert_eq!(features(&p)[7], 0);
        // White king on 32 hemmed in by black men 27, 28 cannot move:
        // a trapped king of the opponent's, so -1 for Black to move.
        let p = parse_fen("B:WK32:B27,28,3").unwrap();
        assert_eq!(features(&p)[9], -1);
    }
}
