//! Every numeric option of every subcommand, found by walking the
//! binary's `-h` output, with the values a new user might type at the
//! edges (0, 1, the integer types' maxima, 1e30, NaN, -1): no run may
//! panic, abort or outlast a few seconds. A value a command cannot honour
//! quickly must be refused (a usage error naming the limit), not run.
//! Each run gets the positional arguments and small settings its command
//! needs, a fresh working folder, empty databases that are never built
//! and its own store; runs go two at a time.

mod common;

use common::{run_checkers, temp_dir, Ran};
use std::collections::VecDeque;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

const VALUES: [&str; 9] = [
    "0",
    "1",
    "2147483647",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "1e30",
    "NaN",
    "-1",
];

/// Longest a run may take.
const TIMEOUT: Duration = Duration::from_secs(10);

const START: &str = "B:W21-32:B1-12";
/// White to move must take Black's last man: settled at once.
const NEAR_END: &str = "W:W18:B14";
const BALLOTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/ballots.tsv");

/// The subcommand paths of the binary that have no subcommands of their
/// own, from the `Commands:` sections of `-h`.
fn leaves(path: Vec<String>, out: &mut Vec<Vec<String>>) {
    let help = help(&path);
    let mut subs = Vec::new();
    let mut in_commands = false;
    for line in help.lines() {
        if line.starts_with("Commands:") {
            in_commands = true;
            continue;
        }
        if in_commands {
            match line.split_whitespace().next() {
                Some(name) if line.starts_with("  ") => {
                    if name != "help" {
                        subs.push(name.to_string());
                    }
                }
                _ => in_commands = false,
            }
        }
    }
    if subs.is_empty() {
        out.push(path);
        return;
    }
    for s in subs {
        let mut p = path.clone();
        p.push(s);
        leaves(p, out);
    }
}

fn help(path: &[String]) -> String {
    let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
    args.push("-h");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_checkers"))
        .args(&args)
        .output()
        .expect("run checkers -h");
    assert!(out.status.success(), "{args:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The long options of a subcommand that take a value.
fn value_options(path: &[String]) -> Vec<String> {
    help(path)
        .lines()
        .filter_map(|l| {
            let t = l.trim_start();
            let t = t.strip_prefix("-h, ").unwrap_or(t);
            let (name, rest) = t.strip_prefix("--")?.split_once(' ')?;
            rest.starts_with('<').then(|| format!("--{name}"))
        })
        .collect()
}

/// What a subcommand needs to run quickly: positional arguments and
/// small settings (an option varied is taken out of them).
/// What `ballots run` and `ballots lines` need: one ballot's line, no
/// databases, depth 2, a store of the test's own.
const ONE_LINE: [&str; 8] = [
    "--ballot",
    "1",
    "--egdb-pieces",
    "0",
    "--line-depth",
    "2",
    "--store",
    "s.sqlite",
];

fn base(path: &str, shared: &Shared) -> Vec<String> {
    let v: Vec<&str> = match path {
        "perft" => vec!["2"],
        "bench" => vec!["--depth", "1", "--repeat", "1"],
        "egdb build" => vec!["--pieces", "2", "--dir", "db"],
        "egdb stats" | "egdb verify" => vec!["--dir", &shared.db],
        "egdb bench" => vec![
            "--dir",
            &shared.db,
            "--pieces",
            "3",
            "--positions",
            "1000",
            "--repeat",
            "1",
        ],
        "egdb slices" => vec!["--pieces", "3"],
        "bestmove" => vec![START, "--depth", "2"],
        "match" => vec![
            "--self",
            "--games",
            "1",
            "--depth",
            "1",
            "--max-plies",
            "4",
            "--ballots-file",
            BALLOTS,
        ],
        "tune" => learning(&["--iterations", "1"], "w.rs"),
        "train" => learning(&["--steps", "1", "--egdb-pieces", "0"], "w.bin"),
        "solve" => vec![NEAR_END],
        "proof verify" | "proof show" => vec![&shared.proof],
        "proof export" => vec!["--format", "json", &shared.proof],
        "db bench" => vec!["--dir", "scratch"],
        // No repair: the repaired line's walk reaches a 4-piece ending
        // whose proof extraction with --table-entries 1 takes df-pn's
        // 10 s extraction floor (solve/searches.rs), whatever the budget.
        "ballots run" => [
            &ONE_LINE[..],
            &[
                "--budget",
                "0.3",
                "--position-budget",
                "0.2",
                "--repair-depth",
                "0",
            ],
        ]
        .concat(),
        "ballots lines" => ONE_LINE.to_vec(),
        _ => vec![],
    };
    v.into_iter().map(String::from).collect()
}

/// What `tune` and `train` need: one game at depth 1 with no random
/// plies, `own` (their own settings), positions in `t.tsv` and the
/// weights written to `out`.
fn learning<'a>(own: &[&'a str], out: &'a str) -> Vec<&'a str> {
    let game = ["--games", "1", "--depth", "1", "--random-plies", "0"];
    let files = [
        "--positions",
        "t.tsv",
        "--out",
        out,
        "--ballots-file",
        BALLOTS,
    ];
    [&game[..], own, &files].concat()
}

/// Options an option needs beside it.
fn extra(path: &str, option: &str) -> Vec<String> {
    match (path, option) {
        ("solve", "--checkpoint-every") => vec!["--checkpoint", "ck", "--solver", "dfpn"],
        _ => vec![],
    }
    .into_iter()
    .map(String::from)
    .collect()
}

/// Files every run may read: databases of up to 3 pieces, a proof file.
struct Shared {
    _dir: tempfile::TempDir,
    db: String,
    proof: String,
}

fn run(args: &[String]) -> Ran {
    let dir = temp_dir("numeric");
    let egdb = dir.path().join("egdb");
    std::fs::create_dir_all(&egdb).unwrap();
    let store = dir.path().join("store.sqlite");
    let env = [
        ("CHECKERS_EGDB", egdb.to_str().unwrap()),
        ("CHECKERS_EGDB_BUILD", "no"),
        ("CHECKERS_STORE", store.to_str().unwrap()),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_checkers(&args, dir.path(), &env, None, TIMEOUT)
}

fn shared() -> Shared {
    let dir = temp_dir("numeric-shared");
    let db = dir.path().join("db");
    let proof = dir.path().join("p.proof");
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let r = run(&["egdb", "build", "--pieces", "3", "--dir", &s(&db)].map(String::from));
    assert_eq!(r.code, Some(0), "{r:?}");
    let r = run(&["solve", NEAR_END, "--proof-out", &s(&proof)].map(String::from));
    assert_eq!(r.code, Some(0), "{r:?}");
    Shared {
        db: s(&db),
        proof: s(&proof),
        _dir: dir,
    }
}

/// `args` with `option` and its value taken out.
fn without(args: &[String], option: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip = false;
    for a in args {
        if skip {
            skip = false;
        } else if a == option {
            skip = true;
        } else {
            out.push(a.clone());
        }
    }
    out
}

/// Runs the jobs two at a time; what `judge` makes of each run, where it
/// makes something (a failure, a job found).
fn run_all<T: Send>(
    jobs: Vec<Vec<String>>,
    judge: impl Fn(&[String], &Ran) -> Option<T> + Sync,
) -> Vec<T> {
    let queue = Mutex::new(VecDeque::from(jobs));
    let found = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let Some(job) = queue.lock().unwrap().pop_front() else {
                    break;
                };
                let r = run(&job);
                if let Some(f) = judge(&job, &r) {
                    found.lock().unwrap().push(f);
                }
            });
        }
    });
    found.into_inner().unwrap()
}

fn no_crash_no_hang(job: &[String], r: &Ran) -> Option<String> {
    let line = || format!("checkers {}", job.join(" "));
    if r.timed_out {
        Some(format!("{}: still running after {TIMEOUT:?}", line()))
    } else if r.crashed() {
        Some(format!(
            "{}: crashed ({:?}): {}",
            line(),
            r.code,
            r.stderr.lines().take(3).collect::<Vec<_>>().join(" | ")
        ))
    } else {
        None
    }
}

#[test]
fn every_numeric_option_survives_extreme_values() {
    let t = Instant::now();
    let shared = shared();
    let mut paths = Vec::new();
    leaves(Vec::new(), &mut paths);
    assert!(paths.len() > 20, "{paths:?}");
    // Which value options are numbers: those whose parser refuses a word
    // (not a choice among names).
    let mut candidates = Vec::new();
    for p in &paths {
        let key = p.join(" ");
        for o in value_options(p) {
            let mut job = p.clone();
            job.extend(without(&base(&key, &shared), &o));
            job.extend(extra(&key, &o));
            job.push(o.clone());
            job.push("abc".into());
            candidates.push(job);
        }
    }
    let numeric = run_all(candidates, |job, r| {
        (r.code == Some(2)
            && r.stderr.contains("invalid value 'abc'")
            && !r.stderr.contains("possible values"))
        .then(|| job.to_vec())
    });
    // Each job ends with the option and its value.
    let names: Vec<String> = numeric.iter().map(|j| j[j.len() - 2].clone()).collect();
    for expected in [
        "--time",
        "--threads",
        "--tt-mb",
        "--egdb-pieces",
        "--games",
        "--budget",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} not found: {names:?}"
        );
    }
    let mut jobs = Vec::new();
    for job in &numeric {
        for v in VALUES {
            let mut j = job.clone();
            *j.last_mut().unwrap() = v.to_string();
            jobs.push(j);
        }
    }
    // The one numeric positional argument.
    for v in VALUES {
        jobs.push(vec!["perft".into(), v.into()]);
    }
    let count = jobs.len();
    let failures = run_all(jobs, no_crash_no_hang);
    eprintln!(
        "{} numeric options, {count} runs in {:.1} s",
        numeric.len(),
        t.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
