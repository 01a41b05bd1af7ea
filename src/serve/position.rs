//! `/api/position?fen=...`: a position's value and every legal move with
//! the value it leads to, as tablebase front ends show them.

use super::error::ApiError;
use super::value::{label, KnownValue};
use super::Browser;
use ballots::tables::BallotTables;
use engine::notation::fen::{parse_fen, to_fen};
use engine::notation::movetext::move_to_text;
use engine::{Color, Position, Square};
use proofdb::Question;
use serde::Serialize;

/// A position as the page draws it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Board {
    /// The canonical FEN.
    pub fen: String,
    /// `Black` or `White`.
    pub side_to_move: &'static str,
    /// Pieces on the board.
    pub pieces: u32,
    /// One character per square 1-32: `.` empty, `b`/`w` a man, `B`/`W`
    /// a king.
    pub squares: String,
}

impl Board {
    /// The board of `pos`.
    pub fn of(pos: &Position) -> Board {
        let squares = Square::all()
            .map(|sq| match pos.piece_at(sq) {
                None => '.',
                Some((Color::Black, false)) => 'b',
                Some((Color::Black, true)) => 'B',
                Some((Color::White, false)) => 'w',
                Some((Color::White, true)) => 'W',
            })
            .collect();
        Board {
            fen: to_fen(pos),
            side_to_move: pos.side_to_move().name(),
            pieces: pos.piece_count(),
            squares,
        }
    }
}

/// One legal move and what it leads to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MoveValue {
    /// The move's PDN text (`9-13`, `15x22`).
    #[serde(rename = "move")]
    pub text: String,
    /// The position it leads to.
    pub fen: String,
    /// What the move is worth to the side that plays it: Chinook's label
    /// of the resulting position's value seen from the mover (`?` when
    /// open).
    pub label: &'static str,
    /// The resulting position's value, for its own side to move.
    pub value: KnownValue,
}

/// A stored proof tree rooted at a position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TreeSummary {
    /// The tree's id in the store.
    pub id: i64,
    /// `win`, `draw`, `notwin` or `loss`.
    pub question: &'static str,
    /// Chinook's label of what it proves for the root's side to move.
    pub proves: &'static str,
    /// Positions in it.
    pub node_count: u64,
    /// Database size (pieces) it was verified with.
    pub egdb_pieces: u32,
}

/// Where a position lies on a stored main line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LinePlace {
    /// The ballot.
    pub ballot: u32,
    /// The ply of its main line.
    pub ply: u32,
}

/// The answer to `/api/position`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PositionView {
    /// The board.
    #[serde(flatten)]
    pub board: Board,
    /// Its value, for the side to move.
    pub value: KnownValue,
    /// Every legal move, ordered by start square, then end square.
    pub moves: Vec<MoveValue>,
    /// Proof trees stored with this position as their root.
    pub trees: Vec<TreeSummary>,
    /// Main-line plies at this position.
    pub main_lines: Vec<LinePlace>,
}

/// Reads `fen`, naming it in the error.
pub fn read_fen(fen: &str) -> Result<Position, ApiError> {
    parse_fen(fen).map_err(|source| ApiError::BadFen {
        fen: fen.to_string(),
        source,
    })
}

impl Browser {
    /// The proof trees stored with `pos` as their root.
    pub fn trees_at(&self, pos: &Position) -> Result<Vec<TreeSummary>, ApiError> {
        let mut out = Vec::new();
        for q in [
            Question::Win,
            Question::AtLeastDraw,
            Question::AtMostDraw,
            Question::Loss,
        ] {
            if let Some(info) = self.store.tree_info(pos, q)? {
                out.push(TreeSummary {
                    id: info.id,
                    question: q.name(),
                    proves: label(q.outcome()),
                    node_count: info.node_count,
                    egdb_pieces: info.egdb_pieces,
                });
            }
        }
        Ok(out)
    }

    /// The `/api/position` answer for `pos`.
    pub fn position(&self, pos: &Position) -> Result<PositionView, ApiError> {
        let mut legal: Vec<engine::Move> = pos.moves().iter().copied().collect();
        legal.sort_by_key(|m| (m.from(), m.to(), m.captured()));
        let mut moves = Vec::with_capacity(legal.len());
        for m in &legal {
            let child = pos.play_unchecked(m);
            let (outcome, value) = self.value_of(&child)?;
            moves.push(MoveValue {
                text: move_to_text(pos, m),
                fen: to_fen(&child),
                label: outcome.map_or("?", |o| label(o.negate())),
                value,
            });
        }
        let main_lines = self
            .store
            .main_line_plies_at(pos)?
            .into_iter()
            .map(|(ballot, ply)| LinePlace { ballot, ply })
            .collect();
        Ok(PositionView {
            board: Board::of(pos),
            value: self.value_of(pos)?.1,
            moves,
            trees: self.trees_at(pos)?,
            main_lines,
        })
    }
}
