//! The engine's scores on a main line, and the flag of a line that the
//! engine already calls lost for one side.
//!
//! A main line stores, for each position, the engine's score at the depth
//! the line was built with (`ballots run --line-depth`). Scores are kept
//! from **White's point of view** (positive: White is better), so that a
//! line reads without flipping signs at every ply; the engine itself
//! scores for the side to move ([`white_view`] converts). The scale is the
//! engine's: centi-men, a man = [`MAN`] (engine::eval fixes a man at 100
//! in every phase), beyond ±[`WIN_THRESHOLD`] a proven win or loss
//! (a database value or a forced end of the game inside the search).
//!
//! A line is *flagged* decisive from the first ply whose score is at
//! least a man for one side: a ballot's main line should stay in drawn
//! play, and a man down is the engine's way of saying a side is lost (the
//! proofs at the end of such a line then prove a win, not the ballot's
//! value). The last position counts too: a database win there is a
//! decisive line as well.

use engine::search::WIN_THRESHOLD;
use engine::{Color, Position};

/// A man on the engine's scale (engine::eval: a man is 100 in every
/// phase).
pub const MAN: i32 = 100;

/// `score`, from the point of view of the side to move in `pos`, as
/// White's.
pub fn white_view(score: i32, pos: &Position) -> i32 {
    match pos.side_to_move() {
        Color::White => score,
        Color::Black => -score,
    }
}

/// Whether a score (either view) says a side is lost: at least a man.
pub fn is_decisive(score: i32) -> bool {
    score.abs() >= MAN
}

/// Where a line turns decisive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decisive {
    /// First ply whose score is decisive.
    pub ply: u32,
    /// Its score (White's view).
    pub score: i32,
}

/// Scored plies in a row that must stay a man or more up for the same
/// side before a line counts as decisive: a single ply's score reaches a
/// man in master games that end drawn (the positional terms of a quiet
/// position, a shot in mid-exchange), a lost position stays lost.
pub const PERSIST: usize = 4;

/// Where `scores` (ply, White's-view score; unscored plies skipped) turn
/// decisive: the first ply of a run of decisive scores for one side that
/// lasts [`PERSIST`] scored plies or to the end of the line.
pub fn decisive_from(scores: impl IntoIterator<Item = (u32, Option<i32>)>) -> Option<Decisive> {
    let mut run: Option<(Decisive, usize)> = None;
    for (ply, s) in scores {
        let Some(score) = s else { continue };
        run = match run {
            Some((start, n)) if is_decisive(score) && score.signum() == start.score.signum() => {
                Some((start, n + 1))
            }
            _ if is_decisive(score) => Some((Decisive { ply, score }, 1)),
            _ => None,
        };
        if let Some((start, _)) = run.filter(|&(_, n)| n >= PERSIST) {
            return Some(start);
        }
    }
    run.map(|(start, _)| start)
}

/// A White's-view score in men: `+0.12`, `-1.30`, `White wins` /
/// `Black wins` beyond the threshold.
pub fn men_text(score: i32) -> String {
    if score > WIN_THRESHOLD {
        "White wins".to_string()
    } else if score < -WIN_THRESHOLD {
        "Black wins".to_string()
    } else {
        format!("{:+.2}", score as f64 / MAN as f64)
    }
}

/// The side a decisive score favours and by how much: `White +1.20
/// men`, `Black +2.00 men`, `White wins` (proven).
pub fn advantage_text(score: i32) -> String {
    if score.abs() > WIN_THRESHOLD {
        return men_text(score);
    }
    let side = if score >= 0 { "White" } else { "Black" };
    format!("{side} +{:.2} men", score.abs() as f64 / MAN as f64)
}

impl std::fmt::Display for Decisive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "decisive from ply {}: {}",
            self.ply,
            advantage_text(self.score)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::notation::fen::parse_fen;

    #[test]
    fn the_scale_is_the_engines() {
        // A man up for the side to move is worth MAN in the evaluation's
        // material term.
        let p = parse_fen("B:W21,22,23:B1,2,3,4").unwrap();
        assert_eq!(engine::eval::material(&p), MAN);
        assert_eq!(white_view(MAN, &p), -MAN);
        assert_eq!(white_view(MAN, &p.with_side(Color::White)), MAN);
    }

    #[test]
    fn a_lasting_man_up_flags_the_line_and_a_spike_does_not() {
        let scores = [
            (3, Some(10)),
            (4, None),
            (5, Some(-99)),
            // A spike for White, back to level.
            (6, Some(120)),
            (7, Some(40)),
            // Black a man up for good (an unscored ply does not break it).
            (8, Some(-100)),
            (9, Some(-130)),
            (10, None),
            (11, Some(-110)),
            (12, Some(-180)),
            (13, Some(-150)),
        ];
        let d = decisive_from(scores).unwrap();
        assert_eq!(
            d,
            Decisive {
                ply: 8,
                score: -100
            }
        );
        assert_eq!(d.to_string(), "decisive from ply 8: Black +1.00 men");
        assert_eq!(
            decisive_from([(3, Some(99)), (4, Some(-99)), (5, None)]),
            None
        );
        // Three plies a man up, then level: a spike.
        assert_eq!(
            decisive_from([(3, Some(100)), (4, Some(150)), (5, Some(120)), (6, Some(0))]),
            None
        );
        // A run that lasts to the end of the line counts, however short.
        assert_eq!(
            decisive_from([(3, Some(0)), (4, Some(300))]),
            Some(Decisive { ply: 4, score: 300 })
        );
        // A swing from one side to the other starts a new run.
        assert_eq!(
            decisive_from([
                (3, Some(200)),
                (4, Some(-200)),
                (5, Some(-200)),
                (6, Some(-200)),
                (7, Some(-200))
            ]),
            Some(Decisive {
                ply: 4,
                score: -200
            })
        );
        assert_eq!(advantage_text(20_000), "White wins");
        assert_eq!(men_text(-12), "-0.12");
    }
}
