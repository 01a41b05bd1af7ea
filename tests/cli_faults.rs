//! Issue 52, items 4-11: files beside a store, stores opened at once by
//! several processes, devices and pipes given as files, temporary names
//! shared by two writers, interrupted backups, an engine that never
//! answers, and error texts. Each test is the repro.
//!
//! Some tests run this test binary itself as a child process (the
//! `child_*` tests, active only when their environment variable is set),
//! as `proofdb/tests/crash.rs` does.

mod common;

use common::{run_in_without_databases_for, temp_dir, Ran};
use engine::{Color, Position, Value};
use proofdb::{Outcome, Provenance, Store};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const WRITER_ENV: &str = "CHECKERS_FAULTS_WRITER";
const OPEN_ENV: &str = "CHECKERS_FAULTS_OPEN";
const GO_AT_ENV: &str = "CHECKERS_FAULTS_GO_AT";

fn pos(n: u32) -> Position {
    Position::from_bitboards_unchecked(n & 0xFFF, ((n >> 12) & 0xFF) << 20, 0, Color::Black)
}

fn prov() -> Provenance {
    Provenance {
        solver: "ab".into(),
        nodes: 1,
        millis: 1,
        egdb_pieces: 0,
        run_id: "faults".into(),
    }
}

/// A complete store at `path` with `n` results (positions `from..from+n`).
fn store_with(path: &Path, from: u32, n: u32) {
    let s = Store::open(path).unwrap();
    for i in from..from + n {
        proofdb::testing::put_outcome_unverified(&s, &pos(i), Outcome::Exact(Value::Win), &prov())
            .unwrap();
    }
}

fn run(dir: &Path, args: &[&str]) -> Ran {
    run_in_without_databases_for(dir, args, None, Duration::from_secs(30))
}

fn side(path: &Path, suffix: &str) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn this_test(name: &str) -> Command {
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args(["--exact", name, "--nocapture", "--test-threads=1"]);
    c
}

/// The child of `a_backup_replaces_a_killed_writers_store_whole`: writes 5
/// results to the store named by `CHECKERS_FAULTS_WRITER`, says `READY`
/// and waits to be killed.
#[test]
fn child_writer() {
    let Ok(path) = std::env::var(WRITER_ENV) else {
        return;
    };
    let s = Store::open(&path).unwrap();
    for i in 1000..1005 {
        proofdb::testing::put_outcome_unverified(&s, &pos(i), Outcome::AtLeastDraw, &prov())
            .unwrap();
    }
    println!("READY");
    std::thread::sleep(Duration::from_secs(60));
}

fn start_writer(path: &Path) -> Child {
    let mut child = this_test("child_writer")
        .env(WRITER_ENV, path)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = BufReader::new(child.stdout.take().unwrap());
    for line in out.lines() {
        if line.unwrap().contains("READY") {
            return child;
        }
    }
    let status = child.wait();
    panic!("the writer child ended before it was ready: {status:?}");
}

/// Item 4: `db backup` over a store whose writer was killed (its `-wal`
/// still beside it) is the whole copy, says the copy's count, and shows
/// it to every later reader; over a store a live process holds it is
/// refused, naming the files.
#[test]
fn a_backup_replaces_a_killed_writers_store_whole() {
    let tmp = temp_dir("faults-backup-wal");
    let dir = tmp.path();
    store_with(&dir.join("good.sqlite"), 1, 12);
    let d = dir.join("d.sqlite");
    let mut writer = start_writer(&d);
    assert!(side(&d, "-wal").exists());
    // A live writer holds d.sqlite: replacing it would mix its log in.
    let out = run(dir, &["db", "backup", "d.sqlite", "--store", "good.sqlite"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(out.stderr.contains("d.sqlite-wal"), "{}", out.stderr);
    assert!(out.stderr.contains("in use"), "{}", out.stderr);
    writer.kill().unwrap();
    writer.wait().unwrap();
    // Killed: its log is left, holding commits of the old file.
    assert!(std::fs::metadata(side(&d, "-wal")).unwrap().len() > 0);
    let out = run(dir, &["db", "backup", "d.sqlite", "--store", "good.sqlite"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(
        out.stdout.contains("copied to d.sqlite (12 results)"),
        "{}",
        out.stdout
    );
    let out = run(dir, &["db", "stats", "--json", "--store", "d.sqlite"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["results"], 12, "{}", out.stdout);
    let out = run(dir, &["db", "check", "--store", "d.sqlite"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    // A read-write open keeps them all.
    assert_eq!(Store::open(&d).unwrap().result_count().unwrap(), 12);
    assert_eq!(
        Store::open_readonly(&d).unwrap().result_count().unwrap(),
        12
    );
}

/// The child of `a_new_store_opened_by_many_processes_at_once`: opens the
/// store named by `CHECKERS_FAULTS_OPEN` at the moment (Unix ms) given by
/// `CHECKERS_FAULTS_GO_AT`.
#[test]
fn child_open() {
    let Ok(path) = std::env::var(OPEN_ENV) else {
        return;
    };
    let at: u128 = std::env::var(GO_AT_ENV).unwrap().parse().unwrap();
    while SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis()
        < at
    {
        std::hint::spin_loop();
    }
    if let Err(e) = Store::open(&path) {
        println!("FAILED {e}");
        std::process::exit(3);
    }
}

/// Waits for `children` of round `round` (all started before, the output
/// that says why they fail piped), asserting that each succeeded and
/// showing what one that did not wrote.
fn assert_all_succeed(round: u32, children: impl IntoIterator<Item = Child>) {
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "round {round}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Item 5: processes that create the same new store at once all succeed.
#[test]
fn a_new_store_opened_by_many_processes_at_once() {
    let tmp = temp_dir("faults-migrate");
    for round in 0..6 {
        let path = tmp.path().join(format!("n{round}.sqlite"));
        let at = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis()
            + 300;
        let children: Vec<Child> = (0..4)
            .map(|_| {
                this_test("child_open")
                    .env(OPEN_ENV, &path)
                    .env(GO_AT_ENV, at.to_string())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap()
            })
            .collect();
        assert_all_succeed(round, children);
        let s = Store::open_readonly(&path).unwrap();
        assert_eq!(
            s.stats().unwrap().schema_version,
            proofdb::schema::SCHEMA_VERSION
        );
    }
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(ok.success());
}

/// Item 6: a device, a pipe or a link to one given as the store is
/// refused as such, and nothing is created beside its target.
#[cfg(unix)]
#[test]
fn a_device_or_pipe_is_not_a_store() {
    let tmp = temp_dir("faults-device");
    let dir = tmp.path();
    let journal_before = Path::new("/dev/null-journal").exists();
    std::os::unix::fs::symlink("/dev/null", dir.join("null.sqlite")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.sqlite")).unwrap();
    mkfifo(&dir.join("fifo.sqlite"));
    let writing = run(dir, &["solve", "W:WK1,K3:BK32", "--store", "null.sqlite"]);
    let direct = run(dir, &["solve", "W:WK1,K3:BK32", "--store", "/dev/null"]);
    if !journal_before {
        // Clean up after the old code, which made it.
        let made = Path::new("/dev/null-journal").exists();
        let _ = std::fs::remove_file("/dev/null-journal");
        assert!(!made, "a journal was made beside /dev/null");
    }
    for out in [&writing, &direct] {
        assert_eq!(out.code, Some(1), "{out:?}");
        assert!(out.stderr.contains("not a regular file"), "{}", out.stderr);
    }
    for store in ["zero.sqlite", "fifo.sqlite", "null.sqlite"] {
        let out = run(dir, &["db", "stats", "--store", store]);
        assert_eq!(out.code, Some(1), "{out:?}");
        assert!(out.stderr.contains("not a regular file"), "{}", out.stderr);
        assert!(!out.stderr.contains("empty file"), "{}", out.stderr);
    }
    let out = run(dir, &["solve", "W:WK1,K3:BK32", "--store", "fifo.sqlite"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(out.stderr.contains("a FIFO"), "{}", out.stderr);
    assert_eq!(
        names(dir),
        ["egdb", "fifo.sqlite", "null.sqlite", "zero.sqlite"]
    );
}

/// Item 7: two builds of one folder at once both succeed, and leave the
/// slices and nothing else.
#[test]
fn two_builds_of_one_folder_at_once() {
    let tmp = temp_dir("faults-builds");
    for round in 0..3 {
        let d = tmp.path().join(format!("d{round}"));
        let build = || {
            Command::new(env!("CARGO_BIN_EXE_checkers"))
                .args(["egdb", "build", "--pieces", "3", "--dir"])
                .arg(&d)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        assert_all_succeed(round, [build(), build()]);
        let files = names(&d);
        assert_eq!(files.len(), 156, "{files:?}");
        assert!(files.iter().all(|f| f.ends_with(".egdb")), "{files:?}");
    }
}

/// Items 5 and 7: two ballot walks at once on one new store (both create
/// it, and both build the databases they need into one folder), then two
/// more on the store they made: all four succeed, and leave no temporary
/// file and nothing beside the store.
#[test]
fn two_walks_at_once_on_one_store() {
    let tmp = temp_dir("faults-walks");
    let dir = tmp.path();
    let walk = || {
        Command::new(env!("CARGO_BIN_EXE_checkers"))
            .args([
                "ballots",
                "run",
                "--store",
                "s.sqlite",
                "--egdb-pieces",
                "3",
            ])
            .args(["--line-depth", "6", "--threads", "1", "--ballot", "5"])
            .args(["--budget", "2", "--position-budget", "1"])
            .current_dir(dir)
            .env("CHECKERS_EGDB", dir.join("egdb"))
            .env_remove("CHECKERS_EGDB_BUILD")
            .env_remove("CHECKERS_STORE")
            .env_remove("CHECKERS_DATA")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    for round in 0..2 {
        assert_all_succeed(round, [walk(), walk()]);
    }
    let beside: Vec<String> = names(dir)
        .into_iter()
        .filter(|n| n.starts_with("s.sqlite"))
        .collect();
    assert_eq!(beside, ["s.sqlite", "s.sqlite.dfpn"]);
    let carried = names(&dir.join("s.sqlite.dfpn"));
    assert!(carried.iter().all(|n| n.ends_with(".dfpn")), "{carried:?}");
    let built = names(&dir.join("egdb"));
    assert!(built.iter().all(|n| n.ends_with(".egdb")), "{built:?}");
}

/// Item 7: files replaced whole by two writers at once (two walks'
/// df-pn tables in one carry-over folder) never fail on each other's
/// temporary file.
#[test]
fn two_writers_replacing_one_file_at_once() {
    let tmp = temp_dir("faults-replace");
    let dest = tmp.path().join("tables.dfpn");
    std::thread::scope(|s| {
        for t in 0..2u8 {
            let dest = &dest;
            s.spawn(move || {
                for i in 0..300u32 {
                    engine::durable::replace_file(dest, |f| {
                        std::io::Write::write_all(f, &[t; 4096])
                    })
                    .unwrap_or_else(|e| panic!("writer {t}, write {i}: {e}"));
                }
            });
        }
    });
    let bytes = std::fs::read(&dest).unwrap();
    assert!(bytes == [0u8; 4096] || bytes == [1u8; 4096]);
    assert_eq!(names(tmp.path()), ["tables.dfpn"]);
}

fn backup_temps(dir: &Path) -> Vec<String> {
    names(dir)
        .into_iter()
        .filter(|n| n.starts_with(".d.sqlite.backup-"))
        .collect()
}

/// Item 8: SIGTERM during `db backup` removes its temporary files and
/// says so; a later backup removes those of a killed one.
#[cfg(unix)]
#[test]
fn an_interrupted_backup_leaves_nothing() {
    let tmp = temp_dir("faults-backup-term");
    let dir = tmp.path();
    let big = dir.join("big.sqlite");
    store_with(&big, 1, 3);
    {
        // About 200 MB, so that the copy takes a while.
        let c = rusqlite::Connection::open(&big).unwrap();
        c.execute_batch(
            "INSERT INTO runs (id, started, finished, command, host)
             VALUES ('big', 0, NULL, hex(zeroblob(100000000)), 'h');",
        )
        .unwrap();
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_checkers"))
        .args(["db", "backup", "d.sqlite", "--store", "big.sqlite"])
        .current_dir(dir)
        .env_remove("CHECKERS_STORE")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while backup_temps(dir).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no temporary file"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the backup ended first"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    let term = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(143), "{err}");
    assert!(err.contains("interrupted"), "{err}");
    assert!(backup_temps(dir).is_empty(), "{:?}", names(dir));
    assert!(!dir.join("d.sqlite").exists());

    // What a backup killed with SIGKILL left (named as before), and one of
    // a process still running: the next backup removes the first only.
    let dead = {
        let mut c = Command::new("true").spawn().unwrap();
        let id = c.id();
        c.wait().unwrap();
        id
    };
    let alive = std::process::id();
    for name in [
        format!(".d.sqlite.backup-{dead}.tmp"),
        format!(".d.sqlite.backup-{dead}.tmp-journal"),
        format!(".d.sqlite.backup-{alive}.tmp"),
    ] {
        std::fs::write(dir.join(name), b"x").unwrap();
    }
    store_with(&dir.join("small.sqlite"), 1, 2);
    let out = run(
        dir,
        &["db", "backup", "d.sqlite", "--store", "small.sqlite"],
    );
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(backup_temps(dir), [format!(".d.sqlite.backup-{alive}.tmp")]);
}

/// Item 9: a pipe named like a slice file is refused, not waited on.
#[cfg(unix)]
#[test]
fn a_pipe_among_the_slice_files_is_refused() {
    let tmp = temp_dir("faults-egdb-fifo");
    let d = tmp.path().join("d");
    let out = run(
        tmp.path(),
        &[
            "egdb",
            "build",
            "--pieces",
            "2",
            "--dir",
            d.to_str().unwrap(),
        ],
    );
    assert_eq!(out.code, Some(0), "{out:?}");
    let slice = d.join("0m1k-0m1k.egdb");
    std::fs::remove_file(&slice).unwrap();
    mkfifo(&slice);
    let out = run(
        tmp.path(),
        &["egdb", "probe", "W:WK1:BK32", "--dir", d.to_str().unwrap()],
    );
    assert!(!out.timed_out, "the probe waited on the pipe");
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(out.stderr.contains("0m1k-0m1k.egdb"), "{}", out.stderr);
    assert!(out.stderr.contains("not a regular file"), "{}", out.stderr);
}

/// Item 10: a match against an engine that never answers is an error,
/// not a won match.
#[test]
fn a_match_against_a_silent_engine_fails() {
    let tmp = temp_dir("faults-match");
    let out = run(
        tmp.path(),
        &[
            "match",
            "--engine-cmd",
            "sleep 1000",
            "--games",
            "2",
            "--depth",
            "1",
            "--engine-margin",
            "0.3",
        ],
    );
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(out.stderr.contains("never answered"), "{}", out.stderr);
    assert!(!out.stdout.contains("Elo"), "{}", out.stdout);
}

/// Item 11: an error's text is said once.
#[test]
fn an_error_is_said_once() {
    let tmp = temp_dir("faults-texts");
    let dir = tmp.path();
    store_with(&dir.join("good.sqlite"), 1, 2);
    let out = run(
        dir,
        &["db", "backup", "nodir/x.sqlite", "--store", "good.sqlite"],
    );
    assert_eq!(out.code, Some(1), "{out:?}");
    let said = out.stderr.trim();
    assert_eq!(said.lines().count(), 1, "{said}");
    let words: Vec<&str> = said.split(": ").collect();
    let mut once = words.clone();
    once.dedup();
    assert_eq!(words, once, "{said}");
    assert!(
        said.matches("unable to open").count() + said.matches("No such file").count() == 1,
        "{said}"
    );
}

/// Item 11: the checkpoint's magic is named as text.
#[test]
fn a_file_that_is_not_a_checkpoint_is_named_as_text() {
    let tmp = temp_dir("faults-ckpt");
    let dir = tmp.path();
    std::fs::write(dir.join("junk.ckpt"), [b'x'; 200]).unwrap();
    let out = run(
        dir,
        &[
            "solve",
            "W:WK1,K3:BK32",
            "--solver",
            "dfpn",
            "--checkpoint",
            "junk.ckpt",
        ],
    );
    let said = format!("{}{}", out.stdout, out.stderr);
    assert!(said.contains("not a df-pn checkpoint"), "{said}");
    assert!(said.contains("\"CKDFPNCP\""), "{said}");
    assert!(!said.contains("[67, 75"), "{said}");
}

/// Item 11: `db merge` leaves nothing beside the shards it only reads.
#[test]
fn a_merge_leaves_nothing_beside_its_shards() {
    let tmp = temp_dir("faults-merge");
    let dir = tmp.path();
    store_with(&dir.join("a.sqlite"), 1, 3);
    store_with(&dir.join("b.sqlite"), 10, 3);
    let out = run(
        dir,
        &["db", "merge", "a.sqlite", "b.sqlite", "--store", "m.sqlite"],
    );
    assert_eq!(out.code, Some(0), "{out:?}");
    let left: Vec<String> = names(dir)
        .into_iter()
        .filter(|n| n.starts_with("a.sqlite") || n.starts_with("b.sqlite"))
        .collect();
    assert_eq!(left, ["a.sqlite", "b.sqlite"]);
    let out = run(dir, &["db", "stats", "--json", "--store", "m.sqlite"]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["results"], 6);
}
