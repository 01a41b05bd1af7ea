//! The engine's guess of a position's value. It steers how a solve spends
//! its time (which question first, how the time is shared, whether df-pn
//! builds on results held through a repetition), never what it proves:
//! every answer still comes from a search and a verified proof.

use engine::search::{Limits, Searcher, WIN_THRESHOLD};
use engine::{Oracle, Position};

/// The value the engine expects for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Ahead by at least [`DECISIVE`].
    Win,
    /// Within [`DECISIVE`] of level.
    Draw,
    /// Behind by at least [`DECISIVE`].
    Loss,
}

/// The engine's view of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guess {
    /// The engine's score for the side to move, in hundredths of a man.
    pub score: i32,
    /// What the score says.
    pub expect: Expect,
    /// Nodes the engine searched.
    pub nodes: u64,
}

/// Nodes of the engine search behind a guess (a few hundredths of a
/// second).
pub const GUESS_NODES: u64 = 200_000;

/// A score at least this far from level (hundredths of a man: a man is
/// 100) is expected to decide the game.
pub const DECISIVE: i32 = 100;

/// Table size of the guessing search, MiB.
const GUESS_TABLE_MB: usize = 8;

/// The engine's guess for `pos`, from a search of [`GUESS_NODES`] nodes
/// with the databases of `oracle`.
pub fn guess(pos: &Position, oracle: &dyn Oracle) -> Guess {
    let mut searcher = Searcher::full_width(GUESS_TABLE_MB);
    let limits = Limits {
        nodes: Some(GUESS_NODES),
        ..Limits::default()
    };
    let r = searcher.search(pos, &limits, oracle, &[]);
    Guess {
        score: r.score,
        expect: expect_of(r.score),
        nodes: r.nodes,
    }
}

/// What a score (side to move's view) says.
pub fn expect_of(score: i32) -> Expect {
    if score >= DECISIVE || score > WIN_THRESHOLD {
        Expect::Win
    } else if score <= -DECISIVE {
        Expect::Loss
    } else {
        Expect::Draw
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::notation::fen::parse_fen;
    use engine::NoOracle;

    #[test]
    fn scores_say_who_is_expected_to_win() {
        assert_eq!(expect_of(0), Expect::Draw);
        assert_eq!(expect_of(99), Expect::Draw);
        assert_eq!(expect_of(-99), Expect::Draw);
        assert_eq!(expect_of(100), Expect::Win);
        assert_eq!(expect_of(-100), Expect::Loss);
    }

    #[test]
    fn two_men_up_is_a_win_and_the_start_is_level() {
        let up = parse_fen("W:W21,22,23,30:B5,6").unwrap();
        assert_eq!(guess(&up, &NoOracle).expect, Expect::Win);
        let down = parse_fen("B:W21,22,23,30:B5,6").unwrap();
        assert_eq!(guess(&down, &NoOracle).expect, Expect::Loss);
        assert_eq!(guess(&Position::initial(), &NoOracle).expect, Expect::Draw);
    }
}
