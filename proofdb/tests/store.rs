//! Store behaviour: put/get with bound intersection, proof trees, runs,
//! the batched writer, parallel lookups.

mod common;

use common::{outcome_for, put, put_rec, send, store_path, synthetic, temp_dir};
use engine::notation::fen::parse_fen;
use engine::{Position, Value};
use proofdb::*;

fn prov(solver: &str, nodes: u64) -> Provenance {
    Provenance {
        solver: solver.into(),
        nodes,
        millis: 7,
        egdb_pieces: 6,
        run_id: "test".into(),
    }
}

#[test]
fn put_intersects_and_refuses_contradictions() {
    let tmp = temp_dir("put");
    let dir = tmp.path();
    let store = Store::open(dir.join("s.sqlite")).unwrap();
    let p = parse_fen("W:W18,21,23:B1,2,13").unwrap();
    assert_eq!(store.get(&p).unwrap(), None);
    assert_eq!(
        put(&store, &p, Outcome::AtLeastDraw, &prov("ab", 10)).unwrap(),
        PutEffect::New
    );
    // Weaker or equal: unchanged.
    assert_eq!(
        put(&store, &p, Outcome::AtLeastDraw, &prov("ab", 10)).unwrap(),
        PutEffect::Unchanged
    );
    // A contradiction is refused and changes nothing.
    let err = put(&store, &p, Outcome::Exact(Value::Loss), &prov("dfpn", 5)).unwrap_err();
    assert!(matches!(err, StoreError::Contradiction { .. }), "{err}");
    assert!(err.to_string().contains(">=draw"), "{err}");
    assert_eq!(store.get(&p).unwrap().unwrap().0, Outcome::AtLeastDraw);
    // The other bound makes it exact; provenance combines.
    assert_eq!(
        put(&store, &p, Outcome::AtMostDraw, &prov("dfpn", 5)).unwrap(),
        PutEffect::Tightened
    );
    let (o, pv) = store.get(&p).unwrap().unwrap();
    assert_eq!(o, Outcome::Exact(Value::Draw));
    assert_eq!(pv.solver, "ab+dfpn");
    assert_eq!(pv.nodes, 15);
    assert_eq!(pv.millis, 14);
    assert_eq!(
        put(&store, &p, Outcome::AtMostDraw, &prov("x", 1)).unwrap(),
        PutEffect::Unchanged
    );
    // The side to move is part of the key.
    let q = p.with_side(engine::Color::Black);
    assert_eq!(store.get(&q).unwrap(), None);
    assert_eq!(store.lookup(&p), Some(Outcome::Exact(Value::Draw)));
    assert_eq!(store.lookup(&q), None);
    drop(store);
    // Reopen: all still there, integrity ok.
    let store = Store::open_readonly(dir.join("s.sqlite")).unwrap();
    assert_eq!(store.lookup(&p), Some(Outcome::Exact(Value::Draw)));
    assert!(put(&store, &q, Outcome::AtLeastDraw, &prov("ab", 1)).is_err());
    store.integrity_check().unwrap();
}

#[test]
fn records_keep_proof_size_date_and_pieces() {
    let tmp = temp_dir("record");
    let dir = tmp.path();
    let store = Store::open(dir.join("s.sqlite")).unwrap();
    let p = synthetic(0x5_0F3);
    let rec = ResultRecord {
        position: p,
        outcome: Outcome::Exact(Value::Win),
        provenance: prov("dfpn", 123_456_789_012),
        proof_size: 4242,
        proved_at: 1_700_000_000,
    };
    put_rec(&store, &rec).unwrap();
    assert_eq!(store.get_record(&p).unwrap().unwrap(), rec);
    let st = store.stats().unwrap();
    assert_eq!(st.results, 1);
    assert_eq!(st.by_pieces.get(&p.piece_count()), Some(&1));
    assert_eq!(st.by_solver.get("dfpn"), Some(&1));
    assert_eq!(st.by_outcome.get("win"), Some(&1));
}

#[test]
fn proof_trees_round_trip_and_nodes_are_found_by_position() {
    let tmp = temp_dir("trees");
    let dir = tmp.path();
    let store = Store::open(dir.join("s.sqlite")).unwrap();
    let root = Position::initial();
    let moves = root.moves();
    let mut nodes = vec![(root, ProofEntry::Prover(moves.as_slice()[2]))];
    let child = root.play_unchecked(&moves.as_slice()[2]);
    nodes.push((child, ProofEntry::Opponent));
    for m in child.moves().iter() {
        nodes.push((child.play_unchecked(m), ProofEntry::Leaf(LeafSource::Store)));
    }
    let tree = ProofTree {
        root,
        question: Question::AtLeastDraw,
        nodes,
    };
    let id = store.put_tree(&tree, "run-1", 0).unwrap();
    let mut back = store
        .get_tree(&root, Question::AtLeastDraw)
        .unwrap()
        .unwrap();
    assert_eq!(back.root, tree.root);
    let mut want = tree.nodes.clone();
    want.sort_by_key(|(p, _)| *p);
    back.nodes.sort_by_key(|(p, _)| *p);
    assert_eq!(back.nodes, want);
    assert!(store.get_tree(&root, Question::Win).unwrap().is_none());
    assert_eq!(
        store.find_tree_nodes(&child).unwrap(),
        vec![(id, ProofEntry::Opponent)]
    );
    assert!(store.find_tree_nodes(&synthetic(3)).unwrap().is_empty());
    // Replacing keeps one tree per root and question.
    let id2 = store.put_tree(&tree, "run-2", 0).unwrap();
    assert_ne!(id, id2);
    let infos = store.trees().unwrap();
    assert_eq!(infos.len(), 1);
    assert_eq!(infos[0].node_count, tree.nodes.len() as u64);
    assert_eq!(infos[0].run_id, "run-2");
    assert_eq!(
        store.find_tree_nodes(&child).unwrap(),
        vec![(id2, ProofEntry::Opponent)]
    );
    assert_eq!(store.stats().unwrap().tree_nodes, tree.nodes.len() as u64);
    // A tree listing a position twice is refused whole.
    let mut dup = tree.clone();
    dup.question = Question::Win;
    dup.nodes.push(dup.nodes[1]);
    assert!(matches!(
        store.put_tree(&dup, "r", 0).unwrap_err(),
        StoreError::Invalid { .. }
    ));
    assert!(store.get_tree(&root, Question::Win).unwrap().is_none());
}

#[test]
fn runs_begin_and_finish() {
    let tmp = temp_dir("runs");
    let store = Store::open(tmp.path().join("s.sqlite")).unwrap();
    let run = store.begin_run("checkers ballots run 5").unwrap();
    assert!(store.runs().unwrap()[0].finished.is_none());
    store.finish_run(&run).unwrap();
    let runs = store.runs().unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].command, "checkers ballots run 5");
    assert!(runs[0].finished.is_some());
    assert_ne!(store.begin_run("again").unwrap(), run);
}

/// A store only facts were written to has no tables of the crates above
/// (the ballot job's are made by the `ballots` crate when it first writes
/// them).
#[test]
fn a_new_store_holds_facts_tables_only() {
    let tmp = temp_dir("fresh");
    let store = Store::open(tmp.path().join("s.sqlite")).unwrap();
    put(&store, &synthetic(1), Outcome::AtLeastDraw, &prov("ab", 1)).unwrap();
    drop(store);
    let c = rusqlite::Connection::open(tmp.path().join("s.sqlite")).unwrap();
    let mut stmt = c
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .unwrap();
    let names: Vec<String> = stmt
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert_eq!(
        names,
        ["extensions", "results", "runs", "tree_nodes", "trees"]
    );
}

#[test]
fn writer_batches_and_reports() {
    let (_tmp, path) = store_path("writer");
    let writer = Writer::open(
        &path,
        WriterOptions {
            batch_size: 100,
            ..WriterOptions::default()
        },
    )
    .unwrap();
    let h = writer.handle();
    use rayon::prelude::*;
    (0..1000u64)
        .into_par_iter()
        .for_each_with(h.clone(), |h, n| {
            send(
                h,
                ResultRecord::new(synthetic(n), outcome_for(n), prov("ab", n), n),
            )
            .unwrap();
        });
    let report = h.flush().unwrap();
    assert_eq!(report.new, 1000);
    assert!(report.batches >= 10, "{report:?}");
    // A contradiction goes to the report, not into the store.
    send(
        &h,
        ResultRecord::new(synthetic(0), Outcome::Exact(Value::Loss), prov("x", 1), 1),
    )
    .unwrap();
    send(
        &h,
        ResultRecord::new(synthetic(3), Outcome::AtMostDraw, prov("x", 1), 1),
    )
    .unwrap();
    let report = writer.finish().unwrap();
    assert_eq!(report.refused.len(), 1);
    assert_eq!(report.refused[0].stored, Outcome::Exact(Value::Win));
    assert_eq!(report.tightened, 1);
    assert!(send(
        &h,
        ResultRecord::new(synthetic(1), outcome_for(1), prov("x", 1), 1)
    )
    .is_err());

    let store = Store::open(&path).unwrap();
    assert_eq!(store.result_count().unwrap(), 1000);
    assert_eq!(
        store.lookup(&synthetic(0)),
        Some(Outcome::Exact(Value::Win))
    );
    assert_eq!(
        store.lookup(&synthetic(3)),
        Some(Outcome::Exact(Value::Draw))
    );
    // Parallel lookups through the reader pool and the cache agree.
    let cache = ResultCache::load(&store).unwrap();
    assert_eq!(cache.len(), 1000);
    let ok = (0..1000u64)
        .into_par_iter()
        .all(|n| store.lookup(&synthetic(n)) == cache.lookup(&synthetic(n)));
    assert!(ok);
}

#[test]
fn writer_flushes_on_drop() {
    let (_tmp, path) = store_path("drop");
    {
        let w = Writer::open(&path, WriterOptions::default()).unwrap();
        for n in 0..10 {
            send(
                &w.handle(),
                ResultRecord::new(synthetic(n), outcome_for(n), prov("ab", 1), 0),
            )
            .unwrap();
        }
    }
    assert_eq!(Store::open(&path).unwrap().result_count().unwrap(), 10);
}

#[test]
fn store_is_sync_and_send() {
    fn is<T: Send + Sync>() {}
    is::<Store>();
    is::<WriterHandle>();
    is::<ResultCache>();
}

/// The schema-1 `trees` table as it was released (questions 'win' and
/// 'draw' only), for the migration test: its statement in the first
/// migration step.
fn trees_v1() -> &'static str {
    let step = proofdb::schema::MIGRATIONS[0];
    let start = step
        .find("CREATE TABLE trees (")
        .expect("step 1 makes trees");
    let end = start + step[start..].find(");").expect("its end") + 2;
    &step[start..end]
}

fn small_tree(question: Question) -> ProofTree {
    let root = Position::initial();
    let m = root.moves().as_slice()[0];
    ProofTree {
        root,
        question,
        nodes: vec![
            (root, ProofEntry::Prover(m)),
            (root.play_unchecked(&m), ProofEntry::Leaf(LeafSource::Store)),
        ],
    }
}

#[test]
fn version_1_store_migrates_keeping_its_trees() {
    let (_tmp, path) = store_path("migrate");
    let tree = small_tree(Question::AtLeastDraw);
    let id = {
        let store = Store::open(&path).unwrap();
        store.put_tree(&tree, "old", 0).unwrap()
    };
    // Turn the file back into a version-1 store: the old trees table
    // (same rows), user_version 1. Legacy renaming keeps tree_nodes'
    // reference pointing at `trees`.
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        let trees_v1 = trees_v1();
        // The ballot job's tables as version 1 made them (a new store
        // has none).
        let v1 = proofdb::schema::MIGRATIONS[0];
        let ballot_tables_v1 =
            &v1[v1.find("CREATE TABLE ballots").unwrap()..v1.find("CREATE TABLE runs").unwrap()];
        c.execute_batch(&format!(
            "PRAGMA foreign_keys = OFF; PRAGMA legacy_alter_table = ON; BEGIN;
             ALTER TABLE trees RENAME TO trees_now;
             {trees_v1}
             INSERT INTO trees SELECT id, root_pos, root_stm, question, node_count, created, run_id
                 FROM trees_now;
             DROP TABLE trees_now;
             ALTER TABLE results DROP COLUMN checksum;
             ALTER TABLE tree_nodes DROP COLUMN checksum;
             DROP TABLE extensions;
             {ballot_tables_v1}
             PRAGMA user_version = 1; COMMIT;"
        ))
        .unwrap();
        let loss = c.execute(
            "INSERT INTO trees (root_pos, root_stm, question, node_count, created, run_id) \
             VALUES (x'000000000000000000000000', 0, 'loss', 0, 0, '')",
            [],
        );
        assert!(loss.is_err(), "version 1 refuses a 'loss' tree");
    }
    // A read-only open refuses the old version; a read-write one migrates.
    assert!(Store::open_readonly(&path).is_err());
    let store = Store::open(&path).unwrap();
    assert_eq!(
        store.stats().unwrap().schema_version,
        proofdb::schema::SCHEMA_VERSION
    );
    let back = store.get_tree(&tree.root, Question::AtLeastDraw).unwrap();
    assert_eq!(back.map(|t| t.nodes.len()), Some(tree.nodes.len()));
    assert_eq!(store.trees().unwrap()[0].id, id);
    store.integrity_check().unwrap();
    // The opponent's questions are accepted now.
    store
        .put_tree(&small_tree(Question::Loss), "new", 0)
        .unwrap();
    store
        .put_tree(&small_tree(Question::AtMostDraw), "new", 0)
        .unwrap();
    assert_eq!(store.trees().unwrap().len(), 3);
}

#[test]
fn put_proof_stores_result_and_trees_together_or_not_at_all() {
    let tmp = temp_dir("put-proof");
    let dir = tmp.path();
    let store = Store::open(dir.join("s.sqlite")).unwrap();
    let tree = small_tree(Question::Win);
    let rec = ResultRecord::new(
        tree.root,
        Outcome::Exact(Value::Win),
        prov("ab", 10),
        tree.nodes.len() as u64,
    );
    store
        .put_proof(&rec, std::slice::from_ref(&tree), "run")
        .unwrap();
    assert_eq!(store.get(&tree.root).unwrap().unwrap().0, rec.outcome);
    assert!(store.get_tree(&tree.root, Question::Win).unwrap().is_some());
    // A contradicting result is refused, and its tree is not kept either.
    let loss_tree = small_tree(Question::Loss);
    let bad = ResultRecord::new(tree.root, Outcome::Exact(Value::Loss), prov("ab", 1), 2);
    assert!(matches!(
        store.put_proof(&bad, &[loss_tree], "run").unwrap_err(),
        StoreError::Contradiction { .. }
    ));
    assert!(store
        .get_tree(&tree.root, Question::Loss)
        .unwrap()
        .is_none());
    assert_eq!(store.get(&tree.root).unwrap().unwrap().0, rec.outcome);
}
