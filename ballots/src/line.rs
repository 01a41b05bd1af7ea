//! Main lines: the sequence of moves from the start of the game that a
//! ballot job walks backward, with where each ply came from.
//!
//! A line is the ballot's three moves, then the published trunk where one
//! exists, else the path most played in the master-game archive for that
//! ballot (preferring drawn games), then the engine's principal variation
//! down to positions the databases and the prover settle.

use engine::{Move, Position};
use std::collections::HashMap;

/// Where a ply of a main line came from (the store's own type, so a
/// line is stored and read back without conversion).
pub use crate::tables::Origin;

/// How an archive game ended. Only draws are told apart: archives differ
/// on which side `1-0` names, and the main line only prefers drawn games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    /// Drawn (`1/2-1/2`, `1-1`).
    Draw,
    /// Won by one side.
    Decisive,
    /// Unknown or unfinished (`*`, missing).
    Unknown,
}

impl GameResult {
    /// Reads a PDN result token.
    pub fn from_pdn(token: Option<&str>) -> GameResult {
        match token.map(str::trim) {
            Some("1/2-1/2") | Some("1-1") => GameResult::Draw,
            Some("1-0") | Some("0-1") | Some("2-0") | Some("0-2") => GameResult::Decisive,
            _ => GameResult::Unknown,
        }
    }
}

/// A game as a move sequence from the initial position.
#[derive(Clone, Debug)]
pub struct ArchiveGame {
    /// Moves from the initial position, all legal.
    pub moves: Vec<Move>,
    /// How it ended.
    pub result: GameResult,
}

/// One ply of a main line: the move played and the position after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinePly {
    /// The move.
    pub mv: Move,
    /// The position after the move.
    pub after: Position,
    /// Where the move came from.
    pub origin: Origin,
    /// The engine's score of `after` (see [`crate::score`] for the scale
    /// and point of view); `None` until the line is scored.
    pub score: Option<i32>,
    /// At a ply of origin [`Origin::Repair`]: the move it replaced.
    pub repaired: Option<crate::repair::Repaired>,
}

/// A main line from the initial position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MainLine {
    /// Plies in order; ply `k` (1-based) is `plies[k - 1]`.
    pub plies: Vec<LinePly>,
}

impl MainLine {
    /// The position after `ply` plies (0 = the initial position).
    pub fn position(&self, ply: usize) -> Position {
        if ply == 0 {
            Position::initial()
        } else {
            self.plies[ply - 1].after
        }
    }

    /// The last position of the line.
    pub fn last(&self) -> Position {
        self.position(self.plies.len())
    }

    /// Number of plies.
    pub fn len(&self) -> usize {
        self.plies.len()
    }

    /// Whether the line has no ply.
    pub fn is_empty(&self) -> bool {
        self.plies.is_empty()
    }

    /// Appends the legal move from square `from` to square `to` (PDN
    /// numbers; the first such move when captures differ) with its
    /// origin. Returns false, changing nothing, when there is none.
    pub fn push_squares(&mut self, from: u8, to: u8, origin: Origin) -> bool {
        let pos = self.last();
        let found = pos
            .moves()
            .iter()
            .find(|m| m.from().number() == from && m.to().number() == to)
            .copied();
        found.is_some_and(|m| self.push(m, origin))
    }

    /// Appends `mv` (which must be legal in the last position) with its
    /// origin. Returns false, changing nothing, when it is not legal.
    pub fn push(&mut self, mv: Move, origin: Origin) -> bool {
        match self.last().play(&mv) {
            Some(after) => {
                self.plies.push(LinePly {
                    mv,
                    after,
                    origin,
                    score: None,
                    repaired: None,
                });
                true
            }
            None => false,
        }
    }

    /// How many plies at the end of the line are reversible: neither a
    /// capture nor a man's move (so only kings moved, and the position
    /// could come back).
    pub fn quiet_plies(&self) -> usize {
        (1..=self.len())
            .rev()
            .take_while(|&k| !is_irreversible(&self.position(k - 1), &self.plies[k - 1].mv))
            .count()
    }

    /// A line of legal moves from the initial position, all of one origin;
    /// `None` at the first illegal move.
    pub fn from_moves(moves: &[Move], origin: Origin) -> Option<MainLine> {
        let mut line = MainLine::default();
        for m in moves {
            if !line.push(*m, origin) {
                return None;
            }
        }
        Some(line)
    }
}

/// A line whose first ply jumps to `start` (a FEN; the first ply is a
/// man's move from the initial position, of origin `first`), then
/// `moves` (PDN squares, each legal in turn) of origin `origin`: a test's
/// line from any position.
#[cfg(test)]
pub(crate) fn test_line_from(
    start: &str,
    first: Origin,
    moves: &[(u8, u8)],
    origin: Origin,
) -> MainLine {
    let start = engine::notation::fen::parse_fen(start).unwrap();
    let mv = Position::initial().moves().as_slice()[0];
    let mut line = MainLine::default();
    line.plies.push(LinePly {
        mv,
        after: start,
        origin: first,
        score: None,
        repaired: None,
    });
    for &(f, t) in moves {
        assert!(line.push_squares(f, t, origin), "{f}-{t} is legal");
    }
    line
}

/// Whether `mv`, played in `before`, can never be undone: a capture, or a
/// man's move (men only move forward).
pub fn is_irreversible(before: &Position, mv: &Move) -> bool {
    mv.is_capture() || before.kings() & (1u32 << mv.from().index()) == 0
}

/// Extends `line` (ending at a ballot position or later) with the archive's
/// most played *drawn* path from its last position.
///
/// At each ply the games still on the line vote for their next move, one
/// vote each. While any drawn game continues from the current position,
/// only drawn games vote: a ballot's main line should stay in the drawn
/// lines masters play, and a path that more decisive games took is more
/// likely to hold the loser's mistake (a drawn game cannot contain an
/// unpunished losing move unless both sides missed it). Where no drawn
/// game continues, every game still on the line votes (decisive and
/// unknown alike). Games that played the chosen move stay on the line
/// whatever their result, so the fallback has them later. Ties go to the
/// lower (from, to) squares so the choice is reproducible. Games reach the
/// line's last position by any move order (transpositions count). When one
/// game is left, its moves are followed to its end. Returns the number of
/// plies added.
pub fn extend_with_archive(line: &mut MainLine, games: &[ArchiveGame]) -> usize {
    // For each game, the index of its first move after reaching the line's
    // last position (positions are compared, not move orders).
    let target = line.last();
    let mut following: Vec<(&ArchiveGame, usize)> = games
        .iter()
        .filter_map(|g| {
            let mut pos = Position::initial();
            for (i, m) in g.moves.iter().enumerate() {
                if pos == target {
                    return Some((g, i));
                }
                pos = pos.play_unchecked(m);
            }
            (pos == target).then_some((g, g.moves.len()))
        })
        .collect();
    let mut added = 0;
    loop {
        let drawn_continue = following
            .iter()
            .any(|(g, i)| g.result == GameResult::Draw && *i < g.moves.len());
        let mut votes: HashMap<(u8, u8, u32), (u32, Move)> = HashMap::new();
        for (g, i) in &following {
            if drawn_continue && g.result != GameResult::Draw {
                continue;
            }
            if let Some(m) = g.moves.get(*i) {
                let e = votes
                    .entry((m.from().index(), m.to().index(), m.captured()))
                    .or_insert((0, *m));
                e.0 += 1;
            }
        }
        let Some((_, (_, best))) = votes
            .into_iter()
            .max_by(|a, b| a.1 .0.cmp(&b.1 .0).then_with(|| b.0.cmp(&a.0)))
        else {
            return added;
        };
        if !line.push(best, Origin::Archive) {
            return added;
        }
        added += 1;
        following.retain(|(g, i)| g.moves.get(*i).is_some_and(|m| m.same_move(&best)));
        for f in &mut following {
            f.1 += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(pos: &Position, from: u8, to: u8) -> Move {
        *pos.moves()
            .iter()
            .find(|m| m.from().number() == from && m.to().number() == to)
            .expect("legal move")
    }

    fn game(steps: &[(u8, u8)], result: GameResult) -> ArchiveGame {
        let mut pos = Position::initial();
        let mut moves = Vec::new();
        for &(f, t) in steps {
            let m = mv(&pos, f, t);
            pos = pos.play_unchecked(&m);
            moves.push(m);
        }
        ArchiveGame { moves, result }
    }

    #[test]
    fn a_drawn_path_beats_a_more_played_decisive_one() {
        let ballot = game(&[(9, 13), (21, 17), (5, 9)], GameResult::Unknown);
        let mut line = MainLine::from_moves(&ballot.moves, Origin::Published).unwrap();
        let decisive = |tail: &[(u8, u8)]| {
            let mut steps = vec![(9, 13), (21, 17), (5, 9)];
            steps.extend_from_slice(tail);
            game(&steps, GameResult::Decisive)
        };
        let games = vec![
            // Six decisive games go 25-21, one drawn game 23-18 (it ends
            // after 11-16), three decisive games 23-18 too: the old rule
            // (a draw counting double) took 25-21, six votes to five.
            decisive(&[(25, 21), (11, 15)]),
            decisive(&[(25, 21), (11, 15)]),
            decisive(&[(25, 21), (11, 15)]),
            decisive(&[(25, 21), (10, 15)]),
            decisive(&[(25, 21), (10, 15)]),
            decisive(&[(25, 21), (10, 15)]),
            game(
                &[(9, 13), (21, 17), (5, 9), (23, 18), (11, 16)],
                GameResult::Draw,
            ),
            decisive(&[(23, 18), (11, 16), (27, 23), (16, 19)]),
            // More played than 11-16, but no drawn game played it.
            decisive(&[(23, 18), (11, 15)]),
            decisive(&[(23, 18), (11, 15)]),
        ];
        let added = extend_with_archive(&mut line, &games);
        let to: Vec<u8> = line.plies[3..].iter().map(|p| p.mv.to().number()).collect();
        // 23-18 and 11-16 by the one drawn game against six and two
        // decisive votes; then, no drawn game left, the decisive game.
        assert_eq!(to, vec![18, 16, 23, 19]);
        assert_eq!(added, 4);
        assert!(line.plies[3..].iter().all(|p| p.origin == Origin::Archive));
    }

    #[test]
    fn most_played_drawn_path_wins() {
        let ballot = game(&[(9, 13), (21, 17), (5, 9)], GameResult::Unknown);
        let mut line = MainLine::from_moves(&ballot.moves, Origin::Published).unwrap();
        let games = vec![
            // Two decisive games go 25-21, two drawn games 23-18; the last
            // game never reaches the ballot and must be ignored.
            game(
                &[(9, 13), (21, 17), (5, 9), (25, 21), (11, 15)],
                GameResult::Decisive,
            ),
            game(
                &[(9, 13), (21, 17), (5, 9), (25, 21), (10, 15)],
                GameResult::Decisive,
            ),
            game(
                &[(9, 13), (21, 17), (5, 9), (23, 18), (11, 16)],
                GameResult::Draw,
            ),
            game(
                &[(9, 13), (21, 17), (5, 9), (23, 18), (11, 16), (18, 14)],
                GameResult::Draw,
            ),
            game(&[(10, 14), (22, 18)], GameResult::Draw),
        ];
        let added = extend_with_archive(&mut line, &games);
        // 23-18 has two drawn games; 25-21's two decisive ones do not vote.
        assert_eq!(line.plies[3].mv.to().number(), 18);
        assert_eq!(line.plies[4].mv.to().number(), 16);
        assert_eq!(line.plies[5].mv.to().number(), 14);
        assert_eq!(added, 3);
        assert!(line.plies[3..].iter().all(|p| p.origin == Origin::Archive));
    }

    #[test]
    fn transposed_games_join_the_line() {
        // 11-15 23-19 9-14 and 9-14 23-19 11-15 reach one position.
        let a = game(&[(11, 15), (23, 19), (9, 14)], GameResult::Unknown);
        let b = game(&[(9, 14), (23, 19), (11, 15), (22, 17)], GameResult::Draw);
        let mut line = MainLine::from_moves(&a.moves, Origin::Published).unwrap();
        assert_eq!(extend_with_archive(&mut line, &[b]), 1);
        assert_eq!(line.last().side_to_move(), engine::Color::Black);
    }
}
