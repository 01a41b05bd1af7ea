//! `checkers bench`: move generation speed, single thread.

use engine::perft::{perft, Counting};
use engine::Position;
use std::time::Instant;

/// Perft leaves per second from the initial position, single thread, bulk
/// counting at the last ply. Asserts the node count so that a wrong
/// generator cannot look fast.
#[derive(clap::Args)]
pub struct Args {
    /// Depth (checked against the published counts up to 14).
    #[arg(long, default_value_t = 12, value_parser = crate::limits::whole::<u32>(0, 14, "plies"))]
    pub depth: u32,
    /// Repetitions, 1 to 1000; the best time is reported.
    #[arg(long, default_value_t = 3, value_parser = crate::limits::whole::<u32>(1, 1000, "repetitions"))]
    pub repeat: u32,
}

/// Published perft counts from the initial position (OEIS A133046).
pub const START_PERFT: [u64; 15] = [
    1, 7, 49, 302, 1469, 7361, 36768, 179740, 845931, 3963680, 18391564, 85242128, 388623673,
    1766623630, 7978439499,
];

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<()> {
    let expected = START_PERFT
        .get(args.depth as usize)
        .copied()
        .ok_or_else(|| anyhow::anyhow!("bench depth must be at most 14"))?;
    let pos = Position::initial();
    let mut best = f64::INFINITY;
    for _ in 0..args.repeat.max(1) {
        let t = Instant::now();
        let n = perft(&pos, args.depth, Counting::EveryPath);
        let secs = t.elapsed().as_secs_f64();
        anyhow::ensure!(
            n == expected,
            "perft {} gave {n}, expected {expected}: the move generator is wrong",
            args.depth
        );
        best = best.min(secs);
    }
    println!(
        "perft {} = {} in {:.3} s (best of {}): {:.1} million leaves/s, single thread",
        args.depth,
        expected,
        best,
        args.repeat.max(1),
        expected as f64 / best / 1e6
    );
    Ok(())
}
