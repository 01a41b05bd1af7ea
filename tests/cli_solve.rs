//! `checkers solve --solver retro|all`: the retrograde analysis settles a
//! small king ending from the rules alone, with verified proofs, and the
//! JSON fields are those of the other solvers.

mod common;

use std::process::Command;

fn solve_json(args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_checkers"))
        .arg("solve")
        .args(args)
        .args(["--egdb-pieces", "0", "--json"])
        .output()
        .expect("run checkers");
    common::assert_success(&out);
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn retro_settles_king_endings_with_verified_proofs() {
    // Two kings against one win; one king against one draws (by endless
    // shuffling: the draw proofs loop).
    let v = solve_json(&["W:WK1,K3:BK32", "--solver", "retro"]);
    assert_eq!(v["value"], "win");
    assert_eq!(v["solver"], "retro");
    assert_eq!(v["proofs"][0]["question"], "win");
    assert_eq!(v["proofs"][0]["verified"], true);
    assert!(v["nodes"].as_u64().unwrap() > 1000);
    let v = solve_json(&["W:WK1:BK32", "--solver", "all", "--time", "20"]);
    assert_eq!(v["value"], "draw");
    assert_eq!(v["solver"], "retro");
    let proofs = v["proofs"].as_array().unwrap();
    assert_eq!(proofs.len(), 2);
    assert!(proofs
        .iter()
        .all(|p| p["loops"] == true && p["verified"] == true));
}

#[test]
fn a_retro_cap_leaves_the_rest_to_the_searches() {
    let v = solve_json(&[
        "W:WK1,K3:BK32",
        "--solver",
        "all",
        "--retro-positions",
        "50",
        "--question",
        "win",
    ]);
    assert_eq!(v["value"], "win");
    assert_eq!(v["runs"][0]["solver"], "retro");
}

#[test]
fn a_bad_memory_budget_is_refused_before_anything_is_built() {
    // A folder that does not exist, in one that is removed at the end.
    let tmp = common::temp_dir("budget");
    let dir = tmp.path().join("egdb");
    let out = Command::new(env!("CARGO_BIN_EXE_checkers"))
        .args(["solve", "W:WK1,K3:BK32", "--egdb-pieces", "3"])
        .env("CHECKERS_EGDB", &dir)
        .env("CHECKERS_EGDB_MEMORY", "lots")
        .output()
        .expect("run checkers");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("CHECKERS_EGDB_MEMORY"), "{err}");
    assert!(!dir.exists(), "nothing is built");
}

#[test]
fn without_building_missing_slices_are_unknown_leaves() {
    // An empty database folder and CHECKERS_EGDB_BUILD=no: nothing is
    // built, the user is told how many slices are missing, and the win
    // is still proved from the rules (a missing slice is an unknown leaf).
    let tmp = common::temp_dir("nobuild");
    let run = |value: &str| {
        Command::new(env!("CARGO_BIN_EXE_checkers"))
            .args(["solve", "W:WK1,K3:BK32", "--egdb-pieces", "3"])
            .args(["--solver", "dfpn", "--question", "win", "--json"])
            .env("CHECKERS_EGDB", tmp.path())
            .env("CHECKERS_EGDB_BUILD", value)
            .output()
            .expect("run checkers")
    };
    let out = run("no");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("up to 3 pieces that the searches may need are not built"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["value"], "win");
    assert_eq!(v["proofs"][0]["verified"], true);
    let files = std::fs::read_dir(tmp.path()).unwrap().count();
    assert_eq!(files, 0, "nothing is built");
    // Anything but `missing` or `no` is refused, before anything is built.
    let out = run("sometimes");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("CHECKERS_EGDB_BUILD"), "{err}");
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

/// `checkers solve --store STORE --json` of a small king ending (a win
/// settled in a few thousand nodes), as JSON.
fn solve_small_into(store: &std::path::Path) -> serde_json::Value {
    let store = store.to_str().expect("a UTF-8 temporary path");
    solve_json(&[
        "W:WK22,K23,K24:BK31,K32",
        "--solver",
        "dfpn",
        "--store",
        store,
    ])
}

/// Runs `cmd`, sends it SIGINT after `millis` ms, and returns its output
/// once it has exited, which must be with a failure status.
fn interrupted_after(cmd: &mut Command, millis: u64) -> std::process::Output {
    let child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run checkers");
    std::thread::sleep(std::time::Duration::from_millis(millis));
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(killed.success());
    let out = child.wait_with_output().expect("wait for checkers");
    assert!(!out.status.success(), "exit status {:?}", out.status);
    out
}

/// The first SIGINT stops a long solve as if its time ran out: it prints
/// what the searches settled and exits non-zero with a message that says
/// it was interrupted; what the store held before is still there.
#[test]
fn an_interrupted_solve_reports_and_exits_non_zero() {
    let dir = common::temp_dir("int");
    let store = dir.path().join("store.db");
    let before = solve_small_into(&store);
    assert_eq!(before["value"], "win");
    assert!(before["nodes"].as_u64().unwrap() > 1, "{before}");
    let started = std::time::Instant::now();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_checkers"));
    cmd.args([
        "solve",
        "W:W14,18,21,27,31,32:B5,7,9,11,20,23",
        "--solver",
        "dfpn",
        "--egdb-pieces",
        "0",
        "--time",
        "600",
        "--json",
        "--store",
    ])
    .arg(&store);
    let out = interrupted_after(&mut cmd, 1500);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(300),
        "the solve ran on after the signal"
    );
    assert!(stderr.contains("interrupted"), "{stderr}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    assert!(v["value"].is_null(), "{v}");
    assert!(v["runs"][0]["answer"] == "unknown", "{v}");
    assert!(store.exists());
    // Stored before the interrupted run: answered from the store (the
    // root is a stored leaf, one node).
    let after = solve_small_into(&store);
    assert_eq!(after["value"], "win");
    assert_eq!(after["nodes"], 1, "{after}");
}

/// SIGINT during a batch's last line: the batch prints that line's
/// result (what was settled by then), says which line was cut short, and
/// exits non-zero instead of reporting a complete batch.
#[test]
fn an_interrupted_batch_names_the_line_it_cut_short() {
    let dir = common::temp_dir("int-batch");
    let batch = dir.path().join("b.txt");
    std::fs::write(
        &batch,
        "W:WK1,K3:BK32\nW:W14,18,21,27,31,32:B5,7,9,11,20,23\n",
    )
    .unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_checkers"));
    cmd.args(["solve", "--batch"])
        .arg(&batch)
        .args(["--solver", "dfpn", "--egdb-pieces", "0", "--time", "600"])
        .args(["--question", "win", "--json"]);
    let out = interrupted_after(&mut cmd, 2000);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("interrupted during line 2 of"), "{stderr}");
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["value"], "win");
    assert!(lines[1]["value"].is_null(), "{}", lines[1]);
}

/// A solve that runs past ten seconds reports its work on stderr as it
/// goes (a log line every 10 s when stderr is not a terminal).
#[test]
fn a_long_solve_reports_its_work() {
    let out = Command::new(env!("CARGO_BIN_EXE_checkers"))
        .args([
            "solve",
            "W:W14,18,21,27,31,32:B5,7,9,11,20,23",
            "--solver",
            "dfpn",
            "--question",
            "win",
            "--egdb-pieces",
            "0",
            "--time",
            "11",
        ])
        .output()
        .expect("run checkers");
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = stderr
        .lines()
        .find(|l| l.starts_with("solve: "))
        .unwrap_or_else(|| panic!("no progress line in {stderr:?}"));
    assert!(line.contains("M nodes"), "{line}");
}

#[test]
fn trusting_loops_still_gives_verified_proofs() {
    // A draw half whose proof loops, and a win (where trusted results
    // are wrong and the check must throw them out).
    let trusting = |fen| {
        solve_json(&[
            fen,
            "--solver",
            "dfpn",
            "--nodes",
            "300000",
            "--trust-loops",
        ])
    };
    let v = trusting("W:WK22,K23:BK1,K5");
    assert_eq!(v["value"], ">=draw");
    assert_eq!(v["proofs"][0]["question"], "draw");
    assert_eq!(v["proofs"][0]["loops"], true);
    assert_eq!(v["proofs"][0]["verified"], true);
    let v = trusting("B:WK28:BK1,K5");
    assert_eq!(v["value"], "win");
    assert_eq!(v["proofs"][0]["verified"], true);
}

/// `--checkpoint`: the second run of the same command resumes and says so
/// (in the JSON too); a damaged file, another position's file and a
/// solver without tables are refused with a message naming the problem.
#[test]
fn a_checkpointed_solve_resumes_and_bad_checkpoints_are_refused() {
    // Removed when the test ends, failed or not.
    let tmp = common::temp_dir("cli-ckpt");
    let file = tmp.path().join("k.ckpt");
    let path = file.to_str().unwrap();
    let args = [
        "W:WK22,K23,K24:BK31,K32",
        "--solver",
        "dfpn",
        "--question",
        "win",
        "--checkpoint",
        path,
    ];
    let first = solve_json(&[&args[..], &["--nodes", "1000"]].concat());
    assert_eq!(first["value"], serde_json::Value::Null);
    assert_eq!(first["resumed"], serde_json::Value::Null);
    // The open question's root numbers, to compare runs by.
    let numbers = &first["runs"][0]["numbers"];
    assert!(numbers["proof"].as_u64().unwrap() > 0, "{first}");
    assert!(numbers["disproof"].as_u64().unwrap() > 0, "{first}");
    let second = solve_json(&[&args[..], &["--nodes", "1000000"]].concat());
    assert_eq!(second["value"], "win");
    assert_eq!(second["resumed"]["nodes"], first["nodes"]);
    assert_eq!(second["runs"][0]["answer"], "yes", "{second}");
    assert_eq!(second["runs"][0]["numbers"], serde_json::Value::Null);
    assert_eq!(second["proofs"][0]["verified"], true);

    let refused = |extra: &[&str], fen: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_checkers"))
            .args(["solve", fen, "--egdb-pieces", "0", "--checkpoint", path])
            .args(extra)
            .output()
            .expect("run checkers");
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let e = refused(&["--solver", "dfpn"], "W:WK22:BK31");
    assert!(e.contains("written for W:WK22,K23,K24:BK31,K32"), "{e}");
    // Said before the (possibly long) read.
    assert!(
        e.contains("reading df-pn's tables back from the checkpoint"),
        "{e}"
    );
    let e = refused(&["--solver", "ab"], args[0]);
    assert!(e.contains("--solver dfpn"), "{e}");
    let mut bytes = std::fs::read(&file).unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 1;
    std::fs::write(&file, &bytes).unwrap();
    let e = refused(&["--solver", "dfpn"], args[0]);
    assert!(e.contains("k.ckpt") && e.contains("corrupt"), "{e}");
}
