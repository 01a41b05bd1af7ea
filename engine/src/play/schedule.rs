//! The games of a match: each opening played twice, the colours reversed
//! ([`pairings`]), and played a number at a time with the results given
//! back in game order ([`play_all`]).

use crate::Color;
use rayon::prelude::*;
use thiserror::Error;

/// Why the games of a match cannot be scheduled.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum ScheduleError {
    /// More games asked for than the openings give.
    #[error("{asked} games asked for, but {openings} openings give {available} (each with both colours)")]
    TooMany {
        /// Games asked for.
        asked: usize,
        /// Openings.
        openings: usize,
        /// Games they give.
        available: usize,
    },
    /// The worker pool could not be built.
    #[error("cannot start {threads} game threads: {detail}")]
    Pool {
        /// Threads asked for.
        threads: usize,
        /// Why.
        detail: String,
    },
}

/// One game of a match: its number (from 0, the order of the results),
/// the index of its opening, and the colour of the first player (A).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pairing {
    /// Game number, from 0.
    pub number: usize,
    /// Index of the opening in the match's list.
    pub opening: usize,
    /// Player A's colour.
    pub a_color: Color,
}

/// The games of `openings` openings, each with A as Black then as White,
/// in that order; the first `games` of them when given (at most all).
pub fn pairings(openings: usize, games: Option<usize>) -> Result<Vec<Pairing>, ScheduleError> {
    let mut all = Vec::with_capacity(openings * 2);
    for opening in 0..openings {
        for a_color in [Color::Black, Color::White] {
            all.push(Pairing {
                number: all.len(),
                opening,
                a_color,
            });
        }
    }
    if let Some(g) = games {
        if g > all.len() {
            return Err(ScheduleError::TooMany {
                asked: g,
                openings,
                available: all.len(),
            });
        }
        all.truncate(g);
    }
    Ok(all)
}

/// Plays every pairing with `play`, `threads` games at a time (at least
/// one), and returns the results in game-number order.
pub fn play_all<R: Send>(
    pairings: &[Pairing],
    threads: usize,
    play: impl Fn(&Pairing) -> R + Sync,
) -> Result<Vec<R>, ScheduleError> {
    let threads = threads.max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| ScheduleError::Pool {
            threads,
            detail: e.to_string(),
        })?;
    let mut done: Vec<(usize, R)> =
        pool.install(|| pairings.par_iter().map(|p| (p.number, play(p))).collect());
    done.sort_by_key(|d| d.0);
    Ok(done.into_iter().map(|d| d.1).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_opening_is_played_with_both_colours_in_order() {
        let all = pairings(3, None).unwrap();
        assert_eq!(all.len(), 6);
        for (i, p) in all.iter().enumerate() {
            assert_eq!(p.number, i);
            assert_eq!(p.opening, i / 2);
            let want = if i % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            assert_eq!(p.a_color, want);
        }
        assert_eq!(pairings(3, Some(4)).unwrap().len(), 4);
        assert_eq!(
            pairings(3, Some(7)),
            Err(ScheduleError::TooMany {
                asked: 7,
                openings: 3,
                available: 6
            })
        );
    }

    #[test]
    fn results_come_back_in_game_order() {
        let all = pairings(20, None).unwrap();
        let out = play_all(&all, 3, |p| {
            // Later games finish first.
            std::thread::yield_now();
            p.number * 10 + p.opening
        })
        .unwrap();
        let want: Vec<usize> = all.iter().map(|p| p.number * 10 + p.opening).collect();
        assert_eq!(out, want);
    }
}
