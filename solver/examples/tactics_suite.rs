//! Writes the engine's tactics suite (engine/tests/data/tactics.tsv):
//! `cargo run --release -p solver --example tactics_suite`.
//!
//! The positions are chosen with the engine's help; the expected moves
//! come from elsewhere, so that the suite tests the search against
//! something it did not produce (solver/tests/tactics_sources.rs checks
//! both sources, engine/tests/tactics.rs the search):
//! - Forced wins: every known win of ../shared/data/known-positions.tsv
//!   and the last two positions of every 8th decisive archive game (up to
//!   14 pieces), kept when a depth-17 search finds a win within 15 plies
//!   that a 3-ply search misses. Listed: every move the solver proves
//!   wins (a verified proof from the rules alone).
//! - Shots: positions at plies 16-40 of every 10th archive game (one per
//!   game, at most 30) where the side to move has no capture, a depth-10
//!   search wins at least a man and a half over the piece balance, a
//!   2-ply search plays another move and at most two moves win. Listed:
//!   the move the master played, kept only when the depth-10 search
//!   plays it too.

use engine::notation::fen::{parse_fen, to_fen};
use engine::notation::pdn::{read_file, Game};
use engine::search::{Limits, SearchResult, Searcher, MATE, WIN_THRESHOLD};
use engine::{Color, NoOracle, Position};
use proofdb::outcome::NoResults;
use solver::solve::proved_winning_moves;
use solver::Leaves;
use std::path::Path;

const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data");

/// Depth of the searches that find the shots.
const SHOT_DEPTH: u32 = 10;

fn search(pos: &Position, limits: Limits) -> (Searcher, SearchResult) {
    let mut s = Searcher::full_width(16);
    let r = s.search(pos, &limits, &NoOracle, &[]);
    (s, r)
}

fn depth(d: u32) -> Limits {
    Limits {
        depth: Some(d),
        ..Limits::default()
    }
}

/// Pieces of the side to move minus the opponent's (a king counts one).
fn piece_balance(p: &Position) -> i32 {
    let (b, w) = (p.black().count_ones() as i32, p.white().count_ones() as i32);
    match p.side_to_move() {
        Color::Black => b - w,
        Color::White => w - b,
    }
}

/// The suite's line of a forced win in `p`, if the engine finds one a
/// shallow search misses.
fn forced_win(p: &Position, src: &str) -> Option<String> {
    let (_, shallow) = search(p, depth(3));
    if shallow.score > WIN_THRESHOLD {
        return None;
    }
    let limits = Limits {
        nodes: Some(400_000),
        ..depth(17)
    };
    let (_, deep) = search(p, limits);
    if deep.score <= WIN_THRESHOLD || deep.depth < 17 || MATE - deep.score > 15 {
        return None;
    }
    let leaves = Leaves::new(&NoOracle, &NoResults);
    let winning: Vec<String> = proved_winning_moves(p, leaves, 2_000_000)
        .expect("solve")
        .iter()
        .map(|m| m.to_string())
        .collect();
    if winning.is_empty() {
        return None;
    }
    let plies = (MATE - deep.score) as u32;
    Some(format!(
        "{}\t{}\t{}\t{}\t{src}\n",
        to_fen(p),
        winning.join(" "),
        plies + 2,
        WIN_THRESHOLD + 1
    ))
}

/// The suite's line of a shot at ply `k` of `g`, if there is one and the
/// master played it.
fn shot(g: &Game, k: usize, p: &Position) -> Option<String> {
    if p.has_capture() || p.is_terminal() {
        return None;
    }
    let base = 100 * piece_balance(p);
    let (mut s, deep) = search(p, depth(SHOT_DEPTH));
    if deep.score < base + 150 || deep.score > WIN_THRESHOLD {
        return None;
    }
    let (_, shallow) = search(p, depth(2));
    if shallow.best_move == deep.best_move {
        return None;
    }
    let ranked = s.rank_moves(p, SHOT_DEPTH, &NoOracle, &[]);
    let best = ranked.first()?.1;
    let near = ranked.iter().filter(|(_, sc)| *sc >= best - 50).count();
    let master = g.moves.get(k)?;
    if near > 2 || near == ranked.len() || deep.best_move.as_ref() != Some(master) {
        return None;
    }
    Some(format!(
        "{}\t{master}\t{SHOT_DEPTH}\t{}\tacf-archive.pdn game {} ply {k} (shot)\n",
        to_fen(p),
        base + 100,
        g.number
    ))
}

fn main() {
    let known = std::fs::read_to_string(format!("{SHARED}/known-positions.tsv")).unwrap();
    let archive = read_file(Path::new(&format!("{SHARED}/games/acf-archive.pdn"))).unwrap();
    let mut wins: Vec<(Position, String)> = Vec::new();
    for l in known.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let f: Vec<&str> = l.split('\t').collect();
        if f.len() >= 4 && f[2] == "win" {
            let src = format!("known-positions.tsv: {}", f[3]);
            wins.push((parse_fen(f[1]).unwrap(), src));
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
        for (k, p) in ps.iter().enumerate().skip(ps.len().saturating_sub(2)) {
            if p.piece_count() <= 14 {
                wins.push((*p, format!("acf-archive.pdn game {} ply {k}", g.number)));
            }
        }
    }
    let mut out = String::from(include_str!("tactics_header.txt"));
    let mut kept = 0;
    for (p, src) in wins {
        if let Some(line) = forced_win(&p, &src) {
            out.push_str(&line);
            kept += 1;
        }
    }
    let mut shots = 0;
    'games: for g in archive.iter().step_by(10).filter(|g| g.is_legal()) {
        for (k, p) in g.positions().iter().enumerate().take(41).skip(16) {
            if shots >= 30 {
                break 'games;
            }
            if let Some(line) = shot(g, k, p) {
                out.push_str(&line);
                shots += 1;
                continue 'games;
            }
        }
    }
    eprintln!("{kept} forced wins, {shots} shots");
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../engine/tests/data/tactics.tsv"
    );
    std::fs::write(path, out).unwrap();
}
