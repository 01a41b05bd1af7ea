//! A position left open keeps df-pn's tables for its next attempt; a
//! settled one leaves no file behind; a file that cannot be read back is
//! replaced, not fatal.

use ballots::attempt::{checkpoint_file, ProverSettings, StoreProver};
use ballots::job::PositionProver;
use engine::notation::fen::parse_fen;
use engine::{NoOracle, Value};
use proofdb::{LiveResults, Outcome, ResultSource, Store};
use solver::SolverKind;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

fn prover<'a>(
    store: &'a Store,
    live: &'a LiveResults,
    dir: &'a std::path::Path,
) -> StoreProver<'a> {
    StoreProver {
        oracle: &NoOracle,
        live,
        store,
        run_id: "test".to_string(),
        settings: ProverSettings {
            solver: SolverKind::Dfpn,
            table_entries: 100_000,
            ..ProverSettings::default()
        },
        checkpoints: Some(dir),
    }
}

/// A scratch store and a folder for df-pn's tables beside it.
struct Scratch {
    _dir: tempfile::TempDir,
    store: Store,
    live: LiveResults,
    tables: std::path::PathBuf,
}

impl Scratch {
    fn new() -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("s.sqlite")).unwrap();
        let live = LiveResults::load(&store).unwrap();
        let tables = dir.path().join("tables");
        std::fs::create_dir(&tables).unwrap();
        Scratch {
            _dir: dir,
            store,
            live,
            tables,
        }
    }
}

/// Tries `pos` for 30 ms, which leaves it open.
fn left_open(p: &StoreProver<'_>, pos: &engine::Position) {
    let stop = Arc::new(AtomicBool::new(false));
    let a = p.prove(pos, Duration::from_millis(30), &stop).unwrap();
    assert_eq!(a.outcome, None);
}

#[test]
fn an_open_position_keeps_its_tables_and_a_settled_one_none() {
    let s = Scratch::new();
    let tables = &s.tables;
    let p = prover(&s.store, &s.live, tables);
    let stop = Arc::new(AtomicBool::new(false));

    // The opening is far beyond a few milliseconds without databases.
    let open = engine::Position::initial();
    let a = p.prove(&open, Duration::from_millis(30), &stop).unwrap();
    assert_eq!(a.outcome, None);
    assert!(checkpoint_file(tables, &open).is_file());

    // Two kings against one: settled, and nothing kept.
    let won = parse_fen("W:WK1,K5:BK32").unwrap();
    let b = p.prove(&won, Duration::from_secs(30), &stop).unwrap();
    assert_eq!(b.outcome, Some(Outcome::Exact(Value::Win)));
    assert!(!checkpoint_file(tables, &won).exists());

    // Garbage where the tables were: the attempt searches afresh.
    std::fs::write(checkpoint_file(tables, &open), b"not a checkpoint").unwrap();
    let c = p.prove(&open, Duration::from_millis(30), &stop).unwrap();
    assert_eq!(c.outcome, None);
    let kept = std::fs::read(checkpoint_file(tables, &open)).unwrap();
    assert_ne!(kept, b"not a checkpoint");
}

#[test]
fn a_proof_too_large_to_extract_leaves_the_position_open() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("s.sqlite")).unwrap();
    let live = LiveResults::load(&store).unwrap();
    let mut p = prover(&store, &live, dir.path());
    p.settings.max_proof_nodes = 3;
    let won = parse_fen("W:WK1,K5:BK32").unwrap();
    let budget = Duration::from_secs(5);
    let a = p
        .prove(&won, budget, &Arc::new(AtomicBool::new(false)))
        .expect("an open attempt, not a failed one");
    assert_eq!(a.outcome, None);
    // Charged its whole budget, so the walk's doubling ends.
    assert!(a.millis >= budget.as_millis() as u64, "{a:?}");
    assert_eq!(live.lookup(&won), None);
}

#[test]
fn past_the_limit_the_tables_searched_longest_ago_go() {
    let s = Scratch::new();
    let tables = &s.tables;
    let mut p = prover(&s.store, &s.live, tables);
    // Room for one position's tables, not two.
    p.settings.carry_over_bytes = 1;

    let first = engine::Position::initial();
    let second =
        parse_fen("W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,15").unwrap();
    left_open(&p, &first);
    // Alone over the limit, the file just written stays for its next attempt.
    assert!(checkpoint_file(tables, &first).is_file());
    left_open(&p, &second);
    assert!(!checkpoint_file(tables, &first).exists());
    assert!(checkpoint_file(tables, &second).is_file());

    // With the default limit both are kept.
    p.settings.carry_over_bytes = ballots::attempt::CARRY_OVER_BYTES;
    left_open(&p, &first);
    assert!(checkpoint_file(tables, &first).is_file());
    assert!(checkpoint_file(tables, &second).is_file());
}

#[test]
fn a_folder_of_tables_removed_during_the_run_is_made_again() {
    let s = Scratch::new();
    let p = prover(&s.store, &s.live, &s.tables);
    let open = engine::Position::initial();
    left_open(&p, &open);
    std::fs::remove_dir_all(&s.tables).unwrap();
    left_open(&p, &open);
    assert!(checkpoint_file(&s.tables, &open).is_file());

    // A file where the folder should be: the attempt keeps no tables
    // and still answers.
    std::fs::remove_dir_all(&s.tables).unwrap();
    std::fs::write(&s.tables, b"not a folder").unwrap();
    left_open(&p, &open);
    assert_eq!(std::fs::read(&s.tables).unwrap(), b"not a folder");
}

/// A folder of tables where nothing can be written (as on a full disk):
/// each attempt keeps its answer and the walk goes on, instead of the
/// write's failure ending the attempt in an error after a second search.
#[test]
fn tables_that_cannot_be_written_cost_no_answer() {
    // Nobody, not even root, makes files in /proc.
    let proc_dir = std::path::Path::new("/proc");
    if !proc_dir.is_dir() {
        return;
    }
    let s = Scratch::new();
    let p = prover(&s.store, &s.live, proc_dir);
    let open = engine::Position::initial();
    left_open(&p, &open);
    assert!(!checkpoint_file(proc_dir, &open).exists());
    let stop = Arc::new(AtomicBool::new(false));
    let won = parse_fen("W:WK1,K5:BK32").unwrap();
    let b = p.prove(&won, Duration::from_secs(30), &stop).unwrap();
    assert_eq!(b.outcome, Some(Outcome::Exact(Value::Win)));
}
