//! Players and the referee: something that chooses moves ([`Player`]),
//! this engine as one ([`EnginePlayer`]), and [`play_game`], which plays
//! a game between two players and ends it by the rules (no move,
//! threefold repetition), by adjudication (the oracle, a move limit, a
//! lasting material lead) or by forfeit (a player that broke the rules
//! of the match, [`Forfeit`]).

use super::record::{GameOutcome, GameRecord};
use super::timing::MoveTimes;
use crate::search::{Limits, SearchOptions, Searcher};
use crate::{Color, Move, Oracle, Position, Value};
use std::time::Instant;
use thiserror::Error;

/// How a player is limited per move.
#[derive(Clone, Copy, Debug)]
pub enum TimeControl {
    /// Fixed limits per move.
    PerMove(Limits),
    /// A clock: seconds at the start and increment per move.
    Clock(f64, f64),
}

impl TimeControl {
    /// The limits of one move with `clock` seconds left (when playing on
    /// a clock): the fixed limits, or a share of the clock as the soft
    /// time and at most a few times it ([`super::hub::clock_limits`]).
    pub fn limits(self, clock: f64) -> Limits {
        match self {
            TimeControl::PerMove(l) => l,
            TimeControl::Clock(_, inc) => super::hub::clock_limits(clock - inc, inc, None),
        }
    }
}

/// A player that broke the match's rules (silent past its time, gone,
/// or playing an illegal move): it loses the game, and the match goes
/// on.
#[derive(Clone, Debug, Error)]
#[error("{detail}")]
pub struct Forfeit {
    /// The game's termination (PDN `Termination` tag).
    pub reason: &'static str,
    /// What happened, for the log.
    pub detail: String,
}

/// Why a game could not be played to its end.
#[derive(Debug, Error)]
pub enum PlayError {
    /// A player broke the rules of the match: it loses the game.
    #[error(transparent)]
    Forfeit(#[from] Forfeit),
    /// An engine program could not be started at all.
    #[error("cannot start engine {command:?}: {source}")]
    Start {
        /// The command.
        command: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// This engine returned no move in a position that has one.
    #[error("engine found no move in a live position")]
    NoMove,
}

/// A player's choice: a move, or why there is none.
pub type Choice = Result<Move, PlayError>;

/// Something that chooses moves.
pub trait Player {
    /// Chooses a move in the game's current position (which has one).
    /// `clock` is the seconds left, when playing on a clock.
    fn choose(&mut self, game: &GameRecord, tc: TimeControl, clock: f64) -> Choice;
}

/// This engine.
pub struct EnginePlayer<'a> {
    searcher: Searcher,
    oracle: &'a dyn Oracle,
    book: Option<&'a super::book::Book>,
}

impl<'a> EnginePlayer<'a> {
    /// An engine player with these options, a table of `tt_mb` MiB,
    /// probing `oracle` in positions of at most `probe_max` pieces (0:
    /// the searcher's default).
    pub fn new(
        options: SearchOptions,
        tt_mb: usize,
        oracle: &'a dyn Oracle,
        probe_max: u32,
    ) -> Self {
        let mut searcher = Searcher::with_options(tt_mb, options);
        if probe_max > 0 {
            searcher.set_probe_max_pieces(probe_max);
        }
        EnginePlayer {
            searcher,
            oracle,
            book: None,
        }
    }

    /// The same player, playing from `book` where it holds the position.
    pub fn with_book(mut self, book: Option<&'a super::book::Book>) -> Self {
        self.book = book;
        self
    }
}

impl Player for EnginePlayer<'_> {
    fn choose(&mut self, game: &GameRecord, tc: TimeControl, clock: f64) -> Choice {
        let limits = tc.limits(clock);
        let pos = game.current();
        let booked = self
            .book
            .and_then(|b| b.play_in_game(&mut self.searcher, game, &limits, self.oracle));
        let r = match booked {
            Some(r) => r,
            None => self
                .searcher
                .search(&pos, &limits, self.oracle, game.history()),
        };
        r.best_move.ok_or(PlayError::NoMove)
    }
}

/// How a game ended and why.
#[derive(Clone, Debug)]
pub struct GameEnd {
    /// The outcome.
    pub outcome: GameOutcome,
    /// Why (no move, oracle, repetition, move limit, material, time, or
    /// a forfeit's reason).
    pub reason: &'static str,
    /// For a forfeit: the side that lost by it and what happened.
    pub forfeit: Option<(Color, String)>,
    /// The time each side took over its moves, indexed by colour
    /// (`Color as usize`; filled in by [`play_game`]).
    pub times: [MoveTimes; 2],
}

impl GameEnd {
    fn by(outcome: GameOutcome, reason: &'static str) -> GameEnd {
        GameEnd {
            outcome,
            reason,
            forfeit: None,
            times: [MoveTimes::default(); 2],
        }
    }

    /// The end of a game that `side` lost by forfeit `f`.
    pub fn forfeited(side: Color, f: Forfeit) -> GameEnd {
        GameEnd {
            outcome: GameOutcome::win_for(side.opposite()),
            reason: f.reason,
            forfeit: Some((side, f.detail)),
            times: [MoveTimes::default(); 2],
        }
    }
}

/// Settings of a game's referee.
#[derive(Clone, Copy)]
pub struct Referee<'a> {
    /// Draw after this many plies.
    pub max_plies: usize,
    /// Material margin for a win (0: never).
    pub resign_margin: i32,
    /// Exact values for adjudication.
    pub oracle: &'a dyn Oracle,
    /// Probe only positions with at most this many pieces.
    pub probe_max: u32,
}

impl Referee<'static> {
    /// A referee without exact values: the rules, `max_plies` and the
    /// material margin only.
    pub fn rules_only(max_plies: usize, resign_margin: i32) -> Referee<'static> {
        Referee {
            max_plies,
            resign_margin,
            oracle: &crate::NoOracle,
            probe_max: 0,
        }
    }
}

/// Plies a material lead must last before it is adjudicated a win.
const LEAD_PLIES: u32 = 6;

impl Referee<'_> {
    /// How the game ends in its current position, before anyone moves,
    /// if it does; `lead_plies` counts the plies a side has led by the
    /// resign margin.
    fn verdict(&self, game: &GameRecord, lead_plies: &mut u32) -> Option<GameEnd> {
        let pos = game.current();
        if pos.is_terminal() {
            let winner = pos.side_to_move().opposite();
            return Some(GameEnd::by(GameOutcome::win_for(winner), "no move"));
        }
        if game.occurrences() >= 3 {
            return Some(GameEnd::by(GameOutcome::Draw, "repetition"));
        }
        if game.moves.len() >= self.max_plies {
            return Some(GameEnd::by(GameOutcome::Draw, "move limit"));
        }
        if pos.piece_count() <= self.probe_max {
            if let Some(v) = self.oracle.probe(&pos) {
                let outcome = match v {
                    Value::Draw => GameOutcome::Draw,
                    Value::Win => GameOutcome::win_for(pos.side_to_move()),
                    Value::Loss => GameOutcome::win_for(pos.side_to_move().opposite()),
                };
                return Some(GameEnd::by(outcome, "oracle"));
            }
        }
        if self.resign_margin > 0 && !pos.has_capture() {
            let m = crate::eval::material(&pos);
            if m.abs() < self.resign_margin {
                *lead_plies = 0;
                return None;
            }
            *lead_plies += 1;
            if *lead_plies >= LEAD_PLIES {
                let leader = if m > 0 {
                    pos.side_to_move()
                } else {
                    pos.side_to_move().opposite()
                };
                return Some(GameEnd::by(GameOutcome::win_for(leader), "material"));
            }
        }
        None
    }
}

/// Plays one game from `start` between `black` and `white`. A player's
/// [`Forfeit`] ends the game as its loss; other errors end the match.
/// The end holds the time each side took over its moves.
pub fn play_game(
    start: Position,
    black: &mut dyn Player,
    white: &mut dyn Player,
    tc: TimeControl,
    referee: &Referee,
) -> Result<(GameRecord, GameEnd), PlayError> {
    let mut times = [MoveTimes::default(); 2];
    let (game, mut end) = play_timed(start, black, white, tc, referee, &mut times)?;
    end.times = times;
    Ok((game, end))
}

/// [`play_game`], adding each move's time to `times`.
fn play_timed(
    start: Position,
    black: &mut dyn Player,
    white: &mut dyn Player,
    tc: TimeControl,
    referee: &Referee,
    times: &mut [MoveTimes; 2],
) -> Result<(GameRecord, GameEnd), PlayError> {
    let mut game = GameRecord::new(start);
    let mut clocks = match tc {
        TimeControl::Clock(t, _) => [t, t],
        TimeControl::PerMove(_) => [0.0, 0.0],
    };
    let mut lead_plies = 0;
    loop {
        if let Some(end) = referee.verdict(&game, &mut lead_plies) {
            return Ok((game, end));
        }
        let side = game.current().side_to_move();
        let idx = side as usize;
        if let TimeControl::Clock(_, inc) = tc {
            clocks[idx] += inc;
        }
        let t0 = Instant::now();
        let chosen = match side {
            Color::Black => black.choose(&game, tc, clocks[idx]),
            Color::White => white.choose(&game, tc, clocks[idx]),
        };
        let took = t0.elapsed();
        let m = match chosen {
            Ok(m) => m,
            Err(PlayError::Forfeit(f)) => return Ok((game, GameEnd::forfeited(side, f))),
            Err(e) => return Err(e),
        };
        times[idx].add(took, game.current().moves().len() > 1);
        game.push(m);
        if let TimeControl::Clock(..) = tc {
            clocks[idx] -= took.as_secs_f64();
            if clocks[idx] < 0.0 {
                let end = GameEnd::by(GameOutcome::win_for(side.opposite()), "time");
                return Ok((game, end));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen::parse_fen;
    use crate::NoOracle;

    /// Plays the first legal move, or forfeits after `moves` moves.
    struct First {
        moves: usize,
    }

    impl Player for First {
        fn choose(&mut self, g: &GameRecord, _: TimeControl, _: f64) -> Choice {
            if self.moves == 0 {
                return Err(Forfeit {
                    reason: "illegal move",
                    detail: "gave up".into(),
                }
                .into());
            }
            self.moves -= 1;
            Ok(g.current().moves().as_slice()[0])
        }
    }

    fn referee(max_plies: usize, resign_margin: i32) -> Referee<'static> {
        Referee::rules_only(max_plies, resign_margin)
    }

    const DEPTH_1: TimeControl = TimeControl::PerMove(Limits {
        depth: Some(1),
        time: None,
        nodes: None,
        soft_time: None,
    });

    #[test]
    fn a_side_without_a_move_loses() {
        // White's only man is taken: White has no move.
        let start = parse_fen("B:W18:B14").unwrap();
        let (mut a, mut b) = (First { moves: 9 }, First { moves: 9 });
        let (g, end) = play_game(start, &mut a, &mut b, DEPTH_1, &referee(100, 0)).unwrap();
        assert_eq!(g.moves.len(), 1);
        assert_eq!(end.outcome, GameOutcome::BlackWins);
        assert_eq!(end.reason, "no move");
    }

    #[test]
    fn the_move_limit_draws_and_a_forfeit_loses() {
        let start = Position::initial();
        let (mut a, mut b) = (First { moves: 99 }, First { moves: 99 });
        let (g, end) = play_game(start, &mut a, &mut b, DEPTH_1, &referee(4, 0)).unwrap();
        assert_eq!((g.moves.len(), end.reason), (4, "move limit"));
        assert_eq!(end.outcome, GameOutcome::Draw);
        let (mut a, mut b) = (First { moves: 99 }, First { moves: 1 });
        let (g, end) = play_game(start, &mut a, &mut b, DEPTH_1, &referee(40, 0)).unwrap();
        assert_eq!(g.moves.len(), 3);
        assert_eq!(end.outcome, GameOutcome::BlackWins);
        assert_eq!(end.reason, "illegal move");
        assert_eq!(end.forfeit, Some((Color::White, "gave up".to_string())));
    }

    #[test]
    fn a_lasting_material_lead_wins_and_repetition_draws() {
        // Black is three kings up: after six plies of the lead, Black wins.
        let start = parse_fen("B:WK32:BK1,K3,K5,K7").unwrap();
        let (mut a, mut b) = (
            EnginePlayer::new(SearchOptions::default(), 1, &NoOracle, 0),
            First { moves: 99 },
        );
        let (_, end) = play_game(start, &mut a, &mut b, DEPTH_1, &referee(100, 300)).unwrap();
        assert_eq!(
            (end.outcome, end.reason),
            (GameOutcome::BlackWins, "material")
        );
        // Two lone kings shuffling: the third occurrence draws.
        let start = parse_fen("B:WK29:BK4").unwrap();
        let (mut a, mut b) = (First { moves: 99 }, First { moves: 99 });
        let (g, end) = play_game(start, &mut a, &mut b, DEPTH_1, &referee(100, 0)).unwrap();
        assert_eq!((end.outcome, end.reason), (GameOutcome::Draw, "repetition"));
        assert_eq!(g.occurrences(), 3);
    }
}
