//! Merging shards: bounds intersect, a planted contradiction is refused
//! and reported, nothing is lost, and a second merge changes nothing.

mod common;

use common::{synthetic, temp_dir};
use engine::Value;
use proofdb::*;

fn prov(solver: &str) -> Provenance {
    Provenance {
        solver: solver.into(),
        nodes: 10,
        millis: 1,
        egdb_pieces: 0,
        run_id: solver.into(),
    }
}

#[test]
fn merge_intersects_refuses_contradictions_and_loses_nothing() {
    let tmp = temp_dir("merge");
    let dir = tmp.path();
    let a = Store::open(dir.join("a.sqlite")).unwrap();
    let b = Store::open(dir.join("b.sqlite")).unwrap();
    // 0..300 only in a; 200..500 in both (200..300) or only b.
    for n in 0..300 {
        common::put(&a, &synthetic(n), Outcome::AtLeastDraw, &prov("a")).unwrap();
    }
    for n in 200..500 {
        let o = if n < 250 {
            Outcome::AtMostDraw // tightens a's >=draw to draw
        } else {
            Outcome::Exact(Value::Win) // tightens >=draw to win, or new
        };
        common::put(&b, &synthetic(n), o, &prov("b")).unwrap();
    }
    // The planted contradiction: a says >=draw, b says loss.
    let planted = synthetic(7);
    common::put(&b, &planted, Outcome::Exact(Value::Loss), &prov("b")).unwrap();
    let run = b.begin_run("shard b").unwrap();
    let tree = ProofTree {
        root: synthetic(300),
        question: Question::Win,
        nodes: vec![(synthetic(300), ProofEntry::Leaf(LeafSource::Egdb))],
    };
    b.put_tree(&tree, &run, 0).unwrap();
    drop(b);

    let report = merge_shard(&a, &dir.join("b.sqlite"), |_| {}).unwrap();
    assert_eq!(report.seen, 301);
    assert_eq!(report.new, 200);
    assert_eq!(report.tightened, 100);
    assert_eq!(report.unchanged, 0);
    assert_eq!(
        report.refused,
        vec![Refusal {
            position: planted,
            stored: Outcome::AtLeastDraw,
            incoming: Outcome::Exact(Value::Loss),
        }]
    );
    // Each shard result's trees, but not the loss tree that contradicts
    // a's result (its result is refused above).
    assert_eq!(report.trees_copied, 300);
    assert_eq!(report.trees_contradicting, 1);
    assert!(report.unproved.is_empty(), "{:?}", report.unproved);
    assert_eq!(report.runs_copied, 1);

    // Nothing lost: a's planted result kept, everything else present.
    assert_eq!(a.lookup(&planted), Some(Outcome::AtLeastDraw));
    assert_eq!(a.result_count().unwrap(), 500);
    for n in 0..500 {
        let want = match n {
            7 => Outcome::AtLeastDraw,
            0..=199 => Outcome::AtLeastDraw,
            200..=249 => Outcome::Exact(Value::Draw),
            _ => Outcome::Exact(Value::Win),
        };
        assert_eq!(a.lookup(&synthetic(n)), Some(want), "n = {n}");
    }
    assert_eq!(a.get(&synthetic(220)).unwrap().unwrap().1.solver, "a+b");
    assert_eq!(
        a.get_tree(&synthetic(300), Question::Win).unwrap(),
        Some(tree)
    );
    // The shard is untouched.
    let b = Store::open_readonly(dir.join("b.sqlite")).unwrap();
    assert_eq!(b.lookup(&planted), Some(Outcome::Exact(Value::Loss)));
    assert_eq!(b.result_count().unwrap(), 301);

    // Merging again changes nothing.
    let again = merge_shard(&a, &dir.join("b.sqlite"), |_| {}).unwrap();
    assert_eq!(again.new + again.tightened, 0);
    assert_eq!(again.unchanged, 300);
    assert_eq!(again.refused.len(), 1);
    assert_eq!(again.trees_present, 300);
    assert_eq!(again.trees_contradicting, 1);
    a.integrity_check().unwrap();

    // A store cannot be merged into itself.
    assert!(merge_shard(&a, &dir.join("a.sqlite"), |_| {}).is_err());
}
