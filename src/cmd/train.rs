//! `checkers train`: builds the learned evaluation (eval=learned) from
//! positions the project labels itself. `generate` plays self-play games
//! from the ballots and appends their quiet positions to a data file as
//! each game finishes (an interrupted run resumes where it stopped);
//! `fit` labels them (the game's result, or the endgame databases' exact
//! value once the game reaches them), fits the weights by logistic
//! regression with a held-out tenth of the games, and exports the
//! weights file that the build embeds. `all` does both.
//!
//! The games and the data file are `engine::play::tune` and
//! `engine::play::training`, the fit `engine::play::learn`, the file
//! format `engine::eval::learned`.

use ballots::deck::{Deck, Selection};
use engine::eval::Weights;
use engine::play::learn::{best_scale, fit, label, linear_loss, loss, FitSettings, Model};
use engine::play::training::read_games;
use engine::play::tune::SelfPlay;
use std::io::Write;
use std::path::PathBuf;

/// What to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Step {
    /// Generate the games, then fit and export.
    All,
    /// Only generate (or complete) the games.
    Generate,
    /// Only fit the positions already in the data file and export.
    Fit,
}

/// Train the learned evaluation: self-play games from the ballots, labels
/// from their results and the endgame databases, a logistic fit, and the
/// weights file the build embeds (engine/src/eval/learned.bin). Game N is
/// always the same game (its random opening plies are seeded by N) and the
/// fit is the same with any number of threads, so runs reproduce the
/// committed weights (scripts/train-learned.sh plays their two
/// generations of games and fits them).
#[derive(clap::Args)]
pub struct Args {
    /// What to run: all, generate or fit.
    #[arg(value_enum, default_value_t = Step::All)]
    pub step: Step,
    /// Training positions: appended to as games finish, read back on a
    /// restart (so an interrupted run resumes). A regular file or a new
    /// path.
    #[arg(long, default_value = "train-positions.tsv")]
    pub positions: PathBuf,
    /// More positions files whose games the fit also uses (an earlier
    /// generation's games, say); `generate` does not touch them. Games of
    /// the same number in two files are two games, held out together.
    #[arg(long, value_name = "FILE")]
    pub fit_also: Vec<PathBuf>,
    /// Self-play games in the data file (games already there count), at
    /// most 1000000.
    #[arg(long, default_value_t = 20000, value_parser = crate::limits::whole::<usize>(1, 1_000_000, "games"))]
    pub games: usize,
    /// Search depth of the self-play moves (1 to 100).
    #[arg(long, default_value_t = 6, value_parser = crate::limits::depth)]
    pub depth: u32,
    /// The evaluation both sides of the self-play games use: hand (the
    /// hand weights, which played the games of the committed weights),
    /// tuned, learned (the weights in the build), or a weights file.
    /// Games already in the data file are kept as they are.
    #[arg(long, default_value = "hand")]
    pub play_eval: String,
    /// Plies at the start of each game chosen at random among moves
    /// within 25 centi-men of the best, at most 200; their positions are
    /// not kept.
    #[arg(long, default_value_t = 8, value_parser = crate::limits::whole::<usize>(0, 200, "plies"))]
    pub random_plies: usize,
    /// The ballots table (default: as for `ballots list`).
    #[arg(long)]
    pub ballots_file: Option<PathBuf>,
    /// Label positions of up to this many pieces with the endgame
    /// databases' exact values (0: game results only).
    #[arg(long, default_value_t = 6, value_parser = crate::limits::egdb_pieces)]
    pub egdb_pieces: u32,
    /// Keep the positions the databases know as samples (by default they
    /// only label their game: a search with the databases never
    /// evaluates them).
    #[arg(long)]
    pub keep_exact: bool,
    /// Full-batch Adam steps of the fit (1 to 100000).
    #[arg(long, default_value_t = 300, value_parser = crate::limits::whole::<usize>(1, 100_000, "steps"))]
    pub steps: usize,
    /// Adam's step size, in logit units.
    #[arg(long, default_value_t = 0.01)]
    pub lr: f32,
    /// L2 penalty on the pattern weights, in positions' worth.
    #[arg(long, default_value_t = 100.0)]
    pub l2: f32,
    /// Where to write the weights file.
    #[arg(long, default_value = "engine/src/eval/learned.bin")]
    pub out: PathBuf,
    /// Threads (at most 1024).
    #[arg(long, default_value_t = 2, value_parser = crate::limits::threads)]
    pub threads: usize,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.lr.is_finite() && args.lr > 0.0 && args.lr <= 1.0,
        "--lr {}: expected a number in (0, 1]",
        args.lr
    );
    anyhow::ensure!(
        args.l2.is_finite() && args.l2 >= 0.0,
        "--l2 {}: expected a number >= 0",
        args.l2
    );
    let pool = crate::cli::thread_pool(Some(args.threads.max(1)))?;
    pool.install(|| {
        if args.step != Step::Fit {
            generate(&args)?;
        }
        if args.step != Step::Generate {
            fit_and_export(&args)?;
        }
        Ok(())
    })
}

/// Plays the games missing from the data file.
fn generate(args: &Args) -> anyhow::Result<()> {
    let deck = Deck::locate(args.ballots_file.as_deref())?;
    let ballots = deck.select(Selection::Deck156);
    let settings = SelfPlay {
        depth: args.depth,
        random_plies: args.random_plies,
    };
    let file_err = |e| anyhow::anyhow!("--positions {e}");
    let have: std::collections::BTreeSet<usize> = read_games(&args.positions)
        .map_err(file_err)?
        .iter()
        .map(|g| g.number)
        .collect();
    let todo: Vec<usize> = (0..args.games).filter(|i| !have.contains(i)).collect();
    if !have.is_empty() {
        eprintln!(
            "train: {} has {} games; playing the {} missing",
            args.positions.display(),
            have.len(),
            todo.len()
        );
    }
    crate::selfplay::append_games(
        &args.positions,
        &todo,
        &ballots,
        settings,
        &crate::selfplay::play_eval(&args.play_eval)?,
        "train",
    )
}

/// Labels, fits and writes the weights file.
fn fit_and_export(args: &Args) -> anyhow::Result<()> {
    let mut games = read_games(&args.positions).map_err(|e| anyhow::anyhow!("--positions {e}"))?;
    for file in &args.fit_also {
        games.extend(read_games(file).map_err(|e| anyhow::anyhow!("--fit-also {e}"))?);
    }
    let oracle = crate::oracle::open_egdb(args.egdb_pieces, crate::oracle::Needs::All)?;
    let l = label(&games, oracle.as_ref(), args.egdb_pieces, args.keep_exact);
    anyhow::ensure!(
        l.train.len() >= 1000,
        "only {} training positions in {}",
        l.train.len(),
        args.positions.display()
    );
    eprintln!(
        "train: {} games, {} positions to fit, {} held out; {} games labelled by the databases \
         ({} of them changed), {} positions by their own exact value",
        games.len(),
        l.train.len(),
        l.test.len(),
        l.games_exact,
        l.games_changed,
        l.positions_exact
    );
    let hand = Weights::hand();
    let k = best_scale(&l.train, &hand);
    eprintln!(
        "train: hand evaluation, scale K = {k}: loss {:.5} (fit), {:.5} (held out)",
        linear_loss(&l.train, &hand, k),
        linear_loss(&l.test, &hand, k)
    );
    let mut model = Model::from_hand(&hand, k);
    let settings = FitSettings {
        steps: args.steps,
        lr: args.lr,
        l2: args.l2,
    };
    let bar = crate::progress::terminal_bar(
        args.steps as u64,
        "fit {wide_bar} {pos}/{len} {msg} [{elapsed_precise}<{eta_precise}]",
    );
    fit(&l.train, &mut model, settings, |t, m| {
        bar.inc(1);
        if t % 25 == 0 || t == args.steps {
            let line = format!(
                "step {t}: loss {:.5} (fit), {:.5} (held out)",
                loss(&l.train, m),
                loss(&l.test, m)
            );
            bar.set_message(line.clone());
            if bar.is_hidden() {
                eprintln!("train: {line}");
            }
        }
    });
    bar.finish_and_clear();
    let learned = model.export(k, 4);
    let bytes = learned.to_bytes();
    engine::durable::replace_file(&args.out, |f| f.write_all(&bytes))
        .map_err(|e| anyhow::anyhow!("cannot write --out: {e}"))?;
    let w = learned.weights();
    let unit = (1u32 << learned.frac_bits()) as f32;
    println!(
        "wrote {} ({} bytes, checksum {:016x}): loss {:.5} (fit), {:.5} (held out); \
         K = {k}, a man {} centi-men (opening) {} (endgame)",
        args.out.display(),
        bytes.len(),
        learned.checksum(),
        loss(&l.train, &model),
        loss(&l.test, &model),
        w[0] as f32 / unit,
        w[engine::eval::N_FEATURES] as f32 / unit,
    );
    Ok(())
}
