//! The game of American checkers (English draughts, PDN GameType 21) and
//! everything that evaluates its positions.
//!
//! Squares are numbered 1-32 as in PDN; bit `i` of a bitboard is square
//! `i + 1`. Black starts on 1-12 and moves first, towards higher numbers;
//! White starts on 21-32.

#![deny(missing_docs)]

pub mod board;
pub mod durable;
pub mod egdb;
pub mod eval;
pub mod geometry;
pub mod hash;
pub mod lockfile;
pub mod moves;
pub mod notation;
pub mod perft;
pub mod play;
pub mod rng;
pub mod search;
pub mod square;
pub mod value;

pub use board::{Color, Position, PositionError, Setup};
pub use moves::{Move, MoveList};
pub use square::Square;
pub use value::{NoOracle, Oracle, Value};
