//! `checkers db` and `checkers ballots` end to end, on stores made here.

mod common;

use ballots::tables::BallotTables;
use common::text;
use engine::notation::fen::to_fen;
use engine::{Color, Position, Value};
use proofdb::{Outcome, Provenance, Store};
use std::path::Path;
use std::process::{Command, Output};

fn checkers(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_checkers"))
        .args(args)
        .current_dir(cwd)
        .env_remove("CHECKERS_STORE")
        .env_remove("CHECKERS_DATA")
        .output()
        .unwrap()
}

fn pos(n: u32) -> Position {
    Position::from_bitboards_unchecked(n & 0xFFF, ((n >> 12) & 0xFF) << 20, 0, Color::Black)
}

/// Stores `outcome` for synthetic position `n` as found by `solver`,
/// without a proof (the store then calls it unproved).
fn put_unverified(store: &Store, n: u32, outcome: Outcome, solver: &str) {
    proofdb::testing::put_outcome_unverified(store, &pos(n), outcome, &prov(solver)).unwrap();
}

fn prov(s: &str) -> Provenance {
    Provenance {
        solver: s.into(),
        nodes: 3,
        millis: 4,
        egdb_pieces: 8,
        run_id: "cli".into(),
    }
}

#[test]
fn merge_stats_export() {
    let tmp = common::temp_dir("cli-merge");
    let dir = tmp.path();
    {
        let a = Store::open(dir.join("a.sqlite")).unwrap();
        let b = Store::open(dir.join("b.sqlite")).unwrap();
        for n in 1..=10 {
            put_unverified(&a, n, Outcome::AtLeastDraw, "ab");
        }
        for n in 6..=15 {
            put_unverified(&b, n, Outcome::Exact(Value::Win), "dfpn");
        }
        put_unverified(&b, 3, Outcome::Exact(Value::Loss), "dfpn");
    }
    let out = checkers(&["db", "merge", "a.sqlite", "b.sqlite"], dir);
    let so = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{so}\n{}", text(&out.stderr));
    assert!(text(&out.stderr)
        .contains("1 contradicting result(s) and 0 result(s) without a proof refused"));
    assert!(
        so.contains("a.sqlite: 10 results: 10 new, 0 tightened, 0 unchanged, 0 refused"),
        "{so}"
    );
    assert!(
        so.contains("b.sqlite: 11 results: 5 new, 5 tightened, 0 unchanged, 1 refused"),
        "{so}"
    );
    assert!(
        so.contains("refused B:W:B1,2: store has >=draw, shard says loss"),
        "{so}"
    );
    // The default store is ./proofs.sqlite.
    let out = checkers(&["db", "stats", "--json"], dir);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["results"], 15);
    assert_eq!(v["by_outcome"]["win"], 10);
    assert_eq!(v["by_outcome"][">=draw"], 5);
    assert_eq!(v["by_solver"]["ab+dfpn"], 5);
    let out = checkers(&["db", "stats"], dir);
    assert!(text(&out.stdout).contains("results      15"));

    let out = checkers(&["db", "export", "--format", "jsonl"], dir);
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 15);
    for l in &lines {
        let p = engine::notation::fen::parse_fen(l["fen"].as_str().unwrap()).unwrap();
        assert!(Outcome::from_name(l["value"].as_str().unwrap()).is_some());
        assert_eq!(l["pieces"], p.piece_count());
    }
    let out = checkers(
        &["db", "export", "--format", "pdn", "--out", "all.pdn"],
        dir,
    );
    assert!(out.status.success());
    let pdn = std::fs::read_to_string(dir.join("all.pdn")).unwrap();
    assert_eq!(pdn.matches("[FEN \"").count(), 15);
    // The tag is spelled as the PDN standard and every other writer here
    // spell it.
    assert_eq!(pdn.matches("[SetUp \"1\"]").count(), 15, "{pdn}");
    assert!(pdn.contains("Black to move wins (win)"), "{pdn}");

    // Merging again: nothing new, the contradiction is still refused.
    let out = checkers(
        &["db", "merge", "b.sqlite", "--store", "proofs.sqlite"],
        dir,
    );
    assert!(text(&out.stdout).contains("0 new, 0 tightened, 10 unchanged, 1 refused"));
    let out = checkers(&["db", "check"], dir);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn bad_store_files_are_refused_by_name() {
    let tmp = common::temp_dir("cli-bad");
    let dir = tmp.path();
    std::fs::write(dir.join("junk.sqlite"), "x".repeat(4096)).unwrap();
    let out = checkers(&["db", "stats", "--store", "junk.sqlite"], dir);
    assert_eq!(out.status.code(), Some(1));
    let e = text(&out.stderr);
    assert!(
        e.starts_with("checkers: junk.sqlite: not a proof store"),
        "{e}"
    );
    let out = checkers(&["db", "merge", "junk.sqlite", "--store", "m.sqlite"], dir);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("junk.sqlite: not a proof store"));
    let out = checkers(&["ballots", "status"], dir);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("no proof store at proofs.sqlite"));
}

#[test]
fn ballots_list_status_report() {
    let tmp = common::temp_dir("cli-ballots");
    let dir = tmp.path();
    let out = checkers(&["ballots", "list", "--deck", "156", "--json"], dir);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).lines().count(), 156);
    let out = checkers(&["ballots", "list", "--deck", "barred"], dir);
    assert!(text(&out.stdout).contains("# 18 ballots (deck barred)"));
    let out = checkers(&["ballots", "list", "--deck", "12"], dir);
    assert_eq!(out.status.code(), Some(2));

    // Ballot 1's main line to ply 5, ply 4 proved.
    let store = Store::open(dir.join("s.sqlite")).unwrap();
    let line = ballots::testing::line_from_moves(&["9-13", "21-17", "5-9", "25-21", "11-15"]);
    store.set_main_line(1, &line).unwrap();
    proofdb::testing::put_outcome_unverified(
        &store,
        &line[4].position,
        Outcome::Exact(Value::Draw),
        &prov("ab"),
    )
    .unwrap();
    drop(store);
    let out = checkers(
        &[
            "ballots", "status", "--deck", "144", "--store", "s.sqlite", "--json",
        ],
        dir,
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    // JSON Lines, one object per ballot of the deck.
    let rows: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 144);
    let b1 = &rows[0];
    assert_eq!(b1["frontier_ply"], 4);
    assert_eq!(b1["frontier_pieces"], 24);
    assert_eq!(b1["fen"], to_fen(&line[4].position));
    assert_eq!(b1["value"], "draw");
    // The walk stands at ply 5, with nothing proved there, and says what
    // to run.
    assert_eq!(b1["open"]["ply"], 5);
    assert_eq!(b1["open"]["fen"], to_fen(&line[5].position));
    assert_eq!(b1["open"]["question"], "value");
    let solve = b1["open"]["next"][1].as_str().unwrap();
    assert!(
        solve.starts_with(&format!("checkers solve '{}' ", to_fen(&line[5].position))),
        "{solve}"
    );
    // Without --deck: the ballots the store has a line for, and the open
    // position by FEN with the commands.
    let out = checkers(&["ballots", "status", "--store", "s.sqlite"], dir);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let t = text(&out.stdout);
    assert!(t.contains("\n1 ballots: 1 with a main line"), "{t}");
    assert!(t.contains(&to_fen(&line[5].position)), "{t}");
    assert!(
        t.contains("next: checkers ballots run --ballot 1 --store "),
        "{t}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_checkers"))
        .args(["ballots", "report", "--out", "rep"])
        .current_dir(dir)
        .env("CHECKERS_STORE", "s.sqlite")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    for f in ["ballots.md", "ballots.jsonl", "frontier.svg"] {
        assert!(dir.join("rep").join(f).is_file(), "{f}");
    }
    // The plot has one column per ballot of the report (here the store's
    // one), its proved part coloured as a draw.
    let svg = std::fs::read_to_string(dir.join("rep/frontier.svg")).unwrap();
    assert_eq!(svg.matches("<g><title>").count(), 1, "{svg}");
    assert!(svg.contains(r##"fill="#4a7fd0"/><circle"##), "{svg}");
    let md = std::fs::read_to_string(dir.join("rep/ballots.md")).unwrap();
    assert!(
        md.contains("| 1 | 9-13 21-17 5-9 |  | 5 | 4 | 24 | draw (Black) |"),
        "{md}"
    );
}

/// A store of schema version 4 (before job records had a budget column):
/// the read-only commands refuse it, naming `db migrate`, which brings it
/// to this version with its rows; they read it then.
#[test]
fn an_older_store_is_migrated_by_db_migrate() {
    let tmp = common::temp_dir("migrate");
    let dir = tmp.path();
    let path = dir.join("s.sqlite");
    {
        let store = Store::open(&path).unwrap();
        put_unverified(&store, 5, Outcome::Exact(Value::Win), "dfpn");
        store
            .put_job_record(&ballots::testing::job_record(
                1,
                4,
                None,
                900,
                ballots::tables::JobStatus::Budget,
            ))
            .unwrap();
    }
    // Version 4: no extensions table, the ballot job's tables the store's
    // own, its records without a budget column.
    let c = rusqlite::Connection::open(&path).unwrap();
    c.execute_batch(
        "BEGIN; ALTER TABLE job_records DROP COLUMN budget_millis; DROP TABLE extensions;
         PRAGMA user_version = 4; COMMIT;",
    )
    .unwrap();
    drop(c);
    let store = path.to_str().unwrap();
    let refused = checkers(&["db", "stats", "--store", store], dir);
    assert!(!refused.status.success());
    common::assert_says(&text(&refused.stderr), "checkers db migrate --store");
    let migrated = checkers(&["db", "migrate", "--store", store], dir);
    common::assert_success(&migrated);
    let version = proofdb::schema::SCHEMA_VERSION;
    assert!(
        text(&migrated.stdout).contains(&format!(
            "schema version {version}, ballot tables version 1"
        )),
        "{}",
        text(&migrated.stdout)
    );
    let stats = checkers(&["db", "stats", "--store", store, "--json"], dir);
    common::assert_success(&stats);
    let j: serde_json::Value = serde_json::from_str(&text(&stats.stdout)).unwrap();
    assert_eq!(j["results"], 1, "{j}");
    assert_eq!(j["job_records"], 1, "{j}");
    let missing = checkers(&["db", "migrate", "--store", "none.sqlite"], dir);
    assert!(!missing.status.success());
    common::assert_says(&text(&missing.stderr), "no proof store at none.sqlite");
}
