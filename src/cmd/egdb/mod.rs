//! `checkers egdb`: endgame databases: build, probe, stats, verify, bench
//! (one module per subcommand).

mod bench;
mod build;
mod probe;
mod verify;

use anyhow::Context;
use bench::{bench, BenchArgs};
use build::{build, slices, BuildArgs, SlicesArgs};
use clap::Subcommand;
use engine::egdb::slice::SliceKey;
use engine::egdb::{default_dir, EgdbError};
use engine::notation::fen::parse_fen;
use engine::Position;
use probe::{probe, stats, ProbeArgs, StatsArgs};
use std::path::PathBuf;
use verify::{verify, VerifyArgs};

/// Endgame databases: the exact value of every position with few pieces.
///
/// Databases live in DIR: `--dir`, else `$CHECKERS_EGDB`, else
/// `$HOME/.cache/checkers/egdb`. One file per slice (material and the rank
/// of each side's leading man); format in docs/egdb-format.txt.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build every missing slice up to N pieces (resumable: finished
    /// slices are kept, an interrupted one is rebuilt).
    Build(BuildArgs),
    /// Print the value of a position and where it came from.
    Probe(ProbeArgs),
    /// Positions, wins, draws, losses and bytes per slice and piece count.
    Stats(StatsArgs),
    /// Check every file's header and checksum; with --full, re-derive every
    /// stored value from its successors. Exits 1 on any problem.
    Verify(VerifyArgs),
    /// Measure probe speed on random positions without a capture.
    Bench(BenchArgs),
    /// List the slices of a piece count (built or not): positions, the
    /// slices of the same size a build of each needs, and the memory a
    /// build of each allocates.
    Slices(SlicesArgs),
}

/// Where the databases are.
#[derive(clap::Args)]
struct DirArg {
    /// Database folder (default: $CHECKERS_EGDB, else
    /// $HOME/.cache/checkers/egdb).
    #[arg(long)]
    dir: Option<PathBuf>,
}

impl DirArg {
    fn get(&self) -> PathBuf {
        self.dir.clone().unwrap_or_else(default_dir)
    }
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        Command::Build(a) => build(a),
        Command::Probe(a) => probe(a),
        Command::Stats(a) => stats(a),
        Command::Verify(a) => verify(a),
        Command::Bench(a) => bench(a),
        Command::Slices(a) => slices(a),
    }
}

pub(super) fn thread_pool(threads: Option<usize>) -> anyhow::Result<rayon::ThreadPool> {
    crate::cli::thread_pool(threads)
}

/// `bytes` in MB or GB, one decimal.
pub(super) fn human_bytes(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{:.1} GB", bytes as f64 / f64::from(1u32 << 30))
    } else {
        format!("{:.1} MB", bytes as f64 / f64::from(1u32 << 20))
    }
}

/// The positions of `fens`; a bad one is an error naming it.
pub(super) fn parse_fens(fens: &[String]) -> anyhow::Result<Vec<Position>> {
    fens.iter()
        .map(|f| parse_fen(f).with_context(|| format!("bad FEN {f:?}")))
        .collect()
}

/// A slice name on the command line (`--slice`).
pub(super) fn parse_slice(name: &str) -> Result<SliceKey, String> {
    SliceKey::parse(name).ok_or_else(|| EgdbError::BadSliceName(name.to_string()).to_string())
}
