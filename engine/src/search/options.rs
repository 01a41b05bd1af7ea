//! Search settings: which enhancements are on, and the evaluation used.
//! Parsed from `key=value,key=value` text so that matches can compare two
//! settings of the same engine.

use crate::eval::{Evaluator, Learned, Weights};
use std::sync::Arc;
use thiserror::Error;

/// Why an options string could not be read.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum OptionsError {
    /// A key that is not a known option.
    #[error("unknown search option {0:?} (known: {known})", known = KNOWN)]
    UnknownKey(String),
    /// A weights file that could not be used.
    #[error("search option {key}: {detail}")]
    Unusable {
        /// The option.
        key: String,
        /// Why.
        detail: String,
    },
    /// A value that does not fit the option.
    #[error("bad value {value:?} for search option {key}")]
    BadValue {
        /// The option.
        key: String,
        /// Its value as given.
        value: String,
    },
}

/// The option keys, for the error naming an unknown one.
const KNOWN: &str = "eval, eval-file, plain, tt, etc, order, asp, pvs, step, restart, qs, ext, ext-single, ext-promo, ext-recap, ext-runaway, reduce, reduce-eval, lmr, lmr-moves, dd";

/// Default of [`SearchOptions::reduce_eval`].
pub const REDUCE_EVAL: i32 = 75;

/// Default of [`SearchOptions::lmr_moves`].
pub const LMR_MOVES: usize = 3;

/// Which search enhancements are on. `Default` is the full engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchOptions {
    /// Transposition table probes and stores.
    pub tt: bool,
    /// Enhanced transposition cutoffs at nodes with depth >= 3.
    pub etc: bool,
    /// Killer and history move ordering.
    pub ordering: bool,
    /// Aspiration windows around the previous iteration's score.
    pub aspiration: bool,
    /// Principal variation search (null windows after the first move).
    pub pvs: bool,
    /// Iterative deepening step: 1 or 2 plies.
    pub step: u32,
    /// On a fail low at the root, restart the iterations at a shallow depth.
    pub restart_on_fail_low: bool,
    /// Capture play-out before evaluation.
    pub quiescence: bool,
    /// Extend when there is exactly one legal move.
    pub ext_single: bool,
    /// Extend a man's move onto its crowning row.
    pub ext_promotion: bool,
    /// Extend a capture answering a capture.
    pub ext_recapture: bool,
    /// Extend a man's move that leaves it one step from crowning with no
    /// enemy piece in its forward cone.
    pub ext_runaway: bool,
    /// Reduce lines where one side is a man or more down on the root
    /// without positional compensation.
    pub reduce: bool,
    /// Evaluation margin of the reduction, in centi-men (1 to 1000): how
    /// far the evaluation must be off the root's, with the material a man
    /// off, for a node to be searched a ply shallower.
    pub reduce_eval: i32,
    /// Late move reductions: at a node off the principal variation with
    /// depth 3 or more, a quiet move ordered after the first
    /// [`SearchOptions::lmr_moves`] (not a killer, not extended) is
    /// searched a ply shallower with a null window first, and again at
    /// full depth only when it beats alpha there.
    pub lmr: bool,
    /// Moves of a node searched at full depth before the late move
    /// reductions start (1 to 64).
    pub lmr_moves: usize,
    /// Draw differentiation for oracle draws.
    pub draw_diff: bool,
    /// The evaluation.
    pub eval: Evaluator,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            tt: true,
            etc: true,
            ordering: true,
            aspiration: true,
            pvs: true,
            step: 1,
            restart_on_fail_low: false,
            quiescence: true,
            ext_single: true,
            ext_promotion: true,
            ext_recapture: false,
            ext_runaway: true,
            reduce: true,
            reduce_eval: REDUCE_EVAL,
            lmr: true,
            lmr_moves: LMR_MOVES,
            draw_diff: true,
            eval: Evaluator::default_eval(),
        }
    }
}

/// The number `v` of option `key`, which must lie in `range`.
fn parse_in<T: std::str::FromStr + PartialOrd>(
    key: &str,
    v: &str,
    range: std::ops::RangeInclusive<T>,
) -> Result<T, OptionsError> {
    match v.parse::<T>() {
        Ok(n) if range.contains(&n) => Ok(n),
        _ => Err(OptionsError::BadValue {
            key: key.to_string(),
            value: v.to_string(),
        }),
    }
}

fn parse_bool(key: &str, v: &str) -> Result<bool, OptionsError> {
    match v {
        "1" | "on" | "true" | "yes" => Ok(true),
        "0" | "off" | "false" | "no" => Ok(false),
        _ => Err(OptionsError::BadValue {
            key: key.to_string(),
            value: v.to_string(),
        }),
    }
}

impl SearchOptions {
    /// The defaults without late move reductions: the search of the
    /// fixed-depth analyses (the ballots' main lines, their scores and
    /// repairs, the provers' move guesses, the self-play games of the
    /// learned weights), whose figures and stored lines were measured and
    /// built with it. Play (`bestmove`, `hub`, `match`, `play`) takes the
    /// defaults.
    pub fn full_width() -> SearchOptions {
        SearchOptions {
            lmr: false,
            ..SearchOptions::default()
        }
    }

    /// Every search enhancement off (plain alpha-beta with iterative
    /// deepening and capture play-out); evaluation unchanged.
    pub fn plain() -> SearchOptions {
        SearchOptions {
            tt: false,
            etc: false,
            ordering: false,
            aspiration: false,
            pvs: false,
            step: 1,
            restart_on_fail_low: false,
            quiescence: true,
            ext_single: false,
            ext_promotion: false,
            ext_recapture: false,
            ext_runaway: false,
            reduce: false,
            reduce_eval: REDUCE_EVAL,
            lmr: false,
            lmr_moves: LMR_MOVES,
            draw_diff: false,
            eval: Evaluator::default_eval(),
        }
    }

    /// Applies `key=value` pairs separated by commas to the defaults.
    /// Keys: `plain` (no value: start from [`SearchOptions::plain`]),
    /// `tt etc order asp pvs restart qs ext-single ext-promo ext-recap
    /// ext-runaway reduce lmr dd` (on/off, 1/0), `ext` (all extensions),
    /// `reduce-eval` (centi-men), `lmr-moves` (a count),
    /// `step` (1 or 2), `eval` (`tuned`, `hand`, `material` or `learned`),
    /// `eval-file` (a learned-evaluation weights file to load).
    pub fn parse(text: &str) -> Result<SearchOptions, OptionsError> {
        let mut o = SearchOptions::default();
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (k, v) = item.split_once('=').unwrap_or((item, "on"));
            let (k, v) = (k.trim(), v.trim());
            match k {
                "plain" => {
                    let w = o.eval;
                    o = SearchOptions::plain();
                    o.eval = w;
                }
                "tt" => o.tt = parse_bool(k, v)?,
                "etc" => o.etc = parse_bool(k, v)?,
                "order" => o.ordering = parse_bool(k, v)?,
                "asp" => o.aspiration = parse_bool(k, v)?,
                "pvs" => o.pvs = parse_bool(k, v)?,
                "restart" => o.restart_on_fail_low = parse_bool(k, v)?,
                "qs" => o.quiescence = parse_bool(k, v)?,
                "ext-single" => o.ext_single = parse_bool(k, v)?,
                "ext-promo" => o.ext_promotion = parse_bool(k, v)?,
                "ext-recap" => o.ext_recapture = parse_bool(k, v)?,
                "ext-runaway" => o.ext_runaway = parse_bool(k, v)?,
                "ext" => {
                    let b = parse_bool(k, v)?;
                    o.ext_single = b;
                    o.ext_promotion = b;
                    o.ext_recapture = b;
                    o.ext_runaway = b;
                }
                "reduce" => o.reduce = parse_bool(k, v)?,
                "reduce-eval" => o.reduce_eval = parse_in(k, v, 1..=1000)?,
                "lmr" => o.lmr = parse_bool(k, v)?,
                "lmr-moves" => o.lmr_moves = parse_in(k, v, 1..=64)?,
                "dd" => o.draw_diff = parse_bool(k, v)?,
                "step" => {
                    o.step = match v {
                        "1" => 1,
                        "2" => 2,
                        _ => {
                            return Err(OptionsError::BadValue {
                                key: k.into(),
                                value: v.into(),
                            })
                        }
                    }
                }
                "eval-file" => {
                    let l = Learned::load(std::path::Path::new(v)).map_err(|e| {
                        OptionsError::Unusable {
                            key: k.into(),
                            detail: e.to_string(),
                        }
                    })?;
                    o.eval = Evaluator::Learned(Arc::new(l));
                }
                "eval" => {
                    o.eval = match v {
                        "tuned" => Evaluator::Linear(Weights::playing()),
                        "hand" => Evaluator::Linear(Weights::hand()),
                        "material" => Evaluator::Linear(Weights::material()),
                        "learned" => Evaluator::Learned(Learned::embedded().map_err(|e| {
                            OptionsError::Unusable {
                                key: k.into(),
                                detail: e.to_string(),
                            }
                        })?),
                        _ => {
                            return Err(OptionsError::BadValue {
                                key: k.into(),
                                value: v.into(),
                            })
                        }
                    }
                }
                _ => return Err(OptionsError::UnknownKey(k.to_string())),
            }
        }
        Ok(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_options() {
        let o = SearchOptions::parse("plain,tt=on,eval=material,step=2").unwrap();
        assert!(o.tt && !o.etc && !o.pvs);
        assert_eq!(o.step, 2);
        assert_eq!(o.eval, Evaluator::Linear(Weights::material()));
        let o = SearchOptions::parse("eval=learned").unwrap();
        assert!(matches!(o.eval, Evaluator::Learned(_)));
        let e = SearchOptions::parse("eval-file=/nonexistent/w.bin").unwrap_err();
        assert!(e.to_string().contains("w.bin"), "{e}");
        assert!(SearchOptions::parse("bogus=1").is_err());
        assert!(SearchOptions::parse("tt=maybe").is_err());
        assert_eq!(
            SearchOptions::parse("reduce-eval=50").unwrap().reduce_eval,
            50
        );
        assert_eq!(SearchOptions::default().reduce_eval, REDUCE_EVAL);
        for bad in ["reduce-eval=0", "reduce-eval=1001", "reduce-eval=x"] {
            assert!(SearchOptions::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(SearchOptions::parse("").unwrap(), SearchOptions::default());
    }
}
