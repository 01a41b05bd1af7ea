//! Fitting the evaluation weights to game outcomes by logistic
//! regression: self-play games from given starts (the first plies chosen
//! at random among near-best moves), every quiet position labelled with
//! the game's result, and the weights fitted so that `sigmoid(eval / K)`
//! predicts it (Texel's method). The `tune` command reads and writes the
//! files; this module plays and fits.

use super::record::{GameOutcome, GameRecord};
use super::referee::{play_game, EnginePlayer, PlayError, Referee, TimeControl};
use crate::eval::{features, phase, Weights, N_FEATURES, PHASE_MAX};
use crate::rng::XorShift64;
use crate::search::{Limits, SearchOptions, Searcher};
use crate::{Color, Move, NoOracle, Position};
use rayon::prelude::*;

/// A labelled training position.
#[derive(Clone, Debug)]
pub struct Sample {
    /// The features, scaled by the game phase: opening then endgame.
    f: [f32; 2 * N_FEATURES],
    /// Result for the side to move: 1 win, 0.5 draw, 0 loss.
    y: f32,
}

impl Sample {
    /// The sample of `pos` from a game that scored `black_result` for
    /// Black (1 win, 0.5 draw, 0 loss).
    pub fn new(pos: &Position, black_result: f32) -> Sample {
        let fs = features(pos);
        let ph = phase(pos) as f32 / PHASE_MAX as f32;
        let mut f = [0f32; 2 * N_FEATURES];
        for i in 0..N_FEATURES {
            f[i] = fs[i] as f32 * ph;
            f[N_FEATURES + i] = fs[i] as f32 * (1.0 - ph);
        }
        let y = match pos.side_to_move() {
            Color::Black => black_result,
            Color::White => 1.0 - black_result,
        };
        Sample { f, y }
    }
}

/// How the self-play games are played.
#[derive(Clone, Copy, Debug)]
pub struct SelfPlay {
    /// Search depth of every move after the random ones.
    pub depth: u32,
    /// Plies at the start chosen at random among moves within 25
    /// centi-men of the best (depth-2 scores).
    pub random_plies: usize,
}

/// Plays the first plies at random among near-best moves, ranked by
/// depth-2 searches with the tuned linear weights whatever the game's
/// evaluation (they were the engine's default when the committed training
/// games were played, so game N stays the game it was).
struct Opener {
    searcher: Searcher,
    rng: XorShift64,
}

impl Opener {
    fn pick(&mut self, pos: &Position) -> Move {
        let ranked = self.searcher.rank_moves(pos, 2, &NoOracle, &[]);
        let best = ranked[0].1;
        let near: Vec<Move> = ranked
            .iter()
            .filter(|(_, s)| *s >= best - 25)
            .map(|(m, _)| *m)
            .collect();
        near[self.rng.index(near.len())]
    }
}

/// Self-play game number `i` from `start` with the evaluation `eval` on
/// both sides:
/// the positions it passed through and its outcome. The same `i`, start
/// and settings give the same game.
pub fn self_play_game(
    i: usize,
    start: Position,
    settings: SelfPlay,
    eval: &crate::eval::Evaluator,
) -> Result<(Vec<Position>, GameOutcome), PlayError> {
    let mut opener = Opener {
        searcher: Searcher::with_options(
            1,
            SearchOptions {
                eval: crate::eval::Evaluator::Linear(Weights::playing()),
                ..SearchOptions::full_width()
            },
        ),
        rng: XorShift64::new(
            crate::rng::DEFAULT_SEED ^ (i as u64 + 1).wrapping_mul(0x2545_F491_4F6C_DD1D),
        ),
    };
    let mut pos = start;
    for _ in 0..settings.random_plies {
        if pos.is_terminal() {
            break;
        }
        pos = pos.play_unchecked(&opener.pick(&pos));
    }
    let options = SearchOptions {
        eval: eval.clone(),
        ..SearchOptions::full_width()
    };
    let mut a = EnginePlayer::new(options.clone(), 4, &NoOracle, 0);
    let mut b = EnginePlayer::new(options, 4, &NoOracle, 0);
    let referee = Referee::rules_only(200, 400);
    let tc = TimeControl::PerMove(Limits {
        depth: Some(settings.depth),
        ..Limits::default()
    });
    let (game, end): (GameRecord, _) = play_game(pos, &mut a, &mut b, tc, &referee)?;
    Ok((game.positions, end.outcome))
}

/// Mean squared error of the predictions of weights `w` with scale `k`.
fn mse(samples: &[Sample], w: &[f32; 2 * N_FEATURES], k: f32) -> f32 {
    let s: f32 = samples
        .par_iter()
        .map(|x| {
            let e: f32 = x.f.iter().zip(w).map(|(a, b)| a * b).sum();
            let p = 1.0 / (1.0 + (-e / k).exp());
            (x.y - p).powi(2)
        })
        .sum();
    s / samples.len() as f32
}

/// The weights as one vector: opening then endgame.
fn flat(w: &Weights) -> [f32; 2 * N_FEATURES] {
    let mut r = [0f32; 2 * N_FEATURES];
    for i in 0..N_FEATURES {
        r[i] = w.opening[i] as f32;
        r[N_FEATURES + i] = w.endgame[i] as f32;
    }
    r
}

/// The gradient of the squared error at `w` (summed over the samples).
fn gradient(samples: &[Sample], w: &[f32; 2 * N_FEATURES], k: f32) -> [f32; 2 * N_FEATURES] {
    samples
        .par_iter()
        .fold(
            || [0f32; 2 * N_FEATURES],
            |mut acc, x| {
                let e: f32 = x.f.iter().zip(w).map(|(a, b)| a * b).sum();
                let p = 1.0 / (1.0 + (-e / k).exp());
                let d = -2.0 * (x.y - p) * p * (1.0 - p) / k;
                for (a, fj) in acc.iter_mut().zip(&x.f) {
                    *a += d * fj;
                }
                acc
            },
        )
        .reduce(
            || [0f32; 2 * N_FEATURES],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b) {
                    *x += y;
                }
                a
            },
        )
}

/// What [`fit`] found.
#[derive(Clone, Debug)]
pub struct Fit {
    /// The fitted weights (rounded).
    pub weights: Weights,
    /// The scale K of `sigmoid(eval / K)`.
    pub k: f32,
    /// Mean squared error of the starting weights.
    pub before: f32,
    /// Mean squared error of the fitted weights.
    pub after: f32,
}

/// Fits the weights: first the scale K for the starting weights (a scan
/// of 20 to 600), then `iterations` steps of Adam on the squared error
/// with the man weights fixed at their starting values.
pub fn fit(samples: &[Sample], start: Weights, iterations: usize) -> Fit {
    let mut w = flat(&start);
    let (mut k, mut best) = (100.0, f32::INFINITY);
    for kk in (20..=600).step_by(10) {
        let e = mse(samples, &w, kk as f32);
        if e < best {
            best = e;
            k = kk as f32;
        }
    }
    let fixed = |j: usize| j == 0 || j == N_FEATURES; // man weights
    let (mut m, mut v) = ([0f32; 2 * N_FEATURES], [0f32; 2 * N_FEATURES]);
    let (b1, b2, lr) = (0.9f32, 0.999f32, 0.5f32);
    let n = samples.len() as f32;
    for t in 1..=iterations {
        let g = gradient(samples, &w, k);
        for j in (0..2 * N_FEATURES).filter(|&j| !fixed(j)) {
            let gj = g[j] / n;
            m[j] = b1 * m[j] + (1.0 - b1) * gj;
            v[j] = b2 * v[j] + (1.0 - b2) * gj * gj;
            let mh = m[j] / (1.0 - b1.powi(t as i32));
            let vh = v[j] / (1.0 - b2.powi(t as i32));
            w[j] -= lr * mh / (vh.sqrt() + 1e-8);
        }
    }
    let mut out = start;
    for i in 0..N_FEATURES {
        out.opening[i] = w[i].round() as i32;
        out.endgame[i] = w[N_FEATURES + i].round() as i32;
    }
    let after = mse(samples, &flat(&out), k);
    Fit {
        weights: out,
        k,
        before: best,
        after,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen::parse_fen;

    #[test]
    fn self_play_is_reproducible_and_ends() {
        let s = SelfPlay {
            depth: 1,
            random_plies: 2,
        };
        let hand = crate::eval::Evaluator::Linear(Weights::hand());
        let a = self_play_game(3, Position::initial(), s, &hand).unwrap();
        let b = self_play_game(3, Position::initial(), s, &hand).unwrap();
        assert_eq!(a.0, b.0);
        assert_eq!(a.1, b.1);
        assert_ne!(a.1, GameOutcome::Unfinished);
        assert!(a.0.len() > 2 && a.0.len() <= 201 + s.random_plies);
    }

    #[test]
    fn fitting_lowers_the_error_and_keeps_the_man_weight() {
        // Positions where the side up a man won and the rest drew: the
        // fit must not get worse than the hand weights.
        let mut samples = Vec::new();
        for fen in [
            "B:W21,22,23:B1,2,3,4",
            "W:W21,22,23,24:B1,2,3",
            "B:W18,22:B9,10",
        ] {
            let p = parse_fen(fen).unwrap();
            let black = crate::eval::material(&p)
                * if p.side_to_move() == Color::Black {
                    1
                } else {
                    -1
                };
            let r = if black > 0 {
                1.0
            } else if black < 0 {
                0.0
            } else {
                0.5
            };
            for _ in 0..50 {
                samples.push(Sample::new(&p, r));
            }
        }
        let f = fit(&samples, Weights::hand(), 20);
        assert!(f.after <= f.before + 1e-4, "{} -> {}", f.before, f.after);
        assert_eq!(f.weights.opening[0], Weights::hand().opening[0]);
        assert_eq!(f.weights.endgame[0], Weights::hand().endgame[0]);
        assert!((20.0..=600.0).contains(&f.k));
    }
}
