//! Heuristic evaluation.
//!
//! Units: *centi-men* from the side to move's point of view; a man is
//! worth 100 in every phase (the scale is fixed there), everything else is
//! fitted (`checkers tune`) or set by hand. Positive is good for the side
//! to move. Evaluation is linear in [`features::features`]: each feature
//! has an opening weight and an endgame weight, blended by
//! [`features::phase`] (24 pieces = opening, 6 or fewer = endgame).
//! The search's default, [`Evaluator::default_eval`], is the learned
//! evaluation ([`learned`]): the same features with fitted weights plus
//! pattern tables, on the same scale.

pub mod features;
pub mod learned;
mod weights;

pub use features::{features, phase, FEATURE_NAMES, N_FEATURES, PHASE_MAX};
pub use learned::{Learned, LearnedError};

use crate::board::Position;
use std::sync::Arc;

/// The evaluation a search uses: linear weights on the features, or the
/// learned weights (features and board patterns, [`learned`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Evaluator {
    /// Linear in the features ([`Weights`]).
    Linear(Weights),
    /// The learned evaluation.
    Learned(Arc<Learned>),
}

impl Evaluator {
    /// The engine's default evaluation: the learned one (it beat the hand
    /// weights in self-play matches, docs/measurements.md), or the
    /// [`Weights::playing`] weights should the embedded file not load
    /// (a test checks that it does).
    pub fn default_eval() -> Evaluator {
        match Learned::embedded() {
            Ok(l) => Evaluator::Learned(l),
            Err(_) => Evaluator::Linear(Weights::playing()),
        }
    }

    /// Evaluates `pos` in centi-men from the side to move's point of view.
    #[inline]
    pub fn evaluate(&self, pos: &Position) -> i32 {
        match self {
            Evaluator::Linear(w) => w.evaluate(pos),
            Evaluator::Learned(l) => l.evaluate(pos),
        }
    }
}

/// Opening and endgame weights, one pair per feature, in centi-men per
/// unit of the feature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Weights {
    /// Weights with a full board.
    pub opening: [i32; N_FEATURES],
    /// Weights with 6 or fewer pieces.
    pub endgame: [i32; N_FEATURES],
}

impl Weights {
    /// The weights the engine plays with (engine/src/eval/weights.rs):
    /// the last fit `checkers tune` wrote there, or the hand weights
    /// while no fit is committed (`eval=tuned` in the search options).
    pub const fn playing() -> Weights {
        weights::PLAYING
    }

    /// Hand-set starting weights (the untuned evaluation, and where
    /// `checkers tune` starts from).
    pub const fn hand() -> Weights {
        Weights {
            //         man king back ctr kctr mob adv run kmob trap edge move thr
            opening: [100, 130, 8, 6, 4, 2, 1, 10, 1, -10, -4, 3, -2],
            endgame: [100, 140, 0, 2, 8, 2, 3, 40, 3, -20, -8, 2, -2],
        }
    }

    /// Material only: a man 100, a king 130.
    pub const fn material() -> Weights {
        let mut opening = [0; N_FEATURES];
        opening[features::MAN] = 100;
        opening[features::KING] = 130;
        Weights {
            opening,
            endgame: opening,
        }
    }

    /// Evaluates `pos` with these weights (see the module doc for units).
    #[inline]
    pub fn evaluate(&self, pos: &Position) -> i32 {
        let f = features(pos);
        let ph = phase(pos);
        let mut o = 0;
        let mut e = 0;
        for ((x, wo), we) in f.iter().zip(&self.opening).zip(&self.endgame) {
            o += x * wo;
            e += x * we;
        }
        (o * ph + e * (PHASE_MAX - ph)) / PHASE_MAX
    }

    /// Writes the weights as the Rust source of `weights.rs`.
    pub fn to_rust_source(&self, header: &str) -> String {
        let mut s = String::new();
        for line in header.lines() {
            s.push_str("// ");
            s.push_str(line);
            s.push('\n');
        }
        s.push_str("use super::Weights;\n\n");
        s.push_str("/// Weights fitted by `checkers tune` (feature order as in\n");
        s.push_str("/// `FEATURE_NAMES`).\n");
        s.push_str("pub const PLAYING: Weights = Weights {\n");
        for (name, w) in [("opening", &self.opening), ("endgame", &self.endgame)] {
            s.push_str(&format!("    {name}: [\n"));
            for (i, v) in w.iter().enumerate() {
                s.push_str(&format!("        {v}, // {}\n", FEATURE_NAMES[i]));
            }
            s.push_str("    ],\n");
        }
        s.push_str("};\n");
        s
    }
}

/// The engine's evaluation of `pos` ([`Weights::playing`]), centi-men from the
/// side to move's point of view.
#[inline]
pub fn evaluate(pos: &Position) -> i32 {
    Weights::playing().evaluate(pos)
}

/// Material balance from the side to move's point of view: men 100,
/// kings 130.
#[inline]
pub fn material(pos: &Position) -> i32 {
    let side = pos.side_to_move();
    let k = pos.kings();
    let us = pos.pieces(side);
    let them = pos.pieces(side.opposite());
    100 * ((us & !k).count_ones() as i32 - (them & !k).count_ones() as i32)
        + 130 * ((us & k).count_ones() as i32 - (them & k).count_ones() as i32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen::parse_fen;

    #[test]
    fn evaluation_is_antisymmetric_under_colour_flip() {
        for fen in [
            "W:W12,15,16,25,30,32:B3,7,9,14,18,24",
            "B:W18,24,30,31:B3,7,11,27",
            "W:WK19,K23:B12,K28",
        ] {
            let p = parse_fen(fen).unwrap();
            assert_eq!(evaluate(&p), evaluate(&p.flipped()), "{fen}");
        }
    }

    #[test]
    fn a_man_up_is_good_and_the_scale_is_a_man() {
        let p = parse_fen("B:W21,22,23:B1,2,3,4").unwrap();
        let v = evaluate(&p);
        assert!(v > 50, "{v}");
        assert_eq!(Weights::playing().opening[features::MAN], 100);
        assert_eq!(Weights::playing().endgame[features::MAN], 100);
        assert_eq!(material(&p), 100);
    }
}
