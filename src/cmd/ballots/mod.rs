//! `checkers ballots`: the three-move ballots: list, run, status, show,
//! report.
//!
//! The ballot file is `--ballots-file FILE`, else `ballots.tsv` in the data
//! folder (`--data DIR`, else `$CHECKERS_DATA`, else `../shared/data` from
//! the current directory, then from the folders above the executable),
//! else the copy built into the program.

mod line_build;
mod lines;
mod run;
mod settle;

use crate::cli::{emit, StoreArg};
use anyhow::Context;
use ballots::deck::{Ballot, Deck, Selection};
use ballots::report;
use ballots::tables::BallotTables;
use proofdb::Store;
use std::io::IsTerminal;
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
    /// Ballot table (default: ballots.tsv in the data folder, see
    /// --data; else the built-in copy).
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

/// Which ballots `status` and `report` cover.
#[derive(clap::Args, Clone, Debug)]
pub struct StoreBallots {
    /// Ballot table (default: as for `ballots list`).
    #[arg(long, value_name = "FILE")]
    pub ballots_file: Option<PathBuf>,
    /// These ballots (ACF numbers).
    #[arg(long = "ballot", value_name = "N", num_args = 1.., conflicts_with = "deck")]
    pub ballots: Vec<u32>,
    /// A whole deck: all (174), 156, 144, barred. Without it and without
    /// --ballot: the ballots the store has a main line or a job record
    /// for.
    #[arg(long, value_name = "all|156|144|barred")]
    pub deck: Option<Selection>,
    /// Database size named in the suggested commands when a line's
    /// results do not say which they used.
    #[arg(long, default_value_t = crate::limits::DEFAULT_EGDB_PIECES,
          value_parser = crate::limits::egdb_pieces)]
    pub egdb_pieces: u32,
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
    /// The main lines without walking them: builds (and stores) those the
    /// store lacks, then per ballot where the moves came from, the plies
    /// where the engine's score moves by a man or more against the side
    /// that moved, where the line turns decisive, and how it ends
    /// (pieces, why, and whether the databases, the walk's settling one
    /// piece above them, or only a search settles it); barred ballots,
    /// whose lines are expected to be decisive, are marked.
    Lines(lines::LinesArgs),
    /// Where each ballot's job stands: main line length, frontier ply
    /// (earliest proved ply) and its piece count, value, time, nodes,
    /// proof size; then, for each ballot whose walk is open, the frontier
    /// and open positions by FEN, the question open there and the
    /// commands that attack it.
    Status {
        #[command(flatten)]
        which: StoreBallots,
        #[command(flatten)]
        store: StoreArg,
        /// JSON Lines: one object per ballot (docs/json.txt).
        #[arg(long)]
        json: bool,
    },
    /// One stored main line ply by ply: move, origin, pieces, engine
    /// score (men, White's point of view), stored value or bound, proof
    /// size, the job's last attempt and FEN; then the frontier, the open
    /// question where the walk stands and the commands that attack it.
    Show {
        /// These ballots (ACF numbers).
        #[arg(value_name = "N", num_args = 1.., required_unless_present = "ballot")]
        numbers: Vec<u32>,
        /// The same as the numbers (the older spelling).
        #[arg(long, value_name = "N", num_args = 1..)]
        ballot: Vec<u32>,
        /// Ballot table (default: as for `ballots list`).
        #[arg(long, value_name = "FILE")]
        ballots_file: Option<PathBuf>,
        #[command(flatten)]
        store: StoreArg,
        /// Database size named in the suggested commands when the line's
        /// results do not say which they used.
        #[arg(long, default_value_t = crate::limits::DEFAULT_EGDB_PIECES,
              value_parser = crate::limits::egdb_pieces)]
        egdb_pieces: u32,
        /// JSON Lines: one object per ballot (docs/json.txt).
        #[arg(long)]
        json: bool,
    },
    /// Write the status as ballots.md (with the open positions and what
    /// to run next), ballots.jsonl (as `status --json`) and frontier.svg.
    Report {
        #[command(flatten)]
        which: StoreBallots,
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
        BallotsCommand::Lines(a) => lines::run(a),
        BallotsCommand::Status { which, store, json } => {
            let (s, rows) = statuses(&which, &store)?;
            if json {
                emit(&report::to_json_lines(
                    &rows,
                    &pasteable(s.path()),
                    which.egdb_pieces,
                ))
            } else {
                let color = std::io::stdout().is_terminal();
                let mut text = crate::present::ballot_status::to_text(&rows, color);
                let next = crate::present::ballot_status::next_text(
                    &rows,
                    &pasteable(s.path()),
                    which.egdb_pieces,
                );
                if !next.is_empty() {
                    text += "\n";
                    text += &next;
                }
                emit(&text)
            }
        }
        BallotsCommand::Show {
            numbers,
            ballot,
            ballots_file,
            store,
            egdb_pieces,
            json,
        } => {
            let all: Vec<u32> = numbers.into_iter().chain(ballot).collect();
            show(&all, ballots_file.as_deref(), &store, egdb_pieces, json)
        }
        BallotsCommand::Report { which, store, out } => {
            let (s, rows) = statuses(&which, &store)?;
            let files = crate::present::ballot_status::write_report(
                &out,
                &rows,
                &pasteable(s.path()),
                which.egdb_pieces,
            )
            .with_context(|| format!("writing the report into {}", out.display()))?;
            println!("{}", crate::present::ballot_status::summary(&rows));
            for f in files {
                println!("wrote {}", f.display());
            }
            let next = crate::present::ballot_status::next_text(
                &rows,
                &pasteable(s.path()),
                which.egdb_pieces,
            );
            if !next.is_empty() {
                print!("\n{next}");
            }
            Ok(())
        }
    }
}

/// `path` as the suggested commands name it: absolute, so that they can
/// be pasted anywhere.
pub fn pasteable(path: &std::path::Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The store and the status of the ballots `which` names (by default
/// those the store has a main line or a job record for).
fn statuses(
    which: &StoreBallots,
    store: &StoreArg,
) -> anyhow::Result<(Store, Vec<report::BallotStatus>)> {
    let d = Deck::locate(which.ballots_file.as_deref())?;
    let s = crate::cli::open_existing(store)?;
    let chosen: Vec<&Ballot> = match (which.deck, which.ballots.is_empty()) {
        (Some(sel), _) => d.select(sel),
        (None, false) => which
            .ballots
            .iter()
            .map(|&n| {
                d.get(n)
                    .with_context(|| format!("no ballot {n} in {}", d.source()))
            })
            .collect::<anyhow::Result<_>>()?,
        (None, true) => {
            let mut numbers: Vec<u32> = s.ballots_with_lines()?;
            numbers.extend(s.all_job_records()?.iter().map(|j| j.ballot));
            numbers.sort_unstable();
            numbers.dedup();
            numbers.iter().filter_map(|&n| d.get(n)).collect()
        }
    };
    let rows = report::status(&s, &chosen)?;
    Ok((s, rows))
}

fn show(
    numbers: &[u32],
    file: Option<&std::path::Path>,
    store: &StoreArg,
    egdb_pieces: u32,
    json: bool,
) -> anyhow::Result<()> {
    let d = Deck::locate(file)?;
    let s = crate::cli::open_existing(store)?;
    let mut o = String::new();
    let mut missing = Vec::new();
    for &n in numbers {
        let b = d
            .get(n)
            .with_context(|| format!("no ballot {n} in {}", d.source()))?;
        let line = ballots::show::line_state(&s, b)?;
        match (line, json) {
            (Some(l), true) => {
                let next = l.open.as_ref().map(|op| {
                    op.commands(
                        n,
                        &pasteable(s.path()),
                        l.egdb_pieces.unwrap_or(egdb_pieces),
                    )
                });
                let mut v = serde_json::to_value(&l)?;
                if let Some(next) = next {
                    v["open"]["next"] = serde_json::to_value(next)?;
                }
                o += &format!("{v}\n");
            }
            (Some(l), false) => {
                o +=
                    &crate::present::ballot_line::state_text(&l, &pasteable(s.path()), egdb_pieces);
                o.push('\n');
            }
            (None, _) => missing.push(n),
        }
    }
    emit(&o)?;
    anyhow::ensure!(
        missing.is_empty(),
        "no main line stored in {} for ballot(s) {missing:?}",
        s.path().display()
    );
    Ok(())
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
