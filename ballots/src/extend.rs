//! Extending a main line with the engine's principal variation, down to a
//! position the databases or the prover settle.
//!
//! The extension stops (see [`stop_reason`]) at a position the databases
//! settle, at the end of the game, and also where playing on would only
//! shuffle kings: in a pure-king ending, or after [`ExtendLimits::quiet_plies`]
//! plies without a capture or a man's move. Stopping at a position the
//! databases do not settle is valid: the ballot job proves the last
//! position of a line with the solvers like any other (the databases and
//! the store answer its leaves), and if that fails the ballot is stuck at
//! its last ply, which is what the shuffling plies would have led to
//! anyway, after proving dozens of positions that all have the same value.

use crate::line::{MainLine, Origin};
use crate::score::{white_view, MAN};
use engine::search::{Limits, Searcher};
use engine::{Oracle, Position};

/// How far the engine may extend a line.
#[derive(Clone, Copy, Debug)]
pub struct ExtendLimits {
    /// Search limits for each move.
    pub per_move: Limits,
    /// Most plies added.
    pub max_plies: usize,
    /// Positions of at most this many pieces end the extension, whether
    /// or not a database answers for them: the run's databases of that
    /// size settle them (or will, once built). 0: only what the oracle
    /// answers.
    pub settle_pieces: u32,
    /// A line that has gone this many plies without an irreversible move
    /// (a capture or a man's move) ends the extension. 0: never.
    pub quiet_plies: usize,
    /// The king-only and quiet stops apply only to positions of at most
    /// this many pieces: where a database slice that can be built (one
    /// piece past the run's databases) would settle the line. Above it
    /// the engine plays on towards an exchange, since a walk cannot start
    /// from a king ending that its databases are too small for.
    pub shuffle_pieces: u32,
    /// Where the engine's move would repeat a position, play its best move
    /// that repeats none when it keeps the score ([`REPEAT_MARGIN`]).
    /// Off for the repair's deeper replays, whose searches in long king
    /// shuffles cost minutes each. A line still decisive after its repair
    /// with this on is built again with it off
    /// ([`crate::plan::build_line`]).
    pub avoid_repeats: bool,
}

impl ExtendLimits {
    /// Plies without a capture or a man's move after which the extension
    /// stops (`ballots run` uses it).
    pub const QUIET_PLIES: usize = 20;
}

/// Why an extension stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExtendStop {
    /// The last position is settled (databases, or small enough for them).
    Settled,
    /// The side to move has no move.
    GameOver,
    /// Only kings are left and the databases do not settle the position.
    KingsOnly,
    /// [`ExtendLimits::quiet_plies`] plies without a capture or a man's move.
    Quiet,
    /// The engine's move would repeat a position of the line.
    Repetition,
    /// [`ExtendLimits::max_plies`] plies were added.
    MaxPlies,
}

impl ExtendStop {
    /// A short name: `settled`, `game over`, `kings only`, `quiet`,
    /// `repetition`, `max plies`.
    pub const fn name(self) -> &'static str {
        match self {
            ExtendStop::Settled => "settled",
            ExtendStop::GameOver => "game over",
            ExtendStop::KingsOnly => "kings only",
            ExtendStop::Quiet => "quiet",
            ExtendStop::Repetition => "repetition",
            ExtendStop::MaxPlies => "max plies",
        }
    }
}

/// What an extension did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extension {
    /// Plies added.
    pub added: usize,
    /// Why it stopped.
    pub stop: ExtendStop,
    /// Moves played instead of a repeating one
    /// ([`ExtendLimits::avoid_repeats`]).
    pub repeats_avoided: usize,
}

/// Whether the extension stops at the last position of `line`, and why:
/// [`ExtendStop::Settled`] when `settled` holds for it or it has at most
/// `limits.settle_pieces` pieces, [`ExtendStop::GameOver`] when the side
/// to move has no move, and at most `limits.shuffle_pieces` pieces:
/// [`ExtendStop::KingsOnly`] when no man is left,
/// [`ExtendStop::Quiet`] after `limits.quiet_plies` reversible plies (0:
/// never). `None`: the engine plays on.
pub fn stop_reason(
    line: &MainLine,
    limits: &ExtendLimits,
    settled: &dyn Fn(&Position) -> bool,
) -> Option<ExtendStop> {
    let pos = line.last();
    if pos.piece_count() <= limits.settle_pieces || settled(&pos) {
        Some(ExtendStop::Settled)
    } else if pos.is_terminal() {
        Some(ExtendStop::GameOver)
    } else if pos.piece_count() > limits.shuffle_pieces {
        None
    } else if pos.men(engine::Color::Black) | pos.men(engine::Color::White) == 0 {
        Some(ExtendStop::KingsOnly)
    } else if limits.quiet_plies > 0 && line.quiet_plies() >= limits.quiet_plies {
        Some(ExtendStop::Quiet)
    } else {
        None
    }
}

/// Extends `line` with the engine's best move, one search per ply, until
/// [`stop_reason`] says stop, a position would repeat (and no other move
/// keeps the score: [`REPEAT_MARGIN`]), or `limits.max_plies` are added. Each search's score is recorded as the
/// score of the position it searched (White's point of view), except at
/// positions with a single legal move; the last position is left
/// unscored.
pub fn extend_with_engine(
    line: &mut MainLine,
    searcher: &mut Searcher,
    oracle: &dyn Oracle,
    limits: &ExtendLimits,
    settled: &dyn Fn(&Position) -> bool,
) -> Extension {
    let (mut added, mut repeats_avoided) = (0, 0);
    let stop = loop {
        if let Some(stop) = stop_reason(line, limits, settled) {
            break stop;
        }
        if added >= limits.max_plies {
            break ExtendStop::MaxPlies;
        }
        let pos = line.last();
        let history: Vec<Position> = (0..line.len()).map(|k| line.position(k)).collect();
        let mut result = searcher.search(&pos, &limits.per_move, oracle, &history);
        let Some(mut mv) = result.best_move else {
            break ExtendStop::GameOver;
        };
        if history.contains(&pos.play_unchecked(&mv)) {
            match avoid_repetition(line, searcher, oracle, limits, &history, result.score) {
                Some(other) => {
                    mv = other.best_move.unwrap_or(mv);
                    result = other;
                    repeats_avoided += 1;
                }
                None => break ExtendStop::Repetition,
            }
        }
        // A single-move root is searched only by a capture play-out:
        // `plan::score_line` scores it from the position after.
        if pos.moves().len() > 1 {
            if let Some(last) = line.plies.last_mut() {
                last.score = Some(white_view(result.score, &pos));
            }
        }
        if !line.push(mv, Origin::Engine) {
            break ExtendStop::Repetition;
        }
        added += 1;
    };
    Extension {
        added,
        stop,
        repeats_avoided,
    }
}

/// How much worse than a repeating move (the side to move's view,
/// hundredths of a man) a move that does not repeat may score and still be
/// played instead.
pub const REPEAT_MARGIN: i32 = MAN / 4;

/// The search of the last position of `line` among the moves that repeat
/// no position of the line (`history`), when the engine's best move
/// (scored `repeating`, the side to move's view) would repeat one: the
/// line plays on where another move keeps the score within
/// [`REPEAT_MARGIN`], so that a line above the databases ends where they
/// or a built slice settle it rather than on a shuffle. `None` (the line
/// stops on the repetition) when the rule is off
/// ([`ExtendLimits::avoid_repeats`]), when every move repeats, when the other moves
/// score worse, or when the line has already gone
/// [`ExtendLimits::quiet_plies`] plies without a capture or a man's move
/// (a shuffle no search will turn into progress).
fn avoid_repetition(
    line: &MainLine,
    searcher: &mut Searcher,
    oracle: &dyn Oracle,
    limits: &ExtendLimits,
    history: &[Position],
    repeating: i32,
) -> Option<engine::search::SearchResult> {
    if !limits.avoid_repeats || limits.quiet_plies == 0 || line.quiet_plies() >= limits.quiet_plies
    {
        return None;
    }
    let pos = line.last();
    let fresh: Vec<_> = pos
        .moves()
        .iter()
        .copied()
        .filter(|m| !history.contains(&pos.play_unchecked(m)))
        .collect();
    if fresh.is_empty() {
        return None;
    }
    let other = searcher.search_among(
        &pos,
        &limits.per_move,
        oracle,
        history,
        Some(&fresh),
        &mut |_| {},
    );
    let new = other.best_move?;
    (fresh.contains(&new) && other.score >= repeating - REPEAT_MARGIN).then_some(other)
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::NoOracle;

    fn limits(quiet_plies: usize) -> ExtendLimits {
        ExtendLimits {
            per_move: Limits {
                depth: Some(4),
                ..Limits::default()
            },
            max_plies: 200,
            settle_pieces: 0,
            quiet_plies,
            shuffle_pieces: 32,
            avoid_repeats: true,
        }
    }

    /// A line from the initial position through `moves` (`from-to`).
    fn line_of(moves: &[(u8, u8)]) -> MainLine {
        let mut line = MainLine::default();
        for &(f, t) in moves {
            assert!(
                line.push_squares(f, t, Origin::Published),
                "{f}-{t} is legal"
            );
        }
        line
    }

    #[test]
    fn extends_to_the_piece_count_asked_for() {
        let mut line = MainLine::default();
        let mut searcher = Searcher::full_width(4);
        let ext = extend_with_engine(&mut line, &mut searcher, &NoOracle, &limits(0), &|p| {
            p.piece_count() <= 20
        });
        assert_eq!(ext.added, line.len());
        assert!(ext.added > 0);
        let last = line.last();
        assert!(last.piece_count() <= 20 || last.is_terminal());
        assert!(line.plies.iter().all(|p| p.origin == Origin::Engine));
        // Every ply but the last is scored by the search made there,
        // unless its position has a single legal move.
        assert!(line.plies[..line.len() - 1]
            .iter()
            .all(|p| p.score.is_some() || p.after.moves().len() == 1));
        assert_eq!(line.plies.last().unwrap().score, None);
        // Every ply is legal from the one before.
        for k in 1..=line.len() {
            assert_eq!(
                line.position(k - 1).play(&line.plies[k - 1].mv),
                Some(line.position(k))
            );
        }
    }

    #[test]
    fn the_piece_count_of_the_databases_settles_without_a_probe() {
        let line = MainLine::default();
        let mut l = limits(0);
        l.settle_pieces = 24;
        assert_eq!(
            stop_reason(&line, &l, &|_| false),
            Some(ExtendStop::Settled)
        );
        l.settle_pieces = 23;
        assert_eq!(stop_reason(&line, &l, &|_| false), None);
    }

    #[test]
    fn counts_plies_without_a_capture_or_a_man_move() {
        // Men only: every ply is irreversible.
        let line = line_of(&[(11, 15), (23, 19), (8, 11)]);
        assert_eq!(line.quiet_plies(), 0);
        assert_eq!(stop_reason(&line, &limits(1), &|_| false), None);
    }

    #[test]
    fn a_king_ending_the_databases_do_not_settle_stops_the_engine() {
        // Four kings against three: the engine alone would shuffle them.
        let mut line = line_from("W:WK1,K2,K3,K4:BK29,K30,K31", &[]);
        engine_adds_nothing(&mut line, &limits(20), ExtendStop::KingsOnly);
        // Settled by the databases: that reason comes first.
        assert_eq!(
            stop_reason(&line, &limits(20), &|p| p.piece_count() <= 7),
            Some(ExtendStop::Settled)
        );
        // Above the pieces a buildable slice settles, the engine plays on
        // (towards an exchange): 7 kings with databases of 5 pieces.
        let small = ExtendLimits {
            shuffle_pieces: 6,
            ..limits(20)
        };
        assert_eq!(stop_reason(&line, &small, &|_| false), None);
    }

    /// Asserts that the engine, with no databases, adds no ply to `line`
    /// under `limits` and stops for `stop`.
    fn engine_adds_nothing(line: &mut MainLine, limits: &ExtendLimits, stop: ExtendStop) {
        let mut searcher = Searcher::full_width(4);
        let ext = extend_with_engine(line, &mut searcher, &NoOracle, limits, &|_| false);
        assert_eq!(
            ext,
            Extension {
                added: 0,
                stop,
                repeats_avoided: 0
            }
        );
    }

    /// A line whose first ply jumps to `start` (a man's move from the
    /// initial position, so the quiet count starts there), then `moves`.
    fn line_from(start: &str, moves: &[(u8, u8)]) -> MainLine {
        crate::line::test_line_from(start, Origin::Engine, moves, Origin::Engine)
    }

    #[test]
    fn a_run_of_king_moves_stops_the_engine_and_a_man_move_resets_it() {
        // Kings shuffle while each side keeps a man back.
        let fen = "B:W32,K27:B1,K2";
        let shuffle = [(2, 6), (27, 23), (6, 2), (23, 27)];
        let line = line_from(fen, &shuffle[..3]);
        assert_eq!(line.quiet_plies(), 3);
        assert_eq!(stop_reason(&line, &limits(4), &|_| false), None);
        let line = line_from(fen, &shuffle);
        assert_eq!(line.quiet_plies(), 4);
        assert_eq!(
            stop_reason(&line, &limits(4), &|_| false),
            Some(ExtendStop::Quiet)
        );
        // 0 turns the rule off.
        assert_eq!(stop_reason(&line, &limits(0), &|_| false), None);
        // A man's move in between restarts the count.
        let line = line_from(fen, &[(2, 6), (27, 23), (1, 5), (23, 27)]);
        assert_eq!(line.quiet_plies(), 1);
        assert_eq!(stop_reason(&line, &limits(4), &|_| false), None);
        // The engine on such a line adds nothing once the count is reached.
        let mut line = line_from(fen, &shuffle);
        engine_adds_nothing(&mut line, &limits(4), ExtendStop::Quiet);
    }

    #[test]
    fn a_move_that_would_repeat_gives_way_to_one_that_keeps_the_score() {
        // Two kings against two, far apart: every move draws, and White's
        // 5-1 would bring back the line's second position.
        let line = line_from("B:WK1,K2:BK31,K32", &[(31, 27), (1, 5), (27, 31)]);
        let history: Vec<Position> = (0..line.len()).map(|k| line.position(k)).collect();
        let pos = line.last();
        assert!(history.contains(
            &pos.play_unchecked(
                &pos.moves()
                    .iter()
                    .copied()
                    .find(|m| { m.from().index() == 4 && m.to().index() == 0 })
                    .expect("5-1 is legal")
            )
        ));
        let mut searcher = Searcher::full_width(4);
        let l = limits(20);
        let other = avoid_repetition(&line, &mut searcher, &NoOracle, &l, &history, 0)
            .expect("a quiet move keeps the draw");
        let mv = other.best_move.unwrap();
        assert!(pos.moves().as_slice().contains(&mv));
        assert!(
            !history.contains(&pos.play_unchecked(&mv)),
            "{mv:?} repeats"
        );
        assert!(other.score >= -REPEAT_MARGIN);
        // A repeating move far better than the rest is kept (the line
        // stops), as it is after a long shuffle or with the rule off.
        let far = avoid_repetition(&line, &mut searcher, &NoOracle, &l, &history, 5 * MAN);
        assert!(far.is_none());
        assert!(
            avoid_repetition(&line, &mut searcher, &NoOracle, &limits(3), &history, 0).is_none()
        );
        assert!(
            avoid_repetition(&line, &mut searcher, &NoOracle, &limits(0), &history, 0).is_none()
        );
        // Extended, the line never repeats a position.
        let mut line = line;
        let mut l = limits(20);
        l.max_plies = 12;
        l.shuffle_pieces = 0;
        let ext = extend_with_engine(&mut line, &mut searcher, &NoOracle, &l, &|_| false);
        assert_eq!(ext.stop, ExtendStop::MaxPlies, "{ext:?}");
        assert!(ext.repeats_avoided >= 1, "{ext:?}");
        let all: Vec<Position> = (0..=line.len()).map(|k| line.position(k)).collect();
        for (i, p) in all.iter().enumerate() {
            assert!(!all[..i].contains(p), "ply {i} repeats");
        }
    }
}
