//! A small evaluation for move ordering: material and the advancement of
//! men, from the side to move's view. It orders moves only; it never
//! decides a result.

use engine::{Color, Position};

/// Value of a man, in points.
pub const MAN: i32 = 100;
/// Value of a king, in points.
pub const KING: i32 = 130;

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
