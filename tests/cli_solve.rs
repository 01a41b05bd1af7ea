//! `checkers solve --solver retro|all`: the retrograde analysis settles a
//! small king ending from the rules alone, with verified proofs, and the
//! JSON fields are those of the other solvers.

use std::process::Command;

fn solve_json(args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_checkers"))
        .arg("solve")
        .args(args)
        .args(["--egdb-pieces", "0", "--json"])
        .output()
        .expect("run checkers");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn retro_settles_king_endings_with_verified_proofs() {
    // Two kings against one win; one king against one draws (by endless
    // shuffling: the draw proofs loop).
    let v = solve_json(&["W:WK1,K3:BK32", "--solver", "retro"]);
    assert_eq!(v["result"], "win");
    assert_eq!(v["solver"], "retro");
    assert_eq!(v["proofs"][0]["question"], "win");
    assert_eq!(v["proofs"][0]["verified"], true);
    assert!(v["nodes"].as_u64().unwrap() > 1000);
    let v = solve_json(&["W:WK1:BK32", "--solver", "all", "--time", "20"]);
    assert_eq!(v["result"], "draw");
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
    assert_eq!(v["result"], "win");
    assert_eq!(v["runs"][0]["solver"], "retro");
}

#[test]
fn a_bad_memory_budget_is_refused_before_anything_is_built() {
    let dir = std::env::temp_dir().join(format!("checkers-budget-{}", std::process::id()));
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
