//! `checkers proof`: verify, show and export proofs, from a proof file
//! (`checkers solve --proof-out`) or from the proof store (`--store`:
//! every tree the ballot jobs and `solve --store` wrote).

use crate::oracle::Needs;
use crate::present::proof_tree as present;
use anyhow::Context;
use engine::notation::fen::parse_fen;
use proofdb::outcome::NoResults;
use proofdb::{ResultCache, ResultSource, Store};
use solver::proofio;
use solver::proofio::StoredProof;
use solver::verify::verify;
use std::path::PathBuf;

/// Arguments of `checkers proof`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

/// Export formats.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Format {
    /// Graphviz.
    Dot,
    /// JSON.
    Json,
    /// PDN with variations.
    Pdn,
}

/// Where the proofs come from.
#[derive(clap::Args)]
struct Source {
    /// A proof file (from `checkers solve --proof-out`).
    #[arg(required_unless_present = "store", conflicts_with = "store")]
    file: Option<PathBuf>,
    /// The proof store instead of a file: its proof trees, with its
    /// results as the leaves they stand on.
    #[arg(long, value_name = "FILE")]
    store: Option<PathBuf>,
    /// Only the proofs of this position (FEN).
    #[arg(long)]
    fen: Option<String>,
}

/// The proofs of `src` with, for a store's proofs, the database size each
/// recorded; the results their store leaves may cite; the source's name.
type Loaded = (
    Vec<(StoredProof, Option<u32>)>,
    Box<dyn ResultSource>,
    String,
);

/// The proofs of `src`, and the results their store leaves may cite.
fn load(src: &Source) -> anyhow::Result<Loaded> {
    let root = src
        .fen
        .as_deref()
        .map(|f| parse_fen(f).with_context(|| format!("bad FEN '{f}'")))
        .transpose()?;
    let keep = |p: &StoredProof| root.is_none_or(|r| p.tree.root == r);
    if let Some(path) = &src.store {
        if !path.exists() {
            anyhow::bail!("no proof store at {}", path.display());
        }
        let store = Store::open_readonly(path)?;
        let mut out = Vec::new();
        for info in store.trees()? {
            if root.is_some_and(|r| r != info.root) {
                continue;
            }
            let Some(tree) = store.get_tree_by_id(info.id)? else {
                continue;
            };
            out.push((
                StoredProof {
                    tree,
                    info: format!(
                        "tree {} run={} stored={}",
                        info.id,
                        info.run_id,
                        proofdb::codec::iso8601(info.created)
                    ),
                },
                Some(info.egdb_pieces),
            ));
        }
        let results = ResultCache::load(&store)?;
        return found(src, out, Box::new(results), path.display().to_string());
    }
    let file = src.file.as_ref().expect("clap requires a file or --store");
    let proofs = proofio::load(file)?
        .into_iter()
        .filter(keep)
        .map(|p| (p, None))
        .collect();
    found(src, proofs, Box::new(NoResults), file.display().to_string())
}

/// Refuses an empty answer to a question about one position.
fn found(
    src: &Source,
    proofs: Vec<(StoredProof, Option<u32>)>,
    results: Box<dyn ResultSource>,
    name: String,
) -> anyhow::Result<Loaded> {
    if let (Some(fen), true) = (&src.fen, proofs.is_empty()) {
        anyhow::bail!("no proof of {fen} in {name}");
    }
    Ok((proofs, results, name))
}

#[derive(clap::Subcommand)]
enum Command {
    /// Check every proof from the rules and the databases alone (and,
    /// for proofs in the store, the store's results for their store
    /// leaves). With --store, each proof is checked with the databases of
    /// the size it recorded, and (without --fen) every result row must be
    /// sealed and backed, as `db check --proofs` does.
    Verify {
        #[command(flatten)]
        src: Source,
        /// Endgame databases up to this many pieces (0: none; built on
        /// first use), for a proof file (a store's proofs use the size
        /// each recorded).
        #[arg(long, default_value_t = crate::limits::DEFAULT_EGDB_PIECES, value_parser = crate::limits::egdb_pieces)]
        egdb_pieces: u32,
    },
    /// The root of each proof, what it proves, and its moves with labels
    /// (W, D, L, "D or W", "L or D", leaf, not in tree, unresolved).
    Show {
        #[command(flatten)]
        src: Source,
        /// Plies of moves to show below the root.
        #[arg(long, default_value_t = 1)]
        depth: usize,
        /// Endgame databases for leaf values (0: none; built on first use).
        #[arg(long, default_value_t = crate::limits::DEFAULT_EGDB_PIECES, value_parser = crate::limits::egdb_pieces)]
        egdb_pieces: u32,
        /// JSON output.
        #[arg(long)]
        json: bool,
    },
    /// Export each proof as DOT, JSON or PDN on standard output.
    Export {
        #[command(flatten)]
        src: Source,
        /// Output format.
        #[arg(long, value_enum)]
        format: Format,
        /// At most this many nodes (moves for PDN) per proof.
        #[arg(long, default_value_t = 10_000)]
        max_nodes: usize,
    },
}

/// Runs `checkers proof`.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        Command::Verify { src, egdb_pieces } => {
            if let (Some(path), None) = (&src.store, &src.fen) {
                // The whole store: every tree with the databases it
                // recorded, every row's backing and checksum.
                if !path.exists() {
                    anyhow::bail!("no proof store at {}", path.display());
                }
                let store = Store::open_readonly(path)?;
                return crate::cli::check_and_report(&store, true);
            }
            let (proofs, results, file) = load(&src)?;
            // A store's proofs use the databases each recorded; a file's,
            // those of --egdb-pieces.
            let sizes = proofs.iter().map(|(_, n)| n.unwrap_or(egdb_pieces));
            let dbs = crate::oracle::OraclesBySize::open(sizes)?;
            let mut failed = 0;
            for (i, (p, n)) in proofs.iter().enumerate() {
                use solver::storecheck::OracleBySize;
                let size = n.unwrap_or(egdb_pieces);
                let oracle = dbs.up_to(size).map_err(|e| anyhow::anyhow!(e))?;
                let t = &p.tree;
                let head = format!(
                    "proof {}: {} ({}) for {} (databases of {size} pieces)",
                    i + 1,
                    t.question.name(),
                    t.question.outcome(),
                    engine::notation::fen::to_fen(&t.root)
                );
                match verify(t, oracle, results.as_ref()) {
                    Ok(r) => println!(
                        "{head}: verified, {} nodes, {} leaves ({} terminal, {} egdb, {} store), depth {}{}{}",
                        r.nodes,
                        r.leaves,
                        r.terminal,
                        r.egdb,
                        r.store,
                        r.depth,
                        if r.has_cycles { ", loops (draw by repetition)" } else { "" },
                        if r.unreachable > 0 {
                            format!(", {} unreachable entries ignored", r.unreachable)
                        } else {
                            String::new()
                        }
                    ),
                    Err(e) => {
                        failed += 1;
                        println!("{head}: REJECTED: {e}");
                    }
                }
            }
            if failed > 0 {
                anyhow::bail!("{failed} of {} proof(s) in {} rejected", proofs.len(), file);
            }
            println!("{} proof(s) in {file} verified", proofs.len());
            Ok(())
        }
        Command::Show {
            src,
            depth,
            egdb_pieces,
            json,
        } => {
            let (proofs, results, _) = load(&src)?;
            let oracle = crate::oracle::open_egdb(egdb_pieces, Needs::All)?;
            for (p, _) in &proofs {
                if json {
                    let idx = present::index(&p.tree);
                    let moves: Vec<_> = present::move_labels(&p.tree, &idx, &p.tree.root, oracle.as_ref(), results.as_ref())
                        .into_iter()
                        .map(|(m, l)| serde_json::json!({ "move": m.to_string(), "move_label": l.to_string() }))
                        .collect();
                    let root =
                        proofdb::json::Valued::new(&p.tree.root, Some(p.tree.question.outcome()));
                    let v = serde_json::json!({
                        "fen": root.fen,
                        "side_to_move": root.side_to_move,
                        "value": root.value,
                        "label": root.label,
                        "question": p.tree.question.name(),
                        "proof_size": p.tree.nodes.len(),
                        "source": p.info,
                        "moves": moves,
                    });
                    println!("{v}");
                } else {
                    print!(
                        "{}",
                        present::show(&p.tree, &p.info, depth, oracle.as_ref(), results.as_ref())
                    );
                    println!();
                }
            }
            Ok(())
        }
        Command::Export {
            src,
            format,
            max_nodes,
        } => {
            let (proofs, _, _) = load(&src)?;
            for (p, _) in &proofs {
                if matches!(format, Format::Pdn) && !present::pdn_has_moves(&p.tree) {
                    eprintln!(
                        "checkers: the {} proof of {} has no move (its root is a leaf): not \
                         written as PDN",
                        p.tree.question.name(),
                        engine::notation::fen::to_fen(&p.tree.root)
                    );
                    continue;
                }
                match format {
                    Format::Dot => print!("{}", present::to_dot(&p.tree, max_nodes)),
                    Format::Json => println!("{}", present::to_json(&p.tree, &p.info, max_nodes)),
                    Format::Pdn => println!("{}", present::to_pdn(&p.tree, &p.info, max_nodes)),
                }
            }
            Ok(())
        }
    }
}
