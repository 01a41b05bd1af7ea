//! What several subcommands share on the command line: the proof store
//! option and its check, the solver choices, search limits, worker
//! pools, and writing to standard output. Subcommands never import each
//! other; what two of them need lives here (numbers and their checks in
//! [`crate::limits`], progress bars in [`crate::progress`]).

use anyhow::{bail, Context};
use engine::search::Limits;
use proofdb::Store;
use solver::solve::SolverKind;
use solver::RepetitionTrust;
use std::io::Write;
use std::path::PathBuf;

/// Where the store is: `--store FILE`, else `$CHECKERS_STORE`, else
/// `proofs.sqlite` in the current directory.
#[derive(clap::Args, Clone, Debug)]
pub struct StoreArg {
    /// Proof store file (default: $CHECKERS_STORE, else ./proofs.sqlite).
    #[arg(long, value_name = "FILE")]
    pub store: Option<PathBuf>,
    #[command(flatten)]
    pub book: BookArg,
}

impl StoreArg {
    /// The store file to use.
    pub fn path(&self) -> PathBuf {
        store_path(self.store.clone())
    }
}

/// Opens an existing store read-only, with a hint when there is none.
pub fn open_existing(arg: &StoreArg) -> anyhow::Result<Store> {
    Ok(Store::open_readonly(&existing_path(arg)?)?)
}

/// The store file of `arg`, which must exist (an error with a hint when
/// there is none).
pub fn existing_path(arg: &StoreArg) -> anyhow::Result<PathBuf> {
    let path = arg.path();
    if !path.exists() {
        bail!(
            "no proof store at {} (give --store FILE or set CHECKERS_STORE)",
            path.display()
        );
    }
    Ok(path)
}

/// Writes `text` to standard output; a closed pipe (`| head`) is not an
/// error.
pub fn emit(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(e).context("writing standard output")
        }
        _ => Ok(()),
    }
}

/// Resolves the store file: the explicit path, else `$CHECKERS_STORE`,
/// else `proofs.sqlite` in the current directory.
pub fn store_path(explicit: Option<PathBuf>) -> PathBuf {
    explicit
        .or_else(|| {
            std::env::var_os("CHECKERS_STORE")
                .filter(|s| !s.is_empty())
                .map(PathBuf::from)
        })
        .unwrap_or_else(|| PathBuf::from(proofdb::DEFAULT_STORE))
}

/// Runs the store check of `db check` (and `proof verify --store`):
/// prints what it found and fails if anything is wrong.
pub fn check_and_report(s: &Store, proofs: bool) -> anyhow::Result<()> {
    let dbs = if proofs {
        Some(crate::oracle::OraclesBySize::for_store(s)?)
    } else {
        None
    };
    let bar = crate::progress::counter_bar(0, "checking proof trees");
    let report = solver::storecheck::check_store(
        s,
        dbs.as_ref()
            .map(|d| d as &dyn solver::storecheck::OracleBySize),
        |done, total| {
            if bar.length() != Some(total) {
                bar.set_length(total);
            }
            bar.set_position(done);
        },
    );
    bar.finish_and_clear();
    let report = report?;
    let mut o = String::new();
    for p in report.problems.iter().take(50) {
        o += &format!("  {}: {}\n", p.subject, p.detail);
    }
    if report.problems.len() > 50 {
        o += &format!("  ... and {} more\n", report.problems.len() - 50);
    }
    o += &format!(
        "{}: {} results ({} proved), {} proof trees{}; {} problem(s)\n",
        s.path().display(),
        report.results,
        report.proved,
        report.trees,
        if proofs {
            format!(
                ", {} verified again, {} database values probed again",
                report.verified, report.probed
            )
        } else {
            String::new()
        },
        report.problems.len()
    );
    emit(&o)?;
    if !report.ok() {
        bail!(
            "{}: {} problem(s) found (listed above); rows that are not proved are never used",
            s.path().display(),
            report.problems.len()
        );
    }
    Ok(())
}

/// Which solver to run.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum SolverArg {
    /// Pessimistic alpha-beta.
    Ab,
    /// Depth-first proof-number search.
    Dfpn,
    /// Both, cross-checked (a disagreement is an error).
    Both,
    /// Exact retrograde analysis of every position reachable down to the
    /// databases (at most 30 000 000 positions; `solve --retro-positions`
    /// sets another limit).
    Retro,
    /// Retrograde analysis first (under a time limit: at most a third of
    /// it and 250 000 positions per second of it), then both searches,
    /// cross-checked, for what it leaves open.
    All,
}

impl SolverArg {
    /// The solver library's name for the choice.
    pub fn kind(self) -> SolverKind {
        match self {
            SolverArg::Ab => SolverKind::Ab,
            SolverArg::Dfpn => SolverKind::Dfpn,
            SolverArg::Both => SolverKind::Both,
            SolverArg::Retro => SolverKind::Retro,
            SolverArg::All => SolverKind::All,
        }
    }
}

/// When df-pn builds on results held through a repetition.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum TrustArg {
    /// For positions the engine's guess says are level.
    Auto,
    /// Always.
    On,
    /// Never.
    Off,
}

impl TrustArg {
    /// The solver library's name for the choice.
    pub fn trust(self) -> RepetitionTrust {
        match self {
            TrustArg::Auto => RepetitionTrust::Auto,
            TrustArg::On => RepetitionTrust::On,
            TrustArg::Off => RepetitionTrust::Off,
        }
    }
}

/// The limits of one move (`bestmove`, each move of a `match`).
#[derive(clap::Args, Clone, Debug)]
pub struct MoveLimitArgs {
    /// Seconds per move (default 1 when no --depth or --nodes is given;
    /// at most 365 days).
    #[arg(long, value_parser = crate::limits::seconds)]
    pub time: Option<f64>,
    /// Nominal depth in plies (1 to 100).
    #[arg(long, value_parser = crate::limits::depth)]
    pub depth: Option<u32>,
    /// Node budget per move.
    #[arg(long)]
    pub nodes: Option<u64>,
}

impl MoveLimitArgs {
    /// The search limits: these, or one second when none is given.
    pub fn limits(&self) -> anyhow::Result<Limits> {
        search_limits(self.time, self.depth, self.nodes)
    }
}

/// The engine's databases and table (`bestmove`, `hub`).
#[derive(clap::Args, Clone, Debug)]
pub struct EngineArgs {
    /// Endgame databases up to this many pieces (0: none), built on
    /// first use.
    #[arg(long, default_value_t = crate::limits::DEFAULT_EGDB_PIECES, value_parser = crate::limits::egdb_pieces)]
    pub egdb_pieces: u32,
    /// Transposition table size in MiB (at most the machine's memory).
    #[arg(long, default_value_t = 64, value_parser = crate::limits::mebibytes)]
    pub tt_mb: usize,
    /// Play with this proof store (read-only, never written): its proved
    /// positions are exact leaves or bounds of the search, and a proved
    /// root plays a move that keeps its value (a win proof's move at
    /// once). No store is used unless given.
    #[arg(long, value_name = "FILE")]
    pub store: Option<PathBuf>,
    #[command(flatten)]
    pub book: BookArg,
}

/// Turns the command-line limits into search limits.
fn search_limits(
    time: Option<f64>,
    depth: Option<u32>,
    nodes: Option<u64>,
) -> anyhow::Result<Limits> {
    if let Some(t) = time {
        crate::limits::check_seconds(t)
            .map_err(|e| crate::limits::UsageError(format!("--time {t}: {e}")))?;
    }
    if let Some(d) = depth {
        crate::limits::usage((1..=crate::limits::MAX_DEPTH).contains(&d), || {
            format!("--depth {d}: expected 1 to {}", crate::limits::MAX_DEPTH)
        })?;
    }
    let time = match (time, depth, nodes) {
        (None, None, None) => Some(1.0),
        (t, _, _) => t,
    };
    Ok(Limits {
        depth,
        time: time.map(crate::limits::duration),
        nodes,
        soft_time: None,
    })
}

/// A rayon pool with `threads` workers (all cores when `None`).
pub fn thread_pool(threads: Option<usize>) -> anyhow::Result<rayon::ThreadPool> {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        // The options are checked by `crate::limits::threads`; this is
        // for the callers that compute a count.
        crate::limits::usage((1..=crate::limits::MAX_THREADS).contains(&n), || {
            format!(
                "--threads {n}: expected 1 to {}",
                crate::limits::MAX_THREADS
            )
        })?;
        b = b.num_threads(n);
    }
    Ok(b.build()?)
}

/// The book an engine command plays from: `--book FILE`, else
/// `$CHECKERS_BOOK`, else `$HOME/.cache/checkers/book.tsv` when present;
/// none with `--no-book`.
#[derive(clap::Args, Clone, Debug)]
pub struct BookArg {
    /// Opening book to play from (default: $CHECKERS_BOOK, else
    /// $HOME/.cache/checkers/book.tsv when it exists; `checkers book
    /// build` writes one). A position in the book plays a move that
    /// keeps its proved value.
    #[arg(long, value_name = "BOOK", conflicts_with = "no_book")]
    pub book: Option<PathBuf>,
    /// Play without an opening book.
    #[arg(long)]
    pub no_book: bool,
}

impl BookArg {
    /// The book to use, read; `None` without one. A book given (by the
    /// option or the environment) must exist; the default path is used
    /// only when it does.
    pub fn open(&self) -> anyhow::Result<Option<engine::play::book::Book>> {
        if self.no_book {
            return Ok(None);
        }
        let given = self.book.clone().or_else(|| {
            std::env::var_os("CHECKERS_BOOK")
                .filter(|s| !s.is_empty())
                .map(PathBuf::from)
        });
        let path = match given {
            Some(p) => p,
            None => match default_book() {
                Some(p) if p.exists() => p,
                _ => return Ok(None),
            },
        };
        Ok(Some(engine::play::book::Book::read(&path)?))
    }
}

/// `$HOME/.cache/checkers/book.tsv`.
fn default_book() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join(".cache/checkers/book.tsv"))
}
