//! `checkers db`: the proof store: stats, export, merge, check, backup,
//! bench.
//!
//! The store file is `--store FILE`, else `$CHECKERS_STORE`, else
//! `proofs.sqlite` in the current directory.

use crate::cli::{check_and_report, emit, open_existing, StoreArg};
use anyhow::{bail, Context};
use ballots::tables::merge::{merge_tables, TablesMerged};
use ballots::tables::stats::table_stats;
use engine::notation::fen::to_fen;
use engine::{Color, Position};
use proofdb::codec::iso8601;
use proofdb::{
    merge_shard, LeafSource, MergeReport, Outcome, ProofEntry, ProofTree, Provenance, Question,
    ResultCache, ResultRecord, ResultSource, Store, StoreError, Writer, WriterOptions,
};
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

/// The proof store: stats, export, merge, check, bench.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: DbCommand,
}

#[derive(clap::Subcommand)]
enum DbCommand {
    /// Count results by outcome, piece count and solver; trees; ballots.
    Stats {
        #[command(flatten)]
        store: StoreArg,
        /// One JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Write every result: one JSON object per line, or one PDN game each.
    Export {
        #[command(flatten)]
        store: StoreArg,
        /// Output format.
        #[arg(long, value_enum, default_value = "jsonl")]
        format: ExportFormat,
        /// Output file (default: standard output).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Fold shard stores into the store, one at a time, intersecting
    /// bounds. A result that contradicts the store is refused and listed
    /// (FEN, both outcomes); nothing is lost. Exits non-zero if any result
    /// was refused or any shard could not be read.
    Merge {
        /// Shard store files.
        #[arg(required = true, value_name = "SHARD")]
        shards: Vec<PathBuf>,
        #[command(flatten)]
        store: StoreArg,
    },
    /// Check the store: SQLite's full integrity check, every result row's
    /// checksum and backing (a proof tree or a database value), every proof
    /// tree's checksums. Rows that are not proved are listed (they are
    /// never used). Exits non-zero if anything is wrong.
    Check {
        #[command(flatten)]
        store: StoreArg,
        /// Also verify every proof tree again from the rules and the
        /// endgame databases of the size it recorded (built if missing,
        /// unless CHECKERS_EGDB_BUILD=no), and probe every database value
        /// again.
        #[arg(long)]
        proofs: bool,
    },
    /// Write a consistent copy of the store, complete in one file, with
    /// SQLite's online backup: safe while other processes write it.
    /// DEST is replaced whole (a temporary file renamed over it).
    Backup {
        /// The copy to write (a new path or a regular file).
        #[arg(value_name = "DEST")]
        dest: PathBuf,
        #[command(flatten)]
        store: StoreArg,
    },
    /// Bring an existing store written by an older version to this
    /// program's schema (what any command that writes it does first), so
    /// that the read-only commands (stats, check, status, serve) can read
    /// it. Nothing stored is lost; a store already current is left alone.
    Migrate {
        #[command(flatten)]
        store: StoreArg,
    },
    /// Measure writer, lookup and merge speed on synthetic results in a
    /// scratch directory.
    Bench {
        /// Results to write (at most 1048576).
        #[arg(long, default_value_t = 100_000)]
        results: u64,
        /// Scratch directory (default: the system temp dir); its stores are
        /// deleted afterwards.
        #[arg(long)]
        dir: Option<PathBuf>,
    },
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum ExportFormat {
    /// One JSON object per line.
    Jsonl,
    /// One PDN game per result (FEN tag, result in a comment).
    Pdn,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        DbCommand::Stats { store, json } => stats(&store, json),
        DbCommand::Export { store, format, out } => export(&store, format, out),
        DbCommand::Merge { shards, store } => merge(&store, &shards),
        DbCommand::Check { store, proofs } => check(&store, proofs),
        DbCommand::Backup { dest, store } => backup(&store, &dest),
        DbCommand::Migrate { store } => migrate(&store),
        DbCommand::Bench { results, dir } => bench(results, dir),
    }
}

/// `db migrate`: opens the existing store read-write, which migrates it,
/// and brings its ballot tables (if it has them) to their version.
fn migrate(store: &StoreArg) -> anyhow::Result<()> {
    let s = Store::open(&crate::cli::existing_path(store)?)?;
    let tables = match ballots::tables::migrate(&s)? {
        Some(v) => format!(", ballot tables version {v}"),
        None => String::new(),
    };
    emit(&format!(
        "{}: schema version {}{tables}\n",
        s.path().display(),
        s.stats()?.schema_version
    ))
}

/// `db backup`: the copy, its result count read from the copy itself.
/// SIGTERM or SIGINT meanwhile removes the copy's temporary files, says
/// so and exits with 128 + the signal's number.
fn backup(store: &StoreArg, dest: &std::path::Path) -> anyhow::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    let signals_handle = signals.handle();
    let watched = dest.to_path_buf();
    let watcher = std::thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            let removed = proofdb::backup::remove_own_temporaries(&watched);
            let name = if sig == SIGTERM { "SIGTERM" } else { "SIGINT" };
            eprintln!(
                "checkers: interrupted by {name}: the backup to {} was abandoned, \
                 its {removed} temporary file(s) removed",
                watched.display()
            );
            std::process::exit(128 + sig);
        }
    });
    let copied = (|| -> anyhow::Result<(PathBuf, u64)> {
        let s = open_existing(store)?;
        let n = s.backup_to(dest)?;
        Ok((s.path().to_path_buf(), n))
    })();
    signals_handle.close();
    let _ = watcher.join();
    let (from, n) = copied?;
    emit(&format!(
        "{}: copied to {} ({n} results)\n",
        from.display(),
        dest.display()
    ))
}

fn check(store: &StoreArg, proofs: bool) -> anyhow::Result<()> {
    let s = open_existing(store)?;
    s.integrity_check()?;
    emit(&format!("{}: integrity ok\n", s.path().display()))?;
    check_and_report(&s, proofs)
}

fn stats(store: &StoreArg, json: bool) -> anyhow::Result<()> {
    let s = open_existing(store)?;
    let st = s.stats()?;
    let bt = table_stats(&s)?;
    if json {
        let v = serde_json::json!({
            "store": s.path().display().to_string(),
            "schema_version": st.schema_version,
            "results": st.results,
            "unproved": st.unproved,
            "by_outcome": st.by_outcome,
            "by_pieces": st.by_pieces.iter().map(|(k, v)| (k.to_string(), *v)).collect::<std::collections::BTreeMap<_, _>>(),
            "by_solver": st.by_solver,
            "trees": st.trees,
            "tree_nodes": st.tree_nodes,
            "ballots": bt.ballots,
            "main_lines": bt.main_lines,
            "job_records": bt.job_records,
            "jobs_by_status": bt.jobs_by_status,
            "runs": st.runs,
        });
        return emit(&format!("{v}\n"));
    }
    let mut o = String::new();
    o += &format!(
        "store        {} (schema {})\n",
        s.path().display(),
        st.schema_version
    );
    o += &format!("results      {}\n", st.results);
    if st.unproved > 0 {
        o += &format!(
            "  not proved {:>12} (never used; `checkers db check` lists them)\n",
            st.unproved
        );
    }
    for (k, n) in &st.by_outcome {
        o += &format!("  {k:<10} {n:>12}\n");
    }
    o += "by pieces\n";
    for (k, n) in &st.by_pieces {
        o += &format!("  {k:<10} {n:>12}\n");
    }
    o += "by solver\n";
    for (k, n) in &st.by_solver {
        o += &format!("  {k:<10} {n:>12}\n");
    }
    o += &format!("trees        {} ({} positions)\n", st.trees, st.tree_nodes);
    o += &format!(
        "ballots      {} ({} with a main line)\n",
        bt.ballots, bt.main_lines
    );
    o += &format!("job records  {}\n", bt.job_records);
    for (k, n) in &bt.jobs_by_status {
        o += &format!("  {k:<10} {n:>12}\n");
    }
    o += &format!("runs         {}\n", st.runs);
    emit(&o)
}

/// Says in words what an outcome means for the side to move.
fn outcome_words(pos: &Position, o: Outcome) -> String {
    let side = pos.side_to_move().name();
    match o {
        Outcome::Exact(engine::Value::Win) => format!("{side} to move wins"),
        Outcome::Exact(engine::Value::Loss) => format!("{side} to move loses"),
        Outcome::Exact(engine::Value::Draw) => "draw".to_string(),
        Outcome::AtLeastDraw => format!("{side} to move at least draws"),
        Outcome::AtMostDraw => format!("{side} to move at most draws"),
    }
}

fn export_jsonl(r: &ResultRecord) -> String {
    let position = proofdb::json::Valued::new(&r.position, Some(r.outcome));
    serde_json::json!({
        "fen": position.fen,
        "side_to_move": position.side_to_move,
        "value": position.value,
        "label": position.label,
        "pieces": r.position.piece_count(),
        "solver": r.provenance.solver,
        "nodes": r.provenance.nodes,
        "millis": r.provenance.millis,
        "egdb_pieces": r.provenance.egdb_pieces,
        "proof_size": r.proof_size,
        "proved_at": iso8601(r.proved_at),
        "run_id": r.provenance.run_id,
    })
    .to_string()
}

fn export_pdn(r: &ResultRecord) -> String {
    let p = &r.provenance;
    format!(
        "[Event \"proof store result\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n[GameType \"21\"]\n\
         [Result \"*\"]\n{{{words} ({outcome}); {pieces} pieces; proved by {solver}, {nodes} nodes, \
         {millis} ms, egdb {egdb} pieces, proof size {size}, {date}, run {run}}} *\n\n",
        fen = to_fen(&r.position),
        words = outcome_words(&r.position, r.outcome),
        outcome = r.outcome.name(),
        pieces = r.position.piece_count(),
        solver = p.solver.replace('}', ")"),
        nodes = p.nodes,
        millis = p.millis,
        egdb = p.egdb_pieces,
        size = r.proof_size,
        date = iso8601(r.proved_at),
        run = if p.run_id.is_empty() { "-" } else { &p.run_id }.replace('}', ")"),
    )
}

fn export(store: &StoreArg, format: ExportFormat, out: Option<PathBuf>) -> anyhow::Result<()> {
    let s = open_existing(store)?;
    let sink: Box<dyn Write> = match &out {
        Some(p) => Box::new(
            std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        ),
        None => Box::new(std::io::stdout().lock()),
    };
    let mut w = std::io::BufWriter::new(sink);
    #[derive(Debug)]
    enum E {
        Store(StoreError),
        Io(std::io::Error),
    }
    impl From<StoreError> for E {
        fn from(e: StoreError) -> E {
            E::Store(e)
        }
    }
    let res = s.for_each_result(|r| -> Result<(), E> {
        let text = match format {
            ExportFormat::Jsonl => export_jsonl(&r) + "\n",
            ExportFormat::Pdn => export_pdn(&r),
        };
        w.write_all(text.as_bytes()).map_err(E::Io)
    });
    let res = res.and_then(|_| w.flush().map_err(E::Io));
    match res {
        Ok(()) => Ok(()),
        Err(E::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(E::Io(e)) => Err(e).context(match &out {
            Some(p) => format!("writing {}", p.display()),
            None => "writing standard output".into(),
        }),
        Err(E::Store(e)) => Err(e.into()),
    }
}

/// Folds `shard` into `store`: its facts ([`merge_shard`]), then its
/// ballot tables.
fn merge_one(
    store: &Store,
    shard: &std::path::Path,
    progress: impl FnMut(u64),
) -> anyhow::Result<(MergeReport, TablesMerged)> {
    let src = proofdb::merge::open_shard_for(store, shard)?;
    let facts = proofdb::merge::merge_from(store, &src, progress)?;
    let tables = merge_tables(store, &src)?;
    Ok((facts, tables))
}

fn print_merge(shard: &std::path::Path, r: &MergeReport, t: &TablesMerged) {
    println!(
        "{}: {} results: {} new, {} tightened, {} unchanged, {} refused; trees {} copied, {} present; \
         main lines {} copied; job records {} copied; runs {} copied",
        shard.display(),
        r.seen,
        r.new,
        r.tightened,
        r.unchanged,
        r.refused.len(),
        r.trees_copied,
        r.trees_present,
        t.lines_copied,
        t.job_records_copied,
        r.runs_copied
    );
    for x in &r.refused {
        println!(
            "  refused {}: store has {}, shard says {}",
            to_fen(&x.position),
            x.stored,
            x.incoming
        );
    }
    for (p, why) in &r.unproved {
        println!("  refused {}: not proved in the shard: {why}", to_fen(p));
    }
    for (id, why) in &r.trees_damaged {
        println!("  skipped the shard's tree {id}: {why}");
    }
    if r.trees_contradicting > 0 {
        println!(
            "  {} of the shard's trees not copied: they contradict the store",
            r.trees_contradicting
        );
    }
    for b in &t.lines_differing {
        println!("  ballot {b}: shard's main line differs from the store's; the store's is kept");
    }
}

fn merge(store: &StoreArg, shards: &[PathBuf]) -> anyhow::Result<()> {
    let s = Store::open(store.path())?;
    let mut merged: Vec<MergeReport> = Vec::new();
    let mut failed = Vec::new();
    let start = Instant::now();
    for shard in shards {
        let bar = crate::progress::counter_bar(0, &format!("merging {}", shard.display()));
        match merge_one(&s, shard, |n| bar.set_position(n)) {
            Ok((r, t)) => {
                bar.finish_and_clear();
                print_merge(shard, &r, &t);
                merged.push(r);
            }
            Err(e) => {
                bar.finish_and_clear();
                eprintln!("checkers: {e}");
                failed.push(shard.display().to_string());
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let sum = |count: fn(&MergeReport) -> u64| merged.iter().map(count).sum::<u64>();
    let seen = sum(|r| r.seen);
    let refused = sum(|r| r.refused.len() as u64);
    let unproved = sum(|r| r.unproved.len() as u64);
    println!(
        "total into {}: {} results, {} new, {} tightened, {} unchanged, {} refused ({:.2} s, {:.0} results/s)",
        s.path().display(),
        seen,
        sum(|r| r.new),
        sum(|r| r.tightened),
        sum(|r| r.unchanged),
        refused,
        secs,
        seen as f64 / secs.max(1e-9)
    );
    if !failed.is_empty() {
        bail!(
            "could not merge {} shard(s): {}",
            failed.len(),
            failed.join(", ")
        );
    }
    if refused > 0 || unproved > 0 {
        bail!(
            "{refused} contradicting result(s) and {unproved} result(s) without a proof refused \
             (listed above); everything else was merged"
        );
    }
    Ok(())
}

/// The `n`th synthetic position (n < 2^20): Black to move without a
/// piece (a loss: no move), seven White men on squares 5-32, the `n`th
/// such set in colex order (C(28, 7) > 2^20), so that a one-node tree, a
/// terminal leaf, is a real proof of it.
fn synthetic(n: u64) -> Position {
    let binomial = |n: u64, k: u64| (0..k).fold(1u64, |c, i| c * (n - i) / (i + 1));
    let (mut rest, mut men) = (n, 0u32);
    for k in (1..=7u64).rev() {
        // The largest square c (from 0) with C(c, k) <= rest.
        let c = (k - 1..28)
            .take_while(|&c| binomial(c, k) <= rest)
            .last()
            .unwrap_or(k - 1);
        rest -= binomial(c, k);
        men |= 1 << (c + 4);
    }
    Position::from_bitboards_unchecked(0, men, 0, Color::Black)
}

/// The proof of a synthetic position's `outcome` (a loss, or at most a
/// draw): its root is a terminal leaf, which `db check --proofs` and the
/// verifier accept.
fn terminal_proof(pos: Position, outcome: Outcome) -> Vec<ProofTree> {
    let question = match outcome {
        Outcome::Exact(_) => Question::Loss,
        _ => Question::AtMostDraw,
    };
    vec![ProofTree {
        root: pos,
        question,
        nodes: vec![(pos, ProofEntry::Leaf(LeafSource::Terminal))],
    }]
}

/// Seconds `count` takes to find the stored positions among the probes
/// (half misses); it must find all `results` of them.
fn timed_hits(results: u64, count: impl FnOnce() -> usize) -> anyhow::Result<f64> {
    let t = Instant::now();
    let hits = count();
    let secs = t.elapsed().as_secs_f64();
    anyhow::ensure!(hits as u64 == results, "found {hits} of {results}");
    Ok(secs)
}

fn bench(results: u64, dir: Option<PathBuf>) -> anyhow::Result<()> {
    use rayon::prelude::*;
    if results == 0 || results > 1 << 20 {
        bail!("--results must be from 1 to 1048576");
    }
    let dir = dir
        .unwrap_or_else(std::env::temp_dir)
        .join(format!("checkers-db-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let outcome = |n: u64| match n % 3 {
        1 => Outcome::AtMostDraw,
        _ => Outcome::Exact(engine::Value::Loss),
    };
    let prov = Provenance {
        solver: "bench".into(),
        nodes: 1,
        millis: 1,
        egdb_pieces: 0,
        run_id: String::new(),
    };
    let result = (|| -> anyhow::Result<()> {
        let path = dir.join("bench.sqlite");
        let t = Instant::now();
        {
            let w = Writer::open(&path, WriterOptions::default())?;
            let h = w.handle();
            // Synthetic results, each with its proof: one node, a terminal
            // leaf (the store keeps a result only with its trees).
            (0..results).into_par_iter().try_for_each_with(h, |h, n| {
                let trees = terminal_proof(synthetic(n), outcome(n));
                h.put_proof(
                    ResultRecord::new(synthetic(n), outcome(n), prov.clone(), 0),
                    trees,
                    "bench",
                )
            })?;
            let r = w.finish()?;
            anyhow::ensure!(r.new == results, "writer stored {} of {results}", r.new);
        }
        let secs = t.elapsed().as_secs_f64();
        println!(
            "writer      {results} results in {secs:.3} s: {:.0} results/s",
            results as f64 / secs
        );
        let store = Store::open(&path)?;
        // Lookups: every stored position, then as many misses (White to move).
        let probes: Vec<Position> = (0..results)
            .map(synthetic)
            .chain((0..results).map(|n| synthetic(n).with_side(Color::White)))
            .collect();
        let secs = timed_hits(results, || {
            probes.iter().filter(|p| store.lookup(p).is_some()).count()
        })?;
        println!(
            "lookup      store, 1 thread: {} lookups (half misses) in {secs:.3} s: {:.0} lookups/s",
            probes.len(),
            probes.len() as f64 / secs
        );
        let threads = rayon::current_num_threads();
        let secs = timed_hits(results, || {
            probes
                .par_iter()
                .filter(|p| store.lookup(p).is_some())
                .count()
        })?;
        println!(
            "lookup      store, {threads} threads: {:.0} lookups/s",
            probes.len() as f64 / secs
        );
        let t = Instant::now();
        let cache = ResultCache::load(&store)?;
        println!(
            "cache load  {} results in {:.3} s",
            cache.len(),
            t.elapsed().as_secs_f64()
        );
        let secs = timed_hits(results, || {
            probes.iter().filter(|p| cache.lookup(p).is_some()).count()
        })?;
        println!(
            "lookup      cache, 1 thread: {:.0} lookups/s",
            probes.len() as f64 / secs
        );
        // Merge: a shard overlapping half of the store, with bounds that
        // tighten (<=draw, then the loss).
        let shard_path = dir.join("shard.sqlite");
        {
            let recs: Vec<ResultRecord> = (results / 2..results + results / 2)
                .map(|n| {
                    let o = if n < results && n % 3 == 1 {
                        Outcome::Exact(engine::Value::Loss)
                    } else {
                        outcome(n)
                    };
                    ResultRecord::new(synthetic(n % (1 << 20)), o, prov.clone(), 0)
                })
                .collect();
            let w = Writer::open(&shard_path, WriterOptions::default())?;
            let h = w.handle();
            for r in recs {
                let trees = terminal_proof(r.position, r.outcome);
                h.put_proof(r, trees, "bench")?;
            }
            w.finish()?;
        }
        let t = Instant::now();
        let r = merge_shard(&store, &shard_path, |_| {})?;
        let secs = t.elapsed().as_secs_f64();
        println!(
            "merge       {} results ({} new, {} tightened, {} unchanged, {} refused) in {secs:.3} s: {:.0} results/s",
            r.seen,
            r.new,
            r.tightened,
            r.unchanged,
            r.refused.len(),
            r.seen as f64 / secs
        );
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `db bench` stores real proofs: the verifier accepts each, and each
    /// proves the outcome stored with it.
    #[test]
    fn the_bench_stores_proved_results() {
        for n in [0, 1, 2, 4095, 12345, (1 << 20) - 1] {
            for outcome in [Outcome::Exact(engine::Value::Loss), Outcome::AtMostDraw] {
                let trees = terminal_proof(synthetic(n), outcome);
                for t in &trees {
                    solver::verify::verify(t, &engine::NoOracle, &proofdb::outcome::NoResults)
                        .unwrap_or_else(|e| panic!("synthetic({n}): {e}"));
                }
                let questions: Vec<Question> = trees.iter().map(|t| t.question).collect();
                assert!(proofdb::trust::trees_prove(&questions, outcome));
            }
        }
    }
}
