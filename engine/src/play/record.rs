//! A game as played: its start, its moves, the positions they pass
//! through, and its PDN text.

use crate::notation::fen::to_fen;
use crate::{Color, Move, Position};

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameOutcome {
    /// Black won.
    BlackWins,
    /// White won.
    WhiteWins,
    /// Drawn.
    Draw,
    /// Not finished (a player quit).
    Unfinished,
}

impl GameOutcome {
    /// PDN result token: `1-0` Black wins, `0-1` White wins.
    pub fn pdn(self) -> &'static str {
        match self {
            GameOutcome::BlackWins => "1-0",
            GameOutcome::WhiteWins => "0-1",
            GameOutcome::Draw => "1/2-1/2",
            GameOutcome::Unfinished => "*",
        }
    }

    /// The win of `c`.
    pub fn win_for(c: Color) -> GameOutcome {
        match c {
            Color::Black => GameOutcome::BlackWins,
            Color::White => GameOutcome::WhiteWins,
        }
    }

    /// What the game scored for `c`: 1 for a win, 0.5 for a draw, 0
    /// otherwise (a loss, or a game not finished).
    pub fn score_for(self, c: Color) -> f64 {
        match (self, c) {
            (GameOutcome::Draw, _) => 0.5,
            (GameOutcome::BlackWins, Color::Black) | (GameOutcome::WhiteWins, Color::White) => 1.0,
            _ => 0.0,
        }
    }
}

/// A game record: start position, moves, the positions they pass through.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// Start position.
    pub start: Position,
    /// Moves played.
    pub moves: Vec<Move>,
    /// Positions: `positions[0] == start`, then one after each move.
    pub positions: Vec<Position>,
}

impl GameRecord {
    /// A game starting at `start`.
    pub fn new(start: Position) -> GameRecord {
        GameRecord {
            start,
            moves: Vec::new(),
            positions: vec![start],
        }
    }

    /// The current position.
    pub fn current(&self) -> Position {
        *self.positions.last().expect("never empty")
    }

    /// Plays a legal move.
    pub fn push(&mut self, m: Move) {
        let p = self.current().play_unchecked(&m);
        self.moves.push(m);
        self.positions.push(p);
    }

    /// Positions before the current one (for the search's repetition check).
    pub fn history(&self) -> &[Position] {
        &self.positions[..self.positions.len() - 1]
    }

    /// How many times the current position has occurred (1 = first time).
    pub fn occurrences(&self) -> usize {
        let cur = self.current();
        self.positions.iter().filter(|p| **p == cur).count()
    }

    /// The game as PDN with the given tags (Event, Black, White...) plus
    /// Result, GameType and, for a non-initial start, SetUp/FEN.
    pub fn to_pdn(&self, tags: &[(&str, String)], outcome: GameOutcome) -> String {
        let mut s = String::new();
        for (k, v) in tags {
            s.push_str(&format!("[{k} \"{}\"]\n", v.replace('"', "'")));
        }
        s.push_str(&format!(
            "[Result \"{}\"]\n[GameType \"21\"]\n",
            outcome.pdn()
        ));
        if self.start != Position::initial() {
            s.push_str(&format!(
                "[SetUp \"1\"]\n[FEN \"{}\"]\n",
                to_fen(&self.start)
            ));
        }
        let mut line = String::new();
        let mut number = 1;
        let mut black_to_move = self.start.side_to_move() == Color::Black;
        let mut first = true;
        for m in &self.moves {
            let tok = if black_to_move {
                format!("{number}. {m}")
            } else if first {
                format!("{number}... {m}")
            } else {
                m.to_string()
            };
            if !black_to_move {
                number += 1;
            }
            black_to_move = !black_to_move;
            first = false;
            if line.len() + tok.len() + 1 > 79 {
                s.push_str(line.trim_end());
                s.push('\n');
                line.clear();
            }
            line.push_str(&tok);
            line.push(' ');
        }
        line.push_str(outcome.pdn());
        s.push_str(&line);
        s.push_str("\n\n");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen::parse_fen;
    use crate::notation::movetext::parse_move;
    use crate::notation::pdn::read_games;

    fn play(game: &mut GameRecord, moves: &[&str]) {
        for t in moves {
            let m = parse_move(&game.current(), t).unwrap();
            game.push(m);
        }
    }

    #[test]
    fn pdn_of_a_game_reads_back_as_the_same_moves() {
        let mut g = GameRecord::new(Position::initial());
        play(&mut g, &["11-15", "23-19", "8-11", "22-17"]);
        let text = g.to_pdn(&[("Event", "a \"test\"".into())], GameOutcome::Draw);
        assert!(text.starts_with("[Event \"a 'test'\"]\n[Result \"1/2-1/2\"]\n"));
        assert!(
            text.contains("1. 11-15 23-19 2. 8-11 22-17 1/2-1/2"),
            "{text}"
        );
        let games = read_games(&text).unwrap();
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].moves.len(), 4);
    }

    #[test]
    fn a_white_start_is_numbered_with_an_ellipsis_and_carries_its_fen() {
        let start = parse_fen("W:W18:B14").unwrap();
        let mut g = GameRecord::new(start);
        play(&mut g, &["18x9"]);
        let text = g.to_pdn(&[], GameOutcome::WhiteWins);
        assert!(
            text.contains("[SetUp \"1\"]\n[FEN \"W:W18:B14\"]"),
            "{text}"
        );
        assert!(text.contains("1... 18x9 0-1"), "{text}");
    }

    #[test]
    fn repetitions_are_counted_and_history_excludes_the_current_position() {
        let start = parse_fen("B:WK32:BK1").unwrap();
        let mut g = GameRecord::new(start);
        play(&mut g, &["1-5", "32-28", "5-1", "28-32"]);
        assert_eq!(g.current(), start);
        assert_eq!(g.occurrences(), 2);
        assert_eq!(g.history().len(), 4);
        assert_eq!(g.history()[0], start);
    }

    #[test]
    fn scores_follow_the_outcome() {
        assert_eq!(GameOutcome::BlackWins.score_for(Color::Black), 1.0);
        assert_eq!(GameOutcome::BlackWins.score_for(Color::White), 0.0);
        assert_eq!(GameOutcome::Draw.score_for(Color::White), 0.5);
        assert_eq!(GameOutcome::Unfinished.score_for(Color::Black), 0.0);
        assert_eq!(GameOutcome::win_for(Color::White), GameOutcome::WhiteWins);
    }
}
