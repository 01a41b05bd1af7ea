//! `checkers ballots lines`: the main lines without their walks. Builds
//! the lines the store lacks (as `ballots run` does, and stores them),
//! reads back the others, and prints per ballot where the moves came
//! from, the plies where the engine's score moves by a man against the
//! side that moved, whether the line turns decisive, and how it ends
//! (pieces, why, and whether the databases, the walk's settling of the
//! positions one piece above them, or only a search settles it).

use super::line_build::{
    line_limits, line_sources, ChosenBallots, LineBuild, LineMaker, RepairResults,
};
use crate::cli::StoreArg;
use anyhow::Context;
use ballots::deck::{Ballot, DeckKind};
use ballots::lines::{LineSummary, SettledBy};
use ballots::score::advantage_text;
use ballots::tables::{BallotTables, Origin};
use engine::notation::fen::to_fen;
use engine::Oracle;
use proofdb::Store;
use rayon::prelude::*;
use serde_json::json;
use solver::proved::ProvedOracle;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Arguments of `checkers ballots lines`.
#[derive(clap::Args, Debug)]
pub struct LinesArgs {
    #[command(flatten)]
    pub which: ChosenBallots,
    #[command(flatten)]
    pub store: StoreArg,
    /// The databases a line is built with (and ends at), and against
    /// which its end is judged, as `ballots run --egdb-pieces`.
    #[arg(long, default_value_t = crate::limits::DEFAULT_EGDB_PIECES,
          value_parser = crate::limits::egdb_pieces)]
    pub egdb_pieces: u32,
    #[command(flatten)]
    pub line: LineBuild,
    /// Worker threads building lines (default: all cores).
    #[arg(long, value_parser = crate::limits::threads)]
    pub threads: Option<usize>,
    /// Published trunk lines (default: fortman-trunks.pdn in the data folder).
    #[arg(long, value_name = "FILE")]
    pub trunks: Option<PathBuf>,
    /// Master-game archive (default: games/acf-archive.pdn in the data folder).
    #[arg(long, value_name = "FILE")]
    pub archive: Option<PathBuf>,
    /// JSON Lines: one object per ballot.
    #[arg(long)]
    pub json: bool,
    /// Repair the stored lines too (those built before lines were
    /// repaired, or with --repair-depth 0): as a line is repaired when it
    /// is built, with --repair-depth. A line whose walk has started (it has
    /// job records) is kept as it is, with a note: its records stand on it.
    #[arg(long)]
    pub repair: bool,
}

/// One ballot's line and its summary.
struct Row<'d> {
    ballot: &'d Ballot,
    summary: LineSummary,
    end_fen: String,
}

/// Runs `checkers ballots lines`.
pub fn run(args: LinesArgs) -> anyhow::Result<()> {
    let deck = args.which.deck()?;
    let chosen = args.which.choose(&deck)?;
    let store = Store::open(args.store.path())?;
    let missing: Vec<&Ballot> = chosen
        .iter()
        .copied()
        .filter(|b| matches!(ballots::plan::stored_line(&store, b.number), Ok(None)))
        .collect();
    // The lines are built with the databases, and their ends judged by them.
    let oracle = crate::oracle::open_egdb(args.egdb_pieces, crate::oracle::Needs::All)?;
    let oracle = oracle.as_ref();
    let results = RepairResults::new(&store);
    let job = LinesJob {
        store: &store,
        args: &args,
        oracle,
        results: &results,
    };
    if !missing.is_empty() {
        job.build_missing(&missing)?;
    }
    if args.repair {
        let stored: Vec<&Ballot> = chosen
            .iter()
            .copied()
            .filter(|b| !missing.iter().any(|m| m.number == b.number))
            .collect();
        job.repair_stored(&stored)?;
    }
    let settled = |p: &engine::Position| oracle.probe(p).is_some();
    let proved = ProvedOracle::new(oracle, args.egdb_pieces, results.get()?);
    let mut rows = Vec::new();
    for b in &chosen {
        let line = stored_line(&store, b)?;
        rows.push(Row {
            ballot: b,
            summary: LineSummary::of(&line, args.egdb_pieces, &settled, &proved),
            end_fen: to_fen(&line.last()),
        });
    }
    if args.json {
        let mut out = String::new();
        for r in &rows {
            out += &json_line(r).to_string();
            out.push('\n');
        }
        crate::cli::emit(&out)
    } else {
        crate::cli::emit(&text(&rows, args.egdb_pieces))
    }
}

/// The ballot's stored main line, an error when it has none.
fn stored_line(store: &Store, b: &Ballot) -> anyhow::Result<ballots::line::MainLine> {
    ballots::plan::stored_line(store, b.number)
        .with_context(|| format!("ballot {}: main line", b.number))?
        .with_context(|| format!("ballot {}: no main line", b.number))
}

/// What building and repairing lines work with: the store, the
/// command's arguments, the databases and the proved results a repair
/// reads.
struct LinesJob<'a> {
    store: &'a Store,
    args: &'a LinesArgs,
    oracle: &'a dyn Oracle,
    results: &'a RepairResults<'a>,
}

impl LinesJob<'_> {
    /// Builds and stores the lines of `missing`, with a progress bar.
    fn build_missing(&self, missing: &[&Ballot]) -> anyhow::Result<()> {
        let sources = line_sources(self.args.trunks.as_deref(), self.args.archive.as_deref())?;
        self.on_each_line(missing, &sources, "building main lines", |maker, b| {
            maker.line(self.store, b, self.oracle)?;
            Ok(())
        })?;
        Ok(())
    }

    /// Repairs the stored lines of `stored` whose walk has not started,
    /// with a progress bar, and stores those that change; a line with job
    /// records is kept, with a note.
    fn repair_stored(&self, stored: &[&Ballot]) -> anyhow::Result<()> {
        let mut free = Vec::new();
        for b in stored {
            let records = self.store.job_records(b.number)?.len();
            if records > 0 {
                eprintln!(
                    "checkers: ballot {}: its walk has started ({records} job records): its line \
                     is kept as it is",
                    b.number
                );
            } else {
                free.push(*b);
            }
        }
        let sources = ballots::plan::LineSources::default();
        let done = self.on_each_line(&free, &sources, "repairing main lines", |maker, b| {
            let mut line = stored_line(self.store, b)?;
            let count = maker.repair(&mut line, self.oracle)?;
            if count.repairs > 0 {
                self.store
                    .set_main_line(b.number, &ballots::plan::to_rows(&line))?;
            }
            Ok(count.repairs)
        })?;
        let repaired = done.iter().filter(|&&n| n > 0).count();
        eprintln!(
            "checkers: {repaired} of {} stored lines repaired",
            free.len()
        );
        Ok(())
    }

    /// Runs `work` on every ballot of `chosen` in parallel (`--threads`),
    /// with a progress bar saying `what`, the lines built or repaired by
    /// the run's [`LineMaker`] (from `sources`); the first error stops it.
    fn on_each_line<T: Send>(
        &self,
        chosen: &[&Ballot],
        sources: &ballots::plan::LineSources,
        what: &str,
        work: impl Fn(&LineMaker, &Ballot) -> anyhow::Result<T> + Sync,
    ) -> anyhow::Result<Vec<T>> {
        let args = self.args;
        let limits = line_limits(args.egdb_pieces, args.line.line_depth);
        let maker = LineMaker {
            sources,
            limits: &limits,
            repair: args.line.repair(),
            results: self.results,
            egdb_pieces: args.egdb_pieces,
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(args.threads.unwrap_or_else(rayon::current_num_threads))
            .build()
            .context("starting the worker threads")?;
        let bar = crate::progress::counter_bar(chosen.len() as u64, what);
        let done: Vec<anyhow::Result<T>> = pool.install(|| {
            chosen
                .par_iter()
                .map(|b| {
                    let r = work(&maker, b)?;
                    bar.inc(1);
                    Ok(r)
                })
                .collect()
        });
        bar.finish_and_clear();
        done.into_iter().collect()
    }
}

/// Whether a ballot is one of those barred as believed lost: its line is
/// expected to be decisive.
fn barred(b: &Ballot) -> bool {
    b.deck == DeckKind::Barred
}

/// The table and its summary.
fn text(rows: &[Row], egdb_pieces: u32) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:>6}  {:<17}  {:<7}  {:>5}  {:<44}  {:<26}  {:<20}  {:<24}  end",
        "ballot",
        "moves",
        "deck",
        "plies",
        "origins",
        "score moves (ply: mover)",
        "repaired plies",
        "decisive"
    );
    for r in rows {
        let s = &r.summary;
        let origins: Vec<String> = s
            .origins
            .iter()
            .map(|(o, n)| format!("{} {n}", o.name()))
            .collect();
        let swings: Vec<String> = s
            .swings
            .iter()
            .take(3)
            .map(|w| format!("{}: {}", w.ply, w.mover))
            .collect();
        let more = s.swings.len().saturating_sub(3);
        let swings = match (swings.is_empty(), more) {
            (true, _) => "-".to_string(),
            (false, 0) => swings.join(", "),
            (false, m) => format!("{} +{m}", swings.join(", ")),
        };
        let decisive = s.decisive.map_or("-".to_string(), |d| {
            format!("ply {}: {}", d.ply, advantage_text(d.score))
        });
        let repaired = if s.repairs.is_empty() {
            "-".to_string()
        } else {
            let plies: Vec<String> = s.repairs.iter().map(|r| r.ply.to_string()).collect();
            plies.join(", ")
        };
        let stop = s.end.stop.map_or("engine stopped", |x| x.name());
        let _ = writeln!(
            out,
            "{:>6}  {:<17}  {:<7}  {:>5}  {:<44}  {:<26}  {:<20}  {:<24}  {} pieces, {stop}, {} {}",
            r.ballot.number,
            r.ballot.moves_text(),
            if barred(r.ballot) { "barred" } else { "" },
            s.plies,
            origins.join(", "),
            swings,
            repaired,
            decisive,
            s.end.pieces,
            s.end.settled_by.name(),
            r.end_fen,
        );
    }
    let decisive: Vec<&Row> = rows
        .iter()
        .filter(|r| r.summary.decisive.is_some())
        .collect();
    let decisive_barred = decisive.iter().filter(|r| barred(r.ballot)).count();
    let search = rows
        .iter()
        .filter(|r| r.summary.end.settled_by == SettledBy::Search)
        .count();
    let decisive_in = |origin: Origin| {
        decisive
            .iter()
            .filter(|r| !barred(r.ballot) && r.summary.decisive_origin == Some(origin))
            .count()
    };
    let (in_published, in_archive) = (decisive_in(Origin::Published), decisive_in(Origin::Archive));
    let in_engine = decisive_in(Origin::Engine) + decisive_in(Origin::Repair);
    let swinging = rows.iter().filter(|r| !r.summary.swings.is_empty()).count();
    let repaired = rows
        .iter()
        .filter(|r| !r.summary.repairs.is_empty())
        .count();
    let _ = writeln!(
        out,
        "{} lines: {} decisive by the engine ({decisive_barred} of them barred ballots; \
         of the others, {in_published} turn decisive inside published moves, {in_archive} inside \
         the archive's moves, {in_engine} inside the engine's moves), {repaired} repaired, \
         {swinging} with a move that loses a man or more by the engine's score, {search} ending \
         where only a search settles the position (more than one piece above the \
         {egdb_pieces}-piece databases)",
        rows.len(),
        decisive.len(),
    );
    for r in rows {
        for &ply in &r.summary.losing_published {
            let _ = writeln!(
                out,
                "ballot {}: the published move of ply {ply} loses by the databases or a proof",
                r.ballot.number
            );
        }
    }
    out
}

/// One ballot as a JSON object.
fn json_line(r: &Row) -> serde_json::Value {
    let s = &r.summary;
    let origins: serde_json::Map<String, serde_json::Value> = s
        .origins
        .iter()
        .map(|(o, n)| (o.name().to_string(), json!(n)))
        .collect();
    json!({
        "ballot": r.ballot.number,
        "moves": r.ballot.moves_text(),
        "barred": barred(r.ballot),
        "plies": s.plies,
        "origins": origins,
        "swings": s.swings.iter().map(|w| json!({
            "ply": w.ply,
            "mover": w.mover.name(),
            "before": w.before,
            "after": w.after,
        })).collect::<Vec<_>>(),
        "repairs": s.repairs.iter().map(|r| json!({
            "ply": r.ply,
            "move": r.played,
            "replaced": r.replaced,
            "score": r.scores.score,
            "replaced_score": r.scores.replaced_score,
        })).collect::<Vec<_>>(),
        "losing_published": s.losing_published,
        "decisive": s.decisive.map(|d| json!({
            "ply": d.ply,
            "score": d.score,
            "origin": s.decisive_origin.map(|o| o.name()),
        })),
        "end": {
            "pieces": s.end.pieces,
            "stop": s.end.stop.map(|x| x.name()),
            "settled_by": s.end.settled_by.name(),
            "fen": r.end_fen,
        },
    })
}
