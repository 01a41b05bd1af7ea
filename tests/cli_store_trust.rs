//! The store trusts nothing unproved, is complete in its main file, can be
//! copied while in use, and is readable where it cannot be written: the
//! repros of issue 24, end to end.

mod common;

use common::text;
use engine::notation::fen::parse_fen;
use engine::Position;
use proofdb::codec::pos_key;
use std::path::Path;
use std::process::{Command, Output};

const START: &str = "B:W21-32:B1-12";

fn checkers(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_checkers"))
        .args(args)
        .current_dir(cwd)
        .env_remove("CHECKERS_STORE")
        .env("CHECKERS_EGDB", cwd.join("egdb"))
        .env("CHECKERS_EGDB_BUILD", "no")
        .output()
        .unwrap()
}

/// Inserts a `win` row for `pos` with a plain SQLite connection, as a
/// user with `sqlite3` would.
fn hand_insert(path: &Path, pos: &Position) {
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute(
        "INSERT INTO results (pos, stm, outcome, pieces, solver, nodes, millis, egdb_pieces, \
         proof_size, proved_at, run_id) VALUES (?1, ?2, 'win', ?3, 'ab', 1, 1, 0, 0, 0, '')",
        rusqlite::params![
            &pos_key(pos)[..],
            pos.side_to_move() as u8 as i64,
            pos.piece_count() as i64
        ],
    )
    .unwrap();
}

/// `checkers solve FEN --store s.sqlite --nodes NODES`, then `more`, in
/// `dir`.
fn solve_with_store(dir: &Path, fen: &str, nodes: &str, more: &[&str]) -> Output {
    let mut args = vec!["solve", fen, "--store", "s.sqlite", "--nodes", nodes];
    args.extend_from_slice(more);
    checkers(&args, dir)
}

/// A store with one real proof (`solve --store`) of a small win.
fn solved_store(dir: &Path) {
    let out = solve_with_store(dir, "B:W18:B14", "200000", &["--egdb-pieces", "0"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("stored in s.sqlite"));
}

#[test]
fn a_hand_written_result_is_not_served_verified_nor_merged() {
    let tmp = common::temp_dir("trust-hand");
    let dir = tmp.path();
    solved_store(dir);
    let start = parse_fen(START).unwrap();
    hand_insert(&dir.join("s.sqlite"), &start);

    let out = solve_with_store(dir, START, "2000", &["--question", "win"]);
    let (so, se) = (text(&out.stdout), text(&out.stderr));
    assert!(se.contains("is ignored: no checksum"), "{se}");
    assert!(!so.contains("store, verified"), "{so}");

    let out = checkers(&["proof", "verify", "--store", "s.sqlite"], dir);
    assert!(!out.status.success(), "{}", text(&out.stdout));
    common::assert_says(&text(&out.stdout), "result win ignored: no checksum");

    let out = checkers(&["db", "check", "--store", "s.sqlite"], dir);
    assert!(!out.status.success());
    common::assert_says(&text(&out.stdout), "1 problem(s)");

    let out = checkers(&["db", "stats", "--store", "s.sqlite"], dir);
    common::assert_says(&text(&out.stdout), "not proved");

    let out = checkers(&["db", "merge", "--store", "m.sqlite", "s.sqlite"], dir);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let so = text(&out.stdout);
    assert!(so.contains("not proved in the shard"), "{so}");
    let m = proofdb::Store::open_readonly(dir.join("m.sqlite")).unwrap();
    assert_eq!(m.result_count().unwrap(), 1, "only the proved result");
    assert_eq!(proofdb::ResultSource::lookup(&m, &start), None);
}

#[test]
fn real_proofs_pass_the_full_check_and_placeholders_do_not() {
    let tmp = common::temp_dir("trust-proofs");
    let dir = tmp.path();
    solved_store(dir);
    let out = checkers(&["db", "check", "--proofs", "--store", "s.sqlite"], dir);
    let so = text(&out.stdout);
    assert!(out.status.success(), "{so}{}", text(&out.stderr));
    assert!(so.contains("1 verified again"), "{so}");
    let out = checkers(&["proof", "verify", "--store", "s.sqlite"], dir);
    assert!(out.status.success(), "{}", text(&out.stdout));

    // Trees that claim without proving pass the checksums, not the
    // verifier.
    let p = parse_fen("W:WK1:BK32").unwrap();
    {
        let s = proofdb::Store::open(dir.join("s.sqlite")).unwrap();
        let rec = proofdb::ResultRecord::new(
            p,
            proofdb::Outcome::Exact(engine::Value::Win),
            proofdb::Provenance::default(),
            1,
        );
        let trees = proofdb::testing::unverified_trees(p, rec.outcome);
        s.put_proof(&rec, &trees, "t").unwrap();
    }
    let out = checkers(&["db", "check", "--store", "s.sqlite"], dir);
    assert!(out.status.success(), "{}", text(&out.stdout));
    let out = checkers(&["db", "check", "--proofs", "--store", "s.sqlite"], dir);
    assert!(!out.status.success());
    common::assert_says(&text(&out.stdout), "rejected with databases of 0 pieces");
}

#[test]
fn a_changed_row_is_reported_and_not_served() {
    let tmp = common::temp_dir("trust-flip");
    let dir = tmp.path();
    solved_store(dir);
    // What a changed bit in the file does to a row: its outcome changes
    // (the same bit flipped in the file itself: proofdb's tests/trust.rs).
    let c = rusqlite::Connection::open(dir.join("s.sqlite")).unwrap();
    assert_eq!(
        c.execute("UPDATE results SET outcome = 'draw'", [])
            .unwrap(),
        1
    );
    drop(c);
    let out = checkers(&["db", "check", "--store", "s.sqlite"], dir);
    assert!(!out.status.success(), "{}", text(&out.stdout));
    let so = text(&out.stdout);
    assert!(
        so.contains("result draw ignored: checksum mismatch"),
        "{so}"
    );
    let out = solve_with_store(dir, "B:W18:B14", "100", &["--egdb-pieces", "0"]);
    let (so, se) = (text(&out.stdout), text(&out.stderr));
    assert!(se.contains("is ignored: checksum mismatch"), "{se}");
    assert!(so.contains("result    win"), "{so}");
}

#[test]
fn backup_and_a_main_file_alone_hold_every_result() {
    let tmp = common::temp_dir("trust-backup");
    let dir = tmp.path();
    solved_store(dir);
    let wal = std::fs::metadata(dir.join("s.sqlite-wal"))
        .map(|m| m.len())
        .unwrap_or(0);
    assert_eq!(wal, 0, "solve left {wal} bytes in the log");
    std::fs::copy(dir.join("s.sqlite"), dir.join("copy.sqlite")).unwrap();
    let out = checkers(&["db", "stats", "--store", "copy.sqlite", "--json"], dir);
    assert!(
        text(&out.stdout).contains("\"results\":1"),
        "{}",
        text(&out.stdout)
    );

    let out = checkers(&["db", "backup", "b.sqlite", "--store", "s.sqlite"], dir);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("(1 results)"));
    let out = checkers(&["db", "check", "--store", "b.sqlite"], dir);
    assert!(out.status.success(), "{}", text(&out.stdout));
    // Not over the store itself, not over a folder.
    assert!(
        !checkers(&["db", "backup", "s.sqlite", "--store", "s.sqlite"], dir)
            .status
            .success()
    );
    assert!(
        !checkers(&["db", "backup", ".", "--store", "s.sqlite"], dir)
            .status
            .success()
    );
}

/// Runs `args` as a user who cannot write `dir` (as root, through
/// `setpriv` as nobody; otherwise with the folder made read-only).
fn as_reader(args: &[&str], dir: &Path) -> Option<Output> {
    let root = Command::new("id").arg("-u").output().ok()?;
    if text(&root.stdout).trim() == "0" {
        let setpriv = Path::new("/usr/bin/setpriv");
        if !setpriv.exists() {
            eprintln!("setpriv missing: skipping the read-only folder check");
            return None;
        }
        let mut a = vec![
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            env!("CARGO_BIN_EXE_checkers"),
        ];
        a.extend_from_slice(args);
        Some(
            Command::new(setpriv)
                .args(&a)
                .current_dir(dir)
                .env_remove("CHECKERS_STORE")
                .env("CHECKERS_EGDB_BUILD", "no")
                .output()
                .unwrap(),
        )
    } else {
        Some(
            Command::new(env!("CARGO_BIN_EXE_checkers"))
                .args(args)
                .current_dir(dir)
                .env_remove("CHECKERS_STORE")
                .output()
                .unwrap(),
        )
    }
}

#[test]
fn a_store_in_a_read_only_folder_can_be_read() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = common::temp_dir("trust-ro");
    let dir = tmp.path().join("ro");
    std::fs::create_dir(&dir).unwrap();
    solved_store(&dir);
    for f in ["s.sqlite-wal", "s.sqlite-shm"] {
        let _ = std::fs::remove_file(dir.join(f));
    }
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let runs = [
        vec!["db", "stats", "--store", "s.sqlite"],
        vec!["ballots", "status", "--store", "s.sqlite", "--json"],
        vec!["db", "check", "--store", "s.sqlite"],
        vec!["db", "export", "--store", "s.sqlite"],
    ];
    for args in runs {
        let Some(out) = as_reader(&args, &dir) else {
            break;
        };
        assert!(
            out.status.success(),
            "{args:?}: {}{}",
            text(&out.stdout),
            text(&out.stderr)
        );
    }
    let out = as_reader(&["db", "stats", "--store", "s.sqlite"], &dir);
    if let Some(out) = out {
        common::assert_says(&text(&out.stdout), "results      1");
    }
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
}
