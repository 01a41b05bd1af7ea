//! `checkers bestmove`: search one position and print the best move, or
//! (`--bench`) measure the search on a fixed set of middle-game positions.

use crate::oracle::Needs;
use engine::notation::fen::parse_fen;
use engine::search::{score_text, Limits, SearchOptions, SearchResult, Searcher};
use engine::Position;
use player::{choose, from_book, MoveSource, ProvedChoice};
use solver::proved::ProvedOracle;

/// Search a position (FEN) and print move, score, depth, nodes, speed and
/// principal variation.
#[derive(clap::Args)]
pub struct Args {
    /// Position in PDN FEN, e.g. `B:W21-32:B1-12` (not needed with --bench).
    pub fen: Option<String>,
    #[command(flatten)]
    pub limits: crate::cli::MoveLimitArgs,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub engine: crate::cli::EngineArgs,
    /// Search options, `key=value,...` (see `engine::search::SearchOptions::parse`:
    /// plain, tt, etc, order, asp, pvs, step, restart, qs, ext, ext-single,
    /// ext-promo, ext-recap, ext-runaway, reduce, reduce-eval=1..1000 (the
    /// reduction's evaluation margin, default 75), lmr (late move
    /// reductions), lmr-moves=1..64 (moves searched in full first,
    /// default 3), dd,
    /// eval=tuned|hand|material|learned, eval-file=FILE: a learned weights
    /// file).
    #[arg(long, default_value = "")]
    pub options: String,
    /// Print each completed iteration.
    #[arg(long)]
    pub verbose: bool,
    /// Benchmark: search every middle-game position of the fixed set to
    /// --depth (default 14) with a fresh table each, single thread, and
    /// print nodes, time and nodes per second.
    #[arg(long)]
    pub bench: bool,
}

/// The fixed benchmark set: ballot positions played on a few moves
/// (engine/tests/data/bench-middlegame.tsv).
pub const BENCH_POSITIONS: &str = include_str!("../../engine/tests/data/bench-middlegame.tsv");

/// FENs of the benchmark set.
pub fn bench_fens() -> Vec<&'static str> {
    BENCH_POSITIONS
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split('\t').nth(1))
        .collect()
}

fn pv_text(r: &SearchResult) -> String {
    r.pv.iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<()> {
    let options = SearchOptions::parse(&args.options)?;
    if args.bench {
        let oracle = crate::oracle::open_egdb(args.engine.egdb_pieces, Needs::All)?;
        return bench(&args, options, &*oracle);
    }
    let fen = args
        .fen
        .as_deref()
        .ok_or_else(|| anyhow::anyhow!("bestmove needs a FEN (or --bench)"))?;
    let pos = parse_fen(fen).map_err(|e| anyhow::anyhow!("bad FEN {fen:?}: {e}"))?;
    let oracle = crate::oracle::open_egdb(args.engine.egdb_pieces, Needs::From(&[pos]))?;
    let limits = args.limits.limits()?;
    let mut searcher = Searcher::try_with_options(args.engine.tt_mb, options)?;
    let verbose = args.verbose && !args.json;
    let mut progress = |it: &engine::search::Iteration| {
        if verbose {
            eprintln!(
                "depth {:>2} score {:>6} nodes {:>12} time {:>7.3} pv {}",
                it.depth,
                score_text(it.score),
                it.nodes,
                it.elapsed.as_secs_f64(),
                it.pv
                    .iter()
                    .map(|m| m.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            );
        }
    };
    let book = args.engine.book.open()?;
    let booked = book.as_ref().and_then(|b| {
        let result = b.play(&mut searcher, &pos, &limits, &*oracle, &[], &mut progress)?;
        Some(from_book(b.get(&pos)?, result))
    });
    if let Some(c) = booked {
        return print_result(&pos, &c.result, Some(&c), args.json);
    }
    match &args.engine.store {
        Some(path) => {
            let proved = crate::oracle::open_proved(path)?;
            let oracle = ProvedOracle::new(&*oracle, args.engine.egdb_pieces, &proved.results);
            let c = choose(
                &mut searcher,
                &pos,
                &limits,
                &[],
                &oracle,
                &proved.store,
                &mut progress,
            )?;
            print_result(&pos, &c.result, Some(&c), args.json)
        }
        None => {
            if args.engine.egdb_pieces > 0 {
                searcher.set_probe_max_pieces(args.engine.egdb_pieces);
            }
            let r = searcher.search_with_progress(&pos, &limits, &*oracle, &[], &mut progress);
            print_result(&pos, &r, None, args.json)
        }
    }
}

/// What the output says of a proof: `proved win (proof store), the
/// move of a win proof` and the like.
fn proof_text(c: &ProvedChoice) -> String {
    let known = match (c.proved, c.source) {
        (Some(o), MoveSource::Book) => format!("proved {o} (opening book)"),
        (Some(o), _) => format!("proved {o} (proof store)"),
        (None, _) => "not in the proof store".to_string(),
    };
    let how = match c.source {
        MoveSource::Search => "the move is the search's".to_string(),
        MoveSource::WinProof => "the move of a win proof, played at once".to_string(),
        MoveSource::WinningMoves => format!(
            "the search's choice among the {} moves proved to win",
            c.keeping.len()
        ),
        MoveSource::DrawingMoves => format!(
            "the search's choice among the {} moves proved to keep the draw",
            c.keeping.len()
        ),
        MoveSource::SearchedWin => {
            "a win the search proves with the databases and the store".to_string()
        }
        MoveSource::Book => format!(
            "the book's move, among the {} it gives to keep the value",
            c.keeping.len()
        ),
    };
    format!("{known}; {how}")
}

fn print_result(
    pos: &Position,
    r: &SearchResult,
    proved: Option<&ProvedChoice>,
    json: bool,
) -> anyhow::Result<()> {
    let mv = r.best_move.map(|m| m.to_string());
    if json {
        let mut v = serde_json::json!({
            "fen": engine::notation::fen::to_fen(pos),
            "side_to_move": pos.side_to_move().to_string(),
            "best": mv,
            "score": r.score,
            "score_text": score_text(r.score),
            "depth": r.depth,
            "nodes": r.nodes,
            "nps": r.nps().round() as u64,
            "millis": r.elapsed.as_millis() as u64,
            "pv": r.pv.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
        });
        if let Some(c) = proved {
            v["proved"] = c.proved.map(|o| o.name()).into();
            v["source"] = c.source.name().into();
            v["from_proof"] = c.source.from_proof().into();
            v["keeping"] = c
                .keeping
                .iter()
                .map(|m| m.to_string())
                .collect::<Vec<_>>()
                .into();
            if let Some(t) = &c.traps {
                v["traps"] = t
                    .counts
                    .iter()
                    .map(|(m, losing, replies)| {
                        serde_json::json!({"move": m.to_string(), "losing_replies": losing, "replies": replies})
                    })
                    .collect::<Vec<_>>()
                    .into();
            }
        }
        crate::cli::emit(&format!("{v}\n"))
    } else {
        let mut o = String::new();
        match mv {
            None => o += &format!("no legal move: {} has lost\n", pos.side_to_move()),
            Some(m) => {
                o += &format!("bestmove {m}\n");
                if let Some(c) = proved {
                    o += &format!("proof {}\n", proof_text(c));
                    if let Some(t) = &c.traps {
                        let list: Vec<String> = t
                            .counts
                            .iter()
                            .map(|(m, losing, replies)| format!("{m} {losing}/{replies}"))
                            .collect();
                        o += &format!("traps {} (opponent replies that lose)\n", list.join(", "));
                    }
                }
                o += &format!("score {}\n", score_text(r.score));
                o += &format!("depth {}\n", r.depth);
                o += &format!("nodes {}\n", r.nodes);
                o += &format!("nps {:.0}\n", r.nps());
                o += &format!("time {:.3}\n", r.elapsed.as_secs_f64());
                o += &format!("pv {}\n", pv_text(r));
            }
        }
        crate::cli::emit(&o)
    }
}

fn bench(args: &Args, options: SearchOptions, oracle: &dyn engine::Oracle) -> anyhow::Result<()> {
    let depth = args.limits.depth.unwrap_or(14);
    let fens = bench_fens();
    let mut total_nodes = 0u64;
    let mut total_time = 0f64;
    for (i, fen) in fens.iter().enumerate() {
        let pos = parse_fen(fen).map_err(|e| anyhow::anyhow!("bench FEN {fen:?}: {e}"))?;
        let mut s = Searcher::try_with_options(args.engine.tt_mb, options.clone())?;
        let r = s.search(
            &pos,
            &Limits {
                depth: Some(depth),
                ..Limits::default()
            },
            oracle,
            &[],
        );
        total_nodes += r.nodes;
        total_time += r.elapsed.as_secs_f64();
        if args.verbose {
            println!(
                "{:>2} {:<60} {:>6} {:>6} {:>11} nodes {:>7.3} s",
                i + 1,
                fen,
                r.best_move.map(|m| m.to_string()).unwrap_or_default(),
                score_text(r.score),
                r.nodes,
                r.elapsed.as_secs_f64()
            );
        }
    }
    println!(
        "bench: {} positions, depth {}, {} nodes, {:.3} s, {:.2} million nodes/s, single thread",
        fens.len(),
        depth,
        total_nodes,
        total_time,
        total_nodes as f64 / total_time.max(1e-9) / 1e6
    );
    Ok(())
}
