//! The retrograde analysis against the endgame databases (every position
//! of its graph, not only the root), against the brute-force reference
//! and the searches, with every proof checked by the verifier.

mod common;

use common::Reference;
use engine::egdb::Egdb;
use engine::notation::fen::parse_fen;
use engine::{Color, NoOracle, Oracle, Position, Setup, Value};
use proofdb::outcome::NoResults;
use proofdb::{Outcome, ProofEntry, Question};
use solver::retro::{Retro, RetroConfig};
use solver::solve::{solve, SolveOptions, SolverKind};
use solver::verify::verify;
use solver::Leaves;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The databases up to 4 pieces, built once into a scratch folder (the
/// tests run in parallel: one build, then each opens its own view),
/// limited to `pieces`.
fn databases(pieces: u32) -> Egdb {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    let dir = BUILT.get_or_init(|| {
        let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("retro-egdb-4");
        engine::egdb::ensure(
            &dir,
            4,
            &engine::egdb::NoProgress,
            &engine::egdb::BuildMemory::UNLIMITED,
        )
        .expect("building 4-piece databases");
        dir
    });
    let mut db = Egdb::open(dir).expect("opening the 4-piece databases");
    db.limit_pieces(pieces);
    db
}

/// Checks every proof the root's value gives and returns their sizes.
fn check_proofs(r: &Retro, oracle: &dyn Oracle) -> Vec<(Question, usize, bool)> {
    r.questions()
        .into_iter()
        .map(|q| {
            let tree = r.proof(q, 10_000_000).expect("proof");
            let rep = verify(&tree, oracle, &NoResults)
                .unwrap_or_else(|e| panic!("{q:?} proof of {:?} rejected: {e}", r.root()));
            (q, rep.nodes, rep.has_cycles)
        })
        .collect()
}

use engine::rng::XorShift64 as Rng;

/// A random valid 4-piece position with two pieces a side.
fn random_position(rng: &mut Rng) -> Position {
    loop {
        let mut used = 0u32;
        let (mut black, mut white, mut kings) = (0u32, 0u32, 0u32);
        for k in 0..4 {
            let sq = loop {
                let s = (rng.next_u64() % 32) as u32;
                if used & (1 << s) == 0 {
                    break s;
                }
            };
            used |= 1 << sq;
            if k < 2 {
                black |= 1 << sq;
            } else {
                white |= 1 << sq;
            }
            if rng.next_u64().is_multiple_of(2) {
                kings |= 1 << sq;
            }
        }
        let side = if rng.next_u64().is_multiple_of(2) {
            Color::Black
        } else {
            Color::White
        };
        let setup = Setup {
            black_men: black & !kings,
            black_kings: black & kings,
            white_men: white & !kings,
            white_kings: white & kings,
            side: Some(side),
        };
        if let Ok(p) = Position::from_setup(&setup) {
            return p;
        }
    }
}

/// Random 4-piece positions solved with only the 3-piece databases: the
/// root and every interior position of the graph get the 4-piece
/// databases' value, and every proof verifies.
#[test]
fn agrees_with_the_databases() {
    let small = databases(3);
    let full = databases(4);
    let mut rng = Rng::new(1);
    let (mut checked, mut values) = (0usize, [0usize; 3]);
    for _ in 0..16 {
        let p = random_position(&mut rng);
        let r = Retro::solve(p, Leaves::new(&small, &NoResults), &RetroConfig::default())
            .expect("small graph");
        // The root and a sample of the rest (all of them take seconds).
        for (k, (pos, v, leaf)) in r.entries().enumerate() {
            if leaf.is_none() && k % 16 == 0 {
                assert_eq!(Some(v), full.probe(&pos), "{pos:?} (from root {p:?})");
                checked += 1;
            }
        }
        values[r.bounds().0 as usize] += 1;
        assert_eq!(r.frontier(), 0);
        check_proofs(&r, &small);
    }
    eprintln!("{checked} interior positions checked; roots loss/draw/win {values:?}");
    assert!(checked > 1000);
    assert!(values.iter().all(|&n| n > 0), "{values:?}");
}

/// King endings without any database: the analysis matches the
/// brute-force reference everywhere; the draws (which hold only by
/// endless shuffling) come with verified proofs that loop.
#[test]
fn agrees_with_the_reference_and_proves_repetition_draws() {
    for (fen, want) in [
        ("W:WK1:BK32", Some(Value::Draw)),
        ("B:WK1:BK32", Some(Value::Draw)),
        ("W:WK1,K3:BK32", Some(Value::Win)),
        ("B:WK10,K19:BK15,K29", None),
    ] {
        let root = parse_fen(fen).unwrap();
        let reference = Reference::solve(&[fen]);
        let r = Retro::solve(
            root,
            Leaves::new(&NoOracle, &NoResults),
            &RetroConfig::default(),
        )
        .expect("small graph");
        if let Some(want) = want {
            assert_eq!(r.bounds(), (want, want), "{fen}");
        }
        assert_eq!(r.positions(), reference.values.len(), "{fen}");
        for (pos, v, _) in r.entries() {
            assert_eq!(v, reference.values[&pos], "{pos:?} from {fen}");
        }
        let proofs = check_proofs(&r, &NoOracle);
        for (q, _, loops) in proofs {
            if q.allows_cycles() {
                assert!(loops, "{fen}: a draw by shuffling kings must loop");
            } else {
                assert!(!loops);
            }
        }
    }
}

/// Through `solve`: retro settles exactly what alpha-beta and df-pn
/// settle, never contradicting them, and its proofs are verified there.
#[test]
fn agrees_with_the_searches() {
    let db = databases(3);
    let mut rng = Rng::new(12345);
    let mut exact_by_search = 0;
    for _ in 0..6 {
        let p = random_position(&mut rng);
        let leaves = Leaves::new(&db, &NoResults);
        let retro = solve(
            p,
            leaves,
            &SolveOptions {
                solver: SolverKind::Retro,
                ..SolveOptions::default()
            },
        )
        .expect("retro");
        let Some(Outcome::Exact(v)) = retro.outcome else {
            panic!("retro left {p:?} open: {:?}", retro.outcome);
        };
        assert_eq!(retro.provenance.solver, "retro");
        assert_eq!(retro.proofs.len(), if v == Value::Draw { 2 } else { 1 });
        let search = solve(
            p,
            leaves,
            &SolveOptions {
                solver: SolverKind::Both,
                max_nodes: 50_000,
                ..SolveOptions::default()
            },
        )
        .expect("searches");
        if let Some(o) = search.outcome {
            let (lo, hi) = o.range();
            assert!(lo <= v && v <= hi, "{p:?}: retro {v}, searches {o}");
            exact_by_search += (o == Outcome::Exact(v)) as usize;
        }
    }
    assert!(exact_by_search > 0);
}

/// A graph larger than the cap gives bounds that hold the true value
/// (never a wrong value), with verified proofs of what they settle; with
/// `--solver all` the searches then take over.
#[test]
fn the_cap_gives_bounds() {
    let small = databases(3);
    let full = databases(4);
    let mut rng = Rng::new(7);
    let mut settled = [0usize; 2];
    for k in 0..24 {
        let p = random_position(&mut rng);
        let cap = [300, 3_000, 30_000][k % 3];
        let cfg = RetroConfig {
            max_positions: cap,
            ..RetroConfig::default()
        };
        let r = Retro::solve(p, Leaves::new(&small, &NoResults), &cfg).unwrap();
        assert!(r.positions() <= cap);
        let (lo, hi) = r.bounds();
        let want = full.probe(&p).unwrap();
        assert!(
            lo <= want && want <= hi,
            "{p:?}: {lo}..{hi}, database {want}"
        );
        let proofs = check_proofs(&r, &small);
        if r.frontier() > 0 {
            settled[(lo == hi) as usize] += 1;
            assert_eq!(proofs.is_empty(), r.outcome().is_none());
        }
    }
    eprintln!(
        "with a frontier: {} open or bounded, {} exact",
        settled[0], settled[1]
    );
    assert!(settled[0] > 0);

    let root = parse_fen("B:WK10,K19:BK15,K29").unwrap();
    let leaves = Leaves::new(&NoOracle, &NoResults);
    let opts = SolveOptions {
        solver: SolverKind::Retro,
        retro_positions: 100,
        ..SolveOptions::default()
    };
    let rep = solve(root, leaves, &opts).unwrap();
    let want = Reference::solve(&["B:WK10,K19:BK15,K29"]).value("B:WK10,K19:BK15,K29");
    if let Some(o) = rep.outcome {
        let (lo, hi) = o.range();
        assert!(lo <= want && want <= hi);
    }
    // 2 kings v 1: the searches win it after retro gives up.
    let win = parse_fen("W:WK1,K3:BK32").unwrap();
    let rep = solve(
        win,
        leaves,
        &SolveOptions {
            solver: SolverKind::All,
            retro_positions: 100,
            question: Some(Question::Win),
            ..SolveOptions::default()
        },
    )
    .unwrap();
    assert_eq!(rep.runs[0].solver, solver::Runner::Retro);
    assert_eq!(rep.outcome, Some(Outcome::Exact(Value::Win)));
    assert!(rep.provenance.solver.contains("ab+dfpn"));
}

/// Dropping any position from a retro proof, or turning an interior one
/// into a database leaf without a database, makes the verifier reject it.
#[test]
fn tampered_proofs_are_rejected() {
    for fen in ["W:WK1,K3:BK32", "W:WK1:BK32"] {
        let root = parse_fen(fen).unwrap();
        let r = Retro::solve(
            root,
            Leaves::new(&NoOracle, &NoResults),
            &RetroConfig::default(),
        )
        .unwrap();
        for q in r.questions() {
            let tree = r.proof(q, 1_000_000).unwrap();
            assert!(verify(&tree, &NoOracle, &NoResults).is_ok());
            for k in (0..tree.nodes.len()).step_by(7) {
                let mut t = tree.clone();
                t.nodes.remove(k);
                assert!(
                    verify(&t, &NoOracle, &NoResults).is_err(),
                    "{fen} {q:?} without node {k}"
                );
                let mut t = tree.clone();
                if t.nodes[k].1 != ProofEntry::Leaf(proofdb::LeafSource::Terminal) {
                    t.nodes[k].1 = ProofEntry::Leaf(proofdb::LeafSource::Egdb);
                    assert!(
                        verify(&t, &NoOracle, &NoResults).is_err(),
                        "{fen} {q:?} leaf {k}"
                    );
                }
            }
        }
    }
}

/// Random 5-piece positions solved with the 4-piece databases against
/// the 5-piece ones, every interior position of each graph. Needs the
/// databases in `CHECKERS_EGDB`; run with
/// `CHECKERS_EGDB=DIR cargo test -p solver --test retro -- --ignored`.
#[test]
#[ignore]
fn agrees_with_the_five_piece_databases() {
    let dir = std::env::var("CHECKERS_EGDB").expect("CHECKERS_EGDB");
    let full = Egdb::open(std::path::Path::new(&dir)).expect("databases");
    let mut small = Egdb::open(std::path::Path::new(&dir)).expect("databases");
    small.limit_pieces(4);
    let mut rng = Rng::new(99);
    let mut checked = 0usize;
    let mut n = 0;
    while n < 6 {
        let p = random_position(&mut rng);
        // Add a fifth piece: a black man or king on a free square.
        let mut setup = p.to_setup();
        let free = !(setup.black_men | setup.black_kings | setup.white_men | setup.white_kings);
        let sq = (rng.next_u64() % 32) as u32;
        if free & (1 << sq) == 0 {
            continue;
        }
        setup.black_kings |= 1 << sq;
        let Ok(p) = Position::from_setup(&setup) else {
            continue;
        };
        n += 1;
        let r = Retro::solve(p, Leaves::new(&small, &NoResults), &RetroConfig::default())
            .expect("graph");
        for (pos, v, leaf) in r.entries() {
            if leaf.is_none() {
                assert_eq!(Some(v), full.probe(&pos), "{pos:?} (from root {p:?})");
                checked += 1;
            }
        }
        check_proofs(&r, &small);
    }
    eprintln!("{checked} interior positions checked");
}
