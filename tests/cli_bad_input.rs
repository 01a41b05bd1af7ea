//! Issue 25: bad input never panics, hangs or eats the machine. One test
//! per defect found by trying the command line as a new user would; the
//! sweep over every numeric option is in cli_numeric_options.rs.

mod common;

use common::{run_without_databases, temp_dir, Ran};
use std::path::Path;
use std::time::Duration;

const START: &str = "B:W21-32:B1-12";
const BALLOTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/ballots.tsv");

/// `checkers ARGS` in a fresh folder, with empty databases that are not
/// built, killed after 20 s.
fn run(args: &[&str]) -> Ran {
    run_in(args, None)
}

fn run_in(args: &[&str], stdin: Option<&[u8]>) -> Ran {
    run_without_databases("bad-input", args, stdin)
}

/// A usage error: exit status 2, no panic, a message naming `option`
/// and containing `limit`.
fn refused(args: &[&str], option: &str, limit: &str) {
    let r = run(args);
    assert!(!r.crashed(), "{args:?}: {r:?}");
    assert_eq!(r.code, Some(2), "{args:?}: {r:?}");
    assert!(r.stderr.contains(option), "{args:?}: {}", r.stderr);
    assert!(r.stderr.contains(limit), "{args:?}: {}", r.stderr);
}

#[test]
fn item_1_seconds_past_a_year_are_usage_errors() {
    let year = "31536000";
    refused(&["solve", START, "--time", "1e30"], "--time", year);
    refused(&["bestmove", START, "--time", "1e30"], "--time", year);
    refused(&["ballots", "run", "--budget", "1e30"], "--budget", year);
    refused(
        &["ballots", "run", "--position-budget", "1e30"],
        "--position-budget",
        year,
    );
    refused(
        &[
            "solve",
            START,
            "--checkpoint",
            "ck",
            "--checkpoint-every",
            "1e30",
        ],
        "--checkpoint-every",
        year,
    );
    let b = ["match", "--self", "--ballots-file", BALLOTS];
    refused(&[&b[..], &["--time", "1e30"]].concat(), "--time", year);
    refused(&[&b[..], &["--clock", "1e30+0"]].concat(), "--clock", year);
    refused(&[&b[..], &["--clock", "60+1e30"]].concat(), "--clock", year);
    // The Hub says so and keeps its level; the session goes on.
    let r = run_in(
        &["hub"],
        Some(b"level move-time=1e30\nlevel time=1e30\nlevel inc=1e30\nping\n"),
    );
    assert!(!r.crashed(), "{r:?}");
    assert_eq!(r.code, Some(0), "{r:?}");
    for k in ["move-time", "time", "inc"] {
        assert!(
            r.stdout.contains(&format!("error level {k}=1e30")),
            "{}",
            r.stdout
        );
    }
    assert!(r.stdout.contains("pong"), "{}", r.stdout);
}

#[test]
fn item_2_egdb_bench_takes_2_to_8_pieces() {
    for n in ["0", "1", "9"] {
        refused(&["egdb", "bench", "--pieces", n], "--pieces", "2 to 8");
    }
}

#[test]
fn item_3_sizes_are_checked_against_the_memory_before_allocating() {
    for mb in ["4294967296", "18446744073709551615"] {
        refused(&["bestmove", START, "--tt-mb", mb], "--tt-mb", "memory");
        refused(&["hub", "--tt-mb", mb], "--tt-mb", "memory");
        refused(&["match", "--self", "--tt-mb", mb], "--tt-mb", "memory");
    }
    refused(&["tune", "--games", "4294967296"], "--games", "1000000");
    refused(
        &["solve", START, "--table-entries", "18446744073709551615"],
        "--table-entries",
        "memory",
    );
    refused(
        &["solve", START, "--retro-positions", "4294967296000"],
        "--retro-positions",
        "memory",
    );
}

#[test]
fn item_4_thread_counts_are_capped() {
    let many = "4294967296";
    refused(&["perft", "3", "--threads", many], "--threads", "1 to 1024");
    refused(
        &["egdb", "build", "--pieces", "2", "--threads", many],
        "--threads",
        "1 to 1024",
    );
    refused(
        &["ballots", "run", "--threads", many],
        "--threads",
        "1 to 1024",
    );
    refused(
        &["match", "--self", "--threads", many],
        "--threads",
        "1 to 1024",
    );
    refused(&["tune", "--threads", many], "--threads", "1 to 1024");
}

/// Runs `checkers ARGS > /dev/full`.
fn to_full_device(args: &[&str]) -> (Option<i32>, String) {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_checkers"))
        .args(args)
        .stdout(full)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn item_5_a_full_device_on_stdout_is_an_error_naming_it() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    for args in [
        &["show", START][..],
        &["perft", "3"],
        &["bestmove", START, "--depth", "2"],
        &["egdb", "slices", "--pieces", "3"],
        &["ballots", "list"],
        &["solve", "W:W18:B14"],
    ] {
        let (code, err) = to_full_device(args);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(err.contains("standard output"), "{args:?}: {err}");
    }
}

#[test]
fn item_6_the_hub_ends_when_its_input_ends_even_mid_search() {
    let r = run_in(
        &["hub"],
        Some(b"hub\ninit\nlevel infinite\npos start\ngo think\n"),
    );
    assert!(!r.timed_out, "{r:?}");
    assert_eq!(r.code, Some(0), "{r:?}");
    assert!(r.stdout.contains("done move="), "{}", r.stdout);
    assert!(r.took < Duration::from_secs(5), "{:?}", r.took);
}

#[test]
fn item_7_a_silent_engine_loses_on_time_and_the_match_goes_on() {
    // It answers the handshake, then never moves. (One that never answers
    // at all is a misconfigured engine, no match: tests/cli_faults.rs.)
    let r = run(&[
        "match",
        "--engine-cmd",
        "echo wait; echo ready; sleep 1000",
        "--games",
        "2",
        "--depth",
        "1",
        "--engine-margin",
        "0.5",
        "--ballots-file",
        BALLOTS,
    ]);
    assert!(!r.timed_out, "{r:?}");
    assert_eq!(r.code, Some(0), "{r:?}");
    assert_eq!(
        r.stderr.matches("no answer in time").count(),
        2,
        "{}",
        r.stderr
    );
    assert!(r.stdout.contains("A: +2 =0 -0 of 2 games"), "{}", r.stdout);
    assert!(r.took < Duration::from_secs(8), "{:?}", r.took);
}

#[test]
fn item_8_endless_files_are_refused_not_read_into_memory() {
    for dev in ["/dev/zero", "/dev/urandom"] {
        if !Path::new(dev).exists() {
            continue;
        }
        let r = run(&["pdn", "check", dev]);
        assert_eq!(r.code, Some(1), "{r:?}");
        assert!(r.stderr.contains("binary data"), "{}", r.stderr);
        let r = run(&["proof", "verify", dev]);
        assert_eq!(r.code, Some(1), "{r:?}");
        assert!(!r.crashed(), "{r:?}");
        let r = run(&[
            "tune",
            "--positions",
            dev,
            "--games",
            "1",
            "--ballots-file",
            BALLOTS,
        ]);
        assert_eq!(r.code, Some(1), "{r:?}");
        assert!(r.stderr.contains("not a regular file"), "{}", r.stderr);
    }
}

#[test]
fn item_9_a_byte_order_mark_is_not_an_error() {
    let dir = temp_dir("bom");
    let f = dir.path().join("bom.pdn");
    std::fs::write(&f, b"\xEF\xBB\xBF[Event \"x\"]\n1. 11-15 23-19 *\n").unwrap();
    let r = run(&["pdn", "check", f.to_str().unwrap()]);
    assert_eq!(r.code, Some(0), "{r:?}");
    assert!(r.stdout.contains("1 games, 1 legal"), "{}", r.stdout);
}

#[test]
fn item_10_nothing_bad_is_ignored_silently() {
    // More games than the ballot set gives.
    refused(
        &[
            "match",
            "--self",
            "--games",
            "4294967296",
            "--ballots-file",
            BALLOTS,
        ],
        "--games",
        "312 games",
    );
    // A Hub level with a bad value.
    let r = run_in(
        &["hub"],
        Some(b"level depth=x\nlevel nodes=0\nlevel speed=3\n"),
    );
    assert_eq!(r.code, Some(0), "{r:?}");
    assert_eq!(r.stdout.matches("error level").count(), 2, "{}", r.stdout);
    assert!(
        r.stdout.contains("unknown level argument speed"),
        "{}",
        r.stdout
    );
    // A trunk file whose games are all illegal.
    let dir = temp_dir("trunks");
    let bad = dir.path().join("bad.pdn");
    std::fs::write(&bad, "[Event \"x\"]\n1. 9-14 *\n").unwrap();
    let store = dir.path().join("s.sqlite");
    let r = run(&[
        "ballots",
        "run",
        "--ballot",
        "1",
        "--egdb-pieces",
        "0",
        "--trunks",
        bad.to_str().unwrap(),
        "--store",
        store.to_str().unwrap(),
    ]);
    assert_eq!(r.code, Some(1), "{r:?}");
    assert!(r.stderr.contains("none of its 1 games"), "{}", r.stderr);
    // `B` alone is not an empty board.
    let r = run(&["show", "B"]);
    assert_eq!(r.code, Some(1), "{r:?}");
    assert!(r.stderr.contains("expected 3"), "{}", r.stderr);
}

#[cfg(unix)]
#[test]
fn item_11_a_result_never_replaces_what_is_not_a_regular_file() {
    let dir = temp_dir("devnull");
    let link = dir.path().join("null");
    std::os::unix::fs::symlink("/dev/null", &link).unwrap();
    let r = run(&["solve", "W:W18:B14", "--proof-out", link.to_str().unwrap()]);
    assert_eq!(r.code, Some(1), "{r:?}");
    assert!(r.stderr.contains("not a regular file"), "{}", r.stderr);
    assert_eq!(std::fs::read_link(&link).unwrap(), Path::new("/dev/null"));
}

#[test]
fn item_12_a_truncated_database_under_a_search_is_documented() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for doc in ["README.md", "docs/egdb-format.txt"] {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        assert!(
            text.contains("SIGBUS"),
            "{doc} does not say what a truncated file does"
        );
    }
}

#[test]
fn item_13_the_docs_named_by_the_help_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for cmd in ["solve", "egdb", "db", "hub", "proof"] {
        let r = run(&[cmd, "--help"]);
        for word in r
            .stdout
            .split(|c: char| c.is_whitespace() || "(),;:".contains(c))
        {
            if let Some(i) = word.find("docs/") {
                let path = word[i..].trim_end_matches('.');
                assert!(
                    root.join(path).exists(),
                    "{cmd} --help names {path}, which is missing"
                );
            }
        }
    }
    let r = run(&["solve", "--help"]);
    assert!(r.stdout.contains("docs/proof-format.txt"), "{}", r.stdout);
}
