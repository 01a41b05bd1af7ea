//! Helpers shared by the command-line integration tests.

use tempfile::TempDir;

/// A fresh empty folder under the system temp dir named
/// `checkers-{name}-…`, removed when the returned `TempDir` is dropped
/// (also when the test fails).
pub fn temp_dir(name: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("checkers-{name}-"))
        .tempdir()
        .unwrap()
}

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How a run of the binary ended.
#[allow(dead_code)] // each test file uses a part
#[derive(Debug)]
pub struct Ran {
    /// The exit status, `None` when a signal ended it (or the timeout).
    pub code: Option<i32>,
    /// Whether it was killed for running past the timeout.
    pub timed_out: bool,
    /// Standard output and error, as text.
    pub stdout: String,
    pub stderr: String,
    /// How long it ran.
    pub took: Duration,
}

#[allow(dead_code)]
impl Ran {
    /// A panic (exit status 101, a message) or a signal (an abort).
    pub fn crashed(&self) -> bool {
        self.code.is_none() || self.code == Some(101) || self.stderr.contains("panicked")
    }
}

/// Runs `checkers ARGS` in `dir` with `env` set, `stdin` as its input
/// (none: an empty input), killed after `timeout`.
#[allow(dead_code)]
pub fn run_checkers(
    args: &[&str],
    dir: &Path,
    env: &[(&str, &str)],
    stdin: Option<&[u8]>,
    timeout: Duration,
) -> Ran {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_checkers"));
    cmd.args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let start = Instant::now();
    let mut child = cmd.spawn().expect("run checkers");
    let input = stdin.unwrap_or_default().to_vec();
    let mut pipe = child.stdin.take().expect("stdin");
    let feeder = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let reader = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            let _ = r.read_to_end(&mut s);
            String::from_utf8_lossy(&s).into_owned()
        })
    };
    let out = reader(Box::new(child.stdout.take().expect("stdout")));
    let err = reader(Box::new(child.stderr.take().expect("stderr")));
    let mut timed_out = false;
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > timeout {
            timed_out = true;
            let _ = child.kill();
            break child.wait().expect("wait");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let took = start.elapsed();
    let _ = feeder.join();
    Ran {
        code: if timed_out { None } else { status.code() },
        timed_out,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
        took,
    }
}

/// Runs `checkers ARGS` in `dir`, with `dir/egdb` as an empty database
/// folder that is not built (`CHECKERS_EGDB_BUILD=no`), `stdin` as its
/// input, killed after `timeout`.
#[allow(dead_code)]
pub fn run_in_without_databases_for(
    dir: &Path,
    args: &[&str],
    stdin: Option<&[u8]>,
    timeout: Duration,
) -> Ran {
    let egdb = dir.join("egdb");
    std::fs::create_dir_all(&egdb).unwrap();
    let env = [
        ("CHECKERS_EGDB", egdb.to_str().unwrap()),
        ("CHECKERS_EGDB_BUILD", "no"),
    ];
    run_checkers(args, dir, &env, stdin, timeout)
}

/// [`run_in_without_databases_for`], killed after a minute.
#[allow(dead_code)]
pub fn run_in_without_databases(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Ran {
    run_in_without_databases_for(dir, args, stdin, Duration::from_secs(60))
}

/// [`run_in_without_databases_for`] in a fresh folder named after `name`,
/// killed after 20 s.
#[allow(dead_code)]
pub fn run_without_databases(name: &str, args: &[&str], stdin: Option<&[u8]>) -> Ran {
    let dir = temp_dir(name);
    run_in_without_databases_for(dir.path(), args, stdin, Duration::from_secs(20))
}

/// `b` as text (invalid UTF-8 replaced).
#[allow(dead_code)]
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Asserts that `out` is a successful run, showing its standard error
/// when it is not.
#[allow(dead_code)]
pub fn assert_success(out: &std::process::Output) {
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// Asserts that `said` (a run's output) contains `part`, showing `said`
/// when it does not.
#[allow(dead_code)]
pub fn assert_says(said: &str, part: &str) {
    assert!(said.contains(part), "{said}");
}

/// `checkers` to run in `dir`, with `dir/egdb` as its database folder and
/// neither `CHECKERS_STORE` nor `CHECKERS_DATA` taken from the
/// environment.
#[allow(dead_code)]
pub fn checkers_in(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_checkers"));
    c.current_dir(dir)
        .env("CHECKERS_EGDB", dir.join("egdb"))
        .env_remove("CHECKERS_STORE")
        .env_remove("CHECKERS_DATA");
    c
}

/// `checkers ballots run` in `dir` ([`checkers_in`]) on the store
/// `s.sqlite` with databases of 4 pieces, lines 6 plies deep and one
/// thread, then `args`.
#[allow(dead_code)]
pub fn ballots_run(dir: &Path, args: &[&str]) -> Command {
    ballots_run_with(dir, "4", args)
}

/// [`ballots_run`] with databases of `pieces` pieces.
pub fn ballots_run_with(dir: &Path, pieces: &str, args: &[&str]) -> Command {
    let mut c = checkers_in(dir);
    c.args([
        "ballots",
        "run",
        "--store",
        "s.sqlite",
        "--egdb-pieces",
        pieces,
    ])
    .args(["--line-depth", "6", "--threads", "1"])
    .args(args);
    c
}
