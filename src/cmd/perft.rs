//! `checkers perft`: move-sequence counts from a position.

use anyhow::Context;
use engine::notation::fen::parse_fen;
use engine::perft::{divide, perft_parallel, Counting};
use engine::Position;
use std::time::Instant;

/// Count move sequences of each length up to DEPTH.
#[derive(clap::Args)]
pub struct Args {
    /// Deepest ply to count (at most 30).
    #[arg(value_parser = crate::limits::perft_depth)]
    pub depth: u32,
    /// Start position as PDN FEN (default: the initial position).
    #[arg(long)]
    pub fen: Option<String>,
    /// Print the count below each legal move at DEPTH.
    #[arg(long)]
    pub divide: bool,
    /// Count each distinct move once (same start, end and captured pieces),
    /// instead of every capture path.
    #[arg(long)]
    pub distinct: bool,
    /// Worker threads (default: all cores; at most 1024).
    #[arg(long, value_parser = crate::limits::threads)]
    pub threads: Option<usize>,
    /// One JSON object per line.
    #[arg(long)]
    pub json: bool,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<()> {
    let pos = match &args.fen {
        Some(f) => parse_fen(f).with_context(|| format!("bad --fen {f:?}"))?,
        None => Position::initial(),
    };
    let pool = crate::cli::thread_pool(args.threads)?;
    let counting = if args.distinct {
        Counting::Distinct
    } else {
        Counting::EveryPath
    };
    pool.install(|| {
        if args.divide {
            let t = Instant::now();
            let mut total = 0;
            for (m, n) in divide(&pos, args.depth, counting) {
                total += n;
                if args.json {
                    println!(r#"{{"move":"{m}","nodes":{n}}}"#);
                } else {
                    println!("{m:<8} {n}");
                }
            }
            report(args.depth, total, t.elapsed().as_secs_f64(), args.json);
        } else {
            for d in 1..=args.depth {
                let t = Instant::now();
                let n = perft_parallel(&pos, d, counting);
                report(d, n, t.elapsed().as_secs_f64(), args.json);
            }
        }
    });
    Ok(())
}

fn report(depth: u32, nodes: u64, secs: f64, json: bool) {
    let nps = if secs > 0.0 { nodes as f64 / secs } else { 0.0 };
    if json {
        println!(
            r#"{{"depth":{depth},"nodes":{nodes},"millis":{},"nodes_per_second":{nps:.0}}}"#,
            (secs * 1000.0).round() as u64
        );
    } else {
        println!("depth {depth:>2}  nodes {nodes:>16}  {secs:>9.3} s  {nps:>14.0} nodes/s");
    }
}
