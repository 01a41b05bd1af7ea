//! `checkers show`: a position's diagram, canonical FEN and legal moves.

use anyhow::Context;
use engine::notation::fen::{parse_fen, to_fen};
use engine::notation::movetext::move_to_text;
use engine::square::Squares;
use engine::Move;

/// Print a board diagram, the canonical FEN, the side to move and the
/// legal moves (in PDN text) of a position.
#[derive(clap::Args)]
pub struct Args {
    /// The position as PDN FEN, e.g. "B:W21-32:B1-12" (quote it).
    pub fen: String,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<()> {
    let pos = parse_fen(&args.fen).with_context(|| format!("bad FEN {:?}", args.fen))?;
    print!("{}", pos.diagram());
    println!("FEN: {}", to_fen(&pos));
    let mut moves: Vec<Move> = pos.moves().iter().copied().collect();
    moves.sort_by_key(|m| (m.from(), m.to(), m.captured()));
    let side = pos.side_to_move();
    if moves.is_empty() {
        println!("{side} to move has no legal move: {side} has lost");
        return Ok(());
    }
    if moves[0].is_capture() {
        println!(
            "{side} to move must capture; {} legal move{}:",
            moves.len(),
            if moves.len() == 1 { "" } else { "s" }
        );
        for m in &moves {
            let taken: Vec<String> = Squares(m.captured()).map(|s| s.to_string()).collect();
            let paths = if m.paths() > 1 {
                format!(", {} paths", m.paths())
            } else {
                String::new()
            };
            println!(
                "  {:<14} (capture: takes {}{paths})",
                move_to_text(&pos, m),
                taken.join(", ")
            );
        }
    } else {
        let texts: Vec<String> = moves.iter().map(|m| move_to_text(&pos, m)).collect();
        println!(
            "{side} to move; {} legal move{}: {}",
            moves.len(),
            if moves.len() == 1 { "" } else { "s" },
            texts.join(" ")
        );
    }
    Ok(())
}
