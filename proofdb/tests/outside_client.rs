//! Another process reading a store while this program writes it loses
//! nothing, and a store whose writer has closed is complete in its main
//! file.
//!
//! The writer runs in a child process (this test binary run again with an
//! environment variable); the test itself is the outside client: a plain
//! rusqlite connection, opened and closed over and over while the child
//! commits. A program that opened and closed the store's file outside
//! SQLite would drop its own POSIX locks; the outside client, finding no
//! other user, would then checkpoint and delete the write-ahead log under
//! the writer, and the writer's later commits would be lost.

mod common;

use common::{outcome_for, send, store_path, synthetic};
use proofdb::{Provenance, ResultRecord, Store, Writer, WriterOptions};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

const ENV: &str = "PROOFDB_OUTSIDE_CLIENT_CHILD";
const COMMITS: u64 = 150;
const PER_COMMIT: u64 = 20;

fn record(n: u64) -> ResultRecord {
    common::synthetic_record(n, "child", 1)
}

/// The child: runs only when spawned by the test below. Opens the store
/// the way the commands do (a store with its reader pool, then a writer,
/// then more read-only opens while writing) and commits in small steps.
#[test]
fn child_store_writer() {
    let Ok(path) = std::env::var(ENV) else {
        return;
    };
    let store = Store::open(&path).unwrap();
    let w = Writer::open(&path, WriterOptions::default()).unwrap();
    let h = w.handle();
    for c in 0..COMMITS {
        for i in 0..PER_COMMIT {
            send(&h, record(c * PER_COMMIT + i)).unwrap();
        }
        h.flush().unwrap();
        if c % 10 == 0 {
            // Other readers of this process come and go.
            let r = Store::open_readonly(&path).unwrap();
            assert!(r.result_count().unwrap() > 0);
        }
        println!("COMMITTED {}", (c + 1) * PER_COMMIT);
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    w.finish().unwrap();
    drop(store);
    println!("DONE");
}

#[test]
fn outside_client_loses_no_committed_result() {
    let (_tmp, path) = store_path("outside");
    // The store exists before either side opens it.
    drop(Store::open(&path).unwrap());
    let exe = std::env::current_exe().unwrap();
    let mut child = Command::new(exe)
        .args([
            "--exact",
            "child_store_writer",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(ENV, &path)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut committed = 0u64;
        let mut done = false;
        for line in BufReader::new(out).lines() {
            let line = line.unwrap();
            if let Some(n) = line.strip_prefix("COMMITTED ") {
                committed = n.trim().parse().unwrap();
            }
            done |= line == "DONE";
        }
        (committed, done)
    });
    // The outside client: open, count, close, again, while the child runs.
    let mut looks = 0;
    while child.try_wait().unwrap().is_none() {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.busy_timeout(std::time::Duration::from_secs(5)).unwrap();
        let _: i64 = c
            .query_row("SELECT count(*) FROM results", [], |r| r.get(0))
            .unwrap();
        drop(c);
        looks += 1;
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(child.wait().unwrap().success());
    let (committed, done) = reader.join().unwrap();
    assert!(done, "the child did not finish");
    assert_eq!(committed, COMMITS * PER_COMMIT);
    assert!(looks > 10, "the outside client looked only {looks} times");
    let store = Store::open_readonly(&path).unwrap();
    assert_eq!(store.result_count().unwrap(), committed);
    for n in [0, committed / 2, committed - 1] {
        assert_eq!(store.get_record(&synthetic(n)).unwrap(), {
            let mut r = record(n);
            let got = store.get_record(&synthetic(n)).unwrap().unwrap();
            r.proved_at = got.proved_at;
            Some(r)
        });
    }
}

#[test]
fn a_closed_store_is_complete_in_its_main_file() {
    let (tmp, path) = store_path("main-file");
    let dir = tmp.path();
    {
        let store = Store::open(&path).unwrap();
        let w = Writer::open(&path, WriterOptions::default()).unwrap();
        for n in 0..500 {
            send(&w.handle(), record(n)).unwrap();
        }
        w.finish().unwrap();
        common::put(
            &store,
            &synthetic(900),
            proofdb::Outcome::AtLeastDraw,
            &Provenance::default(),
        )
        .unwrap();
    }
    let wal = dir.join("s.sqlite-wal");
    let wal_len = std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
    assert_eq!(wal_len, 0, "the log still holds {wal_len} bytes");
    // A copy of the main file alone holds every result.
    let copy = dir.join("copy.sqlite");
    std::fs::copy(&path, &copy).unwrap();
    let c = Store::open_readonly(&copy).unwrap();
    assert_eq!(c.result_count().unwrap(), 501);
    assert!(c.get(&synthetic(900)).unwrap().is_some());
}

#[test]
fn backup_copies_a_store_in_use() {
    let (tmp, path) = store_path("backup");
    let dir = tmp.path();
    let store = Store::open(&path).unwrap();
    for n in 0..50 {
        common::put_rec(&store, &record(n)).unwrap();
    }
    // The writer is still open, its commits in the log.
    let dest = dir.join("b.sqlite");
    store.backup_to(&dest).unwrap();
    assert!(
        !dir.join("b.sqlite-wal").exists()
            || std::fs::metadata(dir.join("b.sqlite-wal")).unwrap().len() == 0
    );
    let copy = dir.join("only-main.sqlite");
    std::fs::copy(&dest, &copy).unwrap();
    let b = Store::open_readonly(&copy).unwrap();
    assert_eq!(b.result_count().unwrap(), 50);
    assert_eq!(
        b.get(&synthetic(7)).unwrap().map(|x| x.0),
        Some(outcome_for(7))
    );
    // Replaced whole on a second backup; never over the store itself or
    // over something that is not a regular file.
    common::put_rec(&store, &record(60)).unwrap();
    store.backup_to(&dest).unwrap();
    assert_eq!(
        Store::open_readonly(&dest).unwrap().result_count().unwrap(),
        51
    );
    assert!(store.backup_to(&path).is_err());
    assert!(store.backup_to(dir).is_err());
    let leftovers: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
