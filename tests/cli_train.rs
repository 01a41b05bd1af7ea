//! `checkers train`: self-play games with a chosen evaluation
//! (`--play-eval`), a fit over several generations' files (`--fit-also`)
//! whose weights the engine then loads, and clear errors for a weights
//! file that is missing.

mod common;

use std::path::Path;

/// `checkers ARGS` in `dir` without databases, killed after a minute.
fn checkers(dir: &Path, args: &[&str]) -> common::Ran {
    common::run_in_without_databases(dir, args, None)
}

/// `train generate` of 30 quick games into `file`, the players using
/// `eval`.
fn generate(dir: &Path, file: &str, eval: &str) -> common::Ran {
    checkers(
        dir,
        &[
            "train",
            "generate",
            "--positions",
            file,
            "--games",
            "30",
            "--depth",
            "1",
            "--random-plies",
            "2",
            "--egdb-pieces",
            "0",
            "--threads",
            "1",
            "--play-eval",
            eval,
        ],
    )
}

/// `train fit` of `positions` and `also` (`--fit-also`) without
/// databases, then `args`.
fn fit(dir: &Path, positions: &str, also: &str, args: &[&str]) -> common::Ran {
    let fit = [
        "train",
        "fit",
        "--positions",
        positions,
        "--fit-also",
        also,
        "--egdb-pieces",
        "0",
    ];
    checkers(dir, &[&fit[..], args].concat())
}

fn games_in(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("#game "))
        .count()
}

#[test]
fn generations_of_games_fit_into_weights_the_engine_loads() {
    let dir = common::temp_dir("train");
    let d = dir.path();
    let hand = generate(d, "gen1.tsv", "hand");
    assert_eq!(hand.code, Some(0), "{}", hand.stderr);
    let learned = generate(d, "gen2.tsv", "learned");
    assert_eq!(learned.code, Some(0), "{}", learned.stderr);
    assert_eq!(games_in(&d.join("gen1.tsv")), 30);
    assert_eq!(games_in(&d.join("gen2.tsv")), 30);
    // Other players, other games.
    assert_ne!(
        std::fs::read(d.join("gen1.tsv")).unwrap(),
        std::fs::read(d.join("gen2.tsv")).unwrap()
    );
    let fit = fit(
        d,
        "gen1.tsv",
        "gen2.tsv",
        &["--steps", "3", "--out", "w.bin", "--threads", "1"],
    );
    assert_eq!(fit.code, Some(0), "{}", fit.stderr);
    common::assert_says(&fit.stderr, "train: 60 games");
    // The new weights play, and games played with them are games.
    let best = checkers(
        d,
        &[
            "bestmove",
            "--depth",
            "4",
            "--options",
            "eval-file=w.bin",
            "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
        ],
    );
    assert_eq!(best.code, Some(0), "{}", best.stderr);
    let gen3 = generate(d, "gen3.tsv", "w.bin");
    assert_eq!(gen3.code, Some(0), "{}", gen3.stderr);
    assert_eq!(games_in(&d.join("gen3.tsv")), 30);
}

#[test]
fn a_missing_weights_file_or_positions_file_is_named() {
    let dir = common::temp_dir("train-bad");
    let d = dir.path();
    let ran = generate(d, "g.tsv", "none.bin");
    assert!(!ran.crashed() && ran.code != Some(0), "{ran:?}");
    common::assert_says(&ran.stderr, "--play-eval none.bin");
    let ran = fit(d, "none.tsv", "g.tsv", &[]);
    assert!(!ran.crashed() && ran.code != Some(0), "{ran:?}");
    common::assert_says(&ran.stderr, "none.tsv");
}
