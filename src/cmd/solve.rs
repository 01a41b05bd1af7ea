//! `checkers solve`: prove the value of a position, or of every position
//! of a batch file, and write the verified proofs.

use crate::cli::{SolverArg, TrustArg};
use crate::oracle::Needs;
use anyhow::Context;
use engine::notation::fen::{parse_fen, to_fen};
use proofdb::outcome::NoResults;
use proofdb::{LiveResults, Question, Store};
use solver::clock::Clock;
use solver::proofio::{self, StoredProof};
use solver::solve::{solve, CheckpointPlan, SolveOptions, SolveReport, SolverKind};
use solver::{Leaves, Status};
use std::io::{BufRead, IsTerminal};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
use std::time::Instant;

/// What `--question` asks: a question of the side to move, or `None`
/// for the value. (An alias, not a type: the clap derive then takes the
/// parser's value as it is.)
type Asked = Option<Question>;

/// `--question`'s names and what each asks: the one place where the
/// command line's words map onto [`Question`].
fn question_parser() -> impl clap::builder::TypedValueParser<Value = Asked> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new([
        PossibleValue::new("win").help("Does the side to move win?"),
        PossibleValue::new("draw").help("Does the side to move at least draw?"),
        PossibleValue::new("value").help("The value: both questions as needed (a draw needs both)"),
    ])
    .map(|name: String| match name.as_str() {
        "win" => Some(Question::Win),
        "draw" => Some(Question::AtLeastDraw),
        _ => None,
    })
}

/// The time limit of a solve given neither `--time` nor `--nodes`.
pub const DEFAULT_TIME: Duration = Duration::from_secs(60);

/// Arguments of `checkers solve`.
#[derive(clap::Args)]
pub struct Args {
    /// The position (FEN, e.g. `W:WK19,K23:B12,K28`). Omit with --batch.
    #[arg(required_unless_present = "batch")]
    pub fen: Option<String>,
    /// One position per line (the first tab-separated field is the FEN;
    /// blank lines and `#` comments are skipped); one result per line out.
    #[arg(long, conflicts_with = "fen")]
    pub batch: Option<PathBuf>,
    /// The question.
    #[arg(long, value_parser = question_parser(), default_value = "value")]
    pub question: Asked,
    /// The solver (df-pn by default: on the bench positions and the
    /// ballot walks it settles more than alpha-beta in the same time).
    #[arg(long, value_enum, default_value = "dfpn")]
    pub solver: SolverArg,
    /// Node budget per solver and binary question (without it and
    /// without --time: 60 s).
    #[arg(long, conflicts_with = "time")]
    pub nodes: Option<u64>,
    /// Time limit per position, in seconds (at most 365 days) of CPU time
    /// of the solving thread (of wall time with --wall-clock), so that a
    /// busy machine gives the search the same work as an idle one.
    #[arg(long, value_parser = crate::limits::seconds)]
    pub time: Option<f64>,
    /// Count --time (and the times reported) in wall time instead of CPU
    /// time.
    #[arg(long)]
    pub wall_clock: bool,
    /// Endgame databases up to this many pieces (0: none), built on
    /// first use ($CHECKERS_EGDB, else ~/.cache/checkers/egdb).
    #[arg(long, default_value_t = crate::limits::DEFAULT_EGDB_PIECES, value_parser = crate::limits::egdb_pieces)]
    pub egdb_pieces: u32,
    /// Write the verified proofs to this file (format: docs/proof-format.txt).
    #[arg(long)]
    pub proof_out: Option<PathBuf>,
    /// Skip proof extraction and verification (faster; the result is
    /// then the solver's word alone).
    #[arg(long, conflicts_with = "proof_out")]
    pub no_proof: bool,
    /// Largest proof tree to extract.
    #[arg(long, default_value_t = 5_000_000)]
    pub max_proof_nodes: usize,
    /// Table size per solver, in entries. A table takes a power of two
    /// of slots of 36 bytes (df-pn), at most 70% of them full: 302 MB for
    /// the default, 2.4 GB for 40 M entries, 4.8 GB for 80 M (and no
    /// more than the machine's memory).
    #[arg(long, default_value_t = 4_000_000,
          value_parser = crate::limits::held(crate::limits::TABLE_ENTRY_BYTES))]
    pub table_entries: usize,
    /// Most positions the retrograde analysis (--solver retro|all) may
    /// enumerate (about 100 bytes each, within the machine's memory);
    /// past them it only bounds the value.
    #[arg(long, default_value_t = 30_000_000,
          value_parser = crate::limits::held(crate::limits::RETRO_POSITION_BYTES))]
    pub retro_positions: usize,
    /// When df-pn builds on results that rely on a repetition before they
    /// are checked (faster proofs of draws in king endings, slower wins;
    /// the results stay sound: see solver::dfpn): auto (for a position
    /// the engine's guess says is level), on (`--trust-loops` alone), off.
    #[arg(long, value_enum, default_value = "auto", num_args = 0..=1,
          default_missing_value = "on", value_name = "WHEN")]
    pub trust_loops: TrustArg,
    /// Keep df-pn's tables in FILE so that a long search survives being
    /// stopped or killed: written every --checkpoint-every seconds, on
    /// SIGINT and after each question (through a temporary file, so a
    /// kill during a write keeps the previous one), and read back when
    /// the same command runs again (the same position and --egdb-pieces;
    /// another search's file is refused). About 26 bytes per table entry.
    #[arg(long, value_name = "FILE", conflicts_with = "batch")]
    pub checkpoint: Option<PathBuf>,
    /// Seconds between two checkpoint writes during a search.
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = 900.0,
        requires = "checkpoint",
        value_parser = crate::limits::seconds
    )]
    pub checkpoint_every: f64,
    /// Proof store: its results are leaves of the search, and every
    /// settled result is written to it with its verified proof trees.
    #[arg(long, value_name = "FILE", conflicts_with = "no_proof")]
    pub store: Option<PathBuf>,
    /// JSON Lines: one object per position (docs/json.txt).
    #[arg(long)]
    pub json: bool,
}

/// The store of `--store`, with the run's in-memory view of its results.
struct StoreOut {
    store: Store,
    live: LiveResults,
    run_id: String,
}

impl StoreOut {
    fn open(path: &std::path::Path) -> anyhow::Result<StoreOut> {
        let store = Store::open(path)?;
        let command: Vec<String> = std::env::args().collect();
        let run_id = store.begin_run(&command.join(" "))?;
        let live = LiveResults::load(&store)?;
        Ok(StoreOut {
            store,
            live,
            run_id,
        })
    }

    /// Says on stderr when the store holds a row for `pos` that is not
    /// proved (no checksum, changed, or without a proof): it is ignored.
    fn warn_ignored(&self, pos: &engine::Position) -> anyhow::Result<()> {
        if let Some((rec, trust)) = self.store.get_row(pos)? {
            if !trust.is_proved() {
                eprintln!(
                    "{}: its row for {} ({}) is ignored: {trust}",
                    self.store.path().display(),
                    engine::notation::fen::to_fen(pos),
                    rec.outcome
                );
            }
        }
        Ok(())
    }

    /// Writes the settled result of `rep` with its proofs (one transaction).
    fn keep(&self, rep: &SolveReport) -> anyhow::Result<()> {
        let Some(outcome) = rep.outcome else {
            return Ok(());
        };
        let trees: Vec<_> = rep.proofs.iter().map(|p| p.tree.clone()).collect();
        let sink = proofdb::RunSink {
            store: &self.store,
            live: &self.live,
            run_id: &self.run_id,
        };
        sink.keep(&rep.root, outcome, rep.provenance.clone().into(), &trees)?;
        Ok(())
    }
}

/// Runs `checkers solve`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let out = args.store.as_deref().map(StoreOut::open).transpose()?;
    // The first SIGINT/SIGTERM stops the searches as if their budget ran
    // out: what was settled by then is reported, written and stored.
    let stop = crate::interrupt::stop_flag()?;
    // One position: checked before anything is built, and only the
    // largest slices that its games may enter are needed.
    let single = match (&args.batch, args.fen.as_deref()) {
        (None, fen) => {
            let fen = fen.unwrap_or_default();
            Some(parse_fen(fen).with_context(|| format!("bad FEN '{fen}'"))?)
        }
        (Some(_), _) => None,
    };
    if let (Some(o), Some(pos)) = (&out, &single) {
        o.warn_ignored(pos)?;
    }
    let needs = match &single {
        Some(pos) => Needs::From(std::slice::from_ref(pos)),
        None => Needs::All,
    };
    let oracle = crate::oracle::open_egdb(args.egdb_pieces, needs)?;
    let work = Arc::new(AtomicU64::new(0));
    let results: &dyn proofdb::ResultSource = match &out {
        Some(o) => &o.live,
        None => &NoResults,
    };
    let leaves = Leaves::new(oracle.as_ref(), results);
    let opts = SolveOptions {
        solver: args.solver.kind(),
        question: args.question,
        max_nodes: args.nodes.unwrap_or(u64::MAX),
        // Without a limit: DEFAULT_TIME.
        time: match (args.nodes, args.time) {
            (_, Some(t)) => Some(crate::limits::duration(t)),
            (Some(_), None) => None,
            (None, None) => Some(DEFAULT_TIME),
        },
        clock: if args.wall_clock {
            Clock::Wall
        } else {
            Clock::Cpu
        },
        proofs: !args.no_proof,
        max_proof_nodes: args.max_proof_nodes,
        table_entries: args.table_entries,
        egdb_pieces: args.egdb_pieces,
        stop: Some(Arc::clone(&stop)),
        progress: Some(Arc::clone(&work)),
        retro_positions: args.retro_positions,
        trust: args.trust_loops.trust(),
        checkpoint: match &args.checkpoint {
            None => None,
            Some(_) if args.solver.kind() == SolverKind::Ab => {
                anyhow::bail!("--checkpoint keeps df-pn's tables: use it with --solver dfpn")
            }
            Some(path) => Some(CheckpointPlan {
                path: path.clone(),
                every: crate::limits::duration(args.checkpoint_every),
                best_effort: false,
            }),
        },
    };
    if let Some(plan) = opts.checkpoint.as_ref().filter(|p| p.path.exists()) {
        // Reading a large checkpoint takes a while; say why nothing moves.
        eprintln!(
            "solve: reading df-pn's tables back from the checkpoint {} before the search goes on",
            plan.path.display()
        );
    }
    // A batch prints as it goes: on a shared terminal, log lines only.
    let report = WorkReport::start(
        Arc::clone(&work),
        args.batch.is_some() && std::io::stdout().is_terminal(),
    );
    let mut proofs: Vec<StoredProof> = Vec::new();
    if let Some(batch) = &args.batch {
        let file = std::fs::File::open(batch).with_context(|| format!("{}", batch.display()))?;
        let mut bad = 0usize;
        if !args.json {
            println!("# fen\tresult\tbest\tnodes\tms\tproof\truns");
        }
        // The line being solved when a signal came (0: none yet).
        let mut current = 0;
        for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
            let n = i + 1;
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let line = line.with_context(|| format!("{}: line {n}", batch.display()))?;
            let text = line.trim();
            if text.is_empty() || text.starts_with('#') {
                continue;
            }
            let fen = text.split('\t').next().unwrap_or("").trim();
            current = n;
            let result = parse_fen(fen)
                .map_err(anyhow::Error::from)
                .and_then(|p| solve(p, leaves, &opts).map_err(anyhow::Error::from));
            match result {
                Ok(rep) => {
                    print_batch_line(&rep, args.json);
                    collect(&rep, &mut proofs);
                    if let Some(o) = &out {
                        o.keep(&rep)?;
                    }
                }
                Err(e) => {
                    bad += 1;
                    eprintln!("checkers: {}: line {n}: {e:#}", batch.display());
                    if args.json {
                        println!(
                            "{}",
                            serde_json::json!({ "line": n, "input": fen, "error": format!("{e:#}") })
                        );
                    }
                }
            }
        }
        write_proofs(&args, &proofs)?;
        if stop.load(Ordering::Relaxed) {
            anyhow::bail!(
                "interrupted during line {current} of {}: its result is what the searches \
                 settled by then, and the lines after it were not read{}",
                batch.display(),
                stored_note(&out)
            );
        }
        if let Some(o) = &out {
            o.store.finish_run(&o.run_id)?;
        }
        if bad > 0 {
            anyhow::bail!("{bad} bad line(s) in {}", batch.display());
        }
        return Ok(());
    }
    let Some(pos) = single else {
        anyhow::bail!("solve needs a FEN or --batch");
    };
    let rep = solve(pos, leaves, &opts);
    drop(report);
    let rep = rep?;
    if args.json {
        println!("{}", report_json(&rep));
    } else {
        print_report(&rep);
    }
    collect(&rep, &mut proofs);
    let interrupted = stop.load(Ordering::Relaxed);
    if let Some(o) = &out {
        o.keep(&rep)?;
        if !interrupted {
            o.store.finish_run(&o.run_id)?;
        }
        if rep.outcome.is_some() {
            eprintln!("stored in {}", o.store.path().display());
        }
    }
    write_proofs(&args, &proofs)?;
    if interrupted {
        anyhow::bail!(
            "interrupted: the searches stopped early; the result above is what they settled{}",
            stored_note(&out)
        );
    }
    Ok(())
}

/// A running solve's work on stderr, from another thread, until dropped:
/// a status line on a terminal, a log line every 10 s otherwise (so a
/// run shorter than that prints none).
struct WorkReport {
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl WorkReport {
    /// Starts reporting `work` (nodes searched, positions enumerated);
    /// `plain`: log lines even on a terminal.
    fn start(work: Arc<AtomicU64>, plain: bool) -> WorkReport {
        let done = Arc::new(AtomicBool::new(false));
        let seen = Arc::clone(&done);
        let thread = std::thread::spawn(move || {
            let bars = if plain {
                crate::progress::Bars::logging()
            } else {
                crate::progress::Bars::new()
            };
            let line = bars.status("solve");
            let start = Instant::now();
            while !seen.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(200));
                let n = work.load(Ordering::Relaxed) as f64;
                let secs = start.elapsed().as_secs_f64().max(1e-3);
                line.message(&format!(
                    "{:.1} M nodes, {:.2} M nodes/s",
                    n / 1e6,
                    n / secs / 1e6
                ));
            }
            line.clear();
        });
        WorkReport {
            done,
            thread: Some(thread),
        }
    }
}

impl Drop for WorkReport {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Where an interrupted run's results are, for its error message.
fn stored_note(out: &Option<StoreOut>) -> String {
    match out {
        Some(o) => format!(
            " (what was proved is stored in {})",
            o.store.path().display()
        ),
        None => String::new(),
    }
}

fn collect(rep: &SolveReport, out: &mut Vec<StoredProof>) {
    for p in &rep.proofs {
        out.push(StoredProof {
            tree: p.tree.clone(),
            info: format!(
                "solver={} nodes={} millis={} egdb={}",
                p.provenance.solver,
                p.provenance.nodes,
                p.provenance.millis,
                p.provenance.egdb_pieces
            ),
        });
    }
}

fn write_proofs(args: &Args, proofs: &[StoredProof]) -> anyhow::Result<()> {
    if let Some(path) = &args.proof_out {
        if proofs.is_empty() {
            eprintln!("checkers: nothing proved, {} not written", path.display());
            return Ok(());
        }
        proofio::save(path, proofs)?;
        eprintln!("wrote {} proof(s) to {}", proofs.len(), path.display());
    }
    Ok(())
}

fn status_name(s: Status) -> &'static str {
    match s {
        Status::Success => "yes",
        Status::Failure => "no",
        Status::Unknown => "unknown",
    }
}

fn question_text(t: Question) -> &'static str {
    match t.threshold() {
        Question::Win => "wins?",
        _ => "at least draws?",
    }
}

fn outcome_text(rep: &SolveReport) -> String {
    match rep.outcome {
        Some(o) => o.name().to_string(),
        None => "unknown".to_string(),
    }
}

fn print_report(rep: &SolveReport) {
    let side = rep.root.side_to_move();
    println!("position  {}", to_fen(&rep.root));
    println!(
        "result    {} (for {side}, the side to move)",
        outcome_text(rep)
    );
    if let Some(m) = rep.best_move {
        println!("best move {m}");
    }
    for r in &rep.runs {
        if r.solver == solver::Runner::Extract {
            println!(
                "  proof {side} {:<16} not extracted: time ran out after {} positions, {} ms \
                 (raise --time)",
                question_text(r.threshold),
                r.nodes,
                r.millis
            );
            continue;
        }
        println!(
            "  {:<5} {side} {:<16} {:<8} {:>12} nodes {:>9} ms{}",
            r.solver,
            question_text(r.threshold),
            status_name(r.status),
            r.nodes,
            r.millis,
            match r.numbers {
                Some((proof, disproof)) => {
                    format!("  (root: proof number {proof}, disproof number {disproof})")
                }
                None => String::new(),
            }
        );
    }
    println!("nodes     {}", rep.provenance.nodes);
    println!("time      {} ms", rep.provenance.millis);
    if let Some(r) = rep.resumed {
        println!(
            "resumed   from a checkpoint of {} nodes ({} table entries, {} kept apart): \
             the runs above are this run's, the nodes and the proofs' counts include them",
            r.nodes, r.entries, r.looped
        );
    }
    for p in &rep.proofs {
        let v = &p.report;
        println!(
            "proof     {} ({}): {} nodes, {} leaves ({} terminal, {} egdb, {} store), depth {}{}, verified",
            p.tree.question.name(),
            p.tree.question.outcome(),
            v.nodes,
            v.leaves,
            v.terminal,
            v.egdb,
            v.store,
            v.depth,
            if v.has_cycles { ", loops" } else { "" }
        );
    }
}

fn runs_text(rep: &SolveReport) -> String {
    rep.runs
        .iter()
        .map(|r| {
            format!(
                "{}:{}={}/{}n/{}ms",
                r.solver,
                r.threshold.name(),
                status_name(r.status),
                r.nodes,
                r.millis
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn print_batch_line(rep: &SolveReport, json: bool) {
    if json {
        println!("{}", report_json(rep));
        return;
    }
    let best = rep
        .best_move
        .map(|m| m.to_string())
        .unwrap_or_else(|| "-".into());
    let size: usize = rep.proofs.iter().map(|p| p.report.nodes).sum();
    println!(
        "{}\t{}\t{}\t{}\t{}\t{}\t{}",
        to_fen(&rep.root),
        outcome_text(rep),
        best,
        rep.provenance.nodes,
        rep.provenance.millis,
        size,
        runs_text(rep)
    );
}

fn report_json(rep: &SolveReport) -> serde_json::Value {
    let runs: Vec<_> = rep
        .runs
        .iter()
        .map(|r| {
            serde_json::json!({
                "solver": r.solver.name(),
                "question": r.threshold.name(),
                "answer": status_name(r.status),
                "nodes": r.nodes,
                "millis": r.millis,
                "best": r.best.map(|m| m.to_string()),
                "numbers": r.numbers.map(|(proof, disproof)| serde_json::json!({
                    "proof": proof,
                    "disproof": disproof,
                })),
            })
        })
        .collect();
    let proofs: Vec<_> = rep
        .proofs
        .iter()
        .map(|p| {
            serde_json::json!({
                "question": p.tree.question.name(),
                "value": p.tree.question.outcome().name(),
                "label": p.tree.question.outcome().label(),
                "proof_size": p.report.nodes,
                "leaves": p.report.leaves,
                "depth": p.report.depth,
                "loops": p.report.has_cycles,
                "solver": p.provenance.solver,
                "verified": true,
            })
        })
        .collect();
    let position = proofdb::json::Valued::new(&rep.root, rep.outcome);
    serde_json::json!({
        "fen": position.fen,
        "side_to_move": position.side_to_move,
        "value": position.value,
        "label": position.label,
        "best": rep.best_move.map(|m| m.to_string()),
        "nodes": rep.provenance.nodes,
        "millis": rep.provenance.millis,
        "solver": rep.provenance.solver,
        "runs": runs,
        "proofs": proofs,
        "resumed": rep.resumed.map(|r| serde_json::json!({
            "nodes": r.nodes,
            "entries": r.entries,
            "looped": r.looped,
        })),
    })
}
