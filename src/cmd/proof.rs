//! `checkers proof`: verify, show and export proof files.

use proofdb::outcome::NoResults;
use solver::present;
use solver::proofio;
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

#[derive(clap::Subcommand)]
enum Command {
    /// Check every proof of a file from the rules and the databases alone.
    Verify {
        /// The proof file.
        file: PathBuf,
        /// Endgame databases up to this many pieces (0: none).
        #[arg(long, default_value_t = 0)]
        egdb_pieces: u32,
    },
    /// The root of each proof, what it proves, and its moves with labels
    /// (W, D, L, "D or W", "L or D", leaf, not in tree, unresolved).
    Show {
        /// The proof file.
        file: PathBuf,
        /// Plies of moves to show below the root.
        #[arg(long, default_value_t = 1)]
        depth: usize,
        /// Endgame databases for leaf values (0: none).
        #[arg(long, default_value_t = 0)]
        egdb_pieces: u32,
        /// JSON output.
        #[arg(long)]
        json: bool,
    },
    /// Export each proof as DOT, JSON or PDN on standard output.
    Export {
        /// The proof file.
        file: PathBuf,
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
        Command::Verify { file, egdb_pieces } => {
            let proofs = proofio::load(&file)?;
            let oracle = crate::oracle::open_egdb(egdb_pieces)?;
            let mut failed = 0;
            for (i, p) in proofs.iter().enumerate() {
                let t = &p.tree;
                let head = format!(
                    "proof {}: {} ({}) for {}",
                    i + 1,
                    t.question.name(),
                    t.question.outcome(),
                    engine::notation::fen::to_fen(&t.root)
                );
                match verify(t, oracle.as_ref(), &NoResults) {
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
                anyhow::bail!(
                    "{failed} of {} proof(s) in {} rejected",
                    proofs.len(),
                    file.display()
                );
            }
            Ok(())
        }
        Command::Show {
            file,
            depth,
            egdb_pieces,
            json,
        } => {
            let proofs = proofio::load(&file)?;
            let oracle = crate::oracle::open_egdb(egdb_pieces)?;
            for p in &proofs {
                if json {
                    let idx = present::index(&p.tree);
                    let moves: Vec<_> = present::move_labels(&p.tree, &idx, &p.tree.root, oracle.as_ref(), &NoResults)
                        .into_iter()
                        .map(|(m, l)| serde_json::json!({ "move": m.to_string(), "label": l.to_string() }))
                        .collect();
                    let v = serde_json::json!({
                        "root": engine::notation::fen::to_fen(&p.tree.root),
                        "question": p.tree.question.name(),
                        "proves": p.tree.question.outcome().name(),
                        "size": p.tree.nodes.len(),
                        "source": p.info,
                        "moves": moves,
                    });
                    println!("{v}");
                } else {
                    print!(
                        "{}",
                        present::show(&p.tree, &p.info, depth, oracle.as_ref(), &NoResults)
                    );
                    println!();
                }
            }
            Ok(())
        }
        Command::Export {
            file,
            format,
            max_nodes,
        } => {
            let proofs = proofio::load(&file)?;
            for p in &proofs {
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
