//! Every command's JSON output uses the keys of docs/json.txt and nothing
//! else, and is JSON Lines (one object per line), so the vocabulary
//! cannot drift: a new key must be documented there first.

mod common;

use ballots::tables::{BallotTables, JobRecord, JobStatus};
use engine::notation::fen::parse_fen;
use proofdb::{Outcome, Provenance, Store};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// A win for the side to move that `solve` proves at once.
const WIN: &str = "B:W14:B10";

/// `solve` of [`WIN`] as JSON, stored in `s.sqlite`.
const SOLVE_WIN: [&str; 7] = [
    "solve",
    WIN,
    "--egdb-pieces",
    "0",
    "--json",
    "--store",
    "s.sqlite",
];

/// The keys docs/json.txt lists, and those whose values are maps of data
/// keys (marked `(map)`).
fn documented() -> (BTreeSet<String>, BTreeSet<String>) {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/json.txt"))
        .expect("docs/json.txt");
    let mut keys = BTreeSet::new();
    let mut maps = BTreeSet::new();
    let mut in_list = false;
    for line in text.lines() {
        if line.starts_with("The keys") {
            in_list = true;
        } else if line.starts_with("Per command") {
            in_list = false;
        }
        let Some((key, rest)) = line.split_once("  ") else {
            continue;
        };
        if in_list && !key.is_empty() && key.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
            if rest.trim_start().starts_with("(map)") {
                maps.insert(key.to_string());
            }
            keys.insert(key.to_string());
        }
    }
    assert!(keys.len() > 50, "docs/json.txt lists {} keys", keys.len());
    (keys, maps)
}

/// Every key of `v`, at any depth, except inside `maps`.
fn keys_of(v: &serde_json::Value, maps: &BTreeSet<String>, out: &mut BTreeSet<String>) {
    match v {
        serde_json::Value::Object(o) => {
            for (k, child) in o {
                out.insert(k.clone());
                if !maps.contains(k) {
                    keys_of(child, maps, out);
                }
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|c| keys_of(c, maps, out)),
        _ => {}
    }
}

/// Runs `checkers args` in `dir`; its standard output parsed as JSON
/// Lines (each line one object).
fn json_lines(dir: &Path, args: &[&str]) -> Vec<serde_json::Value> {
    let out = common::checkers_in(dir).args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() || args.contains(&"--batch"),
        "checkers {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("checkers {args:?}: not JSON Lines ({e}): {l}"));
            assert!(v.is_object(), "checkers {args:?}: {l}");
            v
        })
        .collect();
    assert!(!lines.is_empty(), "checkers {args:?} wrote nothing");
    lines
}

/// A store with ballot 1's main line to ply 5, ply 4 proved a draw, ply
/// 5 with a bound and a job record.
fn ballot_store(path: &Path) {
    let store = Store::open(path).unwrap();
    let line = ballots::testing::line_from_moves(&["9-13", "21-17", "5-9", "25-21", "11-15"]);
    store.set_main_line(1, &line).unwrap();
    let prov = Provenance {
        solver: "dfpn".into(),
        egdb_pieces: 4,
        ..Provenance::default()
    };
    let draw = Outcome::Exact(engine::Value::Draw);
    proofdb::testing::put_outcome_unverified(&store, &line[4].position, draw, &prov).unwrap();
    proofdb::testing::put_outcome_unverified(&store, &line[5].position, Outcome::AtMostDraw, &prov)
        .unwrap();
    store
        .put_job_record(&JobRecord {
            ballot: 1,
            ply: 5,
            outcome: Some(Outcome::AtMostDraw),
            nodes: 10,
            millis: 3000,
            budget_millis: 3000,
            proof_size: 2,
            status: JobStatus::Partial,
            run_id: "test".into(),
            updated: 0,
        })
        .unwrap();
}

#[test]
fn every_json_key_is_in_the_vocabulary() {
    let (known, maps) = documented();
    let tmp = common::temp_dir("json-keys");
    let dir = tmp.path();
    assert!(parse_fen(WIN).is_ok());
    std::fs::write(dir.join("batch.txt"), format!("{WIN}\nnot a fen\n")).unwrap();
    std::fs::write(
        dir.join("games.pdn"),
        "[Event \"a\"]\n1. 9-13 22-18 *\n\n[Event \"b\"]\n1. 9-14 *\n",
    )
    .unwrap();
    ballot_store(&dir.join("b.sqlite"));
    let runs: Vec<Vec<&str>> = vec![
        [&SOLVE_WIN[..], &["--proof-out", "p.txt"]].concat(),
        vec![
            "solve",
            "--batch",
            "batch.txt",
            "--egdb-pieces",
            "0",
            "--json",
        ],
        vec!["db", "export", "--store", "s.sqlite"],
        vec!["db", "stats", "--json", "--store", "s.sqlite"],
        vec!["proof", "show", "p.txt", "--egdb-pieces", "0", "--json"],
        vec!["proof", "export", "p.txt", "--format", "json"],
        vec!["egdb", "build", "--pieces", "3"],
        vec!["egdb", "probe", "W:WK19:B12,K28", "--json"],
        vec!["egdb", "slices", "--pieces", "3", "--json"],
        vec!["egdb", "stats", "--json"],
        vec!["ballots", "list", "--deck", "barred", "--json"],
        vec!["ballots", "status", "--json", "--store", "b.sqlite"],
        vec!["ballots", "show", "1", "--json", "--store", "b.sqlite"],
        vec!["pdn", "check", "games.pdn", "--json"],
        vec!["perft", "3", "--json"],
        vec!["bestmove", WIN, "--json", "--depth", "4", "--no-book"],
        vec![
            "bestmove",
            WIN,
            "--json",
            "--depth",
            "4",
            "--no-book",
            "--egdb-pieces",
            "0",
            "--store",
            "s.sqlite",
        ],
        vec!["perft", "2", "--divide", "--json"],
    ];
    let mut unknown = Vec::new();
    for args in &runs {
        if args[1] == "build" {
            let out = Command::new(env!("CARGO_BIN_EXE_checkers"))
                .args(args)
                .arg("--dir")
                .arg(dir.join("egdb"))
                .output()
                .unwrap();
            common::assert_success(&out);
            continue;
        }
        let mut keys = BTreeSet::new();
        for v in json_lines(dir, args) {
            keys_of(&v, &maps, &mut keys);
        }
        unknown.extend(
            keys.difference(&known)
                .map(|k| format!("{}: {k}", args[..2].join(" "))),
        );
    }
    assert!(unknown.is_empty(), "keys not in docs/json.txt: {unknown:?}");
}

/// The same facts carry the same keys: a position's value is `value` with
/// `side_to_move` in `solve`, `db export` and `egdb probe`.
#[test]
fn a_value_is_named_alike_everywhere() {
    let tmp = common::temp_dir("json-alike");
    let dir = tmp.path();
    let solved = &json_lines(dir, &SOLVE_WIN)[0];
    assert_eq!(solved["value"], "win");
    assert_eq!(solved["label"], "W");
    assert_eq!(solved["side_to_move"], "Black");
    let exported = json_lines(dir, &["db", "export", "--store", "s.sqlite"]);
    let row = exported.iter().find(|r| r["fen"] == solved["fen"]).unwrap();
    assert_eq!(
        (&row["value"], &row["side_to_move"]),
        (&solved["value"], &solved["side_to_move"])
    );
    assert!(row["millis"].is_u64() && solved["millis"].is_u64());
}
