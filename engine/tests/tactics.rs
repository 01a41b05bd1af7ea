//! The tactics suite (tests/data/tactics.tsv): positions with a forced
//! win or a shot that wins material, which a shallow search misses and a
//! search of the listed depth must find. The default test solves every
//! entry and asserts the solved count; the ignored test rebuilds the file.

use engine::notation::fen::{parse_fen, to_fen};
use engine::search::{Limits, SearchResult, Searcher, MATE, WIN_THRESHOLD};
use engine::{NoOracle, Position};

const SUITE: &str = include_str!("data/tactics.tsv");

/// One suite entry: position, the moves that win, the search depth, and
/// the least score (centi-men, side to move) that counts as found.
struct Entry {
    fen: String,
    winning: Vec<String>,
    depth: u32,
    min_score: i32,
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
                depth: f[2].parse().expect("depth"),
                min_score: f[3].parse().expect("min score"),
            }
        })
        .collect()
}

fn search(pos: &Position, depth: u32) -> (Searcher, SearchResult) {
    let mut s = Searcher::new(16);
    let r = s.search(
        pos,
        &Limits {
            depth: Some(depth),
            ..Limits::default()
        },
        &NoOracle,
        &[],
    );
    (s, r)
}

/// Solves one entry: a search to the entry's depth plays one of the
/// winning moves with at least the entry's score.
fn solves(e: &Entry) -> bool {
    let pos = parse_fen(&e.fen).expect("suite FEN");
    let (_, r) = search(&pos, e.depth);
    let mv = r.best_move.map(|m| m.to_string()).unwrap_or_default();
    r.score >= e.min_score && e.winning.contains(&mv)
}

#[test]
fn tactics_suite_is_solved() {
    let all = entries();
    assert!(all.len() >= 20, "suite has {} entries", all.len());
    let solved = all.iter().filter(|e| solves(e)).count();
    eprintln!("tactics suite: solved {solved} of {}", all.len());
    assert_eq!(solved, all.len(), "solved {solved} of {}", all.len());
}

/// Pieces of the side to move minus the opponent's (a king counts one).
fn piece_balance(p: &Position) -> i32 {
    let (b, w) = (p.black().count_ones() as i32, p.white().count_ones() as i32);
    match p.side_to_move() {
        engine::Color::Black => b - w,
        engine::Color::White => w - b,
    }
}

/// Depth of the searches that find the shots.
const SHOT_DEPTH: u32 = 10;

/// A material shot in `p`, if there is one: the side to move has no
/// capture, a depth-10 search scores at least a man and a half above the
/// present piece balance, a 2-ply search plays another move, and at most
/// two moves reach within half a man of the best. Returns the winning
/// moves and the least score the test accepts (a man above the balance).
fn shot(p: &Position) -> Option<(Vec<String>, i32)> {
    if p.has_capture() || p.is_terminal() {
        return None;
    }
    let base = 100 * piece_balance(p);
    let (mut s, deep) = search(p, SHOT_DEPTH);
    if deep.score < base + 150 || deep.score > WIN_THRESHOLD {
        return None;
    }
    let (_, shallow) = search(p, 2);
    if shallow.best_move == deep.best_move {
        return None;
    }
    let ranked = s.rank_moves(p, SHOT_DEPTH, &NoOracle, &[]);
    let best = ranked.first()?.1;
    let winning: Vec<String> = ranked
        .iter()
        .filter(|(_, sc)| *sc >= best - 50)
        .map(|(m, _)| m.to_string())
        .collect();
    (winning.len() <= 2 && winning.len() < ranked.len()).then_some((winning, base + 100))
}

/// Forced wins: every known win of shared/data/known-positions.tsv and
/// the last two positions of every 8th decisive archive game (up to 14
/// pieces), kept when a depth-17 search proves a win in at most 15 plies
/// from the rules alone (the loser runs out of moves) and a 3-ply search
/// does not see it; every move proving it at depth 17 is listed. Shots:
/// positions at plies 16-40 of every 10th archive game that pass [`shot`]
/// (one per game, at most 30).
#[test]
#[ignore]
fn regenerate_tactics_suite() {
    let known = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/known-positions.tsv"
    ))
    .unwrap();
    let archive = engine::notation::pdn::read_file(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/games/acf-archive.pdn"
    )))
    .unwrap();
    let mut wins: Vec<(Position, String)> = Vec::new();
    for l in known.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let f: Vec<&str> = l.split('\t').collect();
        if f.len() >= 4 && f[2] == "win" {
            wins.push((
                parse_fen(f[1]).unwrap(),
                format!("known-positions.tsv: {}", f[3]),
            ));
        }
    }
    for g in archive.iter().step_by(8) {
        let decisive = matches!(
            g.result.as_deref().or(g.tag("Result")),
            Some("1-0") | Some("0-1")
        );
        if !decisive || !g.is_legal() {
            continue;
        }
        let ps = g.positions();
        let from = ps.len().saturating_sub(2);
        for (k, p) in ps.iter().enumerate().skip(from) {
            if p.piece_count() <= 14 {
                wins.push((*p, format!("acf-archive.pdn game {} ply {k}", g.number)));
            }
        }
    }
    let mut out = String::from(
        "# Tactics suite: forced wins and material-winning shots a shallow search misses.\n\
         # fen<TAB>winning moves (space-separated)<TAB>search depth<TAB>least score (centi-men)<TAB>source\n\
         # Built by tests/tactics.rs (ignored test). Forced wins: a depth-17 search proves the win\n\
         # from the rules alone within 15 plies, a 3-ply search misses it. Shots: no capture on the\n\
         # board, a depth-10 search wins at least 1.5 men over the piece balance, a 2-ply search\n\
         # plays another move, at most two moves win.\n",
    );
    let mut kept = 0;
    for (p, src) in wins {
        let (_, shallow) = search(&p, 3);
        if shallow.score > WIN_THRESHOLD {
            continue;
        }
        let mut s = Searcher::new(16);
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
        if deep.score <= WIN_THRESHOLD || deep.depth < 17 || MATE - deep.score > 15 {
            continue;
        }
        let plies = (MATE - deep.score) as u32;
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
            "{}\t{}\t{}\t{}\t{src}\n",
            to_fen(&p),
            winning.join(" "),
            plies + 2,
            WIN_THRESHOLD + 1,
        ));
        kept += 1;
    }
    let mut shots = 0;
    'games: for g in archive.iter().step_by(10) {
        if !g.is_legal() {
            continue;
        }
        for (k, p) in g.positions().iter().enumerate().take(41).skip(16) {
            if shots >= 30 {
                break 'games;
            }
            if let Some((winning, min_score)) = shot(p) {
                out.push_str(&format!(
                    "{}\t{}\t{SHOT_DEPTH}\t{min_score}\tacf-archive.pdn game {} ply {k} (shot)\n",
                    to_fen(p),
                    winning.join(" "),
                    g.number
                ));
                shots += 1;
                // One shot per game.
                continue 'games;
            }
        }
    }
    eprintln!("{kept} forced wins, {shots} shots");
    std::fs::write(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tactics.tsv"),
        out,
    )
    .unwrap();
}
