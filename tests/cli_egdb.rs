//! `checkers egdb build|slices --for FEN`, and `solve FEN`: only the
//! slices of the top piece count that a game from the position may enter;
//! `checkers egdb bench --threads N`.

mod common;

use std::collections::BTreeSet;
use std::process::{Command, Output};

const FEN: &str = "W:WK19,K23:B12,K28";

fn egdb(dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_checkers"))
        .arg("egdb")
        .args(args)
        .arg("--dir")
        .arg(dir)
        .output()
        .expect("run checkers")
}

fn files(dir: &std::path::Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect()
}

#[test]
fn a_build_for_a_position_builds_the_slices_it_can_reach() {
    let tmp = common::temp_dir("egdb-for");
    let dir = tmp.path();
    let out = egdb(dir, &["build", "--pieces", "4", "--for", FEN]);
    common::assert_success(&out);
    let built = files(dir);
    let slices = |pieces: &str, for_fen: Option<&str>| -> BTreeSet<String> {
        let mut args = vec!["slices", "--pieces", pieces];
        if let Some(f) = for_fen {
            args.extend(["--for", f]);
        }
        let out = Command::new(env!("CARGO_BIN_EXE_checkers"))
            .args(["egdb"])
            .args(&args)
            .output()
            .expect("run checkers");
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .skip(2)
            .map(|l| format!("{}.egdb", l.split_whitespace().next().unwrap()))
            .collect()
    };
    // Every slice of 2 and 3 pieces; of 4, exactly those listed for the
    // position (Black's man on 12 never leads below rank 2; White has
    // only kings), which are far fewer than all.
    let (two, three) = (slices("2", None), slices("3", None));
    assert!(two.is_subset(&built) && three.is_subset(&built));
    let four: BTreeSet<String> = built
        .iter()
        .filter(|f| !two.contains(*f) && !three.contains(*f))
        .cloned()
        .collect();
    let listed = slices("4", Some(FEN));
    assert_eq!(four, listed);
    for name in ["1m1k@2-0m2k.egdb", "1m1k@6-0m2k.egdb", "0m2k-0m2k.egdb"] {
        assert!(listed.contains(name), "{name} in {listed:?}");
    }
    for name in ["1m1k@1-0m2k.egdb", "2m0k@2-0m2k.egdb", "1m1k@2-1m1k@2.egdb"] {
        assert!(!listed.contains(name), "{name} in {listed:?}");
    }
    assert!(listed.len() * 10 < slices("4", None).len(), "{listed:?}");
    // The databases answer the position.
    let out = egdb(dir, &["probe", FEN]);
    common::assert_success(&out);
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("win"));
    // With --json: the value, its source, and every legal move with what
    // it is worth to the mover; a win has a winning move, and each move's
    // value is the negated value of the position it leads to.
    let out = egdb(dir, &["probe", FEN, "--json"]);
    assert!(out.status.success());
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["value"], "win");
    assert_eq!(doc["source"], "egdb");
    assert_eq!(doc["side_to_move"], "White");
    let moves = doc["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 6, "{doc}");
    assert!(moves.iter().any(|m| m["move_value"] == "win"), "{doc}");
    assert!(moves.iter().any(|m| m["move_value"] == "loss"), "{doc}");
    for m in moves {
        let after = egdb(dir, &["probe", m["fen"].as_str().unwrap(), "--json"]);
        let after: serde_json::Value = serde_json::from_slice(&after.stdout).unwrap();
        let negated = match after["value"].as_str().unwrap() {
            "win" => "loss",
            "loss" => "win",
            other => other,
        };
        assert_eq!(m["move_value"], negated, "{m}");
        assert_eq!(m["value"], after["value"], "{m}");
    }
}

/// `verify --full --pieces N` re-derives only the slices of N pieces, and
/// says so in its count, as `--slice S` and `--every K` keep it to the
/// slices named or to a sample; the build says what it builds before it
/// starts.
#[test]
fn a_full_verify_can_be_kept_to_one_piece_count() {
    let tmp = common::temp_dir("egdb-verify-pieces");
    let dir = tmp.path();
    let out = egdb(dir, &["build", "--pieces", "3"]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("slices of up to 3 pieces"), "{err}");
    let checked = |extra: &[&str]| -> u64 {
        let mut args = vec!["verify", "--full"];
        args.extend_from_slice(extra);
        let out = egdb(dir, &args);
        common::assert_success(&out);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(text.contains(" 0 inconsistent"), "{text}");
        let at = text.find("): ").unwrap() + "): ".len();
        text[at..].split(' ').next().unwrap().parse().unwrap()
    };
    let all = checked(&[]);
    let three = checked(&["--pieces", "3"]);
    let two = checked(&["--pieces", "2"]);
    assert!(three > 0 && two > 0, "{three} {two}");
    assert_eq!(three + two, all);
    // --pieces needs --full.
    assert!(!egdb(dir, &["verify", "--pieces", "3"]).status.success());

    // --slice: one slice, or several; together they make the whole.
    let names: Vec<String> = files(dir)
        .into_iter()
        .filter_map(|f| f.strip_suffix(".egdb").map(str::to_string))
        .collect();
    let each: u64 = names.iter().map(|n| checked(&["--slice", n])).sum();
    assert_eq!(each, all);
    let (a, b) = (names[0].as_str(), names[names.len() - 1].as_str());
    assert_eq!(
        checked(&["--slice", a, "--slice", b]),
        checked(&["--slice", a]) + checked(&["--slice", b])
    );
    // --every K: every K-th slice in name order, from the first.
    let mut sorted = names.clone();
    sorted.sort();
    let sample: u64 = sorted
        .iter()
        .step_by(3)
        .map(|n| checked(&["--slice", n]))
        .sum();
    assert_eq!(checked(&["--every", "3"]), sample);
    assert!(sample < all, "{sample} {all}");
    // A slice that is not there, or no slice at all, is named.
    let out = egdb(dir, &["verify", "--full", "--slice", "0m2k-0m2k"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("0m2k-0m2k"), "{err}");
    let out = egdb(dir, &["verify", "--full", "--slice", "nonsense"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nonsense"));
    assert!(!egdb(dir, &["verify", "--every", "2"]).status.success());
}

/// `verify --full --journal FILE` records each slice as its check ends and
/// takes from the journal, when run again, the slices checked with none
/// inconsistent against the same files: a record that no longer matches
/// them (as after a rebuild) is checked again, a line cut short by a kill
/// is ignored, and a file that is not a journal is refused and kept.
#[test]
fn a_full_verify_goes_on_from_its_journal() {
    let tmp = common::temp_dir("egdb-verify-journal");
    let dir = tmp.path().join("db");
    std::fs::create_dir(&dir).unwrap();
    assert!(egdb(&dir, &["build", "--pieces", "3"]).status.success());
    let slices = files(&dir).iter().filter(|f| f.ends_with(".egdb")).count();
    let journal = tmp.path().join("check.journal");
    let j = journal.to_str().unwrap();
    let run = || -> (String, String) {
        let out = egdb(&dir, &["verify", "--full", "--journal", j]);
        common::assert_success(&out);
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let checked = |text: &str| -> u64 {
        let at = text.find("): ").unwrap() + "): ".len();
        text[at..].split(' ').next().unwrap().parse().unwrap()
    };
    let taken = |n: usize| format!("({n} of the slices taken from the journal");

    let (first, _) = run();
    assert!(first.contains(&taken(0)), "{first}");
    assert!(checked(&first) > 0, "{first}");
    let text = std::fs::read_to_string(&journal).unwrap();
    assert_eq!(text.lines().count(), slices + 1, "{text}");

    let (second, _) = run();
    assert!(second.contains(&taken(slices)), "{second}");
    assert_eq!(checked(&second), checked(&first));

    // One record's digest changed, and a line cut short after it.
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut fields: Vec<&str> = lines[1].split('\t').collect();
    let other = if fields[2] == "0123456789abcdef" {
        "fedcba9876543210"
    } else {
        "0123456789abcdef"
    };
    fields[2] = other;
    lines[1] = fields.join("\t");
    std::fs::write(&journal, lines.join("\n") + "\nv1\t0m2k").unwrap();
    let (third, err) = run();
    assert!(third.contains(&taken(slices - 1)), "{third}");
    assert!(err.contains("1 line(s)"), "{err}");
    assert_eq!(checked(&third), checked(&first));
    let (fourth, _) = run();
    assert!(fourth.contains(&taken(slices)), "{fourth}");

    // Not a journal: refused, named, left as it was.
    let notes = tmp.path().join("notes.txt");
    std::fs::write(&notes, "my notes\n").unwrap();
    let out = egdb(
        &dir,
        &["verify", "--full", "--journal", notes.to_str().unwrap()],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("notes.txt") && err.contains("not a verify journal"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "my notes\n");
    // --journal needs --full.
    assert!(!egdb(&dir, &["verify", "--journal", j]).status.success());
}

#[test]
fn a_bad_position_is_named_and_nothing_is_built() {
    let tmp = common::temp_dir("egdb-for-bad");
    let dir = tmp.path().join("egdb");
    let out = egdb(&dir, &["build", "--pieces", "4", "--for", "W:WK99:B1"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("W:WK99:B1"), "{err}");
    assert!(!dir.exists());
}

/// `solve FEN` builds what `egdb build --for FEN` does, and nothing for a
/// bad FEN.
#[test]
fn solving_one_position_builds_only_the_slices_it_can_reach() {
    let tmp = common::temp_dir("solve-for");
    let (by_solve, by_build) = (tmp.path().join("solve"), tmp.path().join("build"));
    let solve = |fen: &str| {
        Command::new(env!("CARGO_BIN_EXE_checkers"))
            .args(["solve", fen, "--egdb-pieces", "4", "--json"])
            .env("CHECKERS_EGDB", &by_solve)
            .output()
            .expect("run checkers")
    };
    let out = solve("W:WK19,K23:B12,K2x");
    assert!(!out.status.success());
    assert!(!by_solve.exists(), "nothing is built for a bad FEN");
    let out = solve(FEN);
    common::assert_success(&out);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["value"], "win");
    assert!(egdb(&by_build, &["build", "--pieces", "4", "--for", FEN])
        .status
        .success());
    assert_eq!(files(&by_solve), files(&by_build));
}

#[test]
fn the_bench_probes_on_several_threads_and_refuses_zero() {
    let tmp = common::temp_dir("egdb-bench");
    let dir = tmp.path();
    assert!(egdb(dir, &["build", "--pieces", "3"]).status.success());
    let args = [
        "bench",
        "--pieces",
        "3",
        "--positions",
        "2000",
        "--repeat",
        "1",
    ];
    let out = egdb(dir, &[&args[..], &["--threads", "2"]].concat());
    let text = String::from_utf8_lossy(&out.stdout);
    common::assert_success(&out);
    // Both passes (one at a time, probe_many) ran on two threads.
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("probes/s per thread"))
        .collect();
    assert_eq!(lines.len(), 2, "{text}");
    for l in lines {
        assert!(
            l.contains("2 threads at once, each over its own 2000 positions"),
            "{l}"
        );
    }
    let out = egdb(dir, &[&args[..], &["--threads", "0"]].concat());
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--threads") && err.contains("1 to 256"),
        "{err}"
    );
    // More positions than memory holds: a usage error, checked before
    // anything is allocated.
    let out = egdb(
        dir,
        &[
            "bench",
            "--pieces",
            "3",
            "--positions",
            "1000000000000000",
            "--threads",
            "2",
        ],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--positions") && err.contains("memory"),
        "{err}"
    );
}

/// `egdb slices --json`: every slice of the text listing, one object a
/// line, in build order: whatever a slice reads comes before it, and
/// what it reads directly is part of what it needs.
#[test]
fn slices_as_json_come_in_build_order_with_what_each_reads() {
    let run = |args: &[&str]| -> String {
        let out = Command::new(env!("CARGO_BIN_EXE_checkers"))
            .args(["egdb", "slices", "--pieces", "4"])
            .args(args)
            .output()
            .expect("run checkers");
        common::assert_success(&out);
        String::from_utf8(out.stdout).unwrap()
    };
    let text: BTreeSet<String> = run(&[])
        .lines()
        .skip(2)
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect();
    let mut seen = BTreeSet::new();
    let mut reading = 0;
    for line in run(&["--json"]).lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let name = v["slice"].as_str().unwrap().to_string();
        assert_eq!(v["pieces"], 4);
        let reads = v["reads"].as_array().unwrap();
        assert!(reads.len() as u64 <= v["needs"].as_u64().unwrap(), "{line}");
        for r in reads {
            assert!(
                seen.contains(r.as_str().unwrap()),
                "{name} reads {r} before it is built"
            );
        }
        reading += !reads.is_empty() as usize;
        assert!(
            v["with_needs"].as_u64() >= v["positions"].as_u64(),
            "{line}"
        );
        seen.insert(name);
    }
    assert_eq!(seen, text);
    assert!(
        reading > 0 && reading < seen.len(),
        "some slices read others, not all"
    );
    assert_eq!(run(&["--json", "--largest", "3"]).lines().count(), 3);
}

/// `build --memory 0` builds every slice out of core (its tables in
/// scratch files, here in the --scratch folder), says so, writes the same
/// files byte for byte as a build in memory, and leaves no scratch file
/// behind; a limit above every slice's need builds in memory and says
/// nothing of it. A scratch folder that is not there is refused.
#[test]
fn a_build_past_its_memory_goes_out_of_core_to_the_same_files() {
    let tmp = common::temp_dir("egdb-out-of-core");
    let (in_memory, out_of_core) = (tmp.path().join("memory"), tmp.path().join("scratch"));
    let out = egdb(&in_memory, &["build", "--pieces", "4", "--memory", "1024"]);
    common::assert_success(&out);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("out of core"));
    let scratch = tmp.path().join("local-disk");
    std::fs::create_dir(&scratch).unwrap();
    let scratch_arg = scratch.to_str().unwrap();
    let args = [
        "build",
        "--pieces",
        "4",
        "--memory",
        "0",
        "--scratch",
        scratch_arg,
    ];
    let out = egdb(&out_of_core, &args);
    common::assert_success(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("more than the 0 MiB allowed: built out of core"),
        "{err}"
    );
    assert!(err.contains(scratch_arg), "{err}");
    assert!(files(&scratch).is_empty(), "no scratch file is left");
    let names = files(&in_memory);
    assert_eq!(names, files(&out_of_core), "no scratch file is left");
    assert!(names.len() > 20, "{names:?}");
    for name in &names {
        let a = std::fs::read(in_memory.join(name)).unwrap();
        let b = std::fs::read(out_of_core.join(name)).unwrap();
        assert!(a == b, "{name} differs out of core");
    }
    let gone = tmp.path().join("no-such-disk");
    let args = [
        "build",
        "--pieces",
        "3",
        "--scratch",
        gone.to_str().unwrap(),
    ];
    let out = egdb(&tmp.path().join("nothing"), &args);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-disk"));
    assert!(!tmp.path().join("nothing").exists(), "nothing built");
    // A limit that is not a number of MiB is refused before any work.
    let out = egdb(
        &tmp.path().join("bad"),
        &["build", "--pieces", "3", "--memory", "lots"],
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--memory"));
}
