// No fit is committed: the engine plays with the hand weights. `checkers
// tune` replaces this file with the weights it fits.
use super::Weights;

/// The weights the engine plays with (feature order as in
/// `FEATURE_NAMES`): the hand weights until a fit of `checkers tune` is
/// committed here.
pub const PLAYING: Weights = Weights::hand();
