//! The independent verifier accepts extracted proofs and rejects tampered
//! ones with a message naming the node; proof files round-trip and are
//! refused cleanly when corrupt.

use engine::notation::fen::{parse_fen, to_fen};
use engine::{NoOracle, Oracle, Position, Value};
use proofdb::outcome::NoResults;
use proofdb::{LeafSource, ProofEntry, ProofTree, Question};
use solver::proofio::{read_proofs, write_proofs, StoredProof};
use solver::solve::{solve, SolveOptions, SolverKind};
use solver::verify::{verify, VerifyError};
use solver::Leaves;

/// A won king ending: White to move wins (three kings v two).
const WIN: &str = "W:WK22,K23,K24:BK31,K32";

fn proof_of(fen: &str, question: Question) -> ProofTree {
    let p = parse_fen(fen).unwrap();
    let opts = SolveOptions {
        solver: SolverKind::Dfpn,
        question: Some(question),
        max_nodes: 2_000_000,
        ..SolveOptions::default()
    };
    let rep = solve(p, Leaves::new(&NoOracle, &NoResults), &opts).unwrap();
    rep.proofs.into_iter().next().expect("a proof").tree
}

fn win_proof() -> ProofTree {
    let t = proof_of(WIN, Question::Win);
    assert_eq!(t.question, Question::Win);
    assert!(verify(&t, &NoOracle, &NoResults).is_ok());
    t
}

fn find(t: &ProofTree, f: impl Fn(&(Position, ProofEntry)) -> bool) -> usize {
    t.nodes.iter().position(f).expect("a node of that kind")
}

#[test]
fn a_missing_reply_is_rejected_naming_the_node() {
    let mut t = win_proof();
    // Remove a child of an opponent node that is not the root.
    let i = find(&t, |(p, e)| {
        *e == ProofEntry::Opponent && p.moves().len() > 1
    });
    let parent = t.nodes[i].0;
    let child = parent.play_unchecked(&parent.moves().as_slice()[0]);
    t.nodes.retain(|(p, _)| *p != child);
    let err = verify(&t, &NoOracle, &NoResults).unwrap_err();
    match &err {
        VerifyError::MissingChild { child: c, .. } => assert_eq!(*c, to_fen(&child)),
        e => panic!("wrong error {e}"),
    }
    assert!(err.to_string().contains(&to_fen(&child)), "{err}");
}

#[test]
fn an_illegal_move_is_rejected() {
    let mut t = win_proof();
    let i = find(&t, |(_, e)| matches!(e, ProofEntry::Prover(_)));
    let pos = t.nodes[i].0;
    // A move from an empty square.
    let empty = engine::Square::from_bit(pos.empty());
    let bogus = engine::Move::new(empty, empty, 0);
    t.nodes[i].1 = ProofEntry::Prover(bogus);
    let err = verify(&t, &NoOracle, &NoResults).unwrap_err();
    assert!(
        matches!(err, VerifyError::IllegalMove { ref fen, .. } if *fen == to_fen(&pos)),
        "{err}"
    );
}

#[test]
fn a_wrong_leaf_is_rejected() {
    // A leaf claimed terminal that is not.
    let mut t = win_proof();
    let i = find(&t, |(_, e)| matches!(e, ProofEntry::Opponent));
    let pos = t.nodes[i].0;
    t.nodes[i].1 = ProofEntry::Leaf(LeafSource::Terminal);
    let err = verify(&t, &NoOracle, &NoResults).unwrap_err();
    assert!(
        matches!(err, VerifyError::BadLeaf { ref fen, .. } if *fen == to_fen(&pos)),
        "{err}"
    );

    // A database leaf whose value is not good enough.
    struct Liar;
    impl Oracle for Liar {
        fn probe(&self, _pos: &Position) -> Option<Value> {
            Some(Value::Draw)
        }
    }
    let mut t = win_proof();
    let i = find(&t, |(_, e)| matches!(e, ProofEntry::Opponent));
    let pos = t.nodes[i].0;
    t.nodes[i].1 = ProofEntry::Leaf(LeafSource::Egdb);
    let err = verify(&t, &Liar, &NoResults).unwrap_err();
    assert!(err.to_string().contains(&to_fen(&pos)), "{err}");
    assert!(err.to_string().contains("not enough"), "{err}");
    // And a database leaf the verifier's databases do not have.
    let err = verify(&t, &NoOracle, &NoResults).unwrap_err();
    assert!(
        err.to_string().contains("not in the endgame databases"),
        "{err}"
    );
}

#[test]
fn a_cycle_in_a_win_proof_is_rejected_but_allowed_in_a_draw_proof() {
    // Take a draw-type proof that loops (a repetition is a draw) and claim
    // the same nodes prove a win (or a loss): same proving side, same
    // leaves, so the only fault left is the cycle.
    let mut looping = None;
    for f in ["W:WK1:BK5,K32", "B:WK28:BK1,K5", "W:WK22,K23:BK1,K5"] {
        let p = parse_fen(f).unwrap();
        let opts = SolveOptions {
            solver: SolverKind::Ab,
            question: None,
            max_nodes: 1_000_000,
            ..SolveOptions::default()
        };
        let rep = solve(p, Leaves::new(&NoOracle, &NoResults), &opts).unwrap();
        for vp in rep.proofs {
            if vp.report.has_cycles {
                looping = Some(vp.tree);
            }
        }
    }
    let t = looping.expect("some draw proof loops");
    assert!(verify(&t, &NoOracle, &NoResults).unwrap().has_cycles);
    let mut as_win = t.clone();
    as_win.question = match t.question {
        Question::AtLeastDraw => Question::Win,
        _ => Question::Loss,
    };
    let err = verify(&as_win, &NoOracle, &NoResults).unwrap_err();
    assert!(matches!(err, VerifyError::Cycle(..)), "{err}");
    assert!(err.to_string().contains(":W"), "names a FEN: {err}");
}

#[test]
fn proof_files_round_trip_and_refuse_corruption() {
    let t = win_proof();
    let stored = vec![StoredProof {
        tree: t.clone(),
        info: "solver=dfpn nodes=1".into(),
    }];
    let mut buf = Vec::new();
    write_proofs(&mut buf, &stored).unwrap();
    let back = read_proofs(&buf[..], "mem").unwrap();
    assert_eq!(back, stored);

    let text = String::from_utf8(buf.clone()).unwrap();
    // Wrong magic, wrong version, truncated, tampered body.
    let e = read_proofs("hello\n".as_bytes(), "mem")
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a proof file"), "{e}");
    let e = read_proofs(
        text.replacen("checkers-proof 1", "checkers-proof 9", 1)
            .as_bytes(),
        "mem",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("version 9"), "{e}");
    let cut = &text[..text.len() / 2];
    let cut = &cut[..cut.rfind('\n').unwrap() + 1];
    let e = read_proofs(cut.as_bytes(), "mem").unwrap_err().to_string();
    assert!(e.contains("truncated"), "{e}");
    let lines: Vec<&str> = text.lines().collect();
    let victim = lines.iter().position(|l| l.contains("\topp")).unwrap();
    let tampered: String = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if i == victim {
                l.replace("\topp", "\tleaf terminal")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    let e = read_proofs(tampered.as_bytes(), "mem")
        .unwrap_err()
        .to_string();
    assert!(e.contains("checksum"), "{e}");
    let garbage = text.replacen("\topp", "\tfrobnicate", 1);
    let e = read_proofs(garbage.as_bytes(), "mem")
        .unwrap_err()
        .to_string();
    assert!(e.contains("line") && e.contains("frobnicate"), "{e}");
}
