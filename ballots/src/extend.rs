//! Extending a main line with the engine's principal variation, down to a
//! position the databases or the prover settle.

use crate::line::{MainLine, Origin};
use engine::search::{Limits, Searcher};
use engine::{Oracle, Position};

/// How far the engine may extend a line.
#[derive(Clone, Copy, Debug)]
pub struct ExtendLimits {
    /// Search limits for each move.
    pub per_move: Limits,
    /// Most plies added.
    pub max_plies: usize,
}

/// Extends `line` with the engine's best move, one search per ply, until
/// `settled` holds for the last position (for example: within the
/// databases' piece count, or proved by the store), the game ends, a
/// position repeats, or `limits.max_plies` are added. Returns the number
/// of plies added.
pub fn extend_with_engine(
    line: &mut MainLine,
    searcher: &mut Searcher,
    oracle: &dyn Oracle,
    limits: &ExtendLimits,
    settled: &dyn Fn(&Position) -> bool,
) -> usize {
    let mut added = 0;
    while added < limits.max_plies {
        let pos = line.last();
        if settled(&pos) || pos.is_terminal() {
            break;
        }
        let history: Vec<Position> = (0..line.len()).map(|k| line.position(k)).collect();
        let result = searcher.search(&pos, &limits.per_move, oracle, &history);
        let Some(mv) = result.best_move else { break };
        let next = pos.play_unchecked(&mv);
        if history.contains(&next) {
            break;
        }
        if !line.push(mv, Origin::Engine) {
            break;
        }
        added += 1;
    }
    added
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::NoOracle;

    #[test]
    fn extends_to_the_piece_count_asked_for() {
        let mut line = MainLine::default();
        let mut searcher = Searcher::new(4);
        let limits = ExtendLimits {
            per_move: Limits {
                depth: Some(4),
                ..Limits::default()
            },
            max_plies: 200,
        };
        let added = extend_with_engine(&mut line, &mut searcher, &NoOracle, &limits, &|p| {
            p.piece_count() <= 20
        });
        assert_eq!(added, line.len());
        assert!(added > 0);
        let last = line.last();
        assert!(last.piece_count() <= 20 || last.is_terminal());
        assert!(line.plies.iter().all(|p| p.origin == Origin::Engine));
        // Every ply is legal from the one before.
        for k in 1..=line.len() {
            assert_eq!(
                line.position(k - 1).play(&line.plies[k - 1].mv),
                Some(line.position(k))
            );
        }
    }
}
