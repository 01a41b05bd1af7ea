// Hand-set weights; replaced by the output of `checkers tune`.
use super::Weights;

/// Weights fitted by `checkers tune` (feature order as in
/// `FEATURE_NAMES`).
pub const TUNED: Weights = Weights::hand();
