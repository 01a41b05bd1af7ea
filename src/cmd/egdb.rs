//! `checkers egdb`: endgame databases: build, probe, stats, verify, bench.

use anyhow::Context;
use clap::Subcommand;
use engine::egdb::build::{build_one, ensure_slice, same_size_closure};
use engine::egdb::file::SliceFile;
use engine::egdb::index::{TableIndex, MAX_PIECES};
use engine::egdb::journal::{check_digest, JournalEntry, VerifyJournal};
use engine::egdb::probe::{FolderEntry, Source};
use engine::egdb::reach::reachable_slices;
use engine::egdb::slice::{all_slices, SliceKey};
use engine::egdb::verify::{decode_for_verify, verify_slice};
use engine::egdb::{default_dir, ensure, ensure_reachable, Egdb, EgdbError};
use engine::notation::fen::parse_fen;
use engine::{Oracle, Position};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

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

#[derive(clap::Args)]
struct BuildArgs {
    /// Build every slice with up to this many pieces (2 to 8).
    #[arg(long, required_unless_present = "slice", value_parser = crate::limits::slice_pieces)]
    pieces: Option<u32>,
    #[command(flatten)]
    dir: DirArg,
    /// Worker threads (default: all cores; at most 1024).
    #[arg(long, value_parser = crate::limits::threads)]
    threads: Option<usize>,
    /// Build only this slice (e.g. 2m1k@5-1m0k@3); every slice it depends
    /// on must be present (for cluster array jobs).
    #[arg(long, value_parser = parse_slice)]
    slice: Option<SliceKey>,
    /// With --slice: first build whatever it needs that is missing (every
    /// slice of fewer pieces, and the slices of its size it reads).
    #[arg(long, requires = "slice")]
    with_deps: bool,
    /// Of the slices of exactly --pieces pieces, build only those a game
    /// from this position may enter (and those they read); every slice of
    /// fewer pieces is built. Repeatable. Use the result with
    /// CHECKERS_EGDB_BUILD=no, so that a command does not build the rest.
    #[arg(long = "for", value_name = "FEN", conflicts_with = "slice")]
    for_fens: Vec<String>,
    /// Hold a slice's tables in memory only up to MIB mebibytes (default:
    /// three quarters of what this process may use: the machine's memory,
    /// or its control group's limit, as a Slurm job's memory request
    /// sets). A slice whose build needs more (`egdb slices` gives each
    /// one's memory) is built out of core: its tables go in scratch files
    /// in the database folder (removed at once; the space is freed when
    /// the build ends or is killed), which the system pages to disk. 0
    /// puts every slice out of core.
    #[arg(long, value_name = "MIB", value_parser = crate::limits::whole::<u64>(0, 1 << 40, "MiB"))]
    memory: Option<u64>,
    /// Where a build out of core puts its scratch files (default: the
    /// database folder); on a cluster, a disk of the node's own rather
    /// than the shared folder. It must exist.
    #[arg(long, value_name = "DIR")]
    scratch: Option<PathBuf>,
    /// The retrograde solver: `reference` (a state byte a position) or
    /// `bitbase` (32 positions to a word, docs/egdb-build.txt; a slice
    /// whose planes exceed --memory is built by the reference, out of
    /// core). Both write the same files. Default: CHECKERS_EGDB_BUILDER,
    /// else bitbase for slices of up to 6 pieces and reference above.
    #[arg(long, value_enum)]
    builder: Option<BuilderArg>,
}

/// `egdb build --builder`'s values.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum BuilderArg {
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
struct SlicesArgs {
    /// Piece count (2 to 8).
    #[arg(long, value_parser = crate::limits::slice_pieces)]
    pieces: u32,
    /// Only the largest K slices.
    #[arg(long)]
    largest: Option<usize>,
    /// Only the slices a game from this position may enter (repeatable).
    #[arg(long = "for", value_name = "FEN")]
    for_fens: Vec<String>,
    /// One JSON object per slice and line, in build order (what a slice
    /// reads comes before it): `slice`, `positions`, `reads` (the slices
    /// of its size its build reads directly; every slice of fewer pieces
    /// is read too), `needs` and `with_needs` as in the table, and
    /// `build_bytes` (the table's memory, in bytes). For
    /// scheduling builds in dependency layers (scripts/slurm-egdb.sh).
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct ProbeArgs {
    /// Position as PDN FEN, e.g. "W:WK19,K23:B12,K28".
    fen: String,
    #[command(flatten)]
    dir: DirArg,
    /// One JSON object: fen, side_to_move, value (for the side to move:
    /// win, draw or loss), source (egdb, capture-search, trivial) and
    /// moves, each with its text, the FEN it leads to, and value (what the
    /// move is worth to the side that plays it; null outside the
    /// databases).
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct StatsArgs {
    /// Only slices with at most this many pieces (2 to 8).
    #[arg(long, value_parser = crate::limits::slice_pieces)]
    pieces: Option<u32>,
    #[command(flatten)]
    dir: DirArg,
    /// JSON output (one object).
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct VerifyArgs {
    /// Also re-derive every stored value from its successors.
    #[arg(long)]
    full: bool,
    /// With --full: re-derive only the slices of this many pieces (every
    /// file is still checked by header and checksum), e.g. the 7-piece
    /// slices just built on top of 6-piece databases verified before.
    #[arg(long, value_parser = crate::limits::slice_pieces, requires = "full")]
    pieces: Option<u32>,
    /// With --full: re-derive only this slice (e.g. 2m1k@5-1m0k@3);
    /// repeatable. Each must be present. For splitting a long check into
    /// jobs, or checking the slices just built.
    #[arg(long = "slice", value_parser = parse_slice, requires = "full")]
    slices: Vec<SliceKey>,
    /// With --full: re-derive every K-th of the chosen slices only (in
    /// name order, starting with the first): a sample of a set too large
    /// to check in one sitting, whose time a full check can be projected
    /// from.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..), requires = "full")]
    every: u64,
    /// With --full: record each slice's check in FILE as it ends (created
    /// when missing), and take from it the slices it records as checked
    /// with none inconsistent against the same files, so that a check
    /// stopped or killed goes on where it stopped when run again with the
    /// same FILE. A slice whose file, or a file it reads, has changed
    /// since is checked again.
    #[arg(long, value_name = "FILE", requires = "full")]
    journal: Option<PathBuf>,
    #[command(flatten)]
    dir: DirArg,
    /// Worker threads (default: all cores; at most 1024).
    #[arg(long, value_parser = crate::limits::threads)]
    threads: Option<usize>,
}

#[derive(clap::Args)]
struct BenchArgs {
    /// Largest piece count of the probed positions, 2 to 8 (all its
    /// slices must be built).
    #[arg(long, default_value_t = 6, value_parser = crate::limits::slice_pieces)]
    pieces: u32,
    /// Number of distinct random positions.
    #[arg(long, default_value_t = 1_000_000)]
    positions: usize,
    /// Passes over the positions, 1 to 1000; the best pass is reported.
    #[arg(long, default_value_t = 5, value_parser = crate::limits::whole::<u32>(1, 1000, "passes"))]
    repeat: u32,
    /// Read the files into memory (huge pages) instead of mapping them.
    #[arg(long)]
    in_memory: bool,
    /// Decode the probed tables into memory, two bits a position, as
    /// commands do within CHECKERS_EGDB_MEMORY.
    #[arg(long)]
    unpacked: bool,
    /// Threads probing at once, each over its own random positions; the
    /// figures are per thread (memory shared by the cores is part of what
    /// is measured); 1 to 256.
    #[arg(long, default_value_t = 1, value_parser = crate::limits::whole::<usize>(1, 256, "threads"))]
    threads: usize,
    #[command(flatten)]
    dir: DirArg,
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

fn thread_pool(threads: Option<usize>) -> anyhow::Result<rayon::ThreadPool> {
    crate::cli::thread_pool(threads)
}

fn build(a: BuildArgs) -> anyhow::Result<()> {
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

fn slices(a: SlicesArgs) -> anyhow::Result<()> {
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

/// `bytes` in MB or GB, one decimal.
fn human_bytes(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{:.1} GB", bytes as f64 / f64::from(1u32 << 30))
    } else {
        format!("{:.1} MB", bytes as f64 / f64::from(1u32 << 20))
    }
}

/// The positions of `fens`; a bad one is an error naming it.
fn parse_fens(fens: &[String]) -> anyhow::Result<Vec<Position>> {
    fens.iter()
        .map(|f| parse_fen(f).with_context(|| format!("bad FEN {f:?}")))
        .collect()
}

fn probe(a: ProbeArgs) -> anyhow::Result<()> {
    let dir = a.dir.get();
    let pos = parse_fen(&a.fen).with_context(|| format!("bad FEN {:?}", a.fen))?;
    let db = Egdb::open(&dir)?;
    let n = pos.piece_count();
    let Some((v, src)) = db.probe_with_source(&pos) else {
        anyhow::bail!(
            "{} has {n} pieces; the databases in {} cover positions up to {} pieces \
             (build more with `checkers egdb build --pieces {n}`)",
            a.fen,
            dir.display(),
            db.max_pieces()
        );
    };
    let moves: Vec<_> = db
        .move_values(&pos)
        .into_iter()
        .map(|(m, mv)| {
            let text = engine::notation::movetext::move_to_text(&pos, &m);
            (
                text,
                engine::notation::fen::to_fen(&pos.play_unchecked(&m)),
                mv,
            )
        })
        .collect();
    if a.json {
        let moves: Vec<serde_json::Value> = moves
            .iter()
            .map(|(text, fen, mv)| {
                serde_json::json!({
                    "move": text,
                    "fen": fen,
                    "value": mv.map(|(v, _)| v.negate().name()),
                    "move_value": mv.map(|(v, _)| v.name()),
                })
            })
            .collect();
        let doc = serde_json::json!({
            "fen": engine::notation::fen::to_fen(&pos),
            "side_to_move": pos.side_to_move().name(),
            "value": v.name(),
            "source": src.name(),
            "moves": moves,
        });
        return crate::cli::emit(&format!("{doc}\n"));
    }
    let from = match src {
        Source::Stored => "from the database",
        Source::CaptureSearch => "by a capture search at probe time",
        Source::Trivial => "a side has no piece",
    };
    let mut out = format!("{v} ({from})\n");
    for (text, fen, mv) in &moves {
        let worth = mv.map_or("not in the databases", |(v, _)| v.name());
        out += &format!("  {text:<10} {worth:<5} -> {fen}\n");
    }
    crate::cli::emit(&out)
}

#[derive(Default, Clone, Copy)]
struct Tally {
    slices: u64,
    placements: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    bytes: u64,
}

impl Tally {
    fn add(&mut self, o: &Tally) {
        self.slices += o.slices;
        self.placements += o.placements;
        self.wins += o.wins;
        self.draws += o.draws;
        self.losses += o.losses;
        self.bytes += o.bytes;
    }
    fn json(&self, name: &str) -> serde_json::Value {
        serde_json::json!({
            "name": name,
            "slices": self.slices,
            "positions_without_side": self.placements,
            "positions_with_side": 2 * self.placements,
            "stored_black_to_move": self.placements,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "bytes": self.bytes,
            "positions_per_byte": 2.0 * self.placements as f64 / self.bytes.max(1) as f64,
        })
    }
    fn line(&self, name: &str) -> String {
        format!(
            "{name:<22} {:>14} {:>14} {:>13} {:>13} {:>13} {:>12} {:>8.1}",
            self.placements,
            2 * self.placements,
            self.wins,
            self.draws,
            self.losses,
            self.bytes,
            2.0 * self.placements as f64 / self.bytes.max(1) as f64
        )
    }
}

fn stats(a: StatsArgs) -> anyhow::Result<()> {
    let dir = a.dir.get();
    let db = Egdb::open(&dir)?;
    let max = a.pieces.unwrap_or(MAX_PIECES);
    let mut per_slice = Vec::new();
    let mut per_count = vec![Tally::default(); MAX_PIECES as usize + 1];
    for s in all_slices(max) {
        let Some(f) = db.slice_file(&s) else { continue };
        let h = f.header();
        let mut t = Tally {
            slices: 1,
            bytes: f.file_len(),
            ..Tally::default()
        };
        for i in 0..h.tables {
            t.placements += h.sizes[i];
            t.wins += h.counts[i].wins;
            t.draws += h.counts[i].draws;
            t.losses += h.counts[i].losses;
        }
        per_count[s.pieces() as usize].add(&t);
        per_slice.push((s, t));
    }
    let mut total = Tally::default();
    for t in &per_count {
        total.add(t);
    }
    if a.json {
        let out = serde_json::json!({
            "dir": dir.display().to_string(),
            "max_pieces": db.max_pieces(),
            "note": "wins/draws/losses count the stored positions (Black to move); \
                     each also stands for its colour-reversed position with White to move",
            "slices": per_slice.iter().map(|(s, t)| t.json(&s.name())).collect::<Vec<_>>(),
            "pieces": per_count.iter().enumerate().filter(|(_, t)| t.slices > 0)
                .map(|(n, t)| t.json(&n.to_string())).collect::<Vec<_>>(),
            "total": total.json("total"),
        });
        println!("{out}");
        return Ok(());
    }
    println!(
        "{}: complete up to {} pieces. positions: stored (Black to move) = placements \
         without side to move; with side: twice that (each stored position also stands \
         for its colour-reversed position with White to move); wins/draws/losses for the \
         side to move over the stored positions; side/B: positions with side per byte.",
        dir.display(),
        db.max_pieces()
    );
    let head = format!(
        "{:<22} {:>14} {:>14} {:>13} {:>13} {:>13} {:>12} {:>8}",
        "slice", "positions", "with side", "wins", "draws", "losses", "bytes", "side/B"
    );
    println!("{head}");
    for (s, t) in &per_slice {
        println!("{}", t.line(&s.name()));
    }
    println!("\n{head}");
    for (n, t) in per_count.iter().enumerate() {
        if t.slices > 0 {
            println!("{}", t.line(&format!("{n} pieces ({} slices)", t.slices)));
        }
    }
    println!("{}", total.line("total"));
    Ok(())
}

/// A slice name on the command line (`--slice`).
fn parse_slice(name: &str) -> Result<SliceKey, String> {
    SliceKey::parse(name).ok_or_else(|| EgdbError::BadSliceName(name.to_string()).to_string())
}

fn verify(a: VerifyArgs) -> anyhow::Result<()> {
    let dir = a.dir.get();
    let pool = thread_pool(a.threads)?;
    let mut problems = 0u64;
    let mut files = 0;
    let mut db = Egdb::empty(&dir);
    for entry in engine::egdb::probe::folder_entries(&dir)? {
        let (s, path) = match entry {
            FolderEntry::Slice(s, path) => (s, path),
            FolderEntry::Unfinished(path) => {
                eprintln!(
                    "note: {} is an unfinished build (rebuilt by the next build)",
                    path.display()
                );
                continue;
            }
            FolderEntry::Other(path) => {
                eprintln!("note: {} is not a slice file, ignored", path.display());
                continue;
            }
            FolderEntry::Misnamed { path, should_be } => {
                eprintln!("problem: {} should be named {should_be}", path.display());
                problems += 1;
                continue;
            }
        };
        files += 1;
        match SliceFile::open(&path, s) {
            Ok(f) => db.add(f),
            Err(e) => {
                eprintln!("problem: {e}");
                problems += 1;
            }
        }
    }
    println!(
        "{files} files, {problems} with a bad header, layout or checksum; complete up to {} pieces",
        db.max_pieces()
    );
    if a.full {
        for s in &a.slices {
            anyhow::ensure!(
                db.has(s),
                "--slice {s}: no valid file {} in {}",
                s.file_name(),
                dir.display()
            );
        }
        let mut chosen: Vec<(String, SliceKey, u64)> = db
            .slices()
            .iter()
            .map(|f| {
                let h = f.header();
                (h.slice.name(), h.slice, h.sizes.iter().sum::<u64>())
            })
            .filter(|(_, s, _)| {
                a.pieces.is_none_or(|n| s.pieces() == n)
                    && (a.slices.is_empty() || a.slices.contains(s))
            })
            .collect();
        chosen.sort();
        let chosen: Vec<(String, SliceKey, u64)> =
            chosen.into_iter().step_by(a.every as usize).collect();
        let total: u64 = chosen.iter().map(|c| c.2).sum();
        let bar = crate::progress::terminal_bar(
            total,
            "verify [{bar:40}] {human_pos}/{human_len} {rate} eta {eta} {msg}",
        );
        let t = Instant::now();
        let mut checked = 0u64;
        let mut inconsistent = 0u64;
        let mut journal = a.journal.as_deref().map(VerifyJournal::open).transpose()?;
        if let Some(j) = journal.as_ref().filter(|j| j.ignored() > 0) {
            eprintln!(
                "note: {} line(s) of {} did not parse and were ignored",
                j.ignored(),
                j.path().display()
            );
        }
        let mut from_journal = 0usize;
        pool.install(|| -> anyhow::Result<()> {
            for (name, s, positions) in &chosen {
                // Only a journal needs the digest.
                let digest = journal.as_ref().map(|_| check_digest(&db, *s));
                let passed = journal.as_ref().zip(digest);
                if let Some(n) = passed.and_then(|(j, d)| j.passed(name, d)) {
                    checked += n;
                    from_journal += 1;
                    bar.inc(*positions);
                    continue;
                }
                bar.set_message(name.clone());
                if let Err(e) = decode_for_verify(&mut db, *s) {
                    bar.suspend(|| eprintln!("problem: {e}"));
                    problems += 1;
                }
                let f = db.slice_file(s).expect("a chosen slice is open");
                let r = match verify_slice(&db, f, &|n| bar.inc(n)) {
                    Ok(r) => r,
                    Err(e) => {
                        bar.suspend(|| eprintln!("problem: {e}"));
                        problems += 1;
                        continue;
                    }
                };
                checked += r.checked;
                inconsistent += r.inconsistent;
                if let (Some(j), Some(digest)) = (journal.as_mut(), digest) {
                    let entry = JournalEntry {
                        digest,
                        checked: r.checked,
                        inconsistent: r.inconsistent,
                    };
                    j.record(name, entry)?;
                }
                for x in &r.examples {
                    bar.suspend(|| {
                        eprintln!("inconsistent: slice {} {}: {}", x.slice, x.fen, x.what)
                    });
                }
                if r.inconsistent > r.examples.len() as u64 {
                    bar.suspend(|| {
                        eprintln!(
                            "inconsistent: slice {}: {} more",
                            f.header().slice,
                            r.inconsistent - r.examples.len() as u64
                        )
                    });
                }
                if !std::io::stderr().is_terminal() {
                    eprintln!(
                        "[{:>7.1}s] verified {}",
                        t.elapsed().as_secs_f64(),
                        f.header().slice
                    );
                }
            }
            Ok(())
        })?;
        bar.finish_and_clear();
        problems += inconsistent;
        let journaled = match &journal {
            Some(j) => format!(
                " ({from_journal} of the slices taken from the journal {})",
                j.path().display()
            ),
            None => String::new(),
        };
        println!(
            "full check of {} slice{} ({total} positions): {checked} stored positions \
             re-derived from their successors, {inconsistent} inconsistent, {:.1} s{journaled}",
            chosen.len(),
            if chosen.len() == 1 { "" } else { "s" },
            t.elapsed().as_secs_f64()
        );
    }
    anyhow::ensure!(
        problems == 0,
        "{problems} problems found in {}",
        dir.display()
    );
    Ok(())
}

fn bench(a: BenchArgs) -> anyhow::Result<()> {
    let dir = a.dir.get();
    let mut db = if a.in_memory {
        Egdb::open_in_memory(&dir)?
    } else {
        Egdb::open(&dir)?
    };
    let mut decoded_bytes = 0;
    if a.unpacked {
        db.limit_pieces(a.pieces);
        let t = Instant::now();
        let u = db.unpack(u64::MAX)?;
        decoded_bytes = u.bytes;
        println!(
            "decoded {} tables ({} positions) into {:.1} MB in {:.1} s",
            u.tables,
            u.positions,
            u.bytes as f64 / 1e6,
            t.elapsed().as_secs_f64()
        );
    }
    anyhow::ensure!(
        db.max_pieces() >= a.pieces,
        "{} holds complete databases up to {} pieces, the bench asks for {}",
        dir.display(),
        db.max_pieces(),
        a.pieces
    );
    // Random positions without a capture: a table chosen with probability
    // proportional to its size, a uniform index, half of them colour-
    // reversed to White to move.
    let tables: Vec<TableIndex> = all_slices(a.pieces)
        .iter()
        .flat_map(|s| s.tables())
        .map(TableIndex::new)
        .collect();
    let mut cum = Vec::with_capacity(tables.len());
    let mut total = 0u64;
    for t in &tables {
        total += t.size();
        cum.push(total);
    }
    let mut rng = engine::rng::XorShift64::new(0x2545_F491_4F6C_DD1D);
    let mut rnd = move || rng.next_u64();
    let each = a.positions.max(1);
    // Too many to count or to hold: an error, not an abort.
    let too_many = || anyhow::anyhow!("--positions {each} on {} threads: too many", a.threads);
    let wanted = each.checked_mul(a.threads).ok_or_else(too_many)?;
    // The positions and the values of two passes.
    let per_position =
        std::mem::size_of::<Position>() + 2 * std::mem::size_of::<Option<engine::Value>>();
    crate::limits::fits_memory(
        &format!("--positions {each} on {} threads", a.threads),
        (wanted as u128).checked_mul(per_position as u128),
    )?;
    let mut positions: Vec<Position> = Vec::new();
    positions
        .try_reserve_exact(wanted)
        .map_err(|_| too_many())?;
    while positions.len() < wanted {
        let r = rnd() % total;
        let t = cum.partition_point(|&c| c <= r);
        let p = tables[t].position(rnd() % tables[t].size());
        if p.has_capture() {
            continue;
        }
        positions.push(if rnd() & 1 == 1 { p.flipped() } else { p });
    }
    // One probe at a time, then the same positions with `probe_many`,
    // which must give the same values.
    let mut first: Option<Vec<Option<engine::Value>>> = None;
    for batched in [false, true] {
        let (best, values) = best_pass(&db, &positions, each, batched, a.repeat.max(1))?;
        if let Some(i) = first
            .as_ref()
            .and_then(|f| (0..each).find(|&i| f[i] != values[i]))
        {
            anyhow::bail!(
                "probe_many and one probe at a time disagree on {:?}",
                positions[i]
            );
        }
        let wins = values
            .iter()
            .filter(|v| **v == Some(engine::Value::Win))
            .count();
        first.get_or_insert(values);
        println!(
            "{} random positions of 2-{} pieces without capture ({} wins), {}: {:.1} million \
             probes/s per thread, {}, best of {} passes ({:.0} ns/probe)",
            each,
            a.pieces,
            wins,
            if batched {
                "probe_many (groups of positions, memory reads overlapped)"
            } else {
                "one probe at a time"
            },
            each as f64 / best / 1e6,
            match a.threads {
                1 => "one thread".to_string(),
                n => format!("{n} threads at once, each over its own {each} positions"),
            },
            a.repeat.max(1),
            best * 1e9 / each as f64
        );
    }
    // The buffer is as large as what the probes read, the files or the
    // decoded tables (capped at 1 GiB: past the caches and the TLB reach,
    // size no longer matters).
    let files: u64 = db
        .slices()
        .iter()
        .filter(|f| f.header().slice.pieces() <= a.pieces)
        .map(|f| f.file_len())
        .sum();
    let bytes = if a.unpacked { decoded_bytes } else { files }.min(1 << 30);
    let (dependent, independent) = random_read_ns(bytes as usize)?;
    println!(
        "memory here: {dependent:.0} ns per dependent random read over {:.1} MB (the size of what \
         is probed; a probe that misses the caches costs at least one), {independent:.1} ns \
         per random read with many in flight (the floor under a batch of probes)",
        bytes as f64 / 1e6
    );
    Ok(())
}

/// The shortest of `repeat` passes, in seconds, in which threads probe at
/// once each its own `each` of `positions` (one probe at a time, or with
/// [`Egdb::probe_many`] when `batched`); a pass lasts until its slowest
/// thread is done. Every position must get a value. Also the values of the
/// first thread's positions.
fn best_pass(
    db: &Egdb,
    positions: &[Position],
    each: usize,
    batched: bool,
    repeat: u32,
) -> anyhow::Result<(f64, Vec<Option<engine::Value>>)> {
    let chunks: Vec<&[Position]> = positions.chunks(each).collect();
    let start = std::sync::Barrier::new(chunks.len());
    let mut best = f64::INFINITY;
    let mut first = Vec::new();
    for _ in 0..repeat {
        let passes: Vec<anyhow::Result<(f64, Vec<Option<engine::Value>>)>> =
            std::thread::scope(|scope| {
                let workers: Vec<_> = chunks
                    .iter()
                    .map(|chunk| {
                        let start = &start;
                        scope.spawn(move || {
                            let mut out = vec![None; chunk.len()];
                            start.wait();
                            let t = Instant::now();
                            if batched {
                                db.probe_many(chunk, &mut out);
                            } else {
                                for (p, o) in chunk.iter().zip(out.iter_mut()) {
                                    *o = db.probe(p);
                                }
                            }
                            let seconds = t.elapsed().as_secs_f64();
                            match out.iter().position(|v| v.is_none()) {
                                Some(i) => Err(anyhow::anyhow!("no value for {:?}", chunk[i])),
                                None => Ok((seconds, out)),
                            }
                        })
                    })
                    .collect();
                workers
                    .into_iter()
                    .map(|w| {
                        w.join()
                            .unwrap_or_else(|_| Err(anyhow::anyhow!("a probe thread failed")))
                    })
                    .collect()
            });
        let mut slowest = 0f64;
        for (n, pass) in passes.into_iter().enumerate() {
            let (seconds, values) = pass?;
            slowest = slowest.max(seconds);
            if n == 0 {
                first = values;
            }
        }
        best = best.min(slowest);
    }
    Ok((best, first))
}

/// Nanoseconds per read over a buffer of `bytes` bytes (64-byte lines):
/// of a pointer chase over a random cycle through it (each read waits for
/// the one before: the cost of one cache and TLB miss on this machine, the
/// floor under a single random probe of databases larger than the caches),
/// and of independent random reads (as many in flight as the machine
/// allows: the floor under a batch of probes, `probe_many`).
fn random_read_ns(bytes: usize) -> anyhow::Result<(f64, f64)> {
    const LINE: usize = 64;
    let lines = (bytes / LINE).max(2);
    // Anonymous memory asked for in huge pages, as the decoded tables are.
    let mut buf = memmap2::MmapMut::map_anon(lines * LINE)?;
    #[cfg(target_os = "linux")]
    {
        let _ = buf.advise(memmap2::Advice::HugePage);
    }
    let link = |buf: &[u8], line: usize| {
        let at = line * LINE;
        u32::from_le_bytes([buf[at], buf[at + 1], buf[at + 2], buf[at + 3]]) as usize
    };
    // The lines in a random order (Fisher-Yates), linked into one cycle.
    let mut order: Vec<u32> = (0..lines as u32).collect();
    let mut rng = engine::rng::XorShift64::default();
    let mut rnd = move || rng.next_u64();
    for i in (1..lines).rev() {
        order.swap(i, (rnd() % (i as u64 + 1)) as usize);
    }
    for i in 0..lines {
        let at = order[i] as usize * LINE;
        buf[at..at + 4].copy_from_slice(&order[(i + 1) % lines].to_le_bytes());
    }
    let steps = 4_000_000usize;
    let mut at = 0usize;
    let t = Instant::now();
    for _ in 0..steps {
        at = link(&buf, at);
    }
    let dependent = t.elapsed().as_secs_f64() * 1e9 / steps as f64;
    std::hint::black_box(at);
    let places: Vec<usize> = (0..steps)
        .map(|_| (rnd() % lines as u64) as usize * LINE)
        .collect();
    let t = Instant::now();
    let sum = places.iter().fold(0u8, |s, &p| s ^ buf[p]);
    let independent = t.elapsed().as_secs_f64() * 1e9 / steps as f64;
    std::hint::black_box(sum);
    Ok((dependent, independent))
}
