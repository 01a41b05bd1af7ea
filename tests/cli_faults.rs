//! Issue 52, items 4-11: files beside a store, stores opened at once by
//! several processes, devices and pipes given as files, temporary names
//! shared by two writers, interrupted backups, an engine that never
//! answers, and error texts. Each test is the repro.
//!
//! Some tests run this test binary itself as a child process (the
//! `child_*` tests, active only when their environment variable is set),
//! as `proofdb/tests/crash.rs` does.

mod common;

use common::{run_checkers, temp_dir, Ran};
use engine::{Color, Position, Value};
use proofdb::{Outcome, Provenance, Store};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
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
