//! df-pn checkpoints: a search stopped and resumed from its file reaches
//! the answer of one that was never stopped, building on what the first
//! run found; files that are damaged, of another version or of another
//! search are refused with the reason, never read.

use engine::egdb::file::Checksum;
use engine::notation::fen::parse_fen;
use engine::{NoOracle, Position, Value};
use proofdb::outcome::NoResults;
use proofdb::{Outcome, Question};
use solver::dfpn::{CheckpointError, Dfpn, DfpnConfig};
use solver::solve::{solve, CheckpointPlan, SolveError, SolveOptions, SolverKind};
use solver::{CallLimits, Leaves, Status};
use std::path::{Path, PathBuf};
mod stack;

use stack::on_big_stack;

/// A king ending df-pn wins without databases in some ten thousand nodes.
const FEN: &str = "W:WK22,K23,K24:BK31,K32";
const CONTEXT: &str = "W:WK22,K23,K24:BK31,K32 with databases up to 0 pieces";

fn prover(nodes: u64) -> Dfpn<'static> {
    Dfpn::new(
        Leaves::new(&NoOracle, &NoResults),
        DfpnConfig {
            limits: CallLimits::nodes(nodes),
            ..DfpnConfig::default()
        },
    )
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("checkers-checkpoint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// The nodes an unstopped search takes, and its answer.
fn straight(root: Position) -> (u64, Status) {
    let mut df = prover(10_000_000);
    let s = df.prove(root, Question::Win, &[]).res.status;
    (df.nodes(), s)
}

#[test]
fn a_search_resumed_from_its_checkpoint_finishes_with_the_same_answer() {
    on_big_stack(|| {
        let root = parse_fen(FEN).unwrap();
        let (whole, answer) = straight(root);
        assert_eq!(answer, Status::Success, "{FEN} is a win");
        let path = scratch("resume.ckpt");
        // A third of the work, then a stop.
        let mut first = prover(whole / 3);
        let s = first.prove(root, Question::Win, &[]).res.status;
        assert_eq!(s, Status::Unknown, "stopped before the end");
        let saved = first.save_checkpoint(&path, CONTEXT).unwrap();
        assert_eq!(saved.nodes, first.nodes());
        assert!(saved.entries > 0);
        drop(first);
        // A new prover (a new process) with the file.
        let mut second = prover(10_000_000);
        let loaded = second.load_checkpoint(&path, CONTEXT).unwrap();
        assert_eq!(loaded, saved);
        assert_eq!(second.nodes(), saved.nodes, "the count goes on");
        let s = second.prove(root, Question::Win, &[]).res.status;
        assert_eq!(s, answer);
        let resumed = second.nodes() - saved.nodes;
        // Without the tables it would take the whole search again.
        assert!(
            resumed < whole,
            "resumed run {resumed} nodes, a whole search {whole}"
        );
        eprintln!(
            "whole {whole} nodes; stopped at {}, resumed {resumed}",
            saved.nodes
        );
        let _ = std::fs::remove_file(&path);
    });
}

/// Loads `bytes` written to a file as a checkpoint for [`CONTEXT`].
fn load_bytes(name: &str, bytes: &[u8]) -> Result<(), CheckpointError> {
    let path = scratch(name);
    std::fs::write(&path, bytes).unwrap();
    let r = prover(1).load_checkpoint(&path, CONTEXT).map(|_| ());
    let _ = std::fs::remove_file(&path);
    r
}

fn good_file(path: &Path) -> Vec<u8> {
    on_big_stack(|| {
        let mut df = prover(3_000);
        df.prove(parse_fen(FEN).unwrap(), Question::Win, &[]);
        df.save_checkpoint(path, CONTEXT).unwrap();
    });
    std::fs::read(path).unwrap()
}

#[test]
fn damaged_foreign_and_other_version_files_are_refused_with_the_reason() {
    let path = scratch("good.ckpt");
    let good = good_file(&path);
    assert!(load_bytes("copy.ckpt", &good).is_ok());
    // Tables never filled (none of either kind) read back too.
    let empty = scratch("empty.ckpt");
    prover(1).save_checkpoint(&empty, CONTEXT).unwrap();
    let stats = prover(1).load_checkpoint(&empty, CONTEXT).unwrap();
    assert_eq!((stats.entries, stats.looped, stats.nodes), (0, 0, 0));
    let _ = std::fs::remove_file(&empty);
    // Cut anywhere: at the end, inside the records, inside the header.
    for keep in [good.len() - 1, good.len() / 2, 30, 10, 3, 0] {
        let e = load_bytes("cut.ckpt", &good[..keep]).unwrap_err();
        assert!(
            matches!(e, CheckpointError::Truncated { .. }),
            "cut to {keep} bytes: {e}"
        );
        assert!(e.to_string().contains("truncated"), "{e}");
    }
    // A byte changed anywhere past the version.
    for at in [20, 50, good.len() / 3, good.len() - 9, good.len() - 1] {
        let mut bad = good.clone();
        bad[at] ^= 0x10;
        let e = load_bytes("flipped.ckpt", &bad).unwrap_err();
        assert!(
            matches!(
                e,
                CheckpointError::Checksum { .. } | CheckpointError::Truncated { .. }
            ),
            "byte {at}: {e}"
        );
    }
    let mut version = good.clone();
    version[8] = 9;
    let e = load_bytes("version.ckpt", &version).unwrap_err();
    assert!(
        matches!(e, CheckpointError::Version { found: 9, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("version 9"), "{e}");
    // A record no search writes, under a checksum that holds: refused,
    // naming the record. The first record follows the header.
    let header = 8 + 4 + 4 + CONTEXT.len() + 5 * 8;
    let mut odd = good.clone();
    odd[header + 12] = 7; // flags: only bits 0-1 exist
    let body = odd.len() - 8;
    let mut sum = Checksum::default();
    sum.update(&odd[..body]);
    let sum = sum.finish().to_le_bytes();
    odd[body..].copy_from_slice(&sum);
    let e = load_bytes("record.ckpt", &odd).unwrap_err();
    assert!(
        matches!(e, CheckpointError::Record { record: 0, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("flags 7"), "{e}");
    let mut magic = good.clone();
    magic[0] = b'X';
    let e = load_bytes("magic.ckpt", &magic).unwrap_err();
    assert!(matches!(e, CheckpointError::NotCheckpoint { .. }), "{e}");
    // Another search's file.
    let e = prover(1)
        .load_checkpoint(&path, "W:WK22:BK31 with databases up to 0 pieces")
        .unwrap_err();
    assert!(matches!(e, CheckpointError::OtherSearch { .. }), "{e}");
    assert!(e.to_string().contains(CONTEXT), "{e}");
    // A missing file names the path.
    let missing = scratch("missing.ckpt");
    let e = prover(1).load_checkpoint(&missing, CONTEXT).unwrap_err();
    assert!(e.to_string().contains("missing.ckpt"), "{e}");
    // The file that was refused as another search's is untouched.
    assert_eq!(std::fs::read(&path).unwrap(), good);
    let _ = std::fs::remove_file(&path);
}

/// A write that cannot be made says where it failed: into a folder that
/// does not exist, no file appears; over a checkpoint whose temporary
/// file cannot be created, the checkpoint already there is kept as it was.
#[test]
fn a_failed_write_names_the_file_and_keeps_the_last_checkpoint() {
    let dir = scratch("gone");
    let path = dir.join("sub").join("x.ckpt");
    let e = prover(1).save_checkpoint(&path, CONTEXT).unwrap_err();
    assert!(matches!(e, CheckpointError::Io { .. }), "{e}");
    assert!(e.to_string().contains("x.ckpt"), "{e}");
    assert!(!path.exists());

    // A name the system takes, whose temporary name (the name with
    // `.PID-N.tmp` appended) is too long: the temporary file cannot be made.
    let name = format!("{}.ckpt", "k".repeat(245));
    let path = scratch(&name);
    let good = good_file(&scratch("kept.ckpt"));
    std::fs::rename(scratch("kept.ckpt"), &path).unwrap();
    let e = prover(1).save_checkpoint(&path, CONTEXT).unwrap_err();
    assert!(e.to_string().contains(&format!("{name}.")), "{e}");
    assert!(e.to_string().contains(".tmp"), "{e}");
    assert_eq!(std::fs::read(&path).unwrap(), good);
    let _ = std::fs::remove_file(&path);
}

/// A search asked for checkpoints writes them as it goes (the clock is
/// looked at once in 2^20 nodes), with the nodes searched by then; one
/// that cannot write stops there and says why.
#[test]
fn checkpoints_are_written_during_a_search_and_a_failed_one_stops_it() {
    on_big_stack(|| {
        let root = Position::initial();
        let path = scratch("periodic.ckpt");
        let mut df = prover(1_200_000);
        df.checkpoint_every(&path, "the start", std::time::Duration::ZERO, true);
        let s = df.prove(root, Question::Win, &[]).res.status;
        assert_eq!(s, Status::Unknown);
        assert!(df.checkpoint_failure().is_none());
        let stats = prover(1).load_checkpoint(&path, "the start").unwrap();
        assert_eq!(stats.nodes, 1 << 20, "written at the first look");
        let _ = std::fs::remove_file(&path);

        let mut df = prover(5_000_000);
        let nowhere = scratch("no-such-dir").join("sub").join("p.ckpt");
        df.checkpoint_every(&nowhere, "the start", std::time::Duration::ZERO, true);
        let s = df.prove(root, Question::Win, &[]).res.status;
        assert_eq!(s, Status::Unknown);
        assert!(
            df.nodes() < 2 << 20,
            "stopped at the failed write: {}",
            df.nodes()
        );
        let e = df.checkpoint_failure().expect("the write failed");
        assert!(e.to_string().contains("p.ckpt"), "{e}");

        // Not stopping on a failure: the search uses its whole budget.
        let mut df = prover(3_000_000);
        df.checkpoint_every(&nowhere, "the start", std::time::Duration::ZERO, false);
        df.prove(root, Question::Win, &[]);
        assert!(df.nodes() >= 3_000_000, "went on: {}", df.nodes());
        assert!(df.checkpoint_failure().is_some());
    });
}

/// Through `solve`, tables that cannot be written (a search left open
/// writes them): an error for a plan that must write them; for a
/// best-effort plan, the search's report as without tables, with the
/// failure beside it.
#[test]
fn a_best_effort_plan_that_cannot_write_keeps_the_report() {
    let root = parse_fen(FEN).unwrap();
    let nowhere = scratch("no-such-dir-either").join("sub").join("s.ckpt");
    let leaves = Leaves::new(&NoOracle, &NoResults);
    let must = win_question_with_checkpoint(&nowhere, 1_000);
    assert!(matches!(
        solve(root, leaves, &must),
        Err(SolveError::Checkpoint(_))
    ));
    let mut opts = win_question_with_checkpoint(&nowhere, 1_000);
    if let Some(plan) = opts.checkpoint.as_mut() {
        plan.best_effort = true;
    }
    let rep = solve(root, leaves, &opts).expect("the report stands");
    let plain = SolveOptions {
        checkpoint: None,
        ..opts.clone()
    };
    let plain = solve(root, leaves, &plain).unwrap();
    assert_eq!(rep.outcome, None, "left open within 1,000 nodes");
    assert_eq!(rep.runs.len(), plain.runs.len());
    assert_eq!(rep.runs[0].nodes, plain.runs[0].nodes);
    let why = rep.tables_unwritten.expect("the failure is reported");
    assert!(why.contains("s.ckpt"), "{why}");
    assert!(plain.tables_unwritten.is_none());
}

/// Through `solve`: the second call of the same search resumes, answers,
/// and its proof, verified, counts the nodes of both calls.
#[test]
fn solve_resumes_from_its_checkpoint_and_counts_both_runs() {
    let root = parse_fen(FEN).unwrap();
    let path = scratch("solve.ckpt");
    let opts = |max_nodes| win_question_with_checkpoint(&path, max_nodes);
    let leaves = Leaves::new(&NoOracle, &NoResults);
    let first = solve(root, leaves, &opts(1_000)).unwrap();
    assert_eq!(first.outcome, None);
    assert!(first.resumed.is_none());
    let second = solve(root, leaves, &opts(1_000_000)).unwrap();
    let _ = std::fs::remove_file(&path);
    assert_eq!(second.outcome, Some(Outcome::Exact(Value::Win)));
    let resumed = second.resumed.expect("resumed");
    assert_eq!(resumed.nodes, first.provenance.nodes);
    let this_run: u64 = second.runs.iter().map(|r| r.nodes).sum();
    assert_eq!(second.provenance.nodes, this_run + resumed.nodes);
    let proof = &second.proofs[0];
    assert_eq!(proof.provenance.nodes, this_run + resumed.nodes);
}

/// A question settled in a short search leaves no tables to write: a
/// solve that settles leaves no file, one left open leaves its tables.
#[test]
fn only_an_open_question_writes_its_tables_after_it() {
    let root = parse_fen(FEN).unwrap();
    let path = scratch("settled.ckpt");
    let _ = std::fs::remove_file(&path);
    let opts = |max_nodes| win_question_with_checkpoint(&path, max_nodes);
    let leaves = Leaves::new(&NoOracle, &NoResults);
    let settled = solve(root, leaves, &opts(1_000_000)).unwrap();
    assert_eq!(settled.outcome, Some(Outcome::Exact(Value::Win)));
    assert!(!path.exists(), "a settled search wrote its tables");
    let open = solve(root, leaves, &opts(1_000)).unwrap();
    assert_eq!(open.outcome, None);
    assert!(path.is_file(), "an open search kept no tables");
    let _ = std::fs::remove_file(&path);
}

/// df-pn alone on the win question within `max_nodes`, its tables kept
/// in `path` (read back when the file is there).
fn win_question_with_checkpoint(path: &Path, max_nodes: u64) -> SolveOptions {
    SolveOptions {
        solver: SolverKind::Dfpn,
        question: Some(Question::Win),
        max_nodes,
        checkpoint: Some(CheckpointPlan {
            path: path.to_path_buf(),
            every: std::time::Duration::from_secs(3600),
            best_effort: false,
        }),
        ..SolveOptions::default()
    }
}
