//! The text of the Hub protocol (version 2, as Scan documents it),
//! adapted to English checkers: moves, positions, command arguments,
//! scores and time levels. See `docs/hub-protocol.txt` for the dialect;
//! the `hub` command speaks it, the `match` command's [`HubPlayer`]
//! drives another engine with it.
//!
//! [`HubPlayer`]: crate::play::hub_player::HubPlayer

use crate::notation::movetext::{self, MoveTextError};
use crate::search::{Limits, MATE, WIN_THRESHOLD};
use crate::square::Squares;
use crate::{Color, Move, Position, Setup};
use thiserror::Error;

/// Why a Hub position string cannot be read.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum HubPositionError {
    /// Not 33 characters.
    #[error(
        "Hub position {text:?} has {len} characters, expected 33 (side letter and 32 squares)"
    )]
    Length {
        /// The text as given.
        text: String,
        /// Its length in characters.
        len: usize,
    },
    /// The first character is not a side letter.
    #[error("Hub position side letter {0:?} is not W or B")]
    Side(char),
    /// A square holds an unknown character.
    #[error("Hub position square {square}: unknown piece {piece:?}")]
    Piece {
        /// The square, 1-32.
        square: usize,
        /// The character.
        piece: char,
    },
    /// The pieces do not make a legal position.
    #[error("{0}")]
    Position(#[from] crate::PositionError),
}

/// Why a `level` command's arguments cannot be read.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum HubLevelError {
    /// A count (`depth`, `nodes`, `moves`) that is not a whole number in
    /// its range.
    #[error("level {key}={value}: expected a whole number from 1 to {max}")]
    Whole {
        /// The argument's name.
        key: String,
        /// Its value as given.
        value: String,
        /// The largest value allowed.
        max: u64,
    },
    /// A time (`move-time`, `time`, `inc`) that is not a number of seconds
    /// in its range.
    #[error(
        "level {key}={value}: expected {} number of seconds, at most {max}",
        if *.zero_ok { "a" } else { "a positive" }
    )]
    Seconds {
        /// The argument's name.
        key: String,
        /// Its value as given.
        value: String,
        /// Whether 0 is allowed.
        zero_ok: bool,
        /// The most seconds allowed.
        max: f64,
    },
    /// An argument the `level` command does not know.
    #[error("unknown level argument {0}")]
    Unknown(String),
}

/// The Hub text of a move: `from-to`, or `fromxto` followed by `x` and
/// each captured square in increasing order (`26x17x22`).
pub fn hub_move(m: &Move) -> String {
    if m.is_capture() {
        let mut s = format!("{}x{}", m.from().number(), m.to().number());
        for sq in Squares(m.captured()) {
            s.push_str(&format!("x{}", sq.number()));
        }
        s
    } else {
        m.to_string()
    }
}

/// Reads a move as another Hub engine writes it: with three or more
/// squares, the Hub form (start, end, every captured square: `23x16x19`)
/// when exactly one legal move fits it; otherwise the PDN move text of
/// [`movetext::parse_move`] (`15x24`, `1x10x19`), whose error it returns.
pub fn parse_hub_move(pos: &Position, text: &str) -> Result<Move, MoveTextError> {
    let squares: Option<Vec<u8>> = text
        .trim()
        .split(['-', 'x', 'X', ':'])
        .map(|t| t.trim().parse::<u8>().ok().filter(|s| (1..=32).contains(s)))
        .collect();
    if let Some(squares) = squares.filter(|s| s.len() > 2) {
        let listed: u32 = squares[2..].iter().fold(0, |a, &s| a | 1u32 << (s - 1));
        let fits: Vec<Move> = pos
            .moves()
            .iter()
            .filter(|m| {
                m.from().number() == squares[0]
                    && m.to().number() == squares[1]
                    && m.captured() == listed
            })
            .copied()
            .collect();
        if let [m] = fits[..] {
            return Ok(m);
        }
    }
    movetext::parse_move(pos, text)
}

/// How a Hub `pos=` string is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SideLetters {
    /// pydraughts' English dialect: its internal board, on which the
    /// first player (Black) is "white": the board turned 180 degrees with
    /// the colours swapped (the square of character `i` is `33 - i`, `w`
    /// and `W` are Black's men and kings, `b` and `B` White's), and the
    /// side letter names the colour of that board (`W`: Black to move).
    /// The start position reads the same either way; a position set up
    /// from a FEN does not. Moves stay in the game's own numbering.
    Pydraughts,
    /// The board as it is: `B` = Black to move, `W` = White to move,
    /// `b`/`B` Black's men and kings on their own squares.
    Literal,
}

impl SideLetters {
    /// The real square (0-31) and colour of the character at index `i`
    /// (0-31) of a position string whose piece colour reads `letter_is`.
    fn square(self, i: usize, letter_is: Color) -> (usize, Color) {
        match self {
            SideLetters::Literal => (i, letter_is),
            SideLetters::Pydraughts => (31 - i, letter_is.opposite()),
        }
    }
}

/// Reads a Hub position: side letter then 32 characters for squares 1-32
/// (`e` empty, `b`/`w` men, `B`/`W` kings).
pub fn parse_hub_position(text: &str, letters: SideLetters) -> Result<Position, HubPositionError> {
    let chars: Vec<char> = text.trim().chars().collect();
    if chars.len() != 33 {
        return Err(HubPositionError::Length {
            text: text.to_string(),
            len: chars.len(),
        });
    }
    let first = match (chars[0].to_ascii_uppercase(), letters) {
        ('W', SideLetters::Pydraughts) | ('B', SideLetters::Literal) => Color::Black,
        ('B', SideLetters::Pydraughts) | ('W', SideLetters::Literal) => Color::White,
        (c, _) => return Err(HubPositionError::Side(c)),
    };
    let mut setup = Setup {
        side: Some(first),
        ..Default::default()
    };
    for (i, &c) in chars[1..].iter().enumerate() {
        let (written, king) = match c {
            'e' | 'E' | '.' => continue,
            'b' => (Color::Black, false),
            'B' => (Color::Black, true),
            'w' => (Color::White, false),
            'W' => (Color::White, true),
            _ => {
                return Err(HubPositionError::Piece {
                    square: i + 1,
                    piece: c,
                })
            }
        };
        let (sq, color) = letters.square(i, written);
        let bit = 1u32 << sq;
        match (color, king) {
            (Color::Black, false) => setup.black_men |= bit,
            (Color::Black, true) => setup.black_kings |= bit,
            (Color::White, false) => setup.white_men |= bit,
            (Color::White, true) => setup.white_kings |= bit,
        }
    }
    Ok(Position::from_setup(&setup)?)
}

/// The Hub position string of `pos` in the given dialect.
pub fn hub_position(pos: &Position, letters: SideLetters) -> String {
    let side = match (pos.side_to_move(), letters) {
        (Color::Black, SideLetters::Pydraughts) | (Color::White, SideLetters::Literal) => 'W',
        _ => 'B',
    };
    let mut s = String::from(side);
    let squares: Vec<crate::Square> = crate::Square::all().collect();
    for i in 0..32 {
        // The mapping of `SideLetters::square` is its own inverse.
        let (sq, _) = letters.square(i, Color::Black);
        s.push(match pos.piece_at(squares[sq]) {
            None => 'e',
            Some((c, king)) => {
                let (_, written) = letters.square(i, c);
                match (written, king) {
                    (Color::Black, false) => 'b',
                    (Color::Black, true) => 'B',
                    (Color::White, false) => 'w',
                    (Color::White, true) => 'W',
                }
            }
        });
    }
    s
}

/// Splits `key=value key="quoted value"` arguments.
pub fn hub_args(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let (key, after) = match rest.find(['=', ' ']) {
            Some(i) if rest.as_bytes()[i] == b'=' => (&rest[..i], &rest[i + 1..]),
            Some(i) => {
                out.push((rest[..i].to_string(), String::new()));
                rest = rest[i..].trim_start();
                continue;
            }
            None => {
                out.push((rest.to_string(), String::new()));
                break;
            }
        };
        let (value, after) = if let Some(q) = after.strip_prefix('"') {
            match q.find('"') {
                Some(j) => (&q[..j], &q[j + 1..]),
                None => (q, ""),
            }
        } else {
            match after.find(' ') {
                Some(j) => (&after[..j], &after[j..]),
                None => (after, ""),
            }
        };
        out.push((key.to_string(), value.to_string()));
        rest = after.trim_start();
    }
    out
}

/// The Hub score of a search score: men (centi-men / 100); a win in n
/// plies is `(10000 - n) / 100`, as Scan and pydraughts read it.
pub fn hub_score(score: i32) -> String {
    if score > WIN_THRESHOLD {
        let n = (MATE - score).clamp(1, 999);
        format!("{:.2}", (10000 - n) as f64 / 100.0)
    } else if score < -WIN_THRESHOLD {
        let n = (MATE + score).clamp(1, 999);
        format!("{:.2}", -(10000 - n) as f64 / 100.0)
    } else {
        format!("{:.2}", score as f64 / 100.0)
    }
}

/// Seconds to spend on one move with `remaining` seconds on the clock
/// (before the increment is added), `inc` per move and, if given, `moves`
/// moves to the next control: an even share of what is left, never more
/// than 40% of it.
pub fn clock_budget(remaining: f64, inc: f64, moves: Option<u32>) -> f64 {
    let total = (remaining + inc).max(0.0);
    let share = match moves {
        Some(m) if m > 0 => total / m as f64,
        _ => total / 30.0 + inc * 0.5,
    };
    share.min(total * 0.4).max(0.01)
}

/// How many times its share ([`clock_budget`]) a move on a clock may
/// take at most, to finish an iteration that is expected to finish.
pub const CLOCK_HARD_FACTOR: f64 = 3.0;

/// The limits of a move on a clock (arguments as for [`clock_budget`]):
/// the share of [`clock_budget`] as the soft time (no iteration starts
/// past it), and [`CLOCK_HARD_FACTOR`] times it, never more than 40% of
/// what the clock holds, as the most the move may take. Both are at
/// least 10 ms.
pub fn clock_limits(remaining: f64, inc: f64, moves: Option<u32>) -> Limits {
    let total = (remaining + inc).max(0.0);
    let soft = clock_budget(remaining, inc, moves);
    let hard = (soft * CLOCK_HARD_FACTOR).min(total * 0.4).max(soft);
    Limits {
        time: Some(super::duration_of_secs(hard)),
        soft_time: Some(super::duration_of_secs(soft)),
        ..Limits::default()
    }
}

/// Time controls as received by the `level` command.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HubLevel {
    /// `depth=`: nominal depth.
    pub depth: Option<u32>,
    /// `nodes=`: node budget.
    pub nodes: Option<u64>,
    /// `move-time=`: seconds for each move.
    pub move_time: Option<f64>,
    /// `time=`: seconds on the clock.
    pub time: Option<f64>,
    /// `inc=`: seconds added per move.
    pub inc: f64,
    /// `moves=`: moves to the next time control.
    pub moves: Option<u32>,
    /// `infinite`: no time limit.
    pub infinite: bool,
}

impl HubLevel {
    /// The search limits of this level: the move time, else the limits
    /// of a move on the clock ([`clock_limits`]), at least 10 ms; none
    /// when infinite.
    pub fn limits(&self) -> Limits {
        let timed = if self.infinite {
            Limits::default()
        } else if let Some(t) = self.move_time {
            Limits {
                time: Some(super::duration_of_secs(t.max(0.01))),
                ..Limits::default()
            }
        } else if let Some(t) = self.time {
            clock_limits(t, self.inc, self.moves)
        } else {
            Limits::default()
        };
        Limits {
            depth: self.depth,
            nodes: self.nodes,
            ..timed
        }
    }

    /// The level of a `level` command's arguments, with depths from 1 to
    /// `max_depth`; an unknown argument or a value out of its range is an
    /// error naming it and the range.
    pub fn parse(args: &[(String, String)], max_depth: u32) -> Result<HubLevel, HubLevelError> {
        let mut l = HubLevel::default();
        for (k, v) in args {
            let whole = |hi: u64| {
                v.trim()
                    .parse::<u64>()
                    .ok()
                    .filter(|n| (1..=hi).contains(n))
                    .ok_or_else(|| HubLevelError::Whole {
                        key: k.clone(),
                        value: v.clone(),
                        max: hi,
                    })
            };
            let secs = |zero_ok: bool| {
                v.parse::<f64>()
                    .ok()
                    .filter(|&s| {
                        zero_ok && s == 0.0 || s.is_finite() && s > 0.0 && s <= super::MAX_SECONDS
                    })
                    .ok_or_else(|| HubLevelError::Seconds {
                        key: k.clone(),
                        value: v.clone(),
                        zero_ok,
                        max: super::MAX_SECONDS,
                    })
            };
            match k.as_str() {
                "depth" => l.depth = Some(whole(max_depth as u64)? as u32),
                "nodes" => l.nodes = Some(whole(u64::MAX)?),
                "move-time" => l.move_time = Some(secs(false)?),
                "time" => l.time = Some(secs(true)?),
                "inc" => l.inc = secs(true)?,
                "moves" => l.moves = Some(whole(10_000)? as u32),
                "infinite" => l.infinite = true,
                _ => return Err(HubLevelError::Unknown(k.clone())),
            }
        }
        Ok(l)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen::parse_fen;
    use std::time::Duration;

    #[test]
    fn hub_positions_round_trip_in_both_dialects() {
        let start = "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww";
        assert_eq!(
            parse_hub_position(start, SideLetters::Pydraughts).unwrap(),
            Position::initial()
        );
        let p = parse_fen("W:W18,K3:B14").unwrap();
        for l in [SideLetters::Pydraughts, SideLetters::Literal] {
            assert_eq!(parse_hub_position(&hub_position(&p, l), l).unwrap(), p);
        }
        // What pydraughts 0.6 sends for boards set up from these FENs
        // (`Board(variant="english", fen=F)._game.initial_hub_fen`).
        for (fen, sent) in [
            (
                "W:WK22,K23,K24:BK31,K32",
                "BWWeeeeeeBBBeeeeeeeeeeeeeeeeeeeee",
            ),
            ("W:W18:B14", "Beeeeeeeeeeeeeebeeeweeeeeeeeeeeee"),
            (
                "B:W18,22,23,27,28:B1,5,10,14",
                "Weeeebbeeebbeeebeeeweeeweeeeweeew",
            ),
        ] {
            let p = parse_fen(fen).unwrap();
            assert_eq!(
                parse_hub_position(sent, SideLetters::Pydraughts).unwrap(),
                p
            );
            assert_eq!(hub_position(&p, SideLetters::Pydraughts), sent);
        }
        assert_eq!(
            parse_hub_position("BeeeeeeeeeeeeeBeeeweeeeeeeeeeeeee", SideLetters::Literal).unwrap(),
            parse_fen("B:W18:BK14").unwrap()
        );
        assert!(matches!(
            parse_hub_position("Wbbb", SideLetters::Literal),
            Err(HubPositionError::Length { len: 4, .. })
        ));
        let bad = format!("X{}", &start[1..]);
        assert_eq!(
            parse_hub_position(&bad, SideLetters::Literal),
            Err(HubPositionError::Side('X'))
        );
    }

    #[test]
    fn hub_moves_list_captured_squares() {
        let p = parse_fen("W:W18:B14").unwrap();
        let m = p.moves().as_slice()[0];
        assert_eq!(hub_move(&m), "18x9x14");
        assert!(parse_hub_move(&p, "18x9x14").unwrap().same_move(&m));
        // The PDN form is read too.
        assert!(parse_hub_move(&p, "18x9").unwrap().same_move(&m));
        assert!(parse_hub_move(&p, "18x14x9").is_err());
        let a = hub_args("pos=Wbbe moves=\"9-13 22-18\" x");
        assert_eq!(a[1], ("moves".into(), "9-13 22-18".into()));
        assert_eq!(a[2], ("x".into(), String::new()));
    }

    #[test]
    fn scores_are_men_and_wins_count_down_from_100() {
        assert_eq!(hub_score(150), "1.50");
        assert_eq!(hub_score(-25), "-0.25");
        assert_eq!(hub_score(MATE - 3), "99.97");
        assert_eq!(hub_score(-(MATE - 3)), "-99.97");
    }

    #[test]
    fn levels_name_the_bad_argument_and_give_limits() {
        let args = |t: &str| hub_args(t);
        let l = HubLevel::parse(&args("time=60 inc=1"), 100).unwrap();
        let t = l.limits().soft_time.unwrap();
        assert!(
            t > Duration::from_secs(2) && t < Duration::from_secs(4),
            "{t:?}"
        );
        // the most the move may take: three times its share
        let hard = l.limits().time.unwrap();
        assert!((hard.as_secs_f64() - 3.0 * t.as_secs_f64()).abs() < 1e-6);
        // a fixed time per move has no soft time
        let m = HubLevel::parse(&args("move-time=0.1"), 100).unwrap();
        assert_eq!(m.limits().soft_time, None);
        assert_eq!(
            HubLevel::parse(&args("depth=7"), 100)
                .unwrap()
                .limits()
                .depth,
            Some(7)
        );
        assert!(HubLevel::parse(&args("infinite time=5"), 100)
            .unwrap()
            .limits()
            .time
            .is_none());
        let e = HubLevel::parse(&args("depth=101"), 100).unwrap_err();
        assert!(e.to_string().contains("from 1 to 100"), "{e}");
        let e = HubLevel::parse(&args("speed=3"), 100).unwrap_err();
        assert_eq!(e, HubLevelError::Unknown("speed".into()));
        assert_eq!(e.to_string(), "unknown level argument speed");
        let e = HubLevel::parse(&args("move-time=0"), 100).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "level move-time=0: expected a positive number of seconds, at most {}",
                super::super::MAX_SECONDS
            )
        );
        assert!(HubLevel::parse(&args("move-time=0"), 100).is_err());
        assert!(HubLevel::parse(&args("time=0"), 100).is_ok());
    }

    #[test]
    fn clock_budget_shares_the_clock_and_keeps_a_reserve() {
        assert!((clock_budget(60.0, 0.0, Some(10)) - 6.0).abs() < 1e-9);
        assert!((clock_budget(10.0, 0.0, Some(1)) - 4.0).abs() < 1e-9);
        assert_eq!(clock_budget(0.0, 0.0, None), 0.01);
    }
}
