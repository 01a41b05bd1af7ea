//! PDN move text: `9-13`, `15x22` (short form: start and end) and
//! `26x17x10` (long form: every landing square of a jump path), read
//! against a position's legal moves and written back.
//!
//! Reading rules (see also `docs/pdn.txt`):
//! - A move is two or more square numbers (1-32) joined by `-`, `x` or
//!   `X`. Surrounding spaces and trailing annotation marks (`!`, `?`, `*`,
//!   `+`) are ignored.
//! - The separator is a hint, not a requirement: `x` written for a quiet
//!   move, or `-` for a capture, is accepted when the squares name exactly
//!   one legal move (many PDN files are loose about this).
//! - Short form (two squares) matches every legal move with that start and
//!   end. When that is more than one move (same start and end, different
//!   captured pieces) it is refused as [`MoveTextError::Ambiguous`], naming
//!   the candidates in long form; except that when exactly one of them is a
//!   single jump, the text is its complete long form and means that move.
//! - Long form (three or more squares) matches the captures one of whose
//!   jump paths visits exactly those squares. If none does, a path that
//!   visits the written squares in order with others between (an
//!   abbreviated long form) is accepted when it is unique.
//!
//! Writing: the short form, unless another legal move has the same start
//! and end, then the long form of the move's first jump path.

use crate::board::{Color, Position};
use crate::geometry::{jump_over, DIRS};
use crate::moves::Move;
use crate::square::Square;
use std::fmt;
use thiserror::Error;

/// Why a piece of move text is not a legal move of the position.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum MoveTextError {
    /// The text is not move syntax at all.
    #[error("{text:?} is not a move: {reason}")]
    NotAMove {
        /// The text as given.
        text: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The text is move syntax but no legal move matches it.
    #[error("{text} is not legal here; legal: {}", MoveNames(.legal))]
    Illegal {
        /// The text as given.
        text: String,
        /// Every legal move of the position, in PDN text.
        legal: Vec<String>,
    },
    /// The text matches more than one legal move.
    #[error("{text} is ambiguous: it could be {}", MoveNames(.candidates))]
    Ambiguous {
        /// The text as given.
        text: String,
        /// The matching moves in long form.
        candidates: Vec<String>,
    },
}

/// Displays a list of move texts separated by spaces (or "none").
struct MoveNames<'a>(&'a [String]);

impl fmt::Display for MoveNames<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("none (the side to move has lost)");
        }
        for (i, m) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            f.write_str(m)?;
        }
        Ok(())
    }
}

/// Most squares a move text may name: a king can make at most 12 jumps
/// (at most 12 opponent pieces), so a path has at most 13 squares.
const MAX_TEXT_SQUARES: usize = 13;

/// Splits move text into its squares. Returns the squares (at most
/// [`MAX_TEXT_SQUARES`]).
fn split_squares(text: &str) -> Result<Vec<Square>, &'static str> {
    let body = text.trim().trim_end_matches(['!', '?', '*', '+']);
    if body.is_empty() {
        return Err("empty");
    }
    let mut squares = Vec::with_capacity(4);
    for part in body.split(['-', 'x', 'X']) {
        if part.is_empty() {
            return Err("a separator without a square on one side");
        }
        if !part.bytes().all(|b| b.is_ascii_digit()) {
            return Err("squares must be numbers 1-32 joined by '-' or 'x'");
        }
        let n: u32 = if part.len() > 2 {
            99
        } else {
            part.parse().unwrap_or(99)
        };
        let sq = u8::try_from(n)
            .ok()
            .and_then(Square::from_number)
            .ok_or("a square number outside 1-32")?;
        if squares.len() == MAX_TEXT_SQUARES {
            return Err("more squares than any jump path has");
        }
        squares.push(sq);
    }
    if squares.len() < 2 {
        return Err("a move needs a start and an end square");
    }
    Ok(squares)
}

/// Every jump path of `mv` in `pos`: each is the list of squares visited,
/// starting with [`Move::from`] and ending with [`Move::to`]. A quiet move
/// has the single path `[from, to]`. Paths come in a fixed order (by
/// direction of each jump). Empty when `mv` is not a capture of the piece
/// on its start square (for example, not a legal move here).
pub fn move_paths(pos: &Position, mv: &Move) -> Vec<Vec<Square>> {
    let from = mv.from();
    if !mv.is_capture() {
        return vec![vec![from, mv.to()]];
    }
    let side = pos.side_to_move();
    let Some((color, king)) = pos.piece_at(from) else {
        return Vec::new();
    };
    if color != side {
        return Vec::new();
    }
    let them = pos.pieces(side.opposite());
    if mv.captured() & !them != 0 {
        return Vec::new();
    }
    let search = PathSearch {
        target: mv.to().index(),
        captured: mv.captured(),
        // The mover leaves its square, so it may land there again.
        empty: pos.empty() | from.bit(),
        king,
        side,
    };
    let mut out = Vec::new();
    let mut path = vec![from];
    search.extend(&mut path, 0, &mut out);
    out
}

/// The squares visited by the first jump path of `mv` (see
/// [`move_paths`]): `[from, landing..., to]`; `[from, to]` for a quiet
/// move. Empty when `mv` is not a capture of this position.
pub fn move_path(pos: &Position, mv: &Move) -> Vec<Square> {
    move_paths(pos, mv).into_iter().next().unwrap_or_default()
}

/// Depth-first search for jump sequences that take exactly the pieces of
/// `captured` and stop on `target`.
struct PathSearch {
    target: u8,
    captured: u32,
    empty: u32,
    king: bool,
    side: Color,
}

impl PathSearch {
    fn extend(&self, path: &mut Vec<Square>, taken: u32, out: &mut Vec<Vec<Square>>) {
        let at = path.last().expect("path starts with the origin").index();
        if taken == self.captured {
            if at == self.target {
                out.push(path.clone());
            }
            return;
        }
        // A man that reached its crowning row has ended its move.
        if !self.king && path.len() > 1 && (1u32 << at) & self.side.crowning_row() != 0 {
            return;
        }
        for d in DIRS {
            let forward = match self.side {
                Color::Black => (d as usize) < 2,
                Color::White => (d as usize) >= 2,
            };
            if !self.king && !forward {
                continue;
            }
            let Some((ob, land)) = jump_over(at, d, self.captured & !taken, self.empty) else {
                continue;
            };
            path.push(Square::from_index(land).expect("table squares are < 32"));
            self.extend(path, taken | ob, out);
            path.pop();
        }
    }
}

/// Joins squares with `sep`: `26x17x10`.
fn join(squares: &[Square], sep: char) -> String {
    let mut s = String::with_capacity(squares.len() * 3);
    for (i, sq) in squares.iter().enumerate() {
        if i > 0 {
            s.push(sep);
        }
        s.push_str(&sq.number().to_string());
    }
    s
}

/// The long form of `mv`: its first jump path joined by `x` (`26x17x10`),
/// or `from-to` for a quiet move.
pub fn move_to_long_text(pos: &Position, mv: &Move) -> String {
    if !mv.is_capture() {
        return mv.to_string();
    }
    let path = move_path(pos, mv);
    if path.is_empty() {
        // Not a capture of this position: fall back to the short form.
        return mv.to_string();
    }
    join(&path, 'x')
}

/// The PDN text of `mv` in `pos`: short form (`9-13`, `15x22`) unless
/// another legal move shares its start and end, then the long form of its
/// first path (`15x22x29`).
pub fn move_to_text(pos: &Position, mv: &Move) -> String {
    if mv.is_capture() {
        let clash = pos
            .moves()
            .iter()
            .any(|m| m.from() == mv.from() && m.to() == mv.to() && !m.same_move(mv));
        if clash {
            return move_to_long_text(pos, mv);
        }
    }
    mv.to_string()
}

/// The texts of every legal move of `pos` as [`move_to_text`] writes them,
/// ordered by start square, then end square, then captured pieces.
pub fn legal_move_texts(pos: &Position) -> Vec<String> {
    let mut moves: Vec<Move> = pos.moves().iter().copied().collect();
    moves.sort_by_key(|m| (m.from(), m.to(), m.captured()));
    moves.iter().map(|m| move_to_text(pos, m)).collect()
}

/// Whether `written` (the squares after the start) occurs in order inside
/// `path` (which starts with the start square), ending with its last square.
fn is_abbreviation(path: &[Square], written: &[Square]) -> bool {
    if path.last() != written.last() {
        return false;
    }
    let mut rest = path[1..].iter();
    written.iter().all(|w| rest.any(|p| p == w))
}

/// Reads PDN move text as a legal move of `pos` (rules in the module
/// documentation).
pub fn parse_move(pos: &Position, text: &str) -> Result<Move, MoveTextError> {
    let squares = split_squares(text).map_err(|reason| MoveTextError::NotAMove {
        text: text.trim().to_string(),
        reason,
    })?;
    let from = squares[0];
    let to = *squares.last().expect("at least two squares");
    let legal = pos.moves();
    let same_ends = legal
        .iter()
        .filter(|m| m.from() == from && m.to() == to)
        .copied();
    let candidates: Vec<Move> = if squares.len() == 2 {
        let all: Vec<Move> = same_ends.collect();
        // `a x b` is also the complete long form of a single jump: prefer
        // that reading when the short form is ambiguous.
        let single: Vec<Move> = all
            .iter()
            .filter(|m| m.captured().count_ones() == 1)
            .copied()
            .collect();
        if all.len() > 1 && single.len() == 1 {
            single
        } else {
            all
        }
    } else {
        let with_paths: Vec<(Move, Vec<Vec<Square>>)> = same_ends
            .filter(|m| m.is_capture())
            .map(|m| (m, move_paths(pos, &m)))
            .collect();
        let exact: Vec<Move> = with_paths
            .iter()
            .filter(|(_, paths)| paths.iter().any(|p| p[..] == squares[..]))
            .map(|(m, _)| *m)
            .collect();
        if exact.is_empty() {
            with_paths
                .iter()
                .filter(|(_, paths)| paths.iter().any(|p| is_abbreviation(p, &squares[1..])))
                .map(|(m, _)| *m)
                .collect()
        } else {
            exact
        }
    };
    match candidates.len() {
        1 => Ok(candidates[0]),
        0 => Err(MoveTextError::Illegal {
            text: text.trim().to_string(),
            legal: legal_move_texts(pos),
        }),
        _ => Err(MoveTextError::Ambiguous {
            text: text.trim().to_string(),
            candidates: candidates
                .iter()
                .map(|m| move_to_long_text(pos, m))
                .collect(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen::parse_fen;

    #[test]
    fn opening_moves() {
        let p = Position::initial();
        let m = parse_move(&p, "9-13").unwrap();
        assert_eq!((m.from().number(), m.to().number()), (9, 13));
        assert_eq!(move_to_text(&p, &m), "9-13");
        // Tolerated: the wrong separator when it resolves uniquely.
        assert_eq!(parse_move(&p, "9x13").unwrap(), m);
        assert_eq!(parse_move(&p, " 9-13! ").unwrap(), m);
        for text in ["9-14x", "0-4", "e3-d4"] {
            assert!(
                matches!(parse_move(&p, text), Err(MoveTextError::NotAMove { .. })),
                "{text}"
            );
        }
        let e = parse_move(&p, "22-17").unwrap_err();
        assert_eq!(
            e.to_string(),
            "22-17 is not legal here; legal: 9-13 9-14 10-14 10-15 11-15 11-16 12-16"
        );
    }

    #[test]
    fn double_jump_long_form_and_path() {
        // Black man on 1 takes 6 and 15 landing on 10 then 19.
        let p = parse_fen("B:W6,15,30:B1").unwrap();
        let m = parse_move(&p, "1x19").unwrap();
        assert_eq!(
            move_path(&p, &m)
                .iter()
                .map(|s| s.number())
                .collect::<Vec<_>>(),
            [1, 10, 19]
        );
        assert_eq!(parse_move(&p, "1x10x19").unwrap(), m);
        assert_eq!(parse_move(&p, "1-19").unwrap(), m);
        for text in ["1x10", "1x6x19"] {
            assert!(
                matches!(parse_move(&p, text), Err(MoveTextError::Illegal { .. })),
                "{text}"
            );
        }
    }

    #[test]
    fn same_ends_different_captures_is_ambiguous() {
        // The black king on 11 circles 6, 7, 14, 15 back to 11 (two paths,
        // one move), or ends on 27 either taking 15 and 23, or 7, 6, 14
        // and 23.
        let p = parse_fen("B:W6,7,14,15,23:BK11").unwrap();
        let moves = p.moves();
        let mut found = false;
        for m in moves.iter() {
            let clash = moves
                .iter()
                .any(|o| o.from() == m.from() && o.to() == m.to() && !o.same_move(m));
            let text = move_to_text(&p, m);
            assert_eq!(parse_move(&p, &text).unwrap(), *m, "{text}");
            if clash {
                found = true;
                assert!(text.matches('x').count() >= 2, "{text}");
                let short = m.to_string();
                assert!(matches!(
                    parse_move(&p, &short),
                    Err(MoveTextError::Ambiguous { .. })
                ));
            }
        }
        assert!(found, "expected two captures with the same ends: {moves:?}");
        let circle = moves.iter().find(|m| m.from() == m.to()).unwrap();
        assert_eq!(circle.paths(), 2);
        assert_eq!(move_paths(&p, circle).len(), 2);
        assert_eq!(move_to_text(&p, circle), "11x11");
        for path in move_paths(&p, circle) {
            let long: Vec<String> = path.iter().map(|s| s.to_string()).collect();
            assert_eq!(parse_move(&p, &long.join("x")).unwrap(), *circle);
        }
        let e = parse_move(&p, "11x27").unwrap_err();
        assert_eq!(
            e.to_string(),
            "11x27 is ambiguous: it could be 11x18x27 11x2x9x18x27"
        );
    }
}
