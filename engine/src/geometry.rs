//! Board geometry as bitboard masks, shifts and per-square tables.
//!
//! Row `r` holds bits `4r..4r+3`. On even rows (0, 2, 4, 6) the dark squares
//! sit on files 1, 3, 5, 7; on odd rows on files 0, 2, 4, 6. Moving "down"
//! (towards higher numbers, Black's forward direction) adds 3, 4 or 5 to
//! the bit index depending on the row's parity.

/// All 32 squares.
pub const ALL: u32 = 0xFFFF_FFFF;
/// Even rows (0, 2, 4, 6).
pub const EVEN_ROWS: u32 = 0x0F0F_0F0F;
/// Odd rows (1, 3, 5, 7).
pub const ODD_ROWS: u32 = 0xF0F0_F0F0;
/// Even-row squares that have a right-hand (file + 1) neighbour.
pub const EVEN_NOT_RIGHT_EDGE: u32 = 0x0707_0707;
/// Odd-row squares that have a left-hand (file - 1) neighbour.
pub const ODD_NOT_LEFT_EDGE: u32 = 0xE0E0_E0E0;
/// Row 0 (squares 1-4): where White men are crowned.
pub const ROW_0: u32 = 0x0000_000F;
/// Row 7 (squares 29-32): where Black men are crowned.
pub const ROW_7: u32 = 0xF000_0000;

/// A diagonal direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// Towards higher rows and files (down-right in the diagram).
    DownRight = 0,
    /// Towards higher rows, lower files.
    DownLeft = 1,
    /// Towards lower rows, higher files.
    UpRight = 2,
    /// Towards lower rows and files.
    UpLeft = 3,
}

/// All four directions; the first two are Black's forward directions, the
/// last two White's.
pub const DIRS: [Dir; 4] = [Dir::DownRight, Dir::DownLeft, Dir::UpRight, Dir::UpLeft];

/// Shifts every square of `bb` one step in `dir`; squares that would leave
/// the board vanish.
#[inline(always)]
pub const fn step(bb: u32, dir: Dir) -> u32 {
    match dir {
        Dir::DownRight => ((bb & EVEN_NOT_RIGHT_EDGE) << 5) | ((bb & ODD_ROWS) << 4),
        Dir::DownLeft => ((bb & EVEN_ROWS) << 4) | ((bb & ODD_NOT_LEFT_EDGE) << 3),
        Dir::UpRight => ((bb & EVEN_NOT_RIGHT_EDGE) >> 3) | ((bb & ODD_ROWS) >> 4),
        Dir::UpLeft => ((bb & EVEN_ROWS) >> 4) | ((bb & ODD_NOT_LEFT_EDGE) >> 5),
    }
}

/// The direction opposite to `dir`.
#[inline(always)]
pub const fn opposite(dir: Dir) -> Dir {
    match dir {
        Dir::DownRight => Dir::UpLeft,
        Dir::DownLeft => Dir::UpRight,
        Dir::UpRight => Dir::DownLeft,
        Dir::UpLeft => Dir::DownRight,
    }
}

/// Marker for "no square" in the tables.
pub const NONE: u8 = 0xFF;

/// `t[dir][sq]`: the square `steps` steps away from `sq` in `dir`, or
/// [`NONE`].
const fn build_steps(steps: u32) -> [[u8; 32]; 4] {
    let mut t = [[NONE; 32]; 4];
    let mut d = 0;
    while d < 4 {
        let mut s = 0;
        while s < 32 {
            let mut n = 1u32 << s;
            let mut k = 0;
            while k < steps {
                n = step(n, DIRS[d]);
                k += 1;
            }
            if n != 0 {
                t[d][s] = n.trailing_zeros() as u8;
            }
            s += 1;
        }
        d += 1;
    }
    t
}

/// `NEIGHBOUR[dir][sq]`: the adjacent square in direction `dir`, or [`NONE`].
pub const NEIGHBOUR: [[u8; 32]; 4] = build_steps(1);
/// `JUMP_LANDING[dir][sq]`: the square two steps away in `dir`, or [`NONE`].
pub const JUMP_LANDING: [[u8; 32]; 4] = build_steps(2);

/// The jump from square `at` in `dir` over one of `prey` onto an `empty`
/// square, if there is one: the bit of the piece jumped and the landing
/// square.
#[inline(always)]
pub fn jump_over(at: u8, dir: Dir, prey: u32, empty: u32) -> Option<(u32, u8)> {
    let land = JUMP_LANDING[dir as usize][at as usize];
    if land == NONE {
        return None;
    }
    let over = 1u32 << NEIGHBOUR[dir as usize][at as usize];
    (over & prey != 0 && (1u32 << land) & empty != 0).then_some((over, land))
}

const fn build_can_jump(dir: usize) -> u32 {
    let mut mask = 0;
    let mut s = 0;
    while s < 32 {
        if JUMP_LANDING[dir][s] != NONE {
            mask |= 1u32 << s;
        }
        s += 1;
    }
    mask
}

/// `CAN_JUMP[dir]`: the squares from which a jump in `dir` stays on the
/// board. A jump always moves the bit index by a fixed amount (two steps
/// add 4 and 5 in some order, or 4 and 3): see [`jump`].
pub const CAN_JUMP: [u32; 4] = [
    build_can_jump(0),
    build_can_jump(1),
    build_can_jump(2),
    build_can_jump(3),
];

/// Moves every square of `bb` two steps in `dir` (a jump's landing
/// square); squares whose landing would leave the board vanish.
#[inline(always)]
pub const fn jump(bb: u32, dir: Dir) -> u32 {
    match dir {
        Dir::DownRight => (bb & CAN_JUMP[0]) << 9,
        Dir::DownLeft => (bb & CAN_JUMP[1]) << 7,
        Dir::UpRight => (bb & CAN_JUMP[2]) >> 7,
        Dir::UpLeft => (bb & CAN_JUMP[3]) >> 9,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_moves_match_the_published_openings() {
        // Black 9 moves to 13 and 14; 12 only to 16; White 21 only to 17.
        assert_eq!(NEIGHBOUR[Dir::DownLeft as usize][8], 12);
        assert_eq!(NEIGHBOUR[Dir::DownRight as usize][8], 13);
        assert_eq!(NEIGHBOUR[Dir::DownRight as usize][11], NONE);
        assert_eq!(NEIGHBOUR[Dir::DownLeft as usize][11], 15);
        assert_eq!(NEIGHBOUR[Dir::UpLeft as usize][20], NONE);
        assert_eq!(NEIGHBOUR[Dir::UpRight as usize][20], 16);
    }

    #[test]
    fn a_jump_is_two_steps_on_every_square() {
        for s in 0..32 {
            for d in DIRS {
                assert_eq!(
                    jump(1 << s, d),
                    step(step(1 << s, d), d),
                    "square {s} {d:?}"
                );
            }
        }
    }

    #[test]
    fn steps_are_inverse_and_neighbours_are_symmetric() {
        for s in 0..32u8 {
            for d in DIRS {
                let n = NEIGHBOUR[d as usize][s as usize];
                if n != NONE {
                    assert_eq!(NEIGHBOUR[opposite(d) as usize][n as usize], s);
                    let (r1, r2) = (s / 4, n / 4);
                    assert_eq!((r1 as i32 - r2 as i32).abs(), 1);
                }
            }
        }
        // 7 * 4 * 2 + ... : every interior square has four neighbours.
        let total: usize = DIRS
            .iter()
            .map(|&d| NEIGHBOUR[d as usize].iter().filter(|&&n| n != NONE).count())
            .sum();
        assert_eq!(total, 98); // 49 diagonal adjacencies, each counted twice
    }
}
