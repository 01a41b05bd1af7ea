//! `checkers play`: a game against the engine in the terminal. Also holds
//! what the game-playing commands share: matching typed moves against the
//! legal ones, game records, repetition, PDN output.

use crate::oracle::Needs;
use engine::notation::fen::to_fen;
use engine::search::{score_text, Limits, Searcher};
use engine::{Color, Move, Position};
use std::io::Write;
use std::time::Duration;

/// Play a game against the engine: type moves in PDN (`11-15`, `15x24`,
/// or every square of a capture `1x10x19`), `moves` for the legal moves,
/// `quit` to stop. Reads stdin, so it can be driven by a pipe.
#[derive(clap::Args)]
pub struct Args {
    /// Engine strength: easy (depth 4), medium (1 s a move), hard (5 s a move).
    #[arg(long, default_value = "medium")]
    pub level: Level,
    /// The side you play (Black moves first).
    #[arg(long, default_value = "black")]
    pub side: Side,
    /// Save the game as PDN to this file when it ends or you quit.
    #[arg(long)]
    pub save: Option<std::path::PathBuf>,
    /// Start from this FEN instead of the initial position.
    #[arg(long)]
    pub fen: Option<String>,
    /// Endgame databases up to this many pieces (0: none).
    #[arg(long, default_value_t = 0, value_parser = crate::limits::egdb_pieces)]
    pub egdb_pieces: u32,
}

/// Engine strength.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Level {
    /// Depth 4.
    Easy,
    /// One second a move.
    Medium,
    /// Five seconds a move.
    Hard,
}

/// A side.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Side {
    /// Black, moving first.
    Black,
    /// White.
    White,
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Black won.
    BlackWins,
    /// White won.
    WhiteWins,
    /// Drawn.
    Draw,
    /// Not finished (a player quit).
    Unfinished,
}

impl Outcome {
    /// PDN result token: `1-0` Black wins, `0-1` White wins.
    pub fn pdn(self) -> &'static str {
        match self {
            Outcome::BlackWins => "1-0",
            Outcome::WhiteWins => "0-1",
            Outcome::Draw => "1/2-1/2",
            Outcome::Unfinished => "*",
        }
    }
    /// The win of `c`.
    pub fn win_for(c: Color) -> Outcome {
        match c {
            Color::Black => Outcome::BlackWins,
            Color::White => Outcome::WhiteWins,
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
    pub fn to_pdn(&self, tags: &[(&str, String)], outcome: Outcome) -> String {
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

/// Why typed move text does not give one legal move.
#[derive(Debug)]
pub enum MoveInputError {
    /// Not of the form `a-b` / `axb[xc...]`.
    Malformed,
    /// No legal move has these squares.
    Illegal,
    /// Several legal moves fit; these.
    Ambiguous(Vec<Move>),
}

/// Matches move text against the legal moves of `pos`. With three or
/// more squares the Hub form (start, end, every captured square:
/// `23x16x19`) is tried first; otherwise, and as a fallback, the PDN form:
/// first square = start, last = end (`15x24`, `1x10x19`).
pub fn parse_move(pos: &Position, text: &str) -> Result<Move, MoveInputError> {
    let text = text.trim();
    let squares: Vec<u8> = text
        .split(['-', 'x', 'X', ':'])
        .map(|t| t.trim().parse::<u8>())
        .collect::<Result<_, _>>()
        .map_err(|_| MoveInputError::Malformed)?;
    if squares.len() < 2 || squares.iter().any(|&s| !(1..=32).contains(&s)) {
        return Err(MoveInputError::Malformed);
    }
    let from = squares[0];
    let legal = pos.moves();
    if squares.len() > 2 {
        // Hub form: start, end, then every captured square.
        let listed: u32 = squares[2..]
            .iter()
            .map(|&s| 1u32 << (s - 1))
            .fold(0, |a, b| a | b);
        let hub: Vec<Move> = legal
            .iter()
            .filter(|m| {
                m.from().number() == from && m.to().number() == squares[1] && m.captured() == listed
            })
            .copied()
            .collect();
        if hub.len() == 1 {
            return Ok(hub[0]);
        }
    }
    // PDN form: start, landing squares, end.
    let to = *squares.last().expect("len >= 2");
    let mut fits: Vec<Move> = legal
        .iter()
        .filter(|m| m.from().number() == from && m.to().number() == to)
        .copied()
        .collect();
    match fits.len() {
        0 => Err(MoveInputError::Illegal),
        1 => Ok(fits.remove(0)),
        _ => Err(MoveInputError::Ambiguous(fits)),
    }
}

/// The captured squares of a move, as text (`18, 26`).
pub fn captured_text(m: &Move) -> String {
    engine::square::Squares(m.captured())
        .map(|s| s.number().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn legal_list(pos: &Position) -> String {
    pos.moves()
        .iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<()> {
    let start = match &args.fen {
        Some(f) => engine::notation::fen::parse_fen(f)
            .map_err(|e| anyhow::anyhow!("bad FEN {f:?}: {e}"))?,
        None => Position::initial(),
    };
    let oracle = crate::oracle::open_egdb(args.egdb_pieces, Needs::All)?;
    let human = match args.side {
        Side::Black => Color::Black,
        Side::White => Color::White,
    };
    let limits = match args.level {
        Level::Easy => Limits {
            depth: Some(4),
            ..Limits::default()
        },
        Level::Medium => Limits {
            time: Some(Duration::from_secs(1)),
            ..Limits::default()
        },
        Level::Hard => Limits {
            time: Some(Duration::from_secs(5)),
            ..Limits::default()
        },
    };
    let mut searcher = Searcher::new(64);
    if args.egdb_pieces > 0 {
        searcher.set_probe_max_pieces(args.egdb_pieces);
    }
    let mut game = GameRecord::new(start);
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    println!("You play {human}. Type moves like 11-15 or 15x24; `moves` lists them, `quit` stops.");
    let outcome = loop {
        let pos = game.current();
        println!("\n{}", pos.diagram());
        if pos.is_terminal() {
            let winner = pos.side_to_move().opposite();
            println!("{} has no move: {winner} wins.", pos.side_to_move());
            break Outcome::win_for(winner);
        }
        if game.occurrences() >= 3 {
            println!("The position has occurred three times: draw.");
            break Outcome::Draw;
        }
        if pos.side_to_move() == human {
            print!("your move> ");
            std::io::stdout().flush()?;
            let Some(line) = crate::limits::read_line(&mut input)? else {
                println!("\nend of input: game left unfinished");
                break Outcome::Unfinished;
            };
            let line = line.trim();
            match line {
                "" => continue,
                "quit" | "q" | "exit" => break Outcome::Unfinished,
                "moves" | "help" | "?" => {
                    println!("legal moves: {}", legal_list(&pos));
                    continue;
                }
                _ => {}
            }
            match parse_move(&pos, line) {
                Ok(m) => game.push(m),
                Err(MoveInputError::Malformed) => {
                    println!("cannot read {line:?}; legal moves: {}", legal_list(&pos));
                }
                Err(MoveInputError::Illegal) => {
                    println!(
                        "{line} is not legal here; legal moves: {}",
                        legal_list(&pos)
                    );
                }
                Err(MoveInputError::Ambiguous(ms)) => {
                    println!(
                        "{line} is ambiguous; give the captured squares after it, e.g. {}",
                        ms.iter()
                            .map(|m| format!(
                                "{}x{}x{}",
                                m.from().number(),
                                m.to().number(),
                                captured_text(m).replace(", ", "x")
                            ))
                            .collect::<Vec<_>>()
                            .join(" or ")
                    );
                }
            }
        } else {
            let r = searcher.search(&pos, &limits, &*oracle, game.history());
            let m = r.best_move.expect("position is not terminal");
            println!(
                "engine plays {m}   (score {}, depth {}, {} nodes)",
                score_text(r.score),
                r.depth,
                r.nodes
            );
            game.push(m);
        }
    };
    let (black, white) = match human {
        Color::Black => ("You".to_string(), "checkers engine".to_string()),
        Color::White => ("checkers engine".to_string(), "You".to_string()),
    };
    let pdn = game.to_pdn(
        &[
            ("Event", "checkers play".to_string()),
            ("Black", black),
            ("White", white),
        ],
        outcome,
    );
    println!("\n{pdn}");
    if let Some(path) = &args.save {
        std::fs::write(path, &pdn)
            .map_err(|e| anyhow::anyhow!("cannot save the game to {}: {e}", path.display()))?;
        println!("saved to {}", path.display());
    }
    Ok(())
}
