//! Text forms of positions, moves and games: PDN FEN, PDN move text and
//! PDN game files.

pub mod fen;
pub mod movetext;
pub mod pdn;
