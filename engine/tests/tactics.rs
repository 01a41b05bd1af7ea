//! The tactics suite (tests/data/tactics.tsv): positions with a forced
//! win that a shallow search must find. The default test solves every
//! entry at a depth a few plies past the win's length and asserts the
//! solved count; the ignored test rebuilds the file.

use engine::notation::fen::{parse_fen, to_fen};
use engine::search::{Limits, Searcher, MATE, WIN_THRESHOLD};
use engine::{NoOracle, Position};

const SUITE: &str = include_str!("data/tactics.tsv");

/// One suite entry: position, the winning moves, plies to the win.
struct Entry {
    fen: String,
    winning: Vec<String>,
    plies: u32,
}

fn entries() -> Vec<Entry> {
    SUITE
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Entry {
                fen: f[0].to_string(),
                winning: f[1].split(' ').map(str::to_string).collect(),
                plies: f[2].parse().expect("plies"),
            }
        })
        .collect()
}

/// Solves one entry: a search to `plies + 2` must return a win score
/// with one of the winning moves.
fn solves(e: &Entry) -> bool {
    let pos = parse_fen(&e.fen).expect("suite FEN");
    let mut s = Searcher::new(16);
    let r = s.search(
        &pos,
        &Limits {
            depth: Some(e.plies + 2),
            ..Limits::default()
        },
        &NoOracle,
        &[],
    );
    let mv = r.best_move.map(|m| m.to_string()).unwrap_or_default();
    r.score > WIN_THRESHOLD && e.winning.contains(&mv)
}

#[test]
fn tactics_suite_is_solved() {
    let all = entries();
    assert!(all.len() >= 20, "suite has {} entries", all.len());
    let solved = all.iter().filter(|e| solves(e)).count();
    assert_eq!(solved, all.len(), "solved {solved} of {}", all.len());
}

/// Candidates: every known win in shared/data/known-positions.tsv,
/// positions from the endings of the archive games
/// (shared/data/games/acf-archive.pdn) and quiet positions of self-play
/// games (/tmp/tune-positions.tsv, from `checkers tune`, when present). Kept: a search to depth 17 proves a win in at most
/// 15 plies (a win score from the rules alone: the loser runs out of
/// moves), while a 3-ply search does not see it. Every move proving the
/// win at depth 17 is listed as a solution.
#[test]
#[ignore]
fn regenerate_tactics_suite() {
    let known = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/known-positions.tsv"
    ))
    .unwrap();
    let mut cands: Vec<(Position, String)> = Vec::new();
    for l in known.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let f: Vec<&str> = l.split('\t').collect();
        if f.len() >= 4 && f[2] == "win" {
            cands.push((
                parse_fen(f[1]).unwrap(),
                format!("known-positions.tsv: {}", f[3]),
            ));
        }
    }
    // The last four positions of decisive archive games (every 2nd game)
    // with at most 14 pieces: where the loser resigned, a shot is often
    // on the board.
    let archive = engine::notation::pdn::read_file(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/games/acf-archive.pdn"
    )))
    .unwrap();
    for g in archive.iter().step_by(2) {
        let decisive = matches!(
            g.result.as_deref().or(g.tag("Result")),
            Some("1-0") | Some("0-1")
        );
        if !decisive || !g.is_legal() {
            continue;
        }
        let ps = g.positions();
        let from = ps.len().saturating_sub(4);
        for (k, p) in ps.iter().enumerate().skip(from) {
            if p.piece_count() <= 14 {
                cands.push((*p, format!("acf-archive.pdn game {} ply {k}", g.number)));
            }
        }
    }
    if let Ok(t) = std::fs::read_to_string("/tmp/tune-positions.tsv") {
        for (i, l) in t.lines().filter(|l| !l.starts_with('#')).enumerate() {
            if i % 7 == 0 {
                if let Some((fen, _)) = l.split_once('\t') {
                    let p = parse_fen(fen).unwrap();
                    if p.piece_count() <= 12 {
                        cands.push((p, "self-play position".into()));
                    }
                }
            }
        }
    }
    let mut out = String::from(
        "# Tactics suite: forced wins a shallow search must find.\n\
         # fen<TAB>winning moves (space-separated)<TAB>plies to the win<TAB>source\n\
         # Built by tests/tactics.rs (ignored test): a depth-17 search proves each win from the\n\
         # rules alone (the loser runs out of moves within the given plies); a 3-ply search misses it.\n",
    );
    let mut kept = 0;
    for (p, src) in cands {
        if kept >= 40 {
            break;
        }
        let mut s = Searcher::new(16);
        let shallow = s.search(
            &p,
            &Limits {
                depth: Some(3),
                ..Limits::default()
            },
            &NoOracle,
            &[],
        );
        if shallow.score > WIN_THRESHOLD {
            continue;
        }
        let deep = s.search(
            &p,
            &Limits {
                depth: Some(17),
                nodes: Some(400_000),
                ..Limits::default()
            },
            &NoOracle,
            &[],
        );
        if deep.score <= WIN_THRESHOLD || deep.depth < 17 {
            continue;
        }
        let plies = (MATE - deep.score) as u32;
        if plies > 15 {
            continue;
        }
        let ranked = s.rank_moves(&p, 17, &NoOracle, &[]);
        let winning: Vec<String> = ranked
            .iter()
            .filter(|(_, sc)| *sc > WIN_THRESHOLD)
            .map(|(m, _)| m.to_string())
            .collect();
        if winning.is_empty() || winning.len() == ranked.len() {
            continue;
        }
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\n",
            to_fen(&p),
            winning.join(" "),
            plies,
            src
        ));
        kept += 1;
    }
    std::fs::write(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tactics.tsv"),
        out,
    )
    .unwrap();
}
