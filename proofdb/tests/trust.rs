//! A stored result is a fact only with its proof: rows written by hand,
//! changed in the file, or backed by nothing are never served, are
//! reported, and are refused by a merge; a store of the previous schema
//! migrates without losing a row.

mod common;

use common::{put, store_path, synthetic, temp_dir};
use engine::notation::fen::parse_fen;
use engine::{Position, Value};
use proofdb::codec::pos_key;
use proofdb::*;
use std::path::Path;

fn prov() -> Provenance {
    Provenance {
        solver: "ab".into(),
        nodes: 10,
        millis: 1,
        egdb_pieces: 0,
        run_id: "t".into(),
    }
}

fn hand_insert(path: &Path, pos: &Position, outcome: &str) {
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute(
        "INSERT INTO results (pos, stm, outcome, pieces, solver, nodes, millis, egdb_pieces, \
         proof_size, proved_at, run_id) VALUES (?1, ?2, ?3, ?4, 'ab', 1, 1, 0, 0, 0, '')",
        rusqlite::params![
            &pos_key(pos)[..],
            pos.side_to_move() as u8 as i64,
            outcome,
            pos.piece_count() as i64
        ],
    )
    .unwrap();
}

#[test]
fn a_row_inserted_by_hand_is_ignored_and_reported() {
    let (_tmp, path) = store_path("hand");
    let start = Position::initial();
    drop(Store::open(&path).unwrap());
    hand_insert(&path, &start, "win");
    let s = Store::open(&path).unwrap();
    assert_eq!(s.lookup(&start), None);
    assert_eq!(s.get(&start).unwrap(), None);
    assert_eq!(ResultCache::load(&s).unwrap().len(), 0);
    let (rec, trust) = s.get_row(&start).unwrap().unwrap();
    assert_eq!(rec.outcome, Outcome::Exact(Value::Win));
    assert_eq!(trust, Trust::Unsealed);
    let mut seen = Vec::new();
    s.for_each_row(|r, t| -> Result<(), StoreError> {
        seen.push((r.position, t));
        Ok(())
    })
    .unwrap();
    assert_eq!(seen, vec![(start, Trust::Unsealed)]);
    // A proved result replaces it.
    put(&s, &start, Outcome::AtLeastDraw, &prov()).unwrap();
    assert_eq!(s.lookup(&start), Some(Outcome::AtLeastDraw));
}

#[test]
fn a_result_without_a_proof_is_refused() {
    let tmp = temp_dir("noproof");
    let s = Store::open(tmp.path().join("s.sqlite")).unwrap();
    let p = synthetic(5);
    let e = s.put(&p, Outcome::Exact(Value::Win), &prov()).unwrap_err();
    assert!(matches!(e, StoreError::Unproved { .. }), "{e}");
    assert_eq!(s.result_count().unwrap(), 0);
    // A draw tree backs ">=draw" but not "win".
    let trees = proofdb::testing::unverified_trees(p, Outcome::AtLeastDraw);
    let rec = ResultRecord::new(p, Outcome::Exact(Value::Win), prov(), 0);
    assert!(matches!(
        s.put_proof(&rec, &trees, "t").unwrap_err(),
        StoreError::Unproved { .. }
    ));
    assert!(s.trees().unwrap().is_empty(), "rolled back with the result");
    // A database value needs no tree, but the databases' size.
    let small = parse_fen("W:WK19,K23:B12,K28").unwrap();
    let db = Provenance {
        solver: "egdb".into(),
        egdb_pieces: 4,
        ..prov()
    };
    s.put(&small, Outcome::Exact(Value::Win), &db).unwrap();
    assert_eq!(s.lookup(&small), Some(Outcome::Exact(Value::Win)));
    let too_small = Provenance {
        egdb_pieces: 0,
        ..db
    };
    let other = parse_fen("B:WK19,K23:B12,K28").unwrap();
    assert!(s
        .put(&other, Outcome::Exact(Value::Loss), &too_small)
        .is_err());
}

/// Flips one bit of the first occurrence of `needle` in the file.
fn flip_in_file(path: &Path, needle: &[u8], bit: u8) {
    let mut bytes = std::fs::read(path).unwrap();
    let at = bytes
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("needle in file");
    bytes[at] ^= 1 << bit;
    std::fs::write(path, &bytes).unwrap();
}

#[test]
fn a_changed_bit_is_caught_on_read() {
    let (tmp, path) = store_path("flip");
    let p = parse_fen("B:W10,K16,21,28:B13,20,K23").unwrap();
    {
        let s = Store::open(&path).unwrap();
        put(&s, &p, Outcome::Exact(Value::Loss), &prov()).unwrap();
        let run_marker = Provenance {
            run_id: "marker-run-XYZ".into(),
            ..prov()
        };
        put(&s, &synthetic(3), Outcome::AtLeastDraw, &run_marker).unwrap();
    }
    assert_eq!(
        std::fs::metadata(tmp.path().join("s.sqlite-wal"))
            .map(|m| m.len())
            .unwrap_or(0),
        0
    );
    // The node count of the first result's row: change it by one bit.
    flip_in_file(&path, b"marker-run-XYZ", 0);
    let s = Store::open_readonly(&path).unwrap();
    s.integrity_check().unwrap();
    assert_eq!(s.lookup(&synthetic(3)), None);
    assert_eq!(s.get_row(&synthetic(3)).unwrap().unwrap().1, Trust::Damaged);
    assert_eq!(s.lookup(&p), Some(Outcome::Exact(Value::Loss)));
}

#[test]
fn a_changed_tree_is_caught_on_load() {
    let (_tmp, path) = store_path("flip-tree");
    let root = Position::initial();
    let m = root.moves().as_slice()[1];
    let tree = ProofTree {
        root,
        question: Question::AtLeastDraw,
        nodes: vec![
            (root, ProofEntry::Prover(m)),
            (root.play_unchecked(&m), ProofEntry::Leaf(LeafSource::Store)),
        ],
    };
    {
        let s = Store::open(&path).unwrap();
        s.put_tree(&tree, "tree-run-QQQ", 0).unwrap();
        assert_eq!(
            s.get_tree(&root, Question::AtLeastDraw).unwrap(),
            Some(tree)
        );
    }
    flip_in_file(&path, b"tree-run-QQQ", 1);
    let s = Store::open_readonly(&path).unwrap();
    let e = s.get_tree(&root, Question::AtLeastDraw).unwrap_err();
    assert!(e.to_string().contains("checksum"), "{e}");
}

#[test]
fn merge_refuses_rows_that_are_not_proved() {
    let tmp = temp_dir("merge-trust");
    let dir = tmp.path();
    let shard = dir.join("shard.sqlite");
    {
        let s = Store::open(&shard).unwrap();
        put(&s, &synthetic(1), Outcome::Exact(Value::Win), &prov()).unwrap();
    }
    hand_insert(&shard, &Position::initial(), "win");
    let store = Store::open(dir.join("m.sqlite")).unwrap();
    let r = merge_shard(&store, &shard, |_| {}).unwrap();
    assert_eq!(r.new, 1);
    assert_eq!(r.unproved, vec![(Position::initial(), Trust::Unsealed)]);
    assert_eq!(store.result_count().unwrap(), 1);
    assert_eq!(store.lookup(&Position::initial()), None);
}

/// A store written by the program as it was before row checksums (schema
/// version 2): 18 results of a `solve --store` and a short `ballots run`
/// with the 4-piece databases, their trees, a ballot's main line and job
/// records, and one row inserted by hand (a win for the start position).
/// `store-v2.results.jsonl` is `checkers db export` of it then.
const V2_STORE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/store-v2.sqlite");
const V2_EXPORT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/store-v2.results.jsonl"
);

#[test]
fn a_version_2_store_migrates_losing_nothing() {
    let (_tmp, path) = store_path("v2");
    std::fs::copy(V2_STORE, &path).unwrap();
    let before = {
        let c = rusqlite::Connection::open(&path).unwrap();
        let v: i64 = c
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, 2);
        let n = |t: &str| -> i64 {
            c.query_row(&format!("SELECT count(*) FROM {t}"), [], |r| r.get(0))
                .unwrap()
        };
        [n("results"), n("trees"), n("tree_nodes"), n("runs")]
    };
    let s = Store::open(&path).unwrap();
    let st = s.stats().unwrap();
    assert_eq!(st.schema_version, proofdb::schema::SCHEMA_VERSION);
    let after = [
        st.results as i64,
        st.trees as i64,
        st.tree_nodes as i64,
        st.runs as i64,
    ];
    assert_eq!(after, before);
    // Every row is still there, with the values it had.
    let export = std::fs::read_to_string(V2_EXPORT).unwrap();
    let mut rows = std::collections::HashMap::new();
    s.for_each_row(|r, t| -> Result<(), StoreError> {
        rows.insert(engine::notation::fen::to_fen(&r.position), (r, t));
        Ok(())
    })
    .unwrap();
    assert_eq!(rows.len(), export.lines().count());
    let mut proved = 0;
    for line in export.lines() {
        let fen = field(line, "fen");
        let (r, t) = rows.get(&fen).unwrap_or_else(|| panic!("{fen} lost"));
        assert_eq!(r.outcome.name(), field(line, "outcome"), "{fen}");
        assert_eq!(r.provenance.solver, field(line, "solver"), "{fen}");
        if fen == "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12" {
            assert_eq!(*t, Trust::Unsealed, "the hand-written row");
        } else {
            assert_eq!(*t, Trust::Proved, "{fen}");
            proved += 1;
        }
    }
    assert_eq!(proved, 17);
    // Trees load, sealed, with the database size of their results.
    for info in s.trees().unwrap() {
        assert!(s.get_tree_by_id(info.id).unwrap().is_some());
        let res = s.get_record(&info.root).unwrap().unwrap();
        assert_eq!(info.egdb_pieces, res.provenance.egdb_pieces);
    }
    s.integrity_check().unwrap();
}

/// A store written by the program as it was before main-line scores
/// (schema version 3): `checkers ballots run --ballot 80 --egdb-pieces 4
/// --line-depth 6` with a one-second budget (see tests/data/README.md).
const V3_STORE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/store-v3.sqlite");

#[test]
fn a_version_3_store_migrates_keeping_its_seals_and_rows() {
    let (_tmp, path) = store_path("v3");
    std::fs::copy(V3_STORE, &path).unwrap();
    // Rows per table, the ballot job's tables included: the store's
    // migrations made those and leave them to the ballots crate, whole.
    let counts = |c: &rusqlite::Connection| -> Vec<i64> {
        [
            "results",
            "trees",
            "tree_nodes",
            "main_lines",
            "job_records",
            "runs",
        ]
        .iter()
        .map(|t| {
            c.query_row(&format!("SELECT count(*) FROM {t}"), [], |r| r.get(0))
                .unwrap()
        })
        .collect()
    };
    let (counts_before, sealed_before) = {
        let c = rusqlite::Connection::open(&path).unwrap();
        let v: i64 = c
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, 3);
        let sealed: i64 = c
            .query_row(
                "SELECT count(*) FROM results WHERE checksum IS NOT NULL",
                [],
                |r| r.get(0),
            )
            .unwrap();
        (counts(&c), sealed)
    };
    assert_eq!(counts_before[3], 42);
    let s = Store::open(&path).unwrap();
    let st = s.stats().unwrap();
    // Migrated to this program's version (4 when the test was written).
    assert_eq!(st.schema_version, proofdb::schema::SCHEMA_VERSION);
    assert!(st.schema_version >= 4);
    assert_eq!(
        [st.results as i64, st.trees as i64, st.tree_nodes as i64],
        counts_before[..3]
    );
    // The sealed results are still trusted: the migration touches no seal.
    let mut proved = 0;
    s.for_each_row(|_, t| -> Result<(), StoreError> {
        proved += (t == Trust::Proved) as i64;
        Ok(())
    })
    .unwrap();
    assert_eq!(proved, sealed_before);
    s.integrity_check().unwrap();
    drop(s);
    let c = rusqlite::Connection::open(&path).unwrap();
    assert_eq!(counts(&c), counts_before);
    // The main lines, stored unscored, took the score column empty.
    let scored: i64 = c
        .query_row(
            "SELECT count(*) FROM main_lines WHERE score IS NOT NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(scored, 0);
}

/// The string value of `"key":"..."` in a one-line JSON object.
fn field(line: &str, key: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    v[key].as_str().unwrap().to_string()
}

#[test]
fn every_position_a_stored_proof_reaches_is_known() {
    let tmp = temp_dir("inside");
    let s = Store::open(tmp.path().join("s.sqlite")).unwrap();
    // Black jumps 14x23 and White has nothing left.
    let root = parse_fen("B:W18:B14").unwrap();
    let m = root.moves().as_slice()[0];
    let child = root.play_unchecked(&m);
    let stray = parse_fen("B:W19:B15").unwrap();
    let mut tree = proofdb::testing::win_in_one(root);
    // Not reached from the root: proves nothing.
    tree.nodes
        .push((stray, ProofEntry::Leaf(LeafSource::Terminal)));
    assert_eq!(
        tree.proved_positions(),
        vec![
            (root, Outcome::Exact(Value::Win)),
            (child, Outcome::Exact(Value::Loss))
        ]
    );
    let rec = ResultRecord::new(root, Outcome::Exact(Value::Win), prov(), 2);
    s.put_proof(&rec, std::slice::from_ref(&tree), "t").unwrap();
    let cache = ResultCache::load(&s).unwrap();
    assert_eq!(cache.lookup(&child), Some(Outcome::Exact(Value::Loss)));
    assert_eq!(cache.lookup(&stray), None);
    // Not served by the row lookups: only the search caches use them.
    assert_eq!(s.lookup(&child), None);
    let live = LiveResults::default();
    live.insert_tree(&tree);
    assert_eq!(live.lookup(&child), Some(Outcome::Exact(Value::Loss)));
    // A draw proof gives bounds.
    let draw = ProofTree {
        question: Question::AtMostDraw,
        ..tree
    };
    assert_eq!(
        draw.proved_positions(),
        vec![(root, Outcome::AtMostDraw), (child, Outcome::AtLeastDraw)]
    );
}
