//! Fitting the learned evaluation ([`crate::eval::learned`]) to labelled
//! positions by logistic regression.
//!
//! Labels: the outcome of the self-play game a position came from (for
//! its side to move: 1 win, 0.5 draw, 0 loss), replaced by the exact
//! value of the endgame databases once the game reaches a position they
//! know: the game's label is then the value of its first such position,
//! and each position they know is labelled with its own value.
//!
//! Model: `sigmoid(z)` predicts the label, `z` linear in the hand
//! features and the pattern cells, each with an opening and an endgame
//! weight blended by the phase. Fit: full-batch Adam on the mean
//! cross-entropy plus an L2 penalty on the pattern weights (`l2 / 2 *
//! w^2` summed, so a cell seen a few times stays near zero), from the
//! hand weights divided by the scale `K` that fits them best. The
//! exported weights are `K * z` in centi-men, so the search's margins
//! keep their meaning. The sum over the samples is cut into a fixed
//! number of chunks added in order, so the fit is the same bit for bit
//! with any number of threads.

use super::training::TrainingGame;
use crate::eval::learned::{pattern_indices, Learned, CELLS, N_WEIGHTS, WINDOWS};
use crate::eval::{features, phase, Weights, N_FEATURES, PHASE_MAX};
use crate::{Color, Oracle, Position, Value};
use rayon::prelude::*;

/// A labelled training position, compact.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// The hand features.
    feats: [i8; N_FEATURES],
    /// The phase, as a fraction of [`PHASE_MAX`].
    ph: f32,
    /// The pattern index of each window.
    idx: [u16; WINDOWS],
    /// The label for the side to move.
    y: f32,
}

impl Sample {
    /// The sample of `pos` labelled `y` for its side to move.
    pub fn new(pos: &Position, y: f32) -> Sample {
        let f = features(pos);
        Sample {
            feats: f.map(|x| x.clamp(-128, 127) as i8),
            ph: phase(pos) as f32 / PHASE_MAX as f32,
            idx: pattern_indices(pos),
            y,
        }
    }

    /// The label for the side to move.
    pub fn label(&self) -> f32 {
        self.y
    }
}

/// The labelled positions of some games, split into a training and a
/// held-out set (every tenth game, by number), and what the labelling did.
#[derive(Clone, Debug, Default)]
pub struct Labelled {
    /// Positions to fit.
    pub train: Vec<Sample>,
    /// Positions of the held-out games.
    pub test: Vec<Sample>,
    /// Games whose label came from the databases.
    pub games_exact: usize,
    /// Of those, games whose played result differed from the exact value.
    pub games_changed: usize,
    /// Positions labelled with their own exact value.
    pub positions_exact: usize,
}

fn score_of(v: Value) -> f32 {
    match v {
        Value::Win => 1.0,
        Value::Draw => 0.5,
        Value::Loss => 0.0,
    }
}

/// For Black, from the value `v` for `pos`'s side to move.
fn black_score(pos: &Position, v: Value) -> f32 {
    match pos.side_to_move() {
        Color::Black => score_of(v),
        Color::White => 1.0 - score_of(v),
    }
}

/// Labels the positions of `games` (see the module doc): positions of at
/// most `exact_pieces` pieces are looked up in `oracle`. With `keep_exact`
/// false the positions the oracle knows label their game but are not
/// samples themselves (a search with the databases never evaluates them).
pub fn label(
    games: &[TrainingGame],
    oracle: &dyn Oracle,
    exact_pieces: u32,
    keep_exact: bool,
) -> Labelled {
    let mut out = Labelled::default();
    for g in games {
        let exact = |p: &Position| {
            if p.piece_count() <= exact_pieces {
                oracle.probe(p).map(|v| black_score(p, v))
            } else {
                None
            }
        };
        let mut result = g.black_result;
        if let Some(r) = g.positions.iter().find_map(exact) {
            out.games_exact += 1;
            out.games_changed += usize::from(r != result);
            result = r;
        }
        let set = if g.number % 10 == 9 {
            &mut out.test
        } else {
            &mut out.train
        };
        for p in &g.positions {
            let black = match exact(p) {
                Some(_) if !keep_exact => continue,
                Some(r) => {
                    out.positions_exact += 1;
                    r
                }
                None => result,
            };
            let y = match p.side_to_move() {
                Color::Black => black,
                Color::White => 1.0 - black,
            };
            set.push(Sample::new(p, y));
        }
    }
    out
}

/// The model's weights in logit units, laid out as a weights file's
/// payload ([`Learned::from_weights`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// The weights.
    pub w: Vec<f32>,
}

/// Index of the opening weight of window `win`'s cell `idx` (the endgame
/// weight follows it).
#[inline(always)]
fn cell(win: usize, idx: u16) -> usize {
    2 * N_FEATURES + 2 * (win * CELLS + idx as usize)
}

impl Model {
    /// The hand weights `hand` divided by the scale `k`, patterns zero.
    pub fn from_hand(hand: &Weights, k: f32) -> Model {
        let mut w = vec![0f32; N_WEIGHTS];
        for i in 0..N_FEATURES {
            w[i] = hand.opening[i] as f32 / k;
            w[N_FEATURES + i] = hand.endgame[i] as f32 / k;
        }
        Model { w }
    }

    /// `z` of `s`: the logit of the predicted score.
    #[inline]
    fn logit(&self, s: &Sample) -> f32 {
        let (mut o, mut e) = (0f32, 0f32);
        for (i, &x) in s.feats.iter().enumerate() {
            o += x as f32 * self.w[i];
            e += x as f32 * self.w[N_FEATURES + i];
        }
        for (win, &idx) in s.idx.iter().enumerate() {
            let c = cell(win, idx);
            o += self.w[c];
            e += self.w[c + 1];
        }
        s.ph * o + (1.0 - s.ph) * e
    }

    /// The weights in centi-men (times `2^frac_bits`) for a scale `k`,
    /// rounded and clamped to `i16`.
    pub fn export(&self, k: f32, frac_bits: u32) -> Learned {
        let f = k * (1u32 << frac_bits) as f32;
        let w: Vec<i16> = self
            .w
            .iter()
            .map(|x| (x * f).round().clamp(-32767.0, 32767.0) as i16)
            .collect();
        Learned::from_weights(&w, frac_bits)
    }
}

fn sigmoid(z: f32) -> f32 {
    1.0 / (1.0 + (-z).exp())
}

/// Cross-entropy of predicting `p` for label `y`.
fn xent(y: f32, p: f32) -> f32 {
    let p = p.clamp(1e-6, 1.0 - 1e-6);
    -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
}

/// Number of chunks the samples are cut into for a deterministic sum.
const CHUNKS: usize = 16;

fn chunks(samples: &[Sample]) -> impl IndexedParallelIterator<Item = &[Sample]> {
    samples.par_chunks(samples.len().div_ceil(CHUNKS).max(1))
}

/// Mean cross-entropy of `model` on `samples`.
pub fn loss(samples: &[Sample], model: &Model) -> f64 {
    let parts: Vec<f64> = chunks(samples)
        .map(|c| {
            c.iter()
                .map(|s| xent(s.y, sigmoid(model.logit(s))) as f64)
                .sum()
        })
        .collect();
    parts.iter().sum::<f64>() / samples.len().max(1) as f64
}

/// Mean cross-entropy of `sigmoid(eval / k)` for the linear weights `w`.
pub fn linear_loss(samples: &[Sample], w: &Weights, k: f32) -> f64 {
    loss(samples, &Model::from_hand(w, k))
}

/// The scale `k` (20 to 600, steps of 5) for which `sigmoid(eval / k)`
/// of the linear weights `w` best predicts `samples`.
pub fn best_scale(samples: &[Sample], w: &Weights) -> f32 {
    let mut best = (f64::INFINITY, 100.0);
    for k in (20..=600).step_by(5) {
        let l = linear_loss(samples, w, k as f32);
        if l < best.0 {
            best = (l, k as f32);
        }
    }
    best.1
}

/// Settings of [`fit`].
#[derive(Clone, Copy, Debug)]
pub struct FitSettings {
    /// Full-batch Adam steps.
    pub steps: usize,
    /// Adam's step size (logit units).
    pub lr: f32,
    /// L2 penalty on the pattern weights, in samples' worth: the penalty
    /// `l2 / 2 * w^2` is added to the summed loss.
    pub l2: f32,
}

/// The gradient of the summed loss (without the penalty) at `model`.
fn gradient(samples: &[Sample], model: &Model) -> Vec<f32> {
    let parts: Vec<Vec<f32>> = chunks(samples)
        .map(|c| {
            let mut g = vec![0f32; N_WEIGHTS];
            for s in c {
                let d = sigmoid(model.logit(s)) - s.y;
                let (dop, den) = (d * s.ph, d * (1.0 - s.ph));
                for (i, &x) in s.feats.iter().enumerate() {
                    g[i] += dop * x as f32;
                    g[N_FEATURES + i] += den * x as f32;
                }
                for (win, &idx) in s.idx.iter().enumerate() {
                    let c = cell(win, idx);
                    g[c] += dop;
                    g[c + 1] += den;
                }
            }
            g
        })
        .collect();
    let mut g = vec![0f32; N_WEIGHTS];
    for p in parts {
        for (a, b) in g.iter_mut().zip(p) {
            *a += b;
        }
    }
    g
}

/// Fits `model` to `train` with full-batch Adam; `each(step, model)` is
/// called after every step (for progress and held-out losses).
pub fn fit(
    train: &[Sample],
    model: &mut Model,
    settings: FitSettings,
    mut each: impl FnMut(usize, &Model),
) {
    let n = train.len().max(1) as f32;
    let (b1, b2) = (0.9f32, 0.999f32);
    let mut m = vec![0f32; N_WEIGHTS];
    let mut v = vec![0f32; N_WEIGHTS];
    for t in 1..=settings.steps {
        let g = gradient(train, model);
        let (c1, c2) = (1.0 - b1.powi(t as i32), 1.0 - b2.powi(t as i32));
        for j in 0..N_WEIGHTS {
            let penalty = if j >= 2 * N_FEATURES {
                settings.l2 * model.w[j]
            } else {
                0.0
            };
            let gj = (g[j] + penalty) / n;
            m[j] = b1 * m[j] + (1.0 - b1) * gj;
            v[j] = b2 * v[j] + (1.0 - b2) * gj * gj;
            model.w[j] -= settings.lr * (m[j] / c1) / ((v[j] / c2).sqrt() + 1e-8);
        }
        each(t, model);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen::parse_fen;
    use crate::NoOracle;

    fn games() -> Vec<TrainingGame> {
        // The side a man up wins; level positions draw.
        let mut gs = Vec::new();
        for (i, (fen, r)) in [
            ("B:W21,22,23:B1,2,3,4", 1.0),
            ("W:W21,22,23,24:B1,2,3", 0.0),
            ("B:W18,22:B9,10", 0.5),
            ("W:W26,27,28,29:B5,6,7,8", 0.5),
            ("B:W26,27,28:B5,6,7,8", 1.0),
        ]
        .into_iter()
        .enumerate()
        {
            for j in 0..20 {
                gs.push(TrainingGame {
                    number: 10 * j + i,
                    black_result: r,
                    positions: vec![parse_fen(fen).unwrap()],
                });
            }
        }
        gs
    }

    #[test]
    fn fitting_lowers_the_loss_and_is_reproducible() {
        let l = label(&games(), &NoOracle, 6, true);
        assert_eq!(l.train.len(), 100);
        assert!(l.test.is_empty());
        let hand = Weights::hand();
        let k = best_scale(&l.train, &hand);
        let mut a = Model::from_hand(&hand, k);
        let before = loss(&l.train, &a);
        let settings = FitSettings {
            steps: 50,
            lr: 0.02,
            l2: 1.0,
        };
        fit(&l.train, &mut a, settings, |_, _| {});
        let after = loss(&l.train, &a);
        assert!(after < before - 1e-3, "{before} -> {after}");
        let mut b = Model::from_hand(&hand, k);
        fit(&l.train, &mut b, settings, |_, _| {});
        assert_eq!(a, b);
        // The export keeps the prediction: the side a man up is ahead.
        let e = a.export(k, 4);
        assert!(e.evaluate(&parse_fen("B:W21,22,23:B1,2,3,4").unwrap()) > 0);
    }

    #[test]
    fn the_databases_relabel_a_game_from_its_first_known_position() {
        // A database that says every position of 4 pieces or fewer is a
        // win for the side to move.
        struct Wins;
        impl Oracle for Wins {
            fn probe(&self, p: &Position) -> Option<Value> {
                (p.piece_count() <= 4).then_some(Value::Win)
            }
        }
        let g = TrainingGame {
            number: 0,
            black_result: 0.5,
            positions: vec![
                parse_fen("B:W21,22,23:B1,2").unwrap(),
                parse_fen("W:W21,22:B1,2").unwrap(),
                parse_fen("B:W22:B1,2").unwrap(),
            ],
        };
        let l = label(std::slice::from_ref(&g), &Wins, 6, false);
        assert_eq!((l.games_exact, l.games_changed, l.train.len()), (1, 1, 1));
        assert_eq!(l.train[0].label(), 0.0);
        let l = label(&[g], &Wins, 6, true);
        assert_eq!(
            (l.games_exact, l.games_changed, l.positions_exact),
            (1, 1, 2)
        );
        // White to move at the first known position wins: a Black loss,
        // so the first position (Black to move) is labelled 0.
        let y: Vec<f32> = l.train.iter().map(Sample::label).collect();
        assert_eq!(y, vec![0.0, 1.0, 1.0]);
    }
}
