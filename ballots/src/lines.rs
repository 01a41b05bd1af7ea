//! What a main line is, without walking it: where its moves came from,
//! the plies where the engine's score moves against the side that moved,
//! whether it turns decisive, and how it ends (`checkers ballots lines`).
//!
//! A frontier says something about a ballot only when its line is best
//! play and its walk can start: a line that hands one side a man is not
//! the main line of a drawn ballot, and a line ending above what the
//! databases and the walk can settle leaves its walk nothing to stand on.

use crate::extend::{stop_reason, ExtendLimits, ExtendStop};
use crate::line::MainLine;
use crate::repair::Repaired;
use crate::score::{decisive_from, Decisive, MAN};
use crate::tables::Origin;
use engine::notation::movetext::move_to_text;
use engine::search::Limits;
use engine::{Color, Oracle, Position, Value};

/// A ply where the engine's score moved by a man or more against the side
/// that played it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Swing {
    /// The ply (its move made the swing).
    pub ply: u32,
    /// The side that moved.
    pub mover: Color,
    /// The score before the move (White's view, hundredths of a man).
    pub before: i32,
    /// The score after it (White's view).
    pub after: i32,
}

/// What settles a line's last position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettledBy {
    /// The run's databases (at most their pieces).
    Databases,
    /// The walk settles it by building the slices one piece above the
    /// databases that it reaches (`ballots run --settle-limit`).
    Settle,
    /// Only a search can: the walk starts from a proof it may not find.
    Search,
}

impl SettledBy {
    /// `databases`, `settle` or `search`.
    pub const fn name(self) -> &'static str {
        match self {
            SettledBy::Databases => "databases",
            SettledBy::Settle => "settle",
            SettledBy::Search => "search",
        }
    }
}

/// How a line ends: why its extension stopped, as far as the line shows
/// it (`None`: the engine stopped on a repetition or the ply limit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineEnd {
    /// Its pieces.
    pub pieces: u32,
    /// Why the line stops there.
    pub stop: Option<ExtendStop>,
    /// What settles it.
    pub settled_by: SettledBy,
}

/// A repaired ply of a line (origin [`Origin::Repair`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepairNote {
    /// The ply.
    pub ply: u32,
    /// The repair's move, PDN text.
    pub played: String,
    /// The move it replaced, PDN text.
    pub replaced: String,
    /// The scores, at the repair's depth, after each (White's view).
    pub scores: Repaired,
}

/// A line's summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineSummary {
    /// Its plies.
    pub plies: usize,
    /// Plies per origin, in [`Origin`]'s order, those with none left out.
    pub origins: Vec<(Origin, usize)>,
    /// The plies whose move lost a man or more by the engine's score.
    pub swings: Vec<Swing>,
    /// The plies a repair replaced.
    pub repairs: Vec<RepairNote>,
    /// The published moves that the databases or a proof show to lose
    /// (their plies): the position after is won for the side to move
    /// there, the position before was not lost for the side that moved.
    pub losing_published: Vec<u32>,
    /// Where it turns decisive by the engine's score.
    pub decisive: Option<Decisive>,
    /// The origin of the move at that ply: whose moves (published, the
    /// archive's, the engine's) the line turns decisive in.
    pub decisive_origin: Option<Origin>,
    /// How it ends.
    pub end: LineEnd,
}

impl LineSummary {
    /// The summary of `line` for a run with databases of `egdb_pieces`,
    /// `settled` saying which positions they settle and `proved` (the
    /// databases and the proof store) the values it knows.
    pub fn of(
        line: &MainLine,
        egdb_pieces: u32,
        settled: &dyn Fn(&Position) -> bool,
        proved: &dyn Oracle,
    ) -> LineSummary {
        let origins = Origin::ALL
            .into_iter()
            .map(|o| (o, line.plies.iter().filter(|p| p.origin == o).count()))
            .filter(|&(_, n)| n > 0)
            .collect();
        let scores = line
            .plies
            .iter()
            .enumerate()
            .map(|(i, p)| (i as u32 + 1, p.score));
        let decisive = decisive_from(scores);
        LineSummary {
            plies: line.len(),
            origins,
            swings: swings(line),
            repairs: repairs(line),
            losing_published: losing_published(line, proved),
            decisive,
            decisive_origin: decisive.map(|d| line.plies[d.ply as usize - 1].origin),
            end: line_end(line, egdb_pieces, settled),
        }
    }
}

/// The plies of `line` whose move moved the engine's score (White's view,
/// from the position before to the position after) by a man or more
/// against the side that moved. Plies next to an unscored position are
/// skipped.
pub fn swings(line: &MainLine) -> Vec<Swing> {
    let mut out = Vec::new();
    let mut before: Option<i32> = None;
    for (i, p) in line.plies.iter().enumerate() {
        let mover = line.position(i).side_to_move();
        if let (Some(b), Some(a)) = (before, p.score) {
            let lost = match mover {
                Color::White => b - a,
                Color::Black => a - b,
            };
            if lost >= MAN {
                out.push(Swing {
                    ply: i as u32 + 1,
                    mover,
                    before: b,
                    after: a,
                });
            }
        }
        before = p.score;
    }
    out
}

/// The repaired plies of `line`.
pub fn repairs(line: &MainLine) -> Vec<RepairNote> {
    line.plies
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let r = p.repaired?;
            let before = line.position(i);
            Some(RepairNote {
                ply: i as u32 + 1,
                played: move_to_text(&before, &p.mv),
                replaced: move_to_text(&before, &r.replaced),
                scores: r,
            })
        })
        .collect()
}

/// The plies of `line`'s published moves that `proved` shows to lose:
/// the position after the move is a win for its side to move, the one
/// before not a loss for the side that moved (then every move lost).
pub fn losing_published(line: &MainLine, proved: &dyn Oracle) -> Vec<u32> {
    (1..=line.len())
        .filter(|&k| line.plies[k - 1].origin == Origin::Published)
        .filter(|&k| {
            proved.probe(&line.position(k)) == Some(Value::Win)
                && proved.probe(&line.position(k - 1)) != Some(Value::Loss)
        })
        .map(|k| k as u32)
        .collect()
}

/// How `line` ends for a run with databases of `egdb_pieces`, `settled`
/// saying which positions they settle (a position of more pieces whose
/// captures lead into them, say): its stop as the extension's rules give
/// it for the last position, and what settles it.
pub fn line_end(line: &MainLine, egdb_pieces: u32, settled: &dyn Fn(&Position) -> bool) -> LineEnd {
    let limits = ExtendLimits {
        per_move: Limits::default(),
        max_plies: usize::MAX,
        settle_pieces: egdb_pieces,
        quiet_plies: ExtendLimits::QUIET_PLIES,
        shuffle_pieces: egdb_pieces + 1,
        avoid_repeats: true,
    };
    let last = line.last();
    let pieces = last.piece_count();
    let settled_by = if pieces <= egdb_pieces || settled(&last) {
        SettledBy::Databases
    } else if pieces == egdb_pieces + 1 {
        SettledBy::Settle
    } else {
        SettledBy::Search
    };
    LineEnd {
        pieces,
        stop: stop_reason(line, &limits, settled),
        settled_by,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A line of `moves` (PDN squares, each legal in turn), every ply
    /// scored by `scores` (White's view).
    pub(crate) fn line_of(moves: &[&str], scores: &[Option<i32>]) -> MainLine {
        let mut line = MainLine::default();
        for m in moves {
            let (a, b) = m.split_once('-').unwrap();
            assert!(line.push_squares(a.parse().unwrap(), b.parse().unwrap(), Origin::Engine));
        }
        for (p, s) in line.plies.iter_mut().zip(scores) {
            p.score = *s;
        }
        line
    }

    /// A swing is a loss of a man for the side that moved, whichever its
    /// colour; a gain, or a loss of less, is none.
    #[test]
    fn swings_are_losses_of_the_mover() {
        // Black moves first (plies 1, 3), White second (2, 4).
        let line = line_of(
            &["9-13", "22-18", "13-17", "21-14"],
            &[Some(0), Some(-20), Some(110), Some(0)],
        );
        // Ply 3 (Black): -20 -> +110 is Black losing 1.30 men; ply 4
        // (White): +110 -> 0 is White losing 1.10 men.
        assert_eq!(
            swings(&line),
            vec![
                Swing {
                    ply: 3,
                    mover: Color::Black,
                    before: -20,
                    after: 110
                },
                Swing {
                    ply: 4,
                    mover: Color::White,
                    before: 110,
                    after: 0
                }
            ]
        );
        let calm = line_of(&["9-13", "22-18"], &[Some(0), Some(-99)]);
        assert!(swings(&calm).is_empty());
        let unscored = line_of(&["9-13", "22-18", "13-17"], &[Some(0), None, Some(300)]);
        assert!(swings(&unscored).is_empty());
    }

    /// What settles a line's end follows its pieces against the
    /// databases'; the summary counts origins and keeps the plies.
    #[test]
    fn the_end_is_settled_by_the_databases_the_settle_or_a_search() {
        let line = line_of(&["9-13", "22-18"], &[None, None]);
        let none = |_: &Position| false;
        assert_eq!(line_end(&line, 5, &none).settled_by, SettledBy::Search);
        assert_eq!(line_end(&line, 5, &none).pieces, 24);
        assert_eq!(line_end(&line, 5, &none).stop, None);
        assert_eq!(line_end(&line, 24, &none).settled_by, SettledBy::Databases);
        assert_eq!(line_end(&line, 24, &none).stop, Some(ExtendStop::Settled));
        assert_eq!(line_end(&line, 23, &none).settled_by, SettledBy::Settle);
        // A position the databases answer (its captures lead into them).
        let all = |_: &Position| true;
        assert_eq!(line_end(&line, 5, &all).settled_by, SettledBy::Databases);
        assert_eq!(line_end(&line, 5, &all).stop, Some(ExtendStop::Settled));
        let s = LineSummary::of(&line, 5, &none, &engine::NoOracle);
        assert_eq!(s.plies, 2);
        assert_eq!(s.origins, vec![(Origin::Engine, 2)]);
        assert_eq!(s.decisive, None);
        assert_eq!(s.decisive_origin, None);
        assert!(s.repairs.is_empty() && s.losing_published.is_empty());
    }

    /// A decisive line names the origin of the move where it turns
    /// decisive, not of its first or last move.
    #[test]
    fn a_decisive_line_names_the_origin_where_it_turns() {
        let mut line = line_of(
            &["9-13", "22-18", "13-17", "21-14"],
            &[Some(0), Some(10), Some(-120), Some(-150)],
        );
        line.plies[0].origin = Origin::Published;
        line.plies[2].origin = Origin::Archive;
        let none = |_: &Position| false;
        let s = LineSummary::of(&line, 5, &none, &engine::NoOracle);
        assert_eq!(s.decisive.map(|d| d.ply), Some(3));
        assert_eq!(s.decisive_origin, Some(Origin::Archive));
    }

    /// Knows the values of a few positions.
    struct Values(Vec<(Position, Value)>);
    impl Oracle for Values {
        fn probe(&self, p: &Position) -> Option<Value> {
            self.0.iter().find(|(q, _)| q == p).map(|&(_, v)| v)
        }
    }

    /// A published move into a position won for the side to move there
    /// is reported; one made where the mover was already lost is not, nor
    /// is a move of another origin.
    #[test]
    fn published_moves_shown_to_lose_are_reported() {
        let mut line = MainLine::default();
        for (a, b) in [(11, 15), (23, 19), (9, 14), (22, 17)] {
            assert!(line.push_squares(a, b, Origin::Published));
        }
        let won_after = Values(vec![(line.position(4), Value::Win)]);
        assert_eq!(losing_published(&line, &won_after), vec![4]);
        let lost_before = Values(vec![
            (line.position(4), Value::Win),
            (line.position(3), Value::Loss),
        ]);
        assert!(losing_published(&line, &lost_before).is_empty());
        line.plies[3].origin = Origin::Archive;
        assert!(losing_published(&line, &won_after).is_empty());
        assert!(losing_published(&line, &engine::NoOracle).is_empty());
    }
}
