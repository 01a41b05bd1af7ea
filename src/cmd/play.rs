//! `checkers play`: a game against the engine in the terminal. Moves are
//! read by the one PDN move-text parser (`engine::notation::movetext`),
//! the game is kept and written by `engine::play::record`.

use crate::oracle::Needs;
use engine::notation::movetext::{legal_move_texts, parse_move};
use engine::play::{read_line, GameOutcome, GameRecord};
use engine::search::{score_text, Limits, Searcher};
use engine::{Color, Position};
use player::choose;
use solver::proved::ProvedOracle;
use std::io::Write;
use std::time::Duration;

/// Play a game against the engine: type moves in PDN (`11-15`, `15x24`,
/// or the landing squares of a capture `1x10x19`), `moves` for the legal moves,
/// `quit` to stop. Reads stdin, so it can be driven by a pipe.
#[derive(clap::Args)]
pub struct Args {
    /// Engine strength: easy (depth 4), medium (1 s a move), hard (5 s a move).
    #[arg(long, default_value = "medium")]
    pub level: Level,
    /// The side you play (Black moves first).
    #[arg(long, default_value = "black")]
    pub side: PlayerSide,
    /// Save the game as PDN to this file when it ends or you quit.
    #[arg(long)]
    pub save: Option<std::path::PathBuf>,
    /// Start from this FEN instead of the initial position.
    #[arg(long)]
    pub fen: Option<String>,
    /// Endgame databases up to this many pieces (0: none).
    #[arg(long, default_value_t = crate::limits::DEFAULT_EGDB_PIECES, value_parser = crate::limits::egdb_pieces)]
    pub egdb_pieces: u32,
    /// Play with this proof store (read-only): proved positions are exact
    /// leaves, a proved root plays a move that keeps its value.
    #[arg(long, value_name = "FILE")]
    pub store: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub book: crate::cli::BookArg,
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

/// The side the human plays.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum PlayerSide {
    /// Black, moving first.
    Black,
    /// White.
    White,
}

fn legal_list(pos: &Position) -> String {
    legal_move_texts(pos).join(" ")
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
        PlayerSide::Black => Color::Black,
        PlayerSide::White => Color::White,
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
    let proved = args
        .store
        .as_deref()
        .map(crate::oracle::open_proved)
        .transpose()?;
    let proved_oracle = proved
        .as_ref()
        .map(|p| ProvedOracle::new(&*oracle, args.egdb_pieces, &p.results));
    let book = args.book.open()?;
    let mut searcher = Searcher::new(64);
    if args.egdb_pieces > 0 && proved.is_none() {
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
            break GameOutcome::win_for(winner);
        }
        if game.occurrences() >= 3 {
            println!("The position has occurred three times: draw.");
            break GameOutcome::Draw;
        }
        if pos.side_to_move() == human {
            print!("your move> ");
            std::io::stdout().flush()?;
            let Some(line) = read_line(&mut input)? else {
                println!("\nend of input: game left unfinished");
                break GameOutcome::Unfinished;
            };
            let line = line.trim();
            match line {
                "" => continue,
                "quit" | "q" | "exit" => break GameOutcome::Unfinished,
                "moves" | "help" | "?" => {
                    println!("legal moves: {}", legal_list(&pos));
                    continue;
                }
                _ => {}
            }
            match parse_move(&pos, line) {
                Ok(m) => game.push(m),
                Err(e) => println!("{e}"),
            }
        } else {
            let booked = book.as_ref().and_then(|b| {
                b.play(
                    &mut searcher,
                    &pos,
                    &limits,
                    &*oracle,
                    game.history(),
                    &mut |_| {},
                )
            });
            let (r, note) = match (&proved, &proved_oracle) {
                _ if booked.is_some() => (
                    booked.expect("a book move"),
                    ", from the opening book".to_string(),
                ),
                (Some(p), Some(o)) => {
                    let c = choose(
                        &mut searcher,
                        &pos,
                        &limits,
                        game.history(),
                        o,
                        &p.store,
                        &mut |_| {},
                    )?;
                    let note = match (c.proved, c.source.from_proof()) {
                        (Some(o), true) => format!(", proved {o}: {}", c.source.name()),
                        _ => String::new(),
                    };
                    (c.result, note)
                }
                _ => (
                    searcher.search(&pos, &limits, &*oracle, game.history()),
                    String::new(),
                ),
            };
            let m = r.best_move.expect("position is not terminal");
            println!(
                "engine plays {m}   (score {}, depth {}, {} nodes{note})",
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

#[cfg(test)]
mod tests {
    use super::PlayerSide;
    use clap::ValueEnum;

    #[test]
    fn the_sides_keep_their_command_line_names() {
        let names: Vec<String> = PlayerSide::value_variants()
            .iter()
            .map(|s| s.to_possible_value().unwrap().get_name().to_string())
            .collect();
        assert_eq!(names, ["black", "white"]);
    }
}
