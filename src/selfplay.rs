//! The self-play games that `checkers tune` and `checkers train generate`
//! both play and append to a positions file, and the evaluation that
//! plays them (`--play-eval`).

use ballots::deck::Ballot;
use engine::eval::Evaluator;
use engine::play::training::game_text;
use engine::play::tune::{self_play_game, SelfPlay};
use rayon::prelude::*;
use std::io::Write;
use std::path::Path;

/// Plays self-play games `todo` (game `i` from ballot `i` of `ballots`,
/// in turn, seeded by `i`) on the current thread pool and appends each to
/// the positions file `path` as it finishes, with a progress bar (a line
/// on stderr every 500 games, headed `who`, when the bar is hidden). For
/// `checkers tune` and `checkers train generate`, which play the same
/// games.
pub fn append_games(
    path: &Path,
    todo: &[usize],
    ballots: &[&Ballot],
    settings: SelfPlay,
    eval: &Evaluator,
    who: &str,
) -> anyhow::Result<()> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| anyhow::anyhow!("cannot open {}: {e}", path.display()))?;
    let file = std::sync::Mutex::new(file);
    let bar = crate::progress::terminal_bar(
        todo.len() as u64,
        "games {wide_bar} {pos}/{len} [{elapsed_precise}<{eta_precise}]",
    );
    let done = std::sync::atomic::AtomicUsize::new(0);
    todo.par_iter().try_for_each(|&i| -> anyhow::Result<()> {
        let start = ballots[i % ballots.len()].position;
        let (positions, outcome) = self_play_game(i, start, settings, eval)?;
        let text = game_text(i, outcome, &positions, settings.random_plies);
        file.lock()
            .map_err(|_| anyhow::anyhow!("a game writer failed"))?
            .write_all(text.as_bytes())?;
        bar.inc(1);
        let k = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        if bar.is_hidden() && k.is_multiple_of(500) {
            eprintln!("{who}: {k}/{} games", todo.len());
        }
        Ok(())
    })?;
    bar.finish_and_clear();
    Ok(())
}

/// The evaluation named by `--play-eval` (of `tune` and `train
/// generate`): hand, tuned, learned or a learned weights file.
pub fn play_eval(name: &str) -> anyhow::Result<Evaluator> {
    let option = match name {
        "hand" | "tuned" | "learned" => format!("eval={name}"),
        file => format!("eval-file={file}"),
    };
    let options = engine::search::SearchOptions::parse(&option)
        .map_err(|e| anyhow::anyhow!("--play-eval {name}: {e}"))?;
    Ok(options.eval)
}
