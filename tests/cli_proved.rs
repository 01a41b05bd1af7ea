//! The engine with a proof store (`--store`): a proved win is played from
//! its proof (and `bestmove --json` says so), the store is only read, and
//! over every position of a store that `ballots run` wrote the engine
//! never plays a move that gives up a proved win or draw.

mod common;

use engine::notation::fen::parse_fen;
use engine::search::{Limits, Searcher};
use engine::{Oracle, Value};
use player::{choose, MoveSource};
use proofdb::{Outcome, ResultCache, ResultSource, Store};
use solver::proved::ProvedOracle;
use std::path::Path;
use std::time::Duration;

/// A king ending that df-pn proves a win in a few thousand nodes, with
/// no databases: the engine alone does not know it.
const WIN: &str = "W:WK22,K23,K24:BK31,K32";

fn checkers(dir: &Path, args: &[&str]) -> common::Ran {
    checkers_with_input(dir, args, None)
}

/// `checkers ARGS` in `dir` with `stdin` as its input, on an empty
/// database folder that is not built, killed after a minute.
fn checkers_with_input(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> common::Ran {
    common::run_in_without_databases(dir, args, stdin)
}

/// Proves [`WIN`] with df-pn into the store `s.sqlite` in `dir`.
fn store_the_proved_win(dir: &Path) {
    let ran = checkers(
        dir,
        &["solve", WIN, "--solver", "dfpn", "--store", "s.sqlite"],
    );
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
}

#[test]
fn a_proved_win_is_played_from_its_proof_and_the_store_is_only_read() {
    let tmp = common::temp_dir("proved-win");
    let dir = tmp.path();
    store_the_proved_win(dir);
    let store_file = dir.join("s.sqlite");
    let before = std::fs::read(&store_file).unwrap();

    let ran = checkers(
        dir,
        &[
            "bestmove", WIN, "--store", "s.sqlite", "--json", "--depth", "4",
        ],
    );
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let v: serde_json::Value = serde_json::from_str(ran.stdout.trim()).unwrap();
    assert_eq!(v["proved"], "win", "{v}");
    assert_eq!(v["source"], "win-proof", "{v}");
    assert_eq!(v["from_proof"], true, "{v}");
    // The move leads to a position the store proves lost for White's
    // opponent.
    let pos = parse_fen(WIN).unwrap();
    let m = engine::notation::movetext::parse_move(&pos, v["best"].as_str().unwrap()).unwrap();
    let store = Store::open_readonly(&store_file).unwrap();
    let results = ResultCache::load(&store).unwrap();
    assert_eq!(
        results.lookup(&pos.play_unchecked(&m)),
        Some(Outcome::Exact(Value::Loss))
    );
    drop(store);

    // Without the store the search alone does not see the win.
    let ran = checkers(
        dir,
        &["bestmove", WIN, "--no-book", "--json", "--depth", "4"],
    );
    let v: serde_json::Value = serde_json::from_str(ran.stdout.trim()).unwrap();
    assert!(v["proved"].is_null() && v["source"].is_null(), "{v}");

    // The text output says where the move came from.
    let ran = checkers(
        dir,
        &["bestmove", WIN, "--store", "s.sqlite", "--depth", "4"],
    );
    assert!(
        ran.stdout.contains("proof proved win (proof store)"),
        "{}",
        ran.stdout
    );

    assert_eq!(
        std::fs::read(&store_file).unwrap(),
        before,
        "the store was written"
    );
    let missing = checkers(dir, &["bestmove", WIN, "--store", "none.sqlite"]);
    assert_eq!(missing.code, Some(1));
    assert!(
        missing.stderr.contains("no proof store at none.sqlite"),
        "{}",
        missing.stderr
    );
}

#[test]
fn a_book_built_from_a_store_is_played_by_default_when_present() {
    let tmp = common::temp_dir("proved-book");
    let dir = tmp.path();
    store_the_proved_win(dir);
    let ran = checkers(
        dir,
        &["book", "build", "--store", "s.sqlite", "--out", "b.tsv"],
    );
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let text = std::fs::read_to_string(dir.join("b.tsv")).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("{WIN}\t")))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains("\twin\t22-25"), "{line}");

    let json = |args: &[&str], home: &Path| -> serde_json::Value {
        let egdb = dir.join("egdb");
        let ran = common::run_checkers(
            args,
            dir,
            &[
                ("CHECKERS_EGDB", egdb.to_str().unwrap()),
                ("CHECKERS_EGDB_BUILD", "no"),
                ("HOME", home.to_str().unwrap()),
                ("CHECKERS_BOOK", ""),
            ],
            None,
            Duration::from_secs(60),
        );
        assert_eq!(ran.code, Some(0), "{}", ran.stderr);
        serde_json::from_str(ran.stdout.trim()).unwrap()
    };
    let v = json(
        &["bestmove", WIN, "--book", "b.tsv", "--json", "--depth", "4"],
        dir,
    );
    assert_eq!(v["source"], "book", "{v}");
    assert_eq!(v["best"], "22-25", "{v}");
    // The default book: $HOME/.cache/checkers/book.tsv when present.
    let v = json(&["bestmove", WIN, "--json", "--depth", "4"], dir);
    assert!(v["source"].is_null(), "{v}");
    std::fs::create_dir_all(dir.join(".cache/checkers")).unwrap();
    std::fs::copy(dir.join("b.tsv"), dir.join(".cache/checkers/book.tsv")).unwrap();
    let v = json(&["bestmove", WIN, "--json", "--depth", "4"], dir);
    assert_eq!(v["source"], "book", "{v}");
    let v = json(
        &["bestmove", WIN, "--no-book", "--json", "--depth", "4"],
        dir,
    );
    assert!(v["source"].is_null(), "{v}");
}

#[test]
fn the_engine_keeps_every_proved_value_of_a_ballot_run_store() {
    let tmp = common::temp_dir("proved-keep");
    let dir = tmp.path();
    let out = common::ballots_run(dir, &["--ballot", "12"])
        .args(["--budget", "6", "--position-budget", "3"])
        .output()
        .unwrap();
    common::assert_success(&out);

    let store = Store::open_readonly(dir.join("s.sqlite")).unwrap();
    let results = ResultCache::load(&store).unwrap();
    let mut db = engine::egdb::Egdb::open(&dir.join("egdb")).unwrap();
    db.limit_pieces(4);
    let mut positions = Vec::new();
    store
        .for_each_result(|r| -> Result<(), proofdb::StoreError> {
            positions.push(r.position);
            Ok(())
        })
        .unwrap();
    // Every position inside the stored proofs too: walk them from the
    // proved rows by the cache (it holds each of them).
    let mut todo = positions.clone();
    let mut seen = std::collections::HashSet::new();
    while let Some(p) = todo.pop() {
        if !seen.insert(p) {
            continue;
        }
        for m in p.moves().iter() {
            let c = p.play_unchecked(m);
            if results.lookup(&c).is_some() {
                todo.push(c);
            }
        }
    }
    let oracle = ProvedOracle::new(&db, 4, &results);
    let limits = Limits {
        depth: Some(4),
        nodes: Some(4000),
        time: None,
        soft_time: None,
    };
    // Proved draws and wins checked, the moves among them played from a
    // stored value, and the wins the search proved on its own (counted
    // apart: their move is checked by its score, not by a stored value).
    let (mut draws, mut wins, mut from_proof, mut searched_wins) = (0, 0, 0, 0);
    for pos in &seen {
        let Some(known) = oracle.stored(pos) else {
            continue;
        };
        let lo = known.range().0;
        if lo < Value::Draw || pos.moves().is_empty() {
            continue;
        }
        let mut searcher = Searcher::new(4);
        let c = choose(
            &mut searcher,
            pos,
            &limits,
            &[],
            &oracle,
            &store,
            &mut |_| {},
        )
        .unwrap();
        let m = c.result.best_move.expect("a move");
        if c.source == MoveSource::SearchedWin {
            // A win the search proved with the oracle (score past the
            // threshold), not a stored value of the child.
            assert!(c.result.score > engine::search::WIN_THRESHOLD);
            searched_wins += 1;
            continue;
        }
        let after = oracle
            .probe_range(&pos.play_unchecked(&m))
            .unwrap_or((Value::Loss, Value::Win));
        // The opponent's value after the move is at most the negation
        // of what was proved for us.
        assert!(
            after.1 <= lo.negate(),
            "{}: proved {known}, played {m}, the opponent then has {after:?}",
            engine::notation::fen::to_fen(pos)
        );
        if lo == Value::Win {
            wins += 1;
        } else {
            draws += 1;
        }
        if c.source != MoveSource::Search {
            from_proof += 1;
        }
    }
    assert!(
        draws >= 10,
        "{draws} proved draws checked ({wins} wins, {searched_wins} searched wins)"
    );
    assert_eq!(from_proof, draws + wins);
}

#[test]
fn the_hub_plays_from_a_store_set_by_a_parameter() {
    let tmp = common::temp_dir("proved-hub");
    let dir = tmp.path();
    store_the_proved_win(dir);
    let session = format!(
        "hub\ninit\nset-param name=store value=none.sqlite\npos fen={WIN}\nlevel depth=2\ngo\n\
         set-param name=store value=s.sqlite\ngo\nquit\n"
    );
    let ran = checkers_with_input(dir, &["hub", "--no-book"], Some(session.as_bytes()));
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(ran.stdout.contains("param name=store"), "{}", ran.stdout);
    assert!(
        ran.stdout.contains("error store \"none.sqlite\""),
        "{}",
        ran.stdout
    );
    let done: Vec<&str> = ran
        .stdout
        .lines()
        .filter(|l| l.starts_with("done"))
        .collect();
    assert_eq!(done.len(), 2, "{}", ran.stdout);
    // With the store the answer is the proof's move, at once (no search
    // line before it).
    assert!(done[1].starts_with("done move=22-25"), "{}", ran.stdout);
    let after_set = ran.stdout.split("done").nth(1).unwrap();
    assert!(!after_set.contains("info depth"), "{}", ran.stdout);
}
