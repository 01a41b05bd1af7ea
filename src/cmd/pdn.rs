//! `checkers pdn`: PDN game files.

use engine::notation::pdn::{read_file, Game};
use std::path::PathBuf;
use std::time::Instant;

/// PDN game files (GameType 21).
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Replay every game of a PDN file against the rules. Prints the
    /// counts (games, legal, with errors) and the first error of each bad
    /// game. Exits 1 when any game is bad or the file is not PDN.
    Check(CheckArgs),
}

/// Arguments of `pdn check`.
#[derive(clap::Args)]
struct CheckArgs {
    /// The PDN file.
    file: PathBuf,
    /// One JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        Command::Check(a) => check(a),
    }
}

/// `Event "..."` (and the other naming tags present) for an error line.
fn naming_tags(g: &Game) -> String {
    ["Event", "Round", "Black", "White"]
        .iter()
        .filter_map(|&t| g.tag(t).map(|v| format!("{t} {v:?}")))
        .collect::<Vec<_>>()
        .join(", ")
}

fn check(args: CheckArgs) -> anyhow::Result<()> {
    let t = Instant::now();
    let games = read_file(&args.file)?;
    let secs = t.elapsed().as_secs_f64();
    let bad: Vec<&Game> = games.iter().filter(|g| g.error.is_some()).collect();
    let plies: usize = games.iter().map(|g| g.moves.len()).sum();
    let legal = games.len() - bad.len();
    let file = args.file.display().to_string();
    if args.json {
        let errors: Vec<serde_json::Value> = bad
            .iter()
            .map(|g| {
                serde_json::json!({
                    "game": g.number,
                    "line": g.line,
                    "event": g.tag("Event"),
                    "error": g.error.as_ref().map(|e| e.to_string()),
                })
            })
            .collect();
        let out = serde_json::json!({
            "file": file,
            "games": games.len(),
            "legal": legal,
            "with_errors": bad.len(),
            "moves": plies,
            "millis": (secs * 1000.0).round() as u64,
            "errors": errors,
        });
        println!("{out}");
    } else {
        for g in &bad {
            let tags = naming_tags(g);
            let tags = if tags.is_empty() {
                String::new()
            } else {
                format!(" ({tags})")
            };
            let e = g.error.as_ref().expect("filtered on errors");
            println!("game {}{tags}: {e}", g.number);
        }
        println!(
            "{file}: {} games, {legal} legal, {} with errors; {plies} moves replayed in {secs:.3} s",
            games.len(),
            bad.len()
        );
    }
    if !bad.is_empty() {
        anyhow::bail!(
            "{} of {} games in {file} do not replay",
            bad.len(),
            games.len()
        );
    }
    Ok(())
}
