//! An independent, deliberately simple move generator on an 8x8 array, used
//! only to cross-check the bitboard generator. It shares no code with the
//! engine: coordinates are (row, file), row 0 holds squares 1-4, the dark
//! squares are those with row + file odd.

#![allow(dead_code)]

/// A piece: (is_black, is_king).
pub type Piece = (bool, bool);

/// The board and side to move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct RefBoard {
    pub cells: [[Option<Piece>; 8]; 8],
    pub black_to_move: bool,
}

/// A move: start square, end square, captured squares (PDN numbers, sorted).
#[derive(Clone, PartialEq, Eq, Debug, PartialOrd, Ord)]
pub struct RefMove {
    pub from: (usize, usize),
    pub to: (usize, usize),
    pub captured: Vec<(usize, usize)>,
}

pub fn square_number(r: usize, f: usize) -> u8 {
    (r * 4 + f / 2 + 1) as u8
}

pub fn coords(number: u8) -> (usize, usize) {
    let i = (number - 1) as usize;
    let r = i / 4;
    let c = i % 4;
    let f = if r.is_multiple_of(2) {
        2 * c + 1
    } else {
        2 * c
    };
    (r, f)
}

impl RefBoard {
    /// From bitboards (bit i = square i + 1).
    pub fn from_bits(black: u32, white: u32, kings: u32, black_to_move: bool) -> RefBoard {
        let mut cells = [[None; 8]; 8];
        for n in 1..=32u8 {
            let b = 1u32 << (n - 1);
            let (r, f) = coords(n);
            if black & b != 0 {
                cells[r][f] = Some((true, kings & b != 0));
            } else if white & b != 0 {
                cells[r][f] = Some((false, kings & b != 0));
            }
        }
        RefBoard {
            cells,
            black_to_move,
        }
    }

    fn on_board(r: i32, f: i32) -> bool {
        (0..8).contains(&r) && (0..8).contains(&f)
    }

    fn dirs(piece: Piece) -> Vec<(i32, i32)> {
        let (black, king) = piece;
        if king {
            vec![(1, 1), (1, -1), (-1, 1), (-1, -1)]
        } else if black {
            vec![(1, 1), (1, -1)]
        } else {
            vec![(-1, 1), (-1, -1)]
        }
    }

    fn crowning_row(black: bool) -> usize {
        if black {
            7
        } else {
            0
        }
    }

    /// Every capture path (one entry per path).
    pub fn capture_paths(&self) -> Vec<RefMove> {
        let mut out = Vec::new();
        for r in 0..8 {
            for f in 0..8 {
                if let Some(p) = self.cells[r][f] {
                    if p.0 == self.black_to_move {
                        let mut captured = Vec::new();
                        self.jump((r, f), (r, f), p, &mut captured, &mut out);
                    }
                }
            }
        }
        out
    }

    fn jump(
        &self,
        origin: (usize, usize),
        at: (usize, usize),
        piece: Piece,
        captured: &mut Vec<(usize, usize)>,
        out: &mut Vec<RefMove>,
    ) {
        let mut extended = false;
        for (dr, df) in Self::dirs(piece) {
            let (mr, mf) = (at.0 as i32 + dr, at.1 as i32 + df);
            let (lr, lf) = (at.0 as i32 + 2 * dr, at.1 as i32 + 2 * df);
            if !Self::on_board(lr, lf) {
                continue;
            }
            let (mr, mf, lr, lf) = (mr as usize, mf as usize, lr as usize, lf as usize);
            let over = self.cells[mr][mf];
            let over_is_enemy = matches!(over, Some(q) if q.0 != piece.0);
            if !over_is_enemy || captured.contains(&(mr, mf)) {
                continue;
            }
            let land_empty = self.cells[lr][lf].is_none() || (lr, lf) == origin;
            if !land_empty {
                continue;
            }
            extended = true;
            captured.push((mr, mf));
            if !piece.1 && lr == Self::crowning_row(piece.0) {
                let mut c = captured.clone();
                c.sort();
                out.push(RefMove {
                    from: origin,
                    to: (lr, lf),
                    captured: c,
                });
            } else {
                self.jump(origin, (lr, lf), piece, captured, out);
            }
            captured.pop();
        }
        if !extended && !captured.is_empty() {
            let mut c = captured.clone();
            c.sort();
            out.push(RefMove {
                from: origin,
                to: at,
                captured: c,
            });
        }
    }

    /// Every legal move, one entry per capture path.
    pub fn moves_every_path(&self) -> Vec<RefMove> {
        let caps = self.capture_paths();
        if !caps.is_empty() {
            return caps;
        }
        let mut out = Vec::new();
        for r in 0..8 {
            for f in 0..8 {
                if let Some(p) = self.cells[r][f] {
                    if p.0 != self.black_to_move {
                        continue;
                    }
                    for (dr, df) in Self::dirs(p) {
                        let (tr, tf) = (r as i32 + dr, f as i32 + df);
                        if Self::on_board(tr, tf) && self.cells[tr as usize][tf as usize].is_none()
                        {
                            out.push(RefMove {
                                from: (r, f),
                                to: (tr as usize, tf as usize),
                                captured: vec![],
                            });
                        }
                    }
                }
            }
        }
        out
    }

    /// Every legal move once (duplicate paths removed).
    pub fn moves_distinct(&self) -> Vec<RefMove> {
        let mut m = self.moves_every_path();
        m.sort();
        m.dedup();
        m
    }

    pub fn play(&self, m: &RefMove) -> RefBoard {
        let mut b = *self;
        let piece = b.cells[m.from.0][m.from.1].take().expect("moving piece");
        for &(r, f) in &m.captured {
            b.cells[r][f] = None;
        }
        let crowned = piece.1 || m.to.0 == Self::crowning_row(piece.0);
        b.cells[m.to.0][m.to.1] = Some((piece.0, crowned));
        b.black_to_move = !b.black_to_move;
        b
    }

    pub fn perft(&self, depth: u32, distinct: bool) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = if distinct {
            self.moves_distinct()
        } else {
            self.moves_every_path()
        };
        moves
            .iter()
            .map(|m| self.play(m).perft(depth - 1, distinct))
            .sum()
    }
}
