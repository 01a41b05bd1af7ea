//! Reliability: a writer process killed with SIGKILL at a random moment
//! loses no committed batch and leaves a sound file.
//!
//! The test binary runs itself as the child (`child_writer`, active only
//! when `PROOFDB_CRASH_CHILD` names a store): it writes batches through a
//! [`Writer`], flushing each and then printing `COMMITTED <batch>`.

mod common;

use common::{outcome_for, random_u64, synthetic};
use proofdb::{ResultRecord, ResultSource, Store, Writer, WriterOptions};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

const BATCH: u64 = 500;
const ENV: &str = "PROOFDB_CRASH_CHILD";

fn record(n: u64) -> ResultRecord {
    common::synthetic_record(n, "crash", n % 97)
}

/// The child: runs only when spawned by `killed_writer_loses_no_committed_batch`.
#[test]
fn child_writer() {
    let Ok(path) = std::env::var(ENV) else {
        return;
    };
    let w = Writer::open(
        &path,
        WriterOptions {
            batch_size: 64, // several background commits inside each batch
            ..WriterOptions::default()
        },
    )
    .unwrap();
    let h = w.handle();
    for b in 0..(1 << 20) / BATCH {
        for i in 0..BATCH {
            common::send(&h, record(b * BATCH + i)).unwrap();
        }
        h.flush().unwrap();
        println!("COMMITTED {b}");
    }
}

fn run_once(round: u32) {
    let (_tmp, path) = common::store_path("crash");
    let exe = std::env::current_exe().unwrap();
    let mut child = Command::new(exe)
        .args(["--exact", "child_writer", "--nocapture", "--test-threads=1"])
        .env(ENV, &path)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            // libtest may print its "test child_writer ... " before it.
            if let Some(at) = line.find("COMMITTED ") {
                let _ = tx.send(line[at + 10..].trim().parse::<u64>().unwrap());
            }
        }
    });
    let wait_batches = 2 + random_u64() % 8;
    let mut committed = Vec::new();
    while (committed.len() as u64) < wait_batches {
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(b) => committed.push(b),
            Err(e) => panic!("child wrote no batch in time: {e}"),
        }
    }
    std::thread::sleep(Duration::from_micros(random_u64() % 20_000));
    // SIGKILL.
    child.kill().unwrap();
    child.wait().unwrap();
    reader.join().unwrap();
    committed.extend(rx.try_iter());
    let last = *committed.last().unwrap();
    assert_eq!(committed, (0..=last).collect::<Vec<_>>());

    let store = Store::open(&path).unwrap();
    store.integrity_check().unwrap();
    for b in &committed {
        for i in 0..BATCH {
            let n = b * BATCH + i;
            assert_eq!(
                store
                    .get_record(&synthetic(n))
                    .unwrap()
                    .map(|r| (r.outcome, r.proof_size)),
                Some((outcome_for(n), n % 97)),
                "round {round}: batch {b} item {i} lost"
            );
        }
    }
    // Anything beyond is whole records or nothing: all rows decode.
    let total = store.result_count().unwrap();
    assert!(total >= committed.len() as u64 * BATCH);
    let mut rows = 0;
    store
        .for_each_result(|r| -> Result<(), proofdb::StoreError> {
            rows += 1;
            assert_eq!(store.lookup(&r.position), Some(r.outcome));
            Ok(())
        })
        .unwrap();
    assert_eq!(rows, total);
    eprintln!(
        "round {round}: killed after {} committed batches, {total} results on reopen",
        committed.len()
    );
}

#[test]
fn killed_writer_loses_no_committed_batch() {
    if std::env::var(ENV).is_ok() {
        return;
    }
    for round in 0..3 {
        run_once(round);
    }
}
