//! `checkers book build`: the opening book of a proof store's proved
//! positions (`engine::play::book`, built by
//! `player::book_from_store`), for the engine commands, which
//! play from a book by default when one is present
//! ([`crate::cli::BookArg`]).

use crate::oracle::Needs;
use player::book_from_store;
use solver::proved::ProvedOracle;
use std::path::PathBuf;

/// Opening books of proved positions.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: BookCommand,
}

/// What to do with a book.
#[derive(clap::Subcommand)]
pub enum BookCommand {
    /// Write the book of every position a proof store proves a win or at
    /// least a draw, with the moves that keep the value (the win proofs'
    /// move first). The store is only read.
    Build(BuildArgs),
}

/// `book build`.
#[derive(clap::Args)]
pub struct BuildArgs {
    /// The proof store (read-only).
    #[arg(long, value_name = "FILE")]
    pub store: PathBuf,
    /// The book file to write (text: FEN, value, moves; see
    /// `engine::play::book`).
    #[arg(long, value_name = "BOOK")]
    pub out: PathBuf,
    /// Endgame databases up to this many pieces (0: none): a move into
    /// a database position keeps the value by the databases.
    #[arg(long, default_value_t = 0, value_parser = crate::limits::egdb_pieces)]
    pub egdb_pieces: u32,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        BookCommand::Build(a) => build(a),
    }
}

fn build(a: BuildArgs) -> anyhow::Result<()> {
    let proved = crate::oracle::open_proved(&a.store)?;
    let egdb = crate::oracle::open_egdb(a.egdb_pieces, Needs::All)?;
    let oracle = ProvedOracle::new(&*egdb, a.egdb_pieces, &proved.results);
    let book = book_from_store(&proved.store, &oracle)?;
    let header = format!(
        "checkers opening book: the positions {} proves a win or at least a draw\n\
         (for the side to move), with the moves that keep the value, best first.\n\
         FEN<TAB>win|draw<TAB>moves",
        a.store.display()
    );
    std::fs::write(&a.out, book.to_text(&header))
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", a.out.display()))?;
    crate::cli::emit(&format!(
        "{}: {} positions from {} proved\n",
        a.out.display(),
        book.len(),
        proved.results.len()
    ))
}
