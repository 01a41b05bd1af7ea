//! PDN FEN for checkers: `B:W21-32:B1-12`.
//!
//! Accepted: the side to move (`B` or `W`), then the two colour lists in
//! either order, each a comma-separated list of squares (1-32), ranges
//! (`21-32`) and kings (`K` before a square or range); spaces after commas,
//! an empty list (`B:W:B1`) and a trailing `.` are tolerated, a missing
//! one is not (`B` alone is an error, not an empty board). Printed: the canonical
//! CheckerBoard form, side, `:W` list ascending, `:B` list ascending, kings
//! inline (`W:WK3,21:B9,K30`).

use crate::board::{Color, Position, PositionError, Setup};
use crate::square::Squares;
use thiserror::Error;

/// Why a FEN could not be read.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum FenError {
    /// The text is empty.
    #[error("empty FEN")]
    Empty,
    /// The side-to-move field is not `B` or `W`.
    #[error("FEN side to move {0:?} is not B or W")]
    BadSide(String),
    /// A colour list does not start with `B` or `W`.
    #[error("FEN field {0:?} does not start with W or B")]
    BadColorField(String),
    /// The same colour is listed twice.
    #[error("FEN lists {0} twice")]
    DuplicateColor(Color),
    /// More than three colon-separated fields.
    #[error("FEN has {0} fields, expected 3 (side, white list, black list)")]
    FieldCount(usize),
    /// A square is not a number 1-32.
    #[error("FEN square {0:?} is not a number from 1 to 32")]
    BadSquare(String),
    /// A range runs backwards.
    #[error("FEN range {0:?} runs backwards")]
    BadRange(String),
    /// The same square is given twice in one list.
    #[error("FEN lists square {0} twice")]
    RepeatedSquare(u8),
    /// The pieces do not form a legal position.
    #[error("FEN position is illegal: {0}")]
    Illegal(PositionError),
}

// Not `#[from]`: that would also make the position error the `source`,
// and error chains (anyhow's `{:#}`) would print its message twice.
impl From<PositionError> for FenError {
    fn from(e: PositionError) -> FenError {
        FenError::Illegal(e)
    }
}

/// Reads a FEN into an unchecked [`Setup`].
pub fn parse_setup(text: &str) -> Result<Setup, FenError> {
    let text = text.trim();
    let text = text.strip_suffix('.').unwrap_or(text).trim();
    if text.is_empty() {
        return Err(FenError::Empty);
    }
    let fields: Vec<&str> = text.split(':').collect();
    // Both lists must be there, even empty (`B:W:B1`): a lone `B` is not
    // an empty board.
    if fields.len() != 3 {
        return Err(FenError::FieldCount(fields.len()));
    }
    let side = match fields[0].trim() {
        "B" | "b" => Color::Black,
        "W" | "w" => Color::White,
        other => return Err(FenError::BadSide(other.to_string())),
    };
    let mut setup = Setup {
        side: Some(side),
        ..Setup::default()
    };
    let mut seen = [false; 2];
    for field in &fields[1..] {
        let field = field.trim();
        let mut chars = field.chars();
        let color = match chars.next() {
            Some('W') | Some('w') => Color::White,
            Some('B') | Some('b') => Color::Black,
            _ => return Err(FenError::BadColorField(field.to_string())),
        };
        if seen[color as usize] {
            return Err(FenError::DuplicateColor(color));
        }
        seen[color as usize] = true;
        let (men, kings) = parse_list(chars.as_str())?;
        match color {
            Color::Black => {
                setup.black_men = men;
                setup.black_kings = kings;
            }
            Color::White => {
                setup.white_men = men;
                setup.white_kings = kings;
            }
        }
    }
    Ok(setup)
}

fn parse_square(text: &str) -> Result<u8, FenError> {
    let t = text.trim();
    match t.parse::<u8>() {
        Ok(n) if (1..=32).contains(&n) && t.bytes().all(|b| b.is_ascii_digit()) => Ok(n),
        _ => Err(FenError::BadSquare(t.to_string())),
    }
}

/// Parses one colour's list into (men, kings) bitboards.
fn parse_list(text: &str) -> Result<(u32, u32), FenError> {
    let (mut men, mut kings) = (0u32, 0u32);
    if text.trim().is_empty() {
        return Ok((0, 0));
    }
    for item in text.split(',') {
        let item = item.trim();
        let (is_king, body) = match item.strip_prefix(['K', 'k']) {
            Some(rest) => (true, rest),
            None => (false, item),
        };
        let (lo, hi) = match body.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (parse_square(a)?, parse_square(b)?);
                if a > b {
                    return Err(FenError::BadRange(item.to_string()));
                }
                (a, b)
            }
            None => {
                let a = parse_square(body)?;
                (a, a)
            }
        };
        for n in lo..=hi {
            let bit = 1u32 << (n - 1);
            if (men | kings) & bit != 0 {
                return Err(FenError::RepeatedSquare(n));
            }
            if is_king {
                kings |= bit;
            } else {
                men |= bit;
            }
        }
    }
    Ok((men, kings))
}

/// Reads a FEN into a legal [`Position`].
pub fn parse_fen(text: &str) -> Result<Position, FenError> {
    Ok(Position::from_setup(&parse_setup(text)?)?)
}

fn write_list(out: &mut String, pos: &Position, color: Color) {
    let kings = pos.kings();
    let mut first = true;
    for s in Squares(pos.pieces(color)) {
        if !first {
            out.push(',');
        }
        first = false;
        if kings & s.bit() != 0 {
            out.push('K');
        }
        out.push_str(&s.number().to_string());
    }
}

/// Prints the canonical FEN of `pos`: `B:W21,22:BK1,9`.
pub fn to_fen(pos: &Position) -> String {
    let mut out = String::with_capacity(100);
    out.push(match pos.side_to_move() {
        Color::Black => 'B',
        Color::White => 'W',
    });
    out.push_str(":W");
    write_list(&mut out, pos, Color::White);
    out.push_str(":B");
    write_list(&mut out, pos, Color::Black);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_in_any_spelling() {
        let p = Position::initial();
        for text in [
            "B:W21-32:B1-12",
            "B:B1-12:W21-32",
            "B:W21-32:B1-12.",
            "B:W21, 22,23,24,25-32:B1-4, 5-12",
        ] {
            assert_eq!(parse_fen(text).unwrap(), p, "{text}");
        }
        assert_eq!(
            to_fen(&p),
            "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
        );
    }

    #[test]
    fn kings_and_errors() {
        let p = parse_fen("W:WK19,K23:B12,K28").unwrap();
        assert_eq!(to_fen(&p), "W:WK19,K23:B12,K28");
        assert_eq!(parse_fen(""), Err(FenError::Empty));
        assert_eq!(parse_fen("B"), Err(FenError::FieldCount(1)));
        assert_eq!(parse_fen("B:W21"), Err(FenError::FieldCount(2)));
        assert!(parse_fen("B:W:B1").is_ok());
        assert!(matches!(parse_fen("X:W1:B2"), Err(FenError::BadSide(_))));
        assert!(matches!(parse_fen("B:W33:B2"), Err(FenError::BadSquare(_))));
        assert!(matches!(parse_fen("B:W3-1:B9"), Err(FenError::BadRange(_))));
        assert!(matches!(
            parse_fen("B:W1:B9"),
            Err(FenError::Illegal(PositionError::ManOnCrowningRow { .. }))
        ));
        assert!(matches!(
            parse_fen("B:W10:B10"),
            Err(FenError::Illegal(PositionError::Overlap { .. }))
        ));
        assert!(matches!(
            parse_fen("B:W:B1-13"),
            Err(FenError::Illegal(PositionError::TooManyPieces { .. }))
        ));
    }
}
