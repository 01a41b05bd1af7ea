//! The ballot job's tables: read back as written, made on first write
//! (never in a store only facts were written to), empty to a read-only
//! reader of such a store, taken over from the stores of schema 6 and
//! before, and folded from a shard.

use ballots::tables::merge::merge_tables;
use ballots::tables::stats::table_stats;
use ballots::tables::{
    BallotRow, BallotTables, JobRecord, JobStatus, LinePlyRow, Origin, RepairRow,
};
use engine::{Position, Value};
use proofdb::codec::pos_key;
use proofdb::{Outcome, Provenance, Store, StoreError};
use std::path::Path;

/// A store of schema version 2 with ballot 1's main line and 33 job
/// records (see proofdb/tests/data/README.md).
const V2_STORE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../proofdb/tests/data/store-v2.sqlite"
);
/// A store of schema version 3 with ballot 80's unscored main line of
/// 42 plies and 2 job records.
const V3_STORE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../proofdb/tests/data/store-v3.sqlite"
);

fn temp_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("ballot-tables-")
        .tempdir()
        .unwrap()
}

/// `SELECT count(*)` of `sql`'s rows, read by SQLite alone.
fn raw_count(path: &Path, from: &str) -> i64 {
    let c = rusqlite::Connection::open(path).unwrap();
    c.query_row(&format!("SELECT count(*) FROM {from}"), [], |r| r.get(0))
        .unwrap()
}

/// The tables of the file at `path`, by name.
fn table_names(path: &Path) -> Vec<String> {
    let c = rusqlite::Connection::open(path).unwrap();
    let mut stmt = c
        .prepare(
            "SELECT name FROM sqlite_schema WHERE type = 'table' \
             AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .unwrap();
    stmt.query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

/// The version the file records for the ballot tables, if any.
fn recorded_version(path: &Path) -> Option<i64> {
    let c = rusqlite::Connection::open(path).unwrap();
    c.query_row(
        "SELECT version FROM extensions WHERE name = 'ballots'",
        [],
        |r| r.get(0),
    )
    .ok()
}

fn prov() -> Provenance {
    Provenance {
        run_id: "r".into(),
        ..Provenance::default()
    }
}

fn record(ballot: u32, ply: u32, status: JobStatus) -> JobRecord {
    JobRecord {
        ballot,
        ply,
        outcome: (status == JobStatus::Proved).then_some(Outcome::Exact(Value::Draw)),
        nodes: 1000,
        millis: 20,
        budget_millis: 20,
        proof_size: 99,
        status,
        run_id: "r".into(),
        updated: 1_700_000_000,
    }
}

#[test]
fn ballots_lines_and_records_read_back_as_written() {
    let tmp = temp_dir();
    let path = tmp.path().join("s.sqlite");
    let store = Store::open(&path).unwrap();
    let b = BallotRow {
        number: 5,
        moves: "9-13 22-18 6-9".into(),
        deck: "deck144".into(),
        ctd: true,
        name: "Dreaded Edinburgh".into(),
        fen: "W:W18,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,7,8,9,10,11,12,13".into(),
    };
    store.put_ballot(&b).unwrap();
    assert_eq!(store.ballots().unwrap(), vec![b]);
    let mut pos = Position::initial();
    let mut line = ballots::testing::line_start();
    for ply in 1..=6u32 {
        let m = pos.moves().as_slice()[0];
        pos = pos.play_unchecked(&m);
        line.push(LinePlyRow {
            ply,
            position: pos,
            move_text: m.to_string(),
            origin: match ply {
                0..=3 => Origin::Published,
                5 => Origin::Repair,
                _ => Origin::Engine,
            },
            // Scores read back as written, a missing one as None.
            score: (ply != 2).then_some(ply as i32 * 37 - 120),
            // A repair keeps the move it replaced and both scores.
            repair: (ply == 5).then(|| RepairRow {
                replaced: "11-16".to_string(),
                replaced_score: 140,
                score: 65,
            }),
        });
    }
    store.set_main_line(5, &line).unwrap();
    assert_eq!(store.main_line(5).unwrap(), line);
    assert_eq!(store.main_line(5).unwrap()[6].score, Some(102));
    assert_eq!(store.main_line(5).unwrap()[2].score, None);
    assert_eq!(
        store.main_line(5).unwrap()[5]
            .repair
            .as_ref()
            .map(|r| r.replaced_score),
        Some(140)
    );
    assert_eq!(store.ballots_with_lines().unwrap(), vec![5]);
    assert_eq!(
        store.main_line_plies_at(&line[4].position).unwrap(),
        vec![(5, 4)]
    );
    store.set_main_line(5, &line[..3]).unwrap();
    assert_eq!(store.main_line(5).unwrap().len(), 3);

    let rec = record(5, 6, JobStatus::Proved);
    store.put_job_record(&rec).unwrap();
    // An open ply keeps the time it spent apart from the budget it had.
    let open = JobRecord {
        ply: 5,
        outcome: None,
        status: JobStatus::Budget,
        millis: 3_100,
        budget_millis: 4_000,
        ..rec.clone()
    };
    store.put_job_record(&open).unwrap();
    assert_eq!(
        store.job_records(5).unwrap(),
        vec![open.clone(), rec.clone()]
    );
    assert_eq!(store.job_record(5, 6).unwrap(), Some(rec.clone()));
    assert_eq!(store.job_record(5, 7).unwrap(), None);
    let stats = table_stats(&store).unwrap();
    assert_eq!(
        (stats.ballots, stats.main_lines, stats.job_records),
        (1, 1, 2)
    );
    assert_eq!(stats.jobs_by_status.get("budget"), Some(&1));
    drop(store);
    // A record stored before the budget had a column of its own reads its
    // time as the budget too, what it meant then.
    let c = rusqlite::Connection::open(&path).unwrap();
    c.execute(
        "UPDATE job_records SET budget_millis = NULL WHERE ply = 5",
        [],
    )
    .unwrap();
    // Only the statuses that are written can be stored.
    for never in ["running", "error"] {
        assert!(c
            .execute("UPDATE job_records SET status = ?1 WHERE ply = 5", [never])
            .is_err());
    }
    drop(c);
    let store = Store::open(&path).unwrap();
    let old = store.job_record(5, 5).unwrap().unwrap();
    assert_eq!((old.millis, old.budget_millis), (3_100, 3_100));
}

/// A store only facts were written to has no ballot tables; a read-only
/// reader sees them empty, and the first write makes them at their
/// version.
#[test]
fn the_tables_are_made_by_their_first_write() {
    let tmp = temp_dir();
    let path = tmp.path().join("s.sqlite");
    let store = Store::open(&path).unwrap();
    proofdb::testing::put_outcome_unverified(
        &store,
        &Position::initial(),
        Outcome::AtLeastDraw,
        &prov(),
    )
    .unwrap();
    drop(store);
    let names = table_names(&path);
    assert!(!names.iter().any(|t| t == "main_lines"), "{names:?}");
    assert_eq!(recorded_version(&path), None);

    let reader = Store::open_readonly(&path).unwrap();
    assert!(reader.ballots().unwrap().is_empty());
    assert!(reader.main_line(1).unwrap().is_empty());
    assert!(reader.ballots_with_lines().unwrap().is_empty());
    assert!(reader.all_job_records().unwrap().is_empty());
    assert_eq!(reader.job_record(1, 0).unwrap(), None);
    assert_eq!(table_stats(&reader).unwrap().job_records, 0);
    // Writing through a read-only store is refused, naming it.
    assert!(reader
        .put_job_record(&record(1, 4, JobStatus::Budget))
        .is_err());
    drop(reader);
    assert!(!table_names(&path).iter().any(|t| t == "job_records"));

    let store = Store::open(&path).unwrap();
    store
        .put_job_record(&record(1, 4, JobStatus::Budget))
        .unwrap();
    drop(store);
    let names = table_names(&path);
    for t in ["ballots", "main_lines", "job_records"] {
        assert!(names.iter().any(|n| n == t), "{t} in {names:?}");
    }
    assert_eq!(recorded_version(&path), Some(1));
    let reader = Store::open_readonly(&path).unwrap();
    assert_eq!(reader.all_job_records().unwrap().len(), 1);
}

/// The ballot tables of a store of schema version 2 are taken over as
/// they are: every line ply and record reads back.
#[test]
fn a_version_2_store_keeps_its_ballot_tables() {
    let tmp = temp_dir();
    let path = tmp.path().join("v2.sqlite");
    std::fs::copy(V2_STORE, &path).unwrap();
    let plies = raw_count(&path, "main_lines WHERE ballot = 1");
    let records = raw_count(&path, "job_records");
    assert_eq!(records, 33);
    let store = Store::open(&path).unwrap();
    assert_eq!(store.main_line(1).unwrap().len() as i64, plies);
    assert_eq!(store.all_job_records().unwrap().len() as i64, records);
    assert_eq!(store.ballots_with_lines().unwrap(), vec![1]);
    drop(store);
    assert_eq!(recorded_version(&path), Some(1));
}

/// A store of schema version 3: its line reads back unchanged and
/// unscored, its records (stored without a budget column) read their
/// time as their budget, and a scored line is accepted now.
#[test]
fn a_version_3_store_reads_its_unscored_line() {
    let tmp = temp_dir();
    let path = tmp.path().join("v3.sqlite");
    std::fs::copy(V3_STORE, &path).unwrap();
    type Row = (u32, Vec<u8>, i64, String, String);
    let before: Vec<Row> = {
        let c = rusqlite::Connection::open(&path).unwrap();
        let mut stmt = c
            .prepare(
                "SELECT ply, pos, stm, move, origin FROM main_lines WHERE ballot = 80 ORDER BY ply",
            )
            .unwrap();
        stmt.query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
    };
    assert_eq!(before.len(), 42);
    let store = Store::open(&path).unwrap();
    let jobs = store.all_job_records().unwrap();
    assert_eq!(jobs.len(), 2);
    assert!(jobs.iter().all(|j| j.budget_millis == j.millis));
    let line = store.main_line(80).unwrap();
    assert_eq!(line.len(), before.len());
    for (p, (ply, key, stm, mv, origin)) in line.iter().zip(&before) {
        assert_eq!(p.ply, *ply);
        assert_eq!(pos_key(&p.position).to_vec(), *key);
        assert_eq!(p.position.side_to_move() as u8 as i64, *stm);
        assert_eq!(&p.move_text, mv);
        assert_eq!(p.origin.name(), origin);
        assert_eq!(p.score, None);
    }
    let mut scored = line.clone();
    for (i, p) in scored.iter_mut().enumerate() {
        p.score = Some(i as i32 * 10 - 200);
    }
    store.set_main_line(80, &scored).unwrap();
    assert_eq!(store.main_line(80).unwrap(), scored);
}

/// A status that no version wrote (the old tables allowed 'running' and
/// 'error') is refused as a corrupt row, not read as another status.
#[test]
fn an_unwritten_status_in_an_old_table_is_corrupt() {
    let tmp = temp_dir();
    let path = tmp.path().join("v3.sqlite");
    std::fs::copy(V3_STORE, &path).unwrap();
    let c = rusqlite::Connection::open(&path).unwrap();
    let changed = c
        .execute(
            "UPDATE job_records SET status = 'running' \
             WHERE ply = (SELECT min(ply) FROM job_records)",
            [],
        )
        .unwrap();
    assert_eq!(changed, 1);
    drop(c);
    let store = Store::open(&path).unwrap();
    let err = store.all_job_records().unwrap_err();
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");
    assert!(err.to_string().contains("running"), "{err}");
}

#[test]
fn a_shard_s_lines_and_records_are_folded_in() {
    let tmp = temp_dir();
    let a = Store::open(tmp.path().join("a.sqlite")).unwrap();
    let b = Store::open(tmp.path().join("b.sqlite")).unwrap();
    let start = |score| LinePlyRow {
        ply: 0,
        position: Position::initial(),
        move_text: String::new(),
        origin: Origin::Published,
        score: Some(score),
        repair: None,
    };
    b.set_main_line(9, &[start(-250)]).unwrap();
    b.set_main_line(10, &[start(5)]).unwrap();
    a.set_main_line(10, &[start(7)]).unwrap();
    b.put_job_record(&record(9, 0, JobStatus::Proved)).unwrap();
    b.put_job_record(&record(10, 0, JobStatus::Proved)).unwrap();
    a.put_job_record(&record(10, 0, JobStatus::Budget)).unwrap();
    let merged = merge_tables(&a, &b).unwrap();
    assert_eq!(merged.lines_copied, 1);
    assert_eq!(merged.lines_differing, vec![10]);
    // The shard's proved record replaces the store's open one.
    assert_eq!(merged.job_records_copied, 2);
    // The copied line keeps its engine scores; the store's own is kept.
    assert_eq!(a.main_line(9).unwrap()[0].score, Some(-250));
    assert_eq!(a.main_line(10).unwrap()[0].score, Some(7));
    assert_eq!(
        a.job_record(10, 0).unwrap().map(|r| r.status),
        Some(JobStatus::Proved)
    );
    // Folding it again copies nothing.
    let again = merge_tables(&a, &b).unwrap();
    assert_eq!((again.lines_copied, again.job_records_copied), (0, 0));
}
