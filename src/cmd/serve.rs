//! `checkers serve`: the proof browser. Opens the store read-only and the
//! endgame databases, then serves the page and the JSON API of
//! [`crate::serve`] until interrupted.
//!
//! The store file is `--store FILE`, else `$CHECKERS_STORE`, else
//! `proofs.sqlite` in the current directory.

use anyhow::Context;
use ballots::deck::Deck;
use std::io::Write;
use std::path::PathBuf;

/// Serve a page to browse ballots, main lines, positions and proof trees,
/// with a JSON API (docs/serve-api.txt). Read-only on the store.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub store: crate::cli::StoreArg,
    /// Port to listen on (0: any free port; the address is printed).
    #[arg(long, default_value_t = 8000)]
    pub port: u16,
    /// Address to listen on (the default is this machine only).
    #[arg(long, default_value = "127.0.0.1", value_name = "ADDR")]
    pub bind: String,
    /// Endgame databases up to this many pieces (0: none); built first if
    /// missing, unless CHECKERS_EGDB_BUILD=no.
    #[arg(long, default_value_t = crate::limits::DEFAULT_EGDB_PIECES, value_parser = crate::limits::egdb_pieces)]
    pub egdb_pieces: u32,
    /// Ballot table (default: ballots.tsv in the data folder, see
    /// --data; else the built-in copy).
    #[arg(long, value_name = "FILE")]
    pub ballots_file: Option<PathBuf>,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<()> {
    let path = args.store.path();
    let store = crate::cli::open_existing(&args.store)?;
    let deck = Deck::locate(args.ballots_file.as_deref())?;
    // Listening first: a port in use is said before the databases load.
    let server = crate::serve::http::Server::bind(&args.bind, args.port)?;
    let oracle = crate::oracle::open_egdb(args.egdb_pieces, crate::oracle::Needs::All)?;
    let proved = proofdb::ResultCache::load(&store)?;
    let browser = crate::serve::Browser {
        proved,
        store,
        oracle,
        egdb_pieces: args.egdb_pieces,
        deck,
    };
    let addr = server.addr().context("the server has no IP address")?;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "checkers serve: http://{addr}/ (store {}; Ctrl-C stops)",
        path.display()
    )
    .and_then(|_| out.flush())
    .context("writing standard output")?;
    drop(out);
    server.run(&browser)?;
    Ok(())
}
