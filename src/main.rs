//! `checkers`: one binary, one subcommand per job (`cmd`, each a thin
//! shell over the library crates; what several share is in `cli`,
//! `limits`, `progress`, `oracle` and `interrupt`). `main` only dispatches
//! and turns an error into one line on stderr and a non-zero exit.

mod cli;
mod cmd;
#[cfg(test)]
mod help_check;
mod interrupt;
mod limits;
mod oracle;
mod present;
mod progress;
mod selfplay;
mod serve;

use clap::{Parser, Subcommand};

/// Weakly solving American checkers three-move openings: rules, endgame
/// databases, proof search, ballot jobs, and an engine that plays with
/// what was proved.
#[derive(Parser)]
#[command(name = "checkers", version, about, long_about = None)]
struct Cli {
    /// The shared data folder (ballots.tsv, fortman-trunks.pdn,
    /// games/acf-archive.pdn), for every command: this, else
    /// $CHECKERS_DATA, else ../shared/data from the current folder, else
    /// shared/data beside the checkout the executable was built in (the
    /// folders above it). A command's own file options win over all of
    /// these.
    #[arg(long, global = true, value_name = "DIR")]
    data: Option<std::path::PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count move sequences from a position (move generator check).
    Perft(cmd::perft::Args),
    /// Measure move generation speed (perft with bulk counting).
    Bench(cmd::bench::Args),
    /// Print a board diagram and the legal moves of a position.
    Show(cmd::show::Args),
    /// PDN game files: replay and check.
    Pdn(cmd::pdn::Args),
    /// Endgame databases: build, probe, verify, stats.
    Egdb(cmd::egdb::Args),
    /// Search a position and print the best move.
    Bestmove(cmd::bestmove::Args),
    /// Play a game against the engine in the terminal.
    Play(cmd::play::Args),
    /// Speak the Hub protocol (v2) on stdin/stdout.
    Hub(cmd::hub::Args),
    /// Play matches against another Hub engine or this one.
    Match(cmd::matchplay::Args),
    /// Opening books of proved positions: build.
    Book(cmd::book::Args),
    /// Fit the evaluation weights to self-play game outcomes.
    Tune(cmd::tune::Args),
    /// Train the learned evaluation (eval=learned): games, fit, weights file.
    Train(cmd::train::Args),
    /// Prove the value of a position.
    Solve(cmd::solve::Args),
    /// Proof trees: verify, show, export.
    Proof(cmd::proof::Args),
    /// The proof store: stats, export, merge.
    Db(cmd::db::Args),
    /// The three-move ballots: list, run, status, report.
    Ballots(cmd::ballots::Args),
    /// Browse ballots, main lines and proofs in a web browser.
    Serve(cmd::serve::Args),
}

/// Ends the program when standard output cannot be written, without a
/// panic message: quietly (exit status 141, as a process killed by
/// SIGPIPE) when it is a pipe its reader has closed, so that `checkers
/// proof show FEN | head` behaves like any Unix filter; with one line
/// naming standard output and exit status 1 otherwise (a full disk,
/// `> /dev/full`). `println!` panics on either because the Rust runtime
/// ignores SIGPIPE; this hook recognises that panic and passes every
/// other to the default hook. (The style guide keeps `unsafe` to memory
/// maps, so the signal action is not reset instead.) It also holds in the
/// release build, whose panics abort: the hook runs first. Stores are
/// SQLite databases, which survive a process that ends at any moment.
fn stdout_errors_end_the_program() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let msg = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if let Some(why) = msg.strip_prefix("failed printing to stdout: ") {
            stdout_failed(why);
        }
        default(info);
    }));
}

/// Ends the program after standard output failed (see
/// [`stdout_errors_end_the_program`]).
fn stdout_failed(why: &str) -> ! {
    if why.contains("Broken pipe") {
        std::process::exit(141);
    }
    eprintln!("checkers: cannot write to standard output: {why}");
    std::process::exit(1);
}

/// An error and its causes, each said once: the library errors put their
/// cause into their own text (`path: cause`), so a cause whose text is
/// already said is left out, with the causes below it.
fn error_text(e: &anyhow::Error) -> String {
    let mut text = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if text.contains(&c) {
            break;
        }
        text.push_str(": ");
        text.push_str(&c);
    }
    text
}

fn main() {
    stdout_errors_end_the_program();
    let cli = Cli::parse();
    if let Some(dir) = &cli.data {
        // The libraries find their data through $CHECKERS_DATA; nothing
        // else runs yet (no thread reads the environment).
        std::env::set_var("CHECKERS_DATA", dir);
    }
    let result = match cli.command {
        Command::Perft(a) => cmd::perft::run(a),
        Command::Bench(a) => cmd::bench::run(a),
        Command::Show(a) => cmd::show::run(a),
        Command::Pdn(a) => cmd::pdn::run(a),
        Command::Egdb(a) => cmd::egdb::run(a),
        Command::Bestmove(a) => cmd::bestmove::run(a),
        Command::Play(a) => cmd::play::run(a),
        Command::Hub(a) => cmd::hub::run(a),
        Command::Match(a) => cmd::matchplay::run(a),
        Command::Book(a) => cmd::book::run(a),
        Command::Tune(a) => cmd::tune::run(a),
        Command::Train(a) => cmd::train::run(a),
        Command::Solve(a) => cmd::solve::run(a),
        Command::Proof(a) => cmd::proof::run(a),
        Command::Db(a) => cmd::db::run(a),
        Command::Ballots(a) => cmd::ballots::run(a),
        Command::Serve(a) => cmd::serve::run(a),
    };
    // What is still buffered (a last line without a newline) is written
    // now, so that its failure is reported too.
    if let Err(e) = std::io::Write::flush(&mut std::io::stdout()) {
        stdout_failed(&e.to_string());
    }
    if let Err(e) = result {
        if let Some(u) = e.downcast_ref::<limits::UsageError>() {
            // As clap reports its own usage errors.
            eprintln!("error: {u}");
            std::process::exit(2);
        }
        eprintln!("checkers: {}", error_text(&e));
        std::process::exit(1);
    }
}
