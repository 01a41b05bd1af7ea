//! Perft: the number of move sequences of a given length, the standard
//! check of a move generator.

use crate::board::Position;
use crate::moves::{Move, MoveList};
use rayon::prelude::*;

/// How captures that share start, end and captured pieces but follow
/// different paths are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counting {
    /// Every path counts (the convention of OEIS A133046 and most published
    /// tables).
    EveryPath,
    /// Each distinct move once (what search and proofs use).
    Distinct,
}

impl Counting {
    #[inline(always)]
    fn weight(self, m: &Move) -> u64 {
        match self {
            Counting::EveryPath => m.paths() as u64,
            Counting::Distinct => 1,
        }
    }
}

/// Perft of `pos` to `depth` plies, single thread, with bulk counting at
/// the last ply.
pub fn perft(pos: &Position, depth: u32, counting: Counting) -> u64 {
    // One move list per ply, reused, so no node pays for a fresh list.
    let mut lists = vec![MoveList::new(); depth as usize];
    perft_with(pos, depth, counting, &mut lists)
}

fn perft_with(pos: &Position, depth: u32, counting: Counting, lists: &mut [MoveList]) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_moves(counting == Counting::Distinct),
        _ => {
            let (list, rest) = lists.split_first_mut().expect("one list per ply");
            pos.legal_moves(list);
            let mut n = 0;
            for m in list.iter() {
                n += counting.weight(m)
                    * perft_with(&pos.play_unchecked(m), depth - 1, counting, rest);
            }
            n
        }
    }
}

/// Perft of each legal move of `pos` (the "divide"), computed in parallel
/// over the moves on the current rayon pool. Each count is weighted by the
/// move's path count under [`Counting::EveryPath`].
pub fn divide(pos: &Position, depth: u32, counting: Counting) -> Vec<(Move, u64)> {
    let list = pos.moves();
    if depth == 0 {
        return Vec::new();
    }
    list.as_slice()
        .par_iter()
        .map(|m| {
            (
                *m,
                counting.weight(m) * perft(&pos.play_unchecked(m), depth - 1, counting),
            )
        })
        .collect()
}

/// Perft of `pos` to `depth`, split over the rayon pool two plies down.
pub fn perft_parallel(pos: &Position, depth: u32, counting: Counting) -> u64 {
    if depth < 4 {
        return perft(pos, depth, counting);
    }
    let mut jobs: Vec<(Position, u64)> = Vec::new();
    for m in &pos.moves() {
        let child = pos.play_unchecked(m);
        for m2 in &child.moves() {
            jobs.push((
                child.play_unchecked(m2),
                counting.weight(m) * counting.weight(m2),
            ));
        }
    }
    jobs.par_iter()
        .map(|(p, w)| w * perft(p, depth - 2, counting))
        .sum()
}
