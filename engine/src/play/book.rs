//! An opening book of proved positions: each with its proved value (a
//! win or a draw for the side to move) and the moves that keep it, best
//! first. `checkers book build` writes one from a proof store; the engine
//! commands play from it ([`Book::play`]).
//!
//! The file is text, one position a line, `#` lines are comments:
//!
//! ```text
//! FEN<TAB>win|draw<TAB>MOVE MOVE ...
//! ```
//!
//! with the moves in PDN move text (`11-15`, `15x24`).

use crate::notation::fen::{parse_fen, to_fen};
use crate::notation::movetext::parse_move;
use crate::search::{Iteration, Limits, SearchResult, Searcher, ORACLE_WIN};
use crate::{Move, Oracle, Position, Value};
use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

/// Why a book could not be read or written: the file could not be, or a
/// line is not `FEN<TAB>value<TAB>moves`.
pub type BookError = super::TextFileError;

/// What the book holds for one position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookEntry {
    /// The proved value for the side to move: a win or a draw.
    pub value: Value,
    /// The moves that keep it, best first (never empty).
    pub moves: Vec<Move>,
}

/// Proved positions with the moves that keep their value.
#[derive(Clone, Debug, Default)]
pub struct Book {
    entries: HashMap<Position, BookEntry>,
}

impl Book {
    /// An empty book.
    pub fn new() -> Book {
        Book::default()
    }

    /// Adds (or replaces) `pos`'s entry; an entry without a move, or of
    /// a lost position, is not kept.
    pub fn insert(&mut self, pos: Position, entry: BookEntry) {
        if !entry.moves.is_empty() && entry.value != Value::Loss {
            self.entries.insert(pos, entry);
        }
    }

    /// The entry of `pos`, if any.
    pub fn get(&self, pos: &Position) -> Option<&BookEntry> {
        self.entries.get(pos)
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Reads the book file `path`.
    pub fn read(path: &Path) -> Result<Book, BookError> {
        let text = std::fs::read_to_string(path).map_err(|source| BookError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Book::parse(&text, path)
    }

    /// Reads book text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Book, BookError> {
        let mut book = Book::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |detail: String| BookError::Line {
                path: path.to_path_buf(),
                line: i + 1,
                detail,
            };
            let fields: Vec<&str> = line.split('\t').collect();
            let [fen, value, moves] = fields[..] else {
                return Err(bad(format!(
                    "expected FEN, value and moves separated by tabs, found {} field(s)",
                    fields.len()
                )));
            };
            let pos = parse_fen(fen).map_err(|e| bad(format!("FEN {fen:?}: {e}")))?;
            let value = match value {
                "win" => Value::Win,
                "draw" => Value::Draw,
                v => return Err(bad(format!("value {v:?}: expected win or draw"))),
            };
            let moves = moves
                .split_whitespace()
                .map(|t| parse_move(&pos, t).map_err(|e| bad(format!("move {t:?}: {e}"))))
                .collect::<Result<Vec<Move>, BookError>>()?;
            if moves.is_empty() {
                return Err(bad("no move".into()));
            }
            book.insert(pos, BookEntry { value, moves });
        }
        Ok(book)
    }

    /// The book as text, positions in FEN order, under `header` (each of
    /// its lines becomes a `#` comment).
    pub fn to_text(&self, header: &str) -> String {
        let mut lines: Vec<String> = self
            .entries
            .iter()
            .map(|(p, e)| {
                let moves: Vec<String> = e.moves.iter().map(|m| m.to_string()).collect();
                format!("{}\t{}\t{}", to_fen(p), e.value, moves.join(" "))
            })
            .collect();
        lines.sort();
        let mut out: String = header.lines().map(|l| format!("# {l}\n")).collect();
        for l in lines {
            out.push_str(&l);
            out.push('\n');
        }
        out
    }

    /// A player's move from the book: [`Book::play`] in the current
    /// position of `game`, with its history, reporting no progress.
    pub fn play_in_game(
        &self,
        searcher: &mut Searcher,
        game: &super::GameRecord,
        limits: &Limits,
        oracle: &dyn Oracle,
    ) -> Option<SearchResult> {
        let pos = game.current();
        self.play(searcher, &pos, limits, oracle, game.history(), &mut |_| {})
    }

    /// Plays from the book in `pos`, if it holds the position: a win's
    /// first move, or the only move, at once; among several moves that
    /// keep a draw, the search's choice within `limits`. `None` when the
    /// book does not hold `pos` (or none of its moves is legal there).
    pub fn play(
        &self,
        searcher: &mut Searcher,
        pos: &Position,
        limits: &Limits,
        oracle: &dyn Oracle,
        history: &[Position],
        progress: &mut dyn FnMut(&Iteration),
    ) -> Option<SearchResult> {
        let start = Instant::now();
        let entry = self.get(pos)?;
        let legal = pos.moves();
        let moves: Vec<Move> = entry
            .moves
            .iter()
            .filter_map(|m| legal.iter().find(|l| l.same_move(m)).copied())
            .collect();
        let first = *moves.first()?;
        if entry.value == Value::Win || moves.len() == 1 {
            let score = if entry.value == Value::Win {
                ORACLE_WIN
            } else {
                0
            };
            return Some(SearchResult::immediate(first, score, start.elapsed()));
        }
        Some(searcher.search_among(pos, limits, oracle, history, Some(&moves), progress))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NoOracle;

    #[test]
    fn a_book_round_trips_and_plays_its_moves() {
        let pos = Position::initial();
        let keep: Vec<Move> = pos.moves().iter().skip(2).take(2).copied().collect();
        let mut book = Book::new();
        book.insert(
            pos,
            BookEntry {
                value: Value::Draw,
                moves: keep.clone(),
            },
        );
        let text = book.to_text("test book");
        assert!(text.starts_with("# test book\n"), "{text}");
        let again = Book::parse(&text, Path::new("t.tsv")).unwrap();
        assert_eq!(again.get(&pos), book.get(&pos));
        let mut s = Searcher::new(1);
        let limits = Limits {
            depth: Some(3),
            ..Limits::default()
        };
        let r = again
            .play(&mut s, &pos, &limits, &NoOracle, &[], &mut |_| {})
            .unwrap();
        let m = r.best_move.unwrap();
        assert!(keep.iter().any(|k| k.same_move(&m)), "{m}");
        let other = pos.play_unchecked(&m);
        assert!(again
            .play(&mut s, &other, &limits, &NoOracle, &[], &mut |_| {})
            .is_none());
    }

    #[test]
    fn bad_lines_are_errors_naming_the_line() {
        for (text, says) in [
            ("B:W21-32:B1-12\tdraw\n", "found 2 field(s)"),
            ("B:W21-32:B1-12\tmaybe\t11-15\n", "value \"maybe\""),
            ("# c\nB:W21-32:B1-12\tdraw\t11-19\n", ":2: move \"11-19\""),
        ] {
            let e = Book::parse(text, Path::new("b.tsv"))
                .unwrap_err()
                .to_string();
            assert!(e.contains(says), "{e}");
        }
    }
}
