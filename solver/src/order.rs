//! A small evaluation for move ordering: material and the advancement of
//! men, from the side to move's view. It orders moves only; it never
//! decides a result.

use engine::{Color, MoveList, Position};

/// Value of a man, in points.
pub const MAN: i32 = 100;
/// Value of a king, in points.
pub const KING: i32 = 130;

/// Deepest capture sequence [`resolved`] follows (captures only: each
/// removes a piece, so this bounds a rare long exchange's cost).
const RESOLVE_DEPTH: u32 = 8;

/// Score of `pos` for its side to move once the captures it must make
/// are made: the static [`evaluate`] of a position without a capture,
/// else the best of its captures, each resolved the same way for the
/// other side (captures are forced in checkers, so a static score with a
/// capture pending is a man or more off).
pub fn resolved(pos: &Position) -> i32 {
    resolved_to(pos, RESOLVE_DEPTH)
}

fn resolved_to(pos: &Position, depth: u32) -> i32 {
    if depth == 0 || !pos.has_capture() {
        return evaluate(pos);
    }
    // Captures only (the position has one), into a list of this frame:
    // `Position::moves` would test for a capture again and copy its list
    // out.
    let mut captures = MoveList::new();
    pos.push_captures(&mut captures);
    let mut best = i32::MIN;
    for m in captures.iter() {
        best = best.max(-resolved_to(&pos.play_unchecked(m), depth - 1));
    }
    best
}

/// Static score of `pos` for its side to move (higher is better).
pub fn evaluate(pos: &Position) -> i32 {
    let me = pos.side_to_move();
    side_score(pos, me) - side_score(pos, me.opposite())
}

fn side_score(pos: &Position, c: Color) -> i32 {
    let men = pos.men(c);
    let kings = pos.kings_of(c);
    let mut s = MAN * men.count_ones() as i32 + KING * kings.count_ones() as i32;
    // Advancement: rows travelled towards the crowning row, 3 points each.
    for sq in engine::square::Squares(men) {
        let row = sq.row() as i32;
        let advanced = match c {
            Color::Black => row,
            Color::White => 7 - row,
        };
        s += 3 * advanced;
    }
    // Kings in the centre are stronger.
    let centre: u32 = (1 << 9)
        | (1 << 10)
        | (1 << 13)
        | (1 << 14)
        | (1 << 17)
        | (1 << 18)
        | (1 << 21)
        | (1 << 22);
    s += 5 * (kings & centre).count_ones() as i32;
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Position {
        engine::notation::fen::parse_fen(fen).expect("a valid FEN")
    }

    /// A man that must be taken is counted as taken; a quiet position
    /// keeps its static score.
    #[test]
    fn resolved_makes_the_forced_captures() {
        // White to move must take 18 with 22x15 and nothing comes back:
        // a man up, where the static score sees the material level.
        let p = pos("W:W22,30:B18,3");
        assert!(p.has_capture());
        assert!(resolved(&p) >= evaluate(&p) + MAN - 20);
        // Black to move takes back after White's capture: level again.
        let q = pos("W:W22,30:B18,10,6");
        let after = resolved(&q);
        assert!((after - evaluate(&q)).abs() < MAN / 2, "{after}");
        let quiet = pos("B:W30,31:B1,2");
        assert_eq!(resolved(&quiet), evaluate(&quiet));
    }
}
