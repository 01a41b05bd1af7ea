//! `egdb build` and `egdb slices`.

use super::{human_bytes, parse_fens, parse_slice, thread_pool, DirArg};
use anyhow::Context;
use engine::egdb::build::{build_one, ensure_slice, same_size_closure};
use engine::egdb::index::{TableIndex, MAX_PIECES};
use engine::egdb::reach::reachable_slices;
use engine::egdb::slice::SliceKey;
use engine::egdb::{ensure, ensure_reachable};
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub(super) struct BuildArgs {
    /// Build every slice with up to this many pieces (2 to 8).
    #[arg(long, required_unless_present = "slice", value_parser = crate::limits::slice_pieces)]
    pub(super) pieces: Option<u32>,
    #[command(flatten)]
    pub(super) dir: DirArg,
    /// Worker threads (default: all cores; at most 1024).
    #[arg(long, value_parser = crate::limits::threads)]
    pub(super) threads: Option<usize>,
    /// Build only this slice (e.g. 2m1k@5-1m0k@3); every slice it depends
    /// on must be present (for cluster array jobs).
    #[arg(long, value_parser = parse_slice)]
    pub(super) slice: Option<SliceKey>,
    /// With --slice: first build whatever it needs that is missing (every
    /// slice of fewer pieces, and the slices of its size it reads).
    #[arg(long, requires = "slice")]
    pub(super) with_deps: bool,
    /// Of the slices of exactly --pieces pieces, build only those a game
    /// from this position may enter (and those they read); every slice of
    /// fewer pieces is built. Repeatable. Use the result with
    /// CHECKERS_EGDB_BUILD=no, so that a command does not build the rest.
    #[arg(long = "for", value_name = "FEN", conflicts_with = "slice")]
    pub(super) for_fens: Vec<String>,
    /// Hold a slice's tables in memory only up to MIB mebibytes (default:
    /// three quarters of what this process may use: the machine's memory,
    /// or its control group's limit, as a Slurm job's memory request
    /// sets). A slice whose build needs more (`egdb slices` gives each
    /// one's memory) is built out of core: its tables go in scratch files
    /// in the database folder (removed at once; the space is freed when
    /// the build ends or is killed), which the system pages to disk. 0
    /// puts every slice out of core.
    #[arg(long, value_name = "MIB", value_parser = crate::limits::whole::<u64>(0, 1 << 40, "MiB"))]
    pub(super) memory: Option<u64>,
    /// Where a build out of core puts its scratch files (default: the
    /// database folder); on a cluster, a disk of the node's own rather
    /// than the shared folder. It must exist.
    #[arg(long, value_name = "DIR")]
    pub(super) scratch: Option<PathBuf>,
    /// The retrograde solver: `reference` (a state byte a position) or
    /// `bitbase` (32 positions to a word, docs/egdb-build.txt; a slice
    /// whose planes exceed --memory is built by the reference, out of
    /// core). Both write the same files. Default: CHECKERS_EGDB_BUILDER,
    /// else bitbase for slices of up to 6 pieces and reference above.
    #[arg(long, value_enum)]
    pub(super) builder: Option<BuilderArg>,
}

/// `egdb build --builder`'s values.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub(super) enum BuilderArg {
    /// The reference builder.
    Reference,
    /// The bitbase builder.
    Bitbase,
}

impl From<BuilderArg> for engine::egdb::Builder {
    fn from(b: BuilderArg) -> Self {
        match b {
            BuilderArg::Reference => engine::egdb::Builder::Reference,
            BuilderArg::Bitbase => engine::egdb::Builder::Bitbase,
        }
    }
}

#[derive(clap::Args)]
pub(super) struct SlicesArgs {
    /// Piece count (2 to 8).
    #[arg(long, value_parser = crate::limits::slice_pieces)]
    pub(super) pieces: u32,
    /// Only the largest K slices.
    #[arg(long)]
    pub(super) largest: Option<usize>,
    /// Only the slices a game from this position may enter (repeatable).
    #[arg(long = "for", value_name = "FEN")]
    pub(super) for_fens: Vec<String>,
    /// One JSON object per slice and line, in build order (what a slice
    /// reads comes before it): `slice`, `positions`, `reads` (the slices
    /// of its size its build reads directly; every slice of fewer pieces
    /// is read too), `needs` and `with_needs` as in the table, and
    /// `build_bytes` (the table's memory, in bytes). For
    /// scheduling builds in dependency layers (scripts/slurm-egdb.sh).
    #[arg(long)]
    pub(super) json: bool,
}

pub(super) fn build(a: BuildArgs) -> anyhow::Result<()> {
    let dir = a.dir.get();
    let pool = thread_pool(a.threads)?;
    let progress = crate::progress::BarProgress::new();
    if let Some(dir) = a.scratch.as_deref().filter(|d| !d.is_dir()) {
        anyhow::bail!("--scratch {}: not a folder", dir.display());
    }
    let memory = crate::limits::build_memory_limit(a.memory, a.scratch.as_deref());
    let memory = &match a.builder {
        Some(b) => memory.with_builder(b.into()),
        None => memory,
    };
    let t = Instant::now();
    pool.install(|| -> anyhow::Result<()> {
        if let Some(s) = a.slice {
            std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
            if a.with_deps {
                ensure_slice(&dir, s, &progress, memory)?;
            } else {
                build_one(&dir, s, &progress, memory)?;
            }
            eprintln!(
                "{}: {} built after {:.1} s",
                dir.display(),
                s,
                t.elapsed().as_secs_f64()
            );
        } else if !a.for_fens.is_empty() {
            let n = a.pieces.expect("clap requires --pieces without --slice");
            anyhow::ensure!(
                (2..=MAX_PIECES).contains(&n),
                "--pieces must be 2 to {MAX_PIECES}"
            );
            let positions = parse_fens(&a.for_fens)?;
            let db = ensure_reachable(&dir, &positions, n, &progress, memory)?;
            let reached = reachable_slices(&positions, n);
            eprintln!(
                "{}: all slices up to {} pieces and the {} of {n} pieces reachable from the \
                 given positions present ({} files) after {:.1} s",
                dir.display(),
                n - 1,
                reached.len(),
                db.slices().len(),
                t.elapsed().as_secs_f64()
            );
        } else {
            let n = a.pieces.expect("clap requires --pieces without --slice");
            anyhow::ensure!(n >= 2, "--pieces must be at least 2");
            let db = ensure(&dir, n, &progress, memory)?;
            eprintln!(
                "{}: all slices up to {} pieces present ({} files) after {:.1} s",
                dir.display(),
                db.max_pieces(),
                db.slices().len(),
                t.elapsed().as_secs_f64()
            );
        }
        Ok(())
    })
}

pub(super) fn slices(a: SlicesArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        (2..=MAX_PIECES).contains(&a.pieces),
        "--pieces must be 2 to {MAX_PIECES}"
    );
    let size = |s: &SliceKey| -> u64 {
        s.tables()
            .into_iter()
            .map(|k| TableIndex::new(k).size())
            .sum()
    };
    let listed = if a.for_fens.is_empty() {
        engine::egdb::slice::slices_with(a.pieces)
    } else {
        reachable_slices(&parse_fens(&a.for_fens)?, a.pieces)
    };
    let mut all: Vec<(SliceKey, u64)> = listed.into_iter().map(|s| (s, size(&s))).collect();
    let total: u64 = all.iter().map(|x| x.1).sum();
    if a.json {
        let same_size = engine::egdb::slice::slices_with(a.pieces);
        let order = |s: &SliceKey| same_size.iter().position(|x| x == s);
        all.sort_by_key(|x| std::cmp::Reverse(x.1));
        all.truncate(a.largest.unwrap_or(usize::MAX));
        all.sort_by_key(|x| order(&x.0));
        let mut out = String::new();
        for (s, n) in all {
            let need = same_size_closure(s);
            let reads: Vec<String> = same_size
                .iter()
                .filter(|d| **d != s && s.reads(d))
                .map(|d| d.name())
                .collect();
            let line = serde_json::json!({
                "slice": s.name(),
                "pieces": s.pieces(),
                "positions": n,
                "reads": reads,
                "needs": need.len() - 1,
                "with_needs": need.iter().map(size).sum::<u64>(),
                "build_bytes": engine::egdb::build::build_memory(s),
            });
            out += &format!("{line}\n");
        }
        return crate::cli::emit(&out);
    }
    println!(
        "{} slices of {} pieces, {} positions (Black to move)",
        all.len(),
        a.pieces,
        total
    );
    all.sort_by_key(|x| std::cmp::Reverse(x.1));
    all.truncate(a.largest.unwrap_or(usize::MAX));
    println!(
        "{:<24} {:>14} {:>6} {:>14} {:>10}",
        "slice", "positions", "needs", "with needs", "memory"
    );
    for (s, n) in all {
        let need = same_size_closure(s);
        let with: u64 = need.iter().map(size).sum();
        println!(
            "{:<24} {:>14} {:>6} {:>14} {:>10}",
            s.name(),
            n,
            need.len() - 1,
            with,
            human_bytes(engine::egdb::build::build_memory(s))
        );
    }
    Ok(())
}
