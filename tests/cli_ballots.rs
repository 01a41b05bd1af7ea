//! `checkers ballots run` end to end: a real run on a small database
//! (built by the run itself), resuming, and surviving SIGKILL.

mod common;

use ballots::tables::{BallotTables, JobStatus};
use common::text;
use proofdb::{Outcome, Store};
use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

fn run(dir: &Path, args: &[&str]) -> Output {
    common::ballots_run(dir, args).output().unwrap()
}

/// Every stored result, by position.
fn results(path: &Path) -> HashMap<engine::Position, Outcome> {
    let store = Store::open_readonly(path).unwrap();
    let mut out = HashMap::new();
    store
        .for_each_result(|r| -> Result<(), proofdb::StoreError> {
            out.insert(r.position, r.outcome);
            Ok(())
        })
        .unwrap();
    out
}

/// `after` keeps every result of `before`, the same or narrower.
fn keeps_all(
    before: &HashMap<engine::Position, Outcome>,
    after: &HashMap<engine::Position, Outcome>,
) {
    for (p, o) in before {
        let now = after
            .get(p)
            .unwrap_or_else(|| panic!("lost a result: {p:?}"));
        assert_eq!(
            o.intersect(*now).ok(),
            Some(*now),
            "{p:?}: {o} became {now}"
        );
    }
}

#[test]
fn ballot_run_proves_resumes_and_survives_sigkill() {
    let tmp = common::temp_dir("run-walk");
    let dir = tmp.path();
    let store_path = dir.join("s.sqlite");

    // A first run: the database is built, the main line made and stored,
    // and the walk proves the end of the line.
    let out = run(
        dir,
        &["--ballot", "5", "--budget", "6", "--position-budget", "3"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let so = text(&out.stdout);
    assert!(so.contains("frontier"), "{so}");
    let (line, jobs, first_run) = {
        let store = Store::open_readonly(&store_path).unwrap();
        let line = store.main_line(5).unwrap();
        let jobs = store.job_records(5).unwrap();
        (line, jobs, store.runs().unwrap()[0].id.clone())
    };
    assert!(line.len() > 3, "main line of {} plies", line.len());
    assert_eq!(line[2].move_text, "6-9");
    assert_eq!(line[3].origin, ballots::tables::Origin::Archive);
    let last = line.last().unwrap();
    let proved: Vec<u32> = jobs
        .iter()
        .filter(|j| j.status == JobStatus::Proved)
        .map(|j| j.ply)
        .collect();
    assert!(proved.contains(&last.ply), "{jobs:?}");
    let before = results(&store_path);
    assert!(!before.is_empty());
    for j in jobs.iter().filter(|j| j.status == JobStatus::Proved) {
        let pos = line[j.ply as usize - 1].position;
        assert!(
            matches!(before.get(&pos), Some(Outcome::Exact(_))),
            "ply {} proved but not stored",
            j.ply
        );
    }

    // Every ply carries the engine's score, and `ballots show` prints the
    // line with its origins, scores and verdict.
    assert!(line.iter().all(|p| p.score.is_some()), "{line:?}");
    let shown = Command::new(env!("CARGO_BIN_EXE_checkers"))
        .args(["ballots", "show", "5", "--store", "s.sqlite"])
        .current_dir(dir)
        .env_remove("CHECKERS_STORE")
        .env_remove("CHECKERS_DATA")
        .output()
        .unwrap();
    assert!(shown.status.success(), "{}", text(&shown.stderr));
    let shown = text(&shown.stdout);
    assert!(
        shown.starts_with(&format!(
            "ballot 5 (9-13 22-18 6-9): {} plies: ",
            line.len()
        )),
        "{shown}"
    );
    assert!(
        shown.contains("\ndecisive from ply ") || shown.contains("\nlevel throughout"),
        "{shown}"
    );
    // One row per ply, each with its FEN; then the frontier and, unless
    // the walk is complete, the open ply with the commands to paste.
    for p in &line {
        let fen = engine::notation::fen::to_fen(&p.position);
        assert!(
            shown
                .lines()
                .any(|l| l.trim_start().starts_with(&format!("{} ", p.ply)) && l.ends_with(&fen)),
            "ply {} ({fen}) missing: {shown}",
            p.ply
        );
    }
    assert!(shown.contains("\nfrontier: ply "), "{shown}");
    if shown.contains("\nopen: ply ") {
        assert!(
            shown.contains("\nnext: checkers ballots run --ballot 5 --store "),
            "{shown}"
        );
        assert!(shown.contains("\n  or: checkers solve '"), "{shown}");
    }
    let shown_json = Command::new(env!("CARGO_BIN_EXE_checkers"))
        .args(["ballots", "show", "5", "--json", "--store", "s.sqlite"])
        .current_dir(dir)
        .env_remove("CHECKERS_STORE")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&shown_json.stdout).unwrap();
    assert_eq!(v["plies"].as_array().unwrap().len(), line.len());
    assert_eq!(
        v["plies"][line.len() - 1]["fen"],
        engine::notation::fen::to_fen(&last.position)
    );

    // Again with the same budgets: the same line, proved plies untouched.
    let out = run(
        dir,
        &["--ballot", "5", "--budget", "6", "--position-budget", "3"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    {
        let store = Store::open_readonly(&store_path).unwrap();
        assert_eq!(store.main_line(5).unwrap(), line);
        for j in store.job_records(5).unwrap() {
            if proved.contains(&j.ply) {
                assert_eq!(j.run_id, first_run, "ply {} was searched again", j.ply);
            }
        }
    }
    keeps_all(&before, &results(&store_path));

    // Killed at a moment chosen by the clock, then run again: nothing
    // committed is lost and the file passes SQLite's integrity check.
    let before = results(&store_path);
    let mut child = common::ballots_run(
        dir,
        &[
            "--ballot",
            "1",
            "2",
            "--budget",
            "30",
            "--position-budget",
            "10",
        ],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    std::thread::sleep(Duration::from_millis(500 + u64::from(nanos % 2500)));
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    {
        let store = Store::open(&store_path).unwrap();
        store.integrity_check().unwrap();
    }
    let killed = results(&store_path);
    keeps_all(&before, &killed);
    let out = run(
        dir,
        &[
            "--ballot",
            "1",
            "2",
            "--budget",
            "3",
            "--position-budget",
            "2",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    keeps_all(&killed, &results(&store_path));
}

/// `--line-reach`: the main line is built first with the databases one
/// piece smaller, then only the slices of the largest size that its last
/// positions may reach are built (the whole 4-piece set is 140 slices),
/// and the walk runs on them.
#[test]
fn line_reach_builds_only_the_slices_the_lines_reach() {
    let tmp = common::temp_dir("run-reach");
    let dir = tmp.path();
    let out = run(
        dir,
        &[
            "--ballot",
            "5",
            "--budget",
            "2",
            "--position-budget",
            "1",
            "--line-reach",
            "2",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    common::assert_says(
        &text(&out.stderr),
        "main lines first (databases to 3 pieces)",
    );
    let names: Vec<String> = std::fs::read_dir(dir.join("egdb"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let slices_of = |n: u32| {
        engine::egdb::slice::slices_with(n)
            .into_iter()
            .filter(|s| names.contains(&format!("{}.egdb", s.name())))
            .count()
    };
    for n in 2..=3 {
        assert_eq!(
            slices_of(n),
            engine::egdb::slice::slices_with(n).len(),
            "{n} pieces"
        );
    }
    let four = slices_of(4);
    let all_four = engine::egdb::slice::slices_with(4).len();
    assert!(
        four > 0 && four < all_four,
        "{four} of {all_four} 4-piece slices built"
    );
    let store = Store::open_readonly(dir.join("s.sqlite")).unwrap();
    let line = store.main_line(5).unwrap();
    let last = line.last().unwrap().position;
    assert!(last.piece_count() <= 6, "the line ends at {last:?}");
    let reached = engine::egdb::reach::reachable_slices(&[last], 4);
    assert!(!reached.is_empty());
    for s in reached {
        assert!(
            names.contains(&format!("{}.egdb", s.name())),
            "{} missing",
            s.name()
        );
    }
}

/// Settling: with 3-piece databases, the run builds the 4-piece slices
/// that the line's 4-piece positions may reach (not the whole set) and
/// the walk proves those plies from them, its results recorded as proved
/// with 4-piece databases; `--settle-limit 0` builds none.
#[test]
fn the_run_settles_the_positions_one_piece_above_the_databases() {
    let built = |dir: &Path, n: u32| -> Vec<String> {
        let names: Vec<String> = std::fs::read_dir(dir.join("egdb"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        engine::egdb::slice::slices_with(n)
            .into_iter()
            .map(|s| s.name())
            .filter(|s| names.contains(&format!("{s}.egdb")))
            .collect()
    };
    let run_with = |dir: &Path, limit: &str| {
        let args = ["--ballot", "5", "--budget", "3", "--position-budget", "1"];
        common::ballots_run_with(dir, "3", &args)
            .args(["--settle-limit", limit])
            .output()
            .unwrap()
    };
    let tmp = common::temp_dir("run-settle");
    let dir = tmp.path();
    let out = run_with(dir, "600");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    common::assert_says(&err, "settling the lines' ");
    common::assert_says(
        &err,
        "databases to 3 pieces and the slices of 4 that the lines reach",
    );
    let four = built(dir, 4);
    let all_four = engine::egdb::slice::slices_with(4).len();
    assert!(
        !four.is_empty() && four.len() < all_four,
        "{} of {all_four} 4-piece slices built",
        four.len()
    );
    let store = Store::open_readonly(dir.join("s.sqlite")).unwrap();
    let line = store.main_line(5).unwrap();
    let at_four: Vec<engine::Position> = line
        .iter()
        .map(|m| m.position)
        .filter(|p| p.piece_count() == 4)
        .collect();
    assert!(!at_four.is_empty(), "the line has no 4-piece position");
    for s in engine::egdb::reach::reachable_slices(&at_four, 4) {
        assert!(four.contains(&s.name()), "{} missing", s.name());
    }
    let mut four_piece_proofs = 0;
    store
        .for_each_result(|r| -> Result<(), proofdb::StoreError> {
            four_piece_proofs += usize::from(r.provenance.egdb_pieces == 4);
            Ok(())
        })
        .unwrap();
    assert!(
        four_piece_proofs > 0,
        "no result proved with the 4-piece slices"
    );

    let tmp = common::temp_dir("run-settle-off");
    let dir = tmp.path();
    let out = run_with(dir, "0");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        !text(&out.stderr).contains("settling"),
        "{}",
        text(&out.stderr)
    );
    assert!(built(dir, 4).is_empty(), "{:?}", built(dir, 4));
}

/// `ballots lines` builds and stores a line without walking it, then
/// reads it back: one JSON object per ballot whose plies, origins and end
/// are the stored line's, and a table with its summary.
#[test]
fn lines_are_built_stored_and_summarised_without_a_walk() {
    let tmp = common::temp_dir("lines");
    let dir = tmp.path();
    let lines = |extra: &[&str]| {
        common::checkers_in(dir)
            .args([
                "ballots",
                "lines",
                "--store",
                "s.sqlite",
                "--egdb-pieces",
                "3",
            ])
            .args(["--line-depth", "6", "--threads", "1", "--ballot", "5", "7"])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = lines(&["--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rows: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2);
    let store = Store::open_readonly(dir.join("s.sqlite")).unwrap();
    for (row, n) in rows.iter().zip([5, 7]) {
        assert_eq!(row["ballot"], n);
        let line = store.main_line(n).unwrap();
        assert_eq!(row["plies"], line.len());
        let counted: u64 = row["origins"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum();
        assert_eq!(counted as usize, line.len());
        let last = line.last().unwrap().position;
        assert_eq!(row["end"]["pieces"], last.piece_count());
        assert_eq!(row["end"]["fen"], engine::notation::fen::to_fen(&last));
        assert!(
            ["databases", "settle", "search"].contains(&row["end"]["settled_by"].as_str().unwrap())
        );
        // A decisive line says whose moves it turns decisive in.
        if !row["decisive"].is_null() {
            let origin = row["decisive"]["origin"].as_str().unwrap();
            assert!(
                ["published", "archive", "engine", "repair"].contains(&origin),
                "{origin}"
            );
        }
    }
    assert!(store.job_records(5).unwrap().is_empty(), "it walked");
    let out = lines(&[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    common::assert_says(&text(&out.stdout), "2 lines: ");
    // The stored lines, whose walks have not started, are searched again
    // for repairs.
    let out = lines(&["--repair"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    common::assert_says(&text(&out.stderr), "of 2 stored lines repaired");
}

#[test]
fn bad_arguments_are_refused_with_a_reason() {
    let tmp = common::temp_dir("run-bad");
    let dir = tmp.path();
    let refused = |args: &[&str], reason: &str| {
        let out = run(dir, args);
        assert!(!out.status.success());
        common::assert_says(&text(&out.stderr), reason);
    };
    refused(&["--ballot", "999"], "no ballot 999");
    refused(&["--budget", "0"], "--budget");
    std::fs::write(dir.join("s.sqlite"), b"not a store at all, just text").unwrap();
    refused(&["--ballot", "1"], "s.sqlite");
}

/// `match` finds the ballot table the way `ballots list` does, from any
/// working folder (it used to read `../shared/data/ballots.tsv` relative
/// to the working folder only), and `--data` pointing at a folder
/// without one is an error naming that folder.
#[test]
fn match_finds_the_deck_from_any_folder() {
    let tmp = common::temp_dir("match-deck");
    let dir = tmp.path();
    let args = [
        "match",
        "--self",
        "--ballots",
        "1",
        "--games",
        "2",
        "--depth",
        "1",
    ];
    let bare = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_checkers"));
        c.args(args).current_dir(dir).env_remove("CHECKERS_DATA");
        c
    };
    let out = bare().output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("games"), "{stdout}");
    // Each player's moves are timed: both lines, over the moves played.
    for player in ["A", "B"] {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(&format!("{player} time per move: mean ")))
            .unwrap_or_else(|| panic!("no time line for {player}: {stdout}"));
        assert!(!line.contains(" over 0 moves"), "{line}");
    }
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = bare().arg("--data").arg(&empty).output().unwrap();
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("empty"), "{}", text(&out.stderr));
}

/// `match --ballot N` names one ballot, any of 1-174: `--ballot 156`
/// is ballot 156 alone (`--ballots 156`, the older spelling, is the
/// 156-ballot deck), and `--deck` names a deck.
#[test]
fn match_names_ballot_156_alone() {
    let games_of = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_checkers"))
            .args(["match", "--self", "--depth", "1", "--games", "1000"])
            .args(args)
            .output()
            .unwrap();
        assert!(!out.status.success());
        text(&out.stderr)
    };
    common::assert_says(&games_of(&["--ballot", "156"]), "1 ballot(s) give 2 games");
    common::assert_says(
        &games_of(&["--ballot", "144", "174"]),
        "2 ballot(s) give 4 games",
    );
    common::assert_says(
        &games_of(&["--ballots", "156"]),
        "156 ballot(s) give 312 games",
    );
    common::assert_says(
        &games_of(&["--deck", "144"]),
        "144 ballot(s) give 288 games",
    );
}
