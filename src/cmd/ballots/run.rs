//! `checkers ballots run`: the main job. For each chosen ballot, build (or
//! read back) its main line, then walk it backward from the end, proving
//! each position with the solvers, the endgame databases and what the
//! store already holds, until a position resists its budget or the
//! ballot's budget is spent. Ballots run in parallel; everything proved is
//! committed as it is proved, so a killed or interrupted run loses at most
//! the position in progress, and running the same command again resumes.

use super::line_build::{
    line_limits, line_sources, ChosenBallots, LineBuild, LineMaker, RepairResults,
};
use crate::cli::StoreArg;
use crate::cli::{SolverArg, TrustArg};
use crate::oracle::Needs;
use anyhow::Context;
use ballots::attempt::{ManagedProver, ProverSettings, StoreProver, StoreRecords};
use ballots::deck::Ballot;
use ballots::job::{walk, PositionProver, WalkBudget, WalkEnd, WalkSummary};
use ballots::plan::LineSources;
use ballots::report;
use engine::Oracle;
use proofdb::{LiveResults, Store};
use rayon::prelude::*;
use solver::clock::Clock;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Default of `--line-reach` from [`REACH_BUILD_FROM`] pieces on: the
/// slices reachable from the lines' positions of up to one piece more
/// than the databases (docs/measurements.md, "Ballots", gives how many
/// slices that is on the 16-ballot sample's lines).
pub const LINE_REACH: u32 = 1;

/// From this many pieces on, `ballots run` builds only the slices its
/// lines need of the largest size ([`RunArgs::line_reach`]) by default;
/// below it the whole set takes minutes at most.
pub const REACH_BUILD_FROM: u32 = 7;

/// Arguments of `checkers ballots run`.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub which: ChosenBallots,
    /// Seconds per ballot in this run (at most 365 days): CPU seconds of
    /// the threads that search (wall seconds with --wall-clock), so that
    /// a loaded machine proves what an idle one does.
    #[arg(long, default_value_t = 20.0, value_name = "SECS", value_parser = crate::limits::seconds)]
    pub budget: f64,
    /// Seconds per position, on the same clock as --budget (at most 365
    /// days); a position that resists is tried again with twice its last
    /// budget while the ballot's budget lasts.
    #[arg(long, default_value_t = 10.0, value_name = "SECS", value_parser = crate::limits::seconds)]
    pub position_budget: f64,
    /// Endgame databases up to this many pieces (built on first use).
    #[arg(long, default_value_t = crate::limits::DEFAULT_EGDB_PIECES, value_parser = crate::limits::egdb_pieces)]
    pub egdb_pieces: u32,
    #[command(flatten)]
    pub store: StoreArg,
    /// Ballots run at once (default: the number of cores; at most 1024).
    #[arg(long, value_parser = crate::limits::threads)]
    pub threads: Option<usize>,
    /// The solver.
    #[arg(long, value_enum, default_value = "dfpn")]
    pub solver: SolverArg,
    #[command(flatten)]
    pub line: LineBuild,
    /// Give a position that half the position budget of direct solving
    /// leaves open to the proof-tree manager for the rest (off by default:
    /// it has not moved a frontier where measured, docs/measurements.md).
    #[arg(long)]
    pub manager: bool,
    /// Start every attempt at a position afresh. By default df-pn's
    /// tables of a position left open are kept in the folder STORE.dfpn
    /// beside the store (up to about 26 bytes per table entry each), so
    /// that a retry with a doubled budget, or a rerun, goes on from the
    /// work already done; a settled position's file is removed.
    #[arg(long)]
    pub no_carry_over: bool,
    /// Most MiB the folder STORE.dfpn may hold: past it, after each
    /// attempt, the tables written longest ago are removed (those
    /// positions are searched afresh; nothing proved is lost).
    #[arg(long, value_name = "MIB", default_value_t = ballots::attempt::CARRY_OVER_BYTES >> 20,
          value_parser = clap::value_parser!(u64).range(1..=(1 << 40)))]
    pub carry_over_limit: u64,
    /// Count --budget, --position-budget and the recorded times in wall
    /// time instead of CPU time.
    #[arg(long)]
    pub wall_clock: bool,
    /// When df-pn builds on results held through a repetition before they
    /// are checked: auto (where the engine or a drawn next position says
    /// the position is a draw, and the question is the draw side's), on,
    /// off. See solver::dfpn.
    #[arg(long, value_enum, default_value = "auto")]
    pub trust_loops: TrustArg,
    /// Transposition-table entries per solver and thread (all of them
    /// within the machine's memory). A table takes memory only as it
    /// fills (about 300 MB at the default when full); below 4 M the
    /// garbage collection of a stuck ply's long search throws away the
    /// work that would close it (docs/measurements.md, Ballots).
    #[arg(long, default_value_t = 4_000_000,
          value_parser = crate::limits::held(crate::limits::TABLE_ENTRY_BYTES))]
    pub table_entries: usize,
    /// Build only the slices of the largest size that the searches may
    /// enter from the main lines' positions of at most --egdb-pieces +
    /// PIECES pieces (their last plies, where the walk works), instead of
    /// the whole set; the lines are built first, with the databases one
    /// piece smaller. The default with 7 pieces or more is 1 (the whole
    /// 7-piece set is 1,491 slices and hours); below 7 the whole set is
    /// built unless this is given. 0 to 8.
    #[arg(long, value_name = "PIECES", value_parser = clap::value_parser!(u32).range(0..=8))]
    pub line_reach: Option<u32>,
    /// Settle the lines' positions of one piece more than --egdb-pieces
    /// exactly: before walking, build the slices of that size that games
    /// from them may enter (as `egdb build --for` does; the estimate is
    /// printed) when the estimate on the run's threads is at most this
    /// many seconds, so that the walk finds those plies in the databases
    /// instead of leaving them open. Their results are recorded as proved
    /// with databases of that size. 0: never. Below 7 pieces only (from 7
    /// on, --line-reach builds the slices the lines need), and not with
    /// CHECKERS_EGDB_BUILD=no.
    #[arg(long, value_name = "SECONDS", default_value_t = super::settle::SETTLE_LIMIT_SECONDS)]
    pub settle_limit: u64,
    /// Published trunk lines (default: fortman-trunks.pdn in the data folder).
    #[arg(long, value_name = "FILE")]
    pub trunks: Option<PathBuf>,
    /// Master-game archive (default: games/acf-archive.pdn in the data folder).
    #[arg(long, value_name = "FILE")]
    pub archive: Option<PathBuf>,
}

/// Reads the trunks and the archive; a missing default file is a warning
/// (the lines then come from the engine), a missing or bad explicit file
/// an error.
fn load_sources(args: &RunArgs) -> anyhow::Result<LineSources> {
    line_sources(args.trunks.as_deref(), args.archive.as_deref())
}

/// Everything a ballot's job shares with the others.
struct Shared<'a> {
    store: &'a Store,
    live: &'a LiveResults,
    oracle: &'a dyn Oracle,
    run_id: &'a str,
    settings: ProverSettings,
    manager: bool,
    /// Where df-pn's tables of open positions are kept between attempts.
    checkpoints: Option<&'a std::path::Path>,
    budget: WalkBudget,
    /// How a line missing from the store is built.
    lines: LineMaker<'a>,
    stop: Arc<AtomicBool>,
}

fn end_text(s: &WalkSummary) -> String {
    let end = match s.end {
        WalkEnd::Complete => "complete".to_string(),
        WalkEnd::Stuck { ply } => format!("stuck at ply {ply}"),
        WalkEnd::OutOfTime => "ballot budget spent".to_string(),
        WalkEnd::Interrupted => "interrupted".to_string(),
    };
    match (s.frontier, s.frontier_outcome) {
        (Some(f), Some(o)) => format!("frontier ply {f} ({o}), {end}"),
        _ => format!("no ply proved, {end}"),
    }
}

fn run_ballot(
    ballot: &Ballot,
    sh: &Shared<'_>,
    bars: &crate::progress::Bars,
) -> anyhow::Result<WalkSummary> {
    let name = format!("ballot {:>3}", ballot.number);
    let line = sh.lines.line(sh.store, ballot, sh.oracle)?;
    let plies = (line.len() + 1).saturating_sub(3) as u64;
    let bar = bars.bar(&name, plies);
    let direct = StoreProver {
        oracle: sh.oracle,
        live: sh.live,
        store: sh.store,
        run_id: sh.run_id.to_string(),
        settings: sh.settings,
        checkpoints: sh.checkpoints,
    };
    let prover: Box<dyn PositionProver + '_> = if sh.manager {
        Box::new(ManagedProver {
            inner: direct,
            call_share: 0.05,
            max_tree: 100_000,
        })
    } else {
        Box::new(direct)
    };
    let mut records = StoreRecords {
        store: sh.store,
        ballot: ballot.number,
        run_id: sh.run_id.to_string(),
    };
    let mut done = 0;
    let summary = walk(
        &line,
        ballots::show::FIRST_WALKED_PLY as usize,
        prover.as_ref(),
        &mut records,
        sh.budget,
        &sh.stop,
        &mut |r| {
            done += 1;
            bar.set(done);
            let what = match (r.status, r.outcome) {
                (ballots::tables::JobStatus::Proved, Some(o)) => o.to_string(),
                (_, Some(o)) => format!("{o} only"),
                _ => "open".to_string(),
            };
            bar.message(&format!(
                "ply {} ({} pieces): {what}",
                r.ply,
                line.position(r.ply as usize).piece_count()
            ));
        },
    )
    .map_err(|e| anyhow::anyhow!("ballot {}: {e}", ballot.number))?;
    if summary.end == WalkEnd::Complete {
        bar.finish(&end_text(&summary));
    } else {
        bar.abandon(&end_text(&summary));
    }
    Ok(summary)
}

/// The main lines of `chosen` (built now with the databases one piece
/// smaller than `--egdb-pieces`, and stored, where the store has none),
/// and their positions of at most `--egdb-pieces + reach` pieces:
/// where the walk's searches start, so what decides which slices of the
/// largest size to build ([`Needs::From`]).
fn line_ends(
    lines: &LineWork,
    args: &RunArgs,
    reach: u32,
) -> anyhow::Result<Vec<engine::Position>> {
    let most = args.egdb_pieces + reach;
    let smaller = args.egdb_pieces - 1;
    let lines_with = || {
        eprintln!(
            "checkers: main lines first (databases to {smaller} pieces), then the {}-piece \
             slices that their positions of up to {most} pieces may reach",
            args.egdb_pieces
        );
        crate::oracle::open_egdb(smaller, Needs::All)
    };
    line_positions(lines, lines_with, most)
}

/// What building the main lines of a run takes: the store they go to,
/// the ballots, the trunks and archive, the engine's limits, the threads.
struct LineWork<'a> {
    store: &'a Store,
    chosen: &'a [&'a Ballot],
    /// How a line missing from the store is built.
    lines: LineMaker<'a>,
    pool: &'a rayon::ThreadPool,
}

/// The positions of at most `most` pieces of the main lines of `chosen`,
/// the lines built now (with the databases `oracle` opens, only if one
/// is missing) and stored where the store has none.
fn line_positions(
    work: &LineWork,
    oracle: impl FnOnce() -> anyhow::Result<Arc<dyn Oracle>>,
    most: u32,
) -> anyhow::Result<Vec<engine::Position>> {
    let LineWork {
        store,
        chosen,
        lines: maker,
        pool,
    } = *work;
    // Lines already stored need no databases: a rerun opens none here.
    let mut ends = Vec::new();
    let mut missing = Vec::new();
    for b in chosen {
        match ballots::plan::stored_line(store, b.number)
            .with_context(|| format!("ballot {}: main line", b.number))?
        {
            Some(line) => ends.extend(ends_of(&line, most)),
            None => missing.push(*b),
        }
    }
    if missing.is_empty() {
        return Ok(ends);
    }
    let oracle = oracle()?;
    let oracle: &dyn Oracle = oracle.as_ref();
    let lines: Vec<anyhow::Result<Vec<engine::Position>>> = pool.install(|| {
        missing
            .par_iter()
            .map(|b| {
                let line = maker.line(store, b, oracle)?;
                Ok(ends_of(&line, most))
            })
            .collect()
    });
    for l in lines {
        ends.extend(l?);
    }
    Ok(ends)
}

/// The databases for a walk that settles the lines' positions of one
/// piece more than `whole` (the run's databases, every slice): those
/// positions' slices built first ([`super::settle`]) when the estimate
/// is within `--settle-limit`, with the piece count the walk's results
/// are then proved with; `None` when nothing is settled (nothing to
/// settle, a build too long, `--settle-limit 0`, or builds turned off).
/// The lines are built first, with `whole`.
fn settled(
    lines: &LineWork,
    args: &RunArgs,
    whole: &Arc<dyn Oracle>,
) -> anyhow::Result<Option<(Arc<dyn Oracle>, u32)>> {
    if args.settle_limit == 0 || args.egdb_pieces < 2 {
        return Ok(None);
    }
    // Without builds (a cluster's database folder prepared by its own
    // jobs) nothing is settled, and the lines are not all built before
    // the first walk starts.
    if !crate::oracle::build_missing()? {
        eprintln!(
            "checkers: the lines' positions of {} pieces are not settled: CHECKERS_EGDB_BUILD=no",
            args.egdb_pieces + 1
        );
        return Ok(None);
    }
    let pieces = args.egdb_pieces + 1;
    let positions = line_positions(lines, || Ok(Arc::clone(whole)), pieces)?;
    let Some(plan) = super::settle::plan(&positions, args.egdb_pieces)? else {
        return Ok(None);
    };
    // The builds run on every core, as `egdb build` does.
    let threads = rayon::current_num_threads();
    let what = plan.describe(threads);
    if plan.seconds(threads) > args.settle_limit as f64 {
        eprintln!(
            "checkers: not settled: {what}, more than --settle-limit {} s",
            args.settle_limit
        );
        return Ok(None);
    }
    eprintln!("checkers: settling {what}");
    let settled = crate::oracle::open_egdb(pieces, Needs::From(&plan.positions))?;
    Ok(Some((settled, pieces)))
}

/// The positions of `line` of at most `most` pieces.
fn ends_of(line: &ballots::line::MainLine, most: u32) -> Vec<engine::Position> {
    (0..=line.len())
        .map(|ply| line.position(ply))
        .filter(|p| p.piece_count() <= most)
        .collect()
}

/// Runs `checkers ballots run`.
pub fn run(args: RunArgs) -> anyhow::Result<()> {
    let budget = WalkBudget {
        ballot: crate::limits::duration(args.budget),
        position: crate::limits::duration(args.position_budget),
    };
    let threads = args
        .threads
        .unwrap_or_else(rayon::current_num_threads)
        .max(1);
    crate::limits::fits_memory(
        &format!(
            "--table-entries {} on {threads} threads",
            args.table_entries
        ),
        (args.table_entries as u128 * threads as u128)
            .checked_mul(crate::limits::TABLE_ENTRY_BYTES as u128),
    )?;
    let stop = crate::interrupt::stop_flag()?;
    let deck = args.which.deck()?;
    let chosen = args.which.choose(&deck)?;
    let path = args.store.path();
    let store = Store::open(&path)?;
    let limits = line_limits(args.egdb_pieces, args.line.line_depth);
    let repair = args.line.repair();
    let results = RepairResults::new(&store);
    let sources = load_sources(&args)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("starting the worker threads")?;
    let reach = args
        .line_reach
        .or((args.egdb_pieces >= REACH_BUILD_FROM).then_some(LINE_REACH));
    let maker = LineMaker {
        sources: &sources,
        limits: &limits,
        repair,
        results: &results,
        egdb_pieces: args.egdb_pieces,
    };
    let lines = LineWork {
        store: &store,
        chosen: &chosen,
        lines: maker,
        pool: &pool,
    };
    // The databases the walk probes, and their size as its results record it.
    let (oracle, proved_with) = if let (Some(reach), 3..) = (reach, args.egdb_pieces) {
        let ends = line_ends(&lines, &args, reach)?;
        (
            crate::oracle::open_egdb(args.egdb_pieces, Needs::From(&ends))?,
            args.egdb_pieces,
        )
    } else {
        let whole = crate::oracle::open_egdb(args.egdb_pieces, Needs::All)?;
        match settled(&lines, &args, &whole)? {
            Some((settled, pieces)) => (settled, pieces),
            None => (whole, args.egdb_pieces),
        }
    };
    let command: Vec<String> = std::env::args().collect();
    let run_id = store.begin_run(&command.join(" "))?;
    let live = LiveResults::load(&store)?;
    let clock = if args.wall_clock { "wall" } else { "CPU" };
    eprintln!(
        "checkers: {} ballot(s), {threads} thread(s), {} {clock}-s per ballot, {} {clock}-s per \
         position, databases to {}, store {} ({} results), run {run_id}",
        chosen.len(),
        args.budget,
        args.position_budget,
        if proved_with > args.egdb_pieces {
            format!(
                "{} pieces and the slices of {proved_with} that the lines reach",
                args.egdb_pieces
            )
        } else {
            format!("{} pieces", args.egdb_pieces)
        },
        path.display(),
        live.len()
    );
    let tables_dir = {
        let mut name = path.clone().into_os_string();
        name.push(".dfpn");
        PathBuf::from(name)
    };
    let checkpoints = if args.no_carry_over {
        None
    } else {
        std::fs::create_dir_all(&tables_dir)
            .with_context(|| format!("creating {}", tables_dir.display()))?;
        Some(tables_dir.as_path())
    };
    let shared = Shared {
        store: &store,
        live: &live,
        oracle: oracle.as_ref(),
        run_id: &run_id,
        settings: ProverSettings {
            solver: args.solver.kind(),
            table_entries: args.table_entries,
            egdb_pieces: proved_with,
            clock: if args.wall_clock {
                Clock::Wall
            } else {
                Clock::Cpu
            },
            trust: args.trust_loops.trust(),
            carry_over_bytes: args.carry_over_limit << 20,
            ..ProverSettings::default()
        },
        manager: args.manager,
        checkpoints,
        budget,
        lines: maker,
        stop: Arc::clone(&stop),
    };
    let bars = crate::progress::Bars::new();
    let overall = bars.bar("ballots", chosen.len() as u64);
    let failures: Vec<String> = pool.install(|| {
        chosen
            .par_iter()
            .filter_map(|b| {
                if stop.load(Ordering::Relaxed) {
                    return None;
                }
                let r = run_ballot(b, &shared, &bars);
                overall.inc(1);
                r.err().map(|e| format!("{e:#}"))
            })
            .collect()
    });
    overall.finish("");
    let interrupted = stop.load(Ordering::Relaxed);
    if !interrupted {
        store.finish_run(&run_id)?;
    }
    let mut rows = report::status(&store, &chosen)?;
    // What to run next goes on with this run's databases, whatever size
    // the line's earlier results were proved with.
    for r in &mut rows {
        r.egdb_pieces = Some(args.egdb_pieces);
    }
    let mut text = crate::present::ballot_status::to_text(
        &rows,
        std::io::IsTerminal::is_terminal(&std::io::stdout()),
    );
    let next =
        crate::present::ballot_status::next_text(&rows, &super::pasteable(&path), args.egdb_pieces);
    if !next.is_empty() {
        text += "\n";
        text += &next;
    }
    crate::cli::emit(&text)?;
    for f in &failures {
        eprintln!("checkers: {f}");
    }
    if interrupted {
        anyhow::bail!(
            "interrupted: what was proved is stored in {}; run the same command again to resume",
            path.display()
        );
    }
    if !failures.is_empty() {
        anyhow::bail!("{} ballot(s) failed", failures.len());
    }
    Ok(())
}
