//! `checkers ballots`: the three-move ballots: list, run, status, show,
//! report.
//!
//! The ballot file is `--ballots-file FILE`, else `$CHECKERS_DATA/ballots.tsv`,
//! else `../shared/data/ballots.tsv` (from the current directory, then from
//! the folders above the executable), else the copy built into the program.

mod run;

use crate::cli::{emit, StoreArg};
use anyhow::Context;
use ballots::deck::{Ballot, Deck, Selection};
use ballots::report;
use std::path::PathBuf;

/// The three-move ballots: list, run, status, show, report.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: BallotsCommand,
}

/// Which ballots, from which file.
#[derive(clap::Args, Clone, Debug)]
pub struct DeckArgs {
    /// Ballot table (default: $CHECKERS_DATA/ballots.tsv, else
    /// ../shared/data/ballots.tsv, else the built-in copy).
    #[arg(long, value_name = "FILE")]
    pub ballots_file: Option<PathBuf>,
    /// Which ballots: all (174), 156 (the deck in use), 144 (the old
    /// deck), barred (18).
    #[arg(long, default_value = "all", value_name = "all|156|144|barred")]
    pub deck: Selection,
}

impl DeckArgs {
    /// Reads the deck.
    pub fn load(&self) -> anyhow::Result<Deck> {
        Ok(Deck::locate(self.ballots_file.as_deref())?)
    }
}

#[derive(clap::Subcommand)]
enum BallotsCommand {
    /// List the ballots: number, deck, moves, name, FEN, other move orders.
    List {
        #[command(flatten)]
        deck: DeckArgs,
        /// One JSON object per ballot, one per line.
        #[arg(long)]
        json: bool,
    },
    /// Run the ballot jobs: build each main line, then prove it backward
    /// from its end, storing every result (resumable: run it again).
    Run(run::RunArgs),
    /// Where each ballot's job stands: main line length, frontier ply
    /// (earliest proved ply) and its piece count, value, time, nodes,
    /// proof size.
    Status {
        #[command(flatten)]
        deck: DeckArgs,
        #[command(flatten)]
        store: StoreArg,
        /// One JSON document instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Print stored main lines: plies by origin, whether the engine's
    /// scores flag the line decisive (a man or more for a side), and for
    /// each ply its move, origin, pieces, engine score (men, White's point
    /// of view) and stored value.
    Show {
        /// These ballots (ACF numbers).
        #[arg(long = "ballot", value_name = "N", num_args = 1.., required = true)]
        ballots: Vec<u32>,
        /// Ballot table (default: as for `ballots list`).
        #[arg(long, value_name = "FILE")]
        ballots_file: Option<PathBuf>,
        #[command(flatten)]
        store: StoreArg,
    },
    /// Write the status as ballots.md, ballots.json and frontier.svg.
    Report {
        #[command(flatten)]
        deck: DeckArgs,
        #[command(flatten)]
        store: StoreArg,
        /// Output folder (created if missing).
        #[arg(long, default_value = "ballot-report", value_name = "DIR")]
        out: PathBuf,
    },
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        BallotsCommand::List { deck, json } => list(&deck, json),
        BallotsCommand::Run(a) => run::run(a),
        BallotsCommand::Status { deck, store, json } => {
            let rows = statuses(&deck, &store)?;
            if json {
                emit(&(serde_json::to_string_pretty(&report::to_json(&rows))? + "\n"))
            } else {
                emit(&report::to_text(&rows))
            }
        }
        BallotsCommand::Show {
            ballots,
            ballots_file,
            store,
        } => show(&ballots, ballots_file.as_deref(), &store),
        BallotsCommand::Report { deck, store, out } => {
            let rows = statuses(&deck, &store)?;
            let files = report::write_report(&out, &rows)
                .with_context(|| format!("writing the report into {}", out.display()))?;
            println!("{}", report::summary(&rows));
            for f in files {
                println!("wrote {}", f.display());
            }
            Ok(())
        }
    }
}

fn statuses(deck: &DeckArgs, store: &StoreArg) -> anyhow::Result<Vec<report::BallotStatus>> {
    let d = deck.load()?;
    let s = crate::cli::open_existing(store)?;
    Ok(report::status(&s, &d.select(deck.deck))?)
}

fn show(numbers: &[u32], file: Option<&std::path::Path>, store: &StoreArg) -> anyhow::Result<()> {
    let d = Deck::locate(file)?;
    let s = crate::cli::open_existing(store)?;
    let mut o = String::new();
    for &n in numbers {
        let b = d
            .get(n)
            .with_context(|| format!("no ballot {n} in {}", d.source()))?;
        match ballots::show::line_text(&s, b)? {
            Some(text) => o += &text,
            None => o += &format!("ballot {n}: no main line stored\n"),
        }
        o.push('\n');
    }
    emit(&o)
}

fn ballot_json(b: &Ballot) -> serde_json::Value {
    serde_json::json!({
        "number": b.number,
        "moves": b.moves_text(),
        "deck": b.deck.name(),
        "ctd": b.ctd,
        "name": b.name,
        "fen": b.fen(),
        "also_reached_by": b.also_reached_by.iter().map(|o| o.join(" ")).collect::<Vec<_>>(),
        "white_replies": b.white_replies,
    })
}

fn list(deck: &DeckArgs, json: bool) -> anyhow::Result<()> {
    let d = deck.load()?;
    let chosen = d.select(deck.deck);
    let mut o = String::new();
    if json {
        for b in &chosen {
            o += &format!("{}\n", ballot_json(b));
        }
        return emit(&o);
    }
    o += &format!(
        "# {} ballots (deck {}) from {}\n",
        chosen.len(),
        deck.deck,
        d.source()
    );
    o += &format!(
        "{:>3}  {:<7}  {:<3}  {:<15}  {:<20}  {:<70}  also reached by\n",
        "acf", "deck", "ctd", "moves", "name", "fen"
    );
    for b in chosen {
        o += &format!(
            "{:>3}  {:<7}  {:<3}  {:<15}  {:<20}  {:<70}  {}\n",
            b.number,
            b.deck.name(),
            if b.ctd { "ctd" } else { "" },
            b.moves_text(),
            b.name,
            b.fen(),
            b.also_reached_by
                .iter()
                .map(|o| o.join(" "))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    emit(&o)
}
