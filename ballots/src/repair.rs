//! Line repair: a main line should be best play, and a move that loses a
//! man or more by the engine's score is not (issue 55). After a line is
//! built and scored, each place where it goes wrong for one side (a
//! [`Turn`]: the score moves by a man or more against it from one ply to
//! the next, or the line turns decisive against it) is searched again,
//! deeper and with the oracle the caller gives (the databases and the
//! proof store): that side's newest move there, then its moves before it
//! (a turn at an engine move is the horizon of the line's search catching
//! up with an earlier mistake). Where another move keeps the balance, the
//! line takes it (origin [`Origin::Repair`], with the move it replaced and
//! both scores kept in [`Repaired`]), and the engine plays on from there.
//!
//! A line still decisive after that, where the score crept there through
//! the engine's own moves (by less than a man a ply: no one move to
//! replace), has its engine part played again at the repair's depth
//! ([`repair_line`]), kept when it is level or turns decisive later.
//!
//! Published moves are never replaced: the search stops going back at
//! the first one (whether the databases or a proof show one to lose is
//! the summary's to report, [`crate::lines`]), and a side's moves are
//! searched again only after its own last repair. A repair can make the
//! line decisive from an earlier ply (one side's better move shows the
//! other's mistake before it): that turn is looked at too. A line gets
//! at most [`RepairLimits::max_repairs`] repairs and
//! [`RepairLimits::max_searches`] searches, so its repairs end.

use crate::extend::{extend_with_engine, ExtendLimits};
use crate::line::{MainLine, Origin};
use crate::plan::{forced_score, score_line};
use crate::score::{decisive_from, Decisive, MAN};
use engine::search::{Limits, Searcher};
use engine::{Color, Move, Oracle, Position};

/// What a repaired ply replaced, and the two moves' scores at the repair's
/// depth: centi-men from White's point of view of the positions after
/// each move (as [`crate::line::LinePly::score`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Repaired {
    /// The line's move before the repair.
    pub replaced: Move,
    /// The score after the replaced move.
    pub replaced_score: i32,
    /// The score after the repair's move.
    pub score: i32,
}

/// How hard a line is repaired.
#[derive(Clone, Copy, Debug)]
pub struct RepairLimits {
    /// The deeper search of each move looked at again.
    pub per_move: Limits,
    /// Most repairs a line gets (0: none).
    pub max_repairs: usize,
    /// How many of the same side's moves before a turn's newest are
    /// searched again when that one has no better replacement.
    pub back_moves: usize,
    /// Most positions of a line searched again.
    pub max_searches: usize,
}

impl RepairLimits {
    /// Plies the repair searches deeper than the line (`ballots run
    /// --line-depth`).
    pub const EXTRA_DEPTH: u32 = 4;
    /// Repairs a line gets by default.
    pub const MAX_REPAIRS: usize = 6;
    /// The mover's earlier moves searched again by default.
    pub const BACK_MOVES: usize = 3;
    /// Positions of a line searched again by default.
    pub const MAX_SEARCHES: usize = 16;
    /// Nodes a repair's search may visit: it keeps the deepest iteration
    /// finished within them. At depth 18 most positions of a line finish
    /// in a second or two, but some of 10 to 12 pieces take a minute
    /// (ballot 38's replay: 20 and 62 s for two plies), and a replay
    /// searches every ply of the line's engine part.
    pub const MAX_NODES: u64 = 16_000_000;

    /// The default repair, its searches `depth` plies deep, within
    /// [`RepairLimits::MAX_NODES`] nodes.
    pub fn at_depth(depth: u32) -> RepairLimits {
        RepairLimits {
            per_move: Limits {
                depth: Some(depth),
                nodes: Some(Self::MAX_NODES),
                ..Limits::default()
            },
            max_repairs: Self::MAX_REPAIRS,
            back_moves: Self::BACK_MOVES,
            max_searches: Self::MAX_SEARCHES,
        }
    }

    /// No repair.
    pub fn none() -> RepairLimits {
        RepairLimits {
            per_move: Limits::default(),
            max_repairs: 0,
            back_moves: 0,
            max_searches: 0,
        }
    }
}

/// A move the deeper search prefers, by how much a replacement must beat
/// the move it replaces (half a man) and the least it must keep (less
/// than a man down for the side that moves).
fn keeps_the_balance(best: i32, played: i32) -> bool {
    best > -MAN && best - played >= MAN / 2
}

/// `score` from the point of view of `mover`, as White's.
fn as_white(score: i32, mover: Color) -> i32 {
    match mover {
        Color::White => score,
        Color::Black => -score,
    }
}

/// A repair to run as a line is built ([`crate::plan::build_line`]): its
/// limits and the oracle its searches use (the databases and the proof
/// store's proved results, say).
#[derive(Clone, Copy)]
pub struct LineRepair<'a> {
    /// How hard.
    pub limits: RepairLimits,
    /// What the searches consult.
    pub oracle: &'a dyn Oracle,
}

/// What [`repair_line`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RepairCount {
    /// Moves replaced.
    pub repairs: usize,
    /// Positions searched again.
    pub searched: usize,
    /// Whether the engine's part was played again deeper and kept (see
    /// [`repair_line`]).
    pub replayed: bool,
    /// Moves the repairs' extensions played instead of a repeating one
    /// ([`crate::extend::Extension::repeats_avoided`]).
    pub repeats_avoided: usize,
}

/// The deeper look at ply `ply` of `line` (its move made from the
/// position before): `Some((better move, its score, the played move's
/// score))`, scores for the side that moves, when another move keeps the
/// balance.
fn better_move(
    line: &MainLine,
    ply: usize,
    searcher: &mut Searcher,
    oracle: &dyn Oracle,
    limits: &RepairLimits,
) -> Option<(Move, i32, i32)> {
    let before = line.position(ply - 1);
    let history: Vec<Position> = (0..ply - 1).map(|k| line.position(k)).collect();
    let deep = searcher.search(&before, &limits.per_move, oracle, &history);
    let best = deep.best_move?;
    let played = line.plies[ply - 1].mv;
    if best.same_move(&played) {
        return None;
    }
    let mut history = history;
    history.push(before);
    let after = line.position(ply);
    let played_score = -forced_score(&after, &history, searcher, oracle, &limits.per_move);
    keeps_the_balance(deep.score, played_score).then_some((best, deep.score, played_score))
}

/// A place where a line goes wrong for one side: the score moves by a
/// man or more against it from one ply to the next (whichever side
/// moved: a score that jumps for the side that moved shows the
/// opponent's move before it was the mistake its shallower search missed),
/// or the line turns decisive against it ([`decisive_from`]: a score that
/// creeps there by less at each ply).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Turn {
    /// The ply whose position shows it.
    pub ply: usize,
    /// The side it goes against.
    pub against: Color,
}

/// Where `line` turns decisive by its scores ([`decisive_from`]).
pub fn line_decisive(line: &MainLine) -> Option<Decisive> {
    decisive_from(
        line.plies
            .iter()
            .enumerate()
            .map(|(i, p)| (i as u32 + 1, p.score)),
    )
}

/// The turns of `line`, by ply.
pub fn turns(line: &MainLine) -> Vec<Turn> {
    let mut out = Vec::new();
    for k in 2..=line.len() {
        if let (Some(b), Some(a)) = (line.plies[k - 2].score, line.plies[k - 1].score) {
            if (a - b).abs() >= MAN {
                out.push(Turn {
                    ply: k,
                    against: against(a - b),
                });
            }
        }
    }
    if let Some(d) = line_decisive(line) {
        out.push(Turn {
            ply: d.ply as usize,
            against: against(d.score),
        });
    }
    out.sort_by_key(|t| t.ply);
    out.dedup_by_key(|t| t.ply);
    out
}

/// The side a score from White's view goes against.
fn against(gain_for_white: i32) -> Color {
    if gain_for_white > 0 {
        Color::Black
    } else {
        Color::White
    }
}

/// The turn where `line` turns decisive, when that lies at or before
/// `past` (a repair there made the line decisive from an earlier ply:
/// the repaired side's better move shows the other side's mistake before
/// it) and it is not among `examined`.
fn earlier_decisive_turn(line: &MainLine, past: usize, examined: &[Turn]) -> Option<Turn> {
    let d = line_decisive(line)?;
    let turn = Turn {
        ply: d.ply as usize,
        against: against(d.score),
    };
    (turn.ply <= past && !examined.contains(&turn)).then_some(turn)
}

/// The last ply of `line` whose move `side` made and a repair chose (0:
/// none): a turn against `side` searches its moves after it only, so that
/// a repair is not searched again.
fn last_repair_by(line: &MainLine, side: Color) -> usize {
    (1..=line.len())
        .rev()
        .find(|&k| {
            line.plies[k - 1].origin == Origin::Repair
                && line.position(k - 1).side_to_move() == side
        })
        .unwrap_or(0)
}

/// Repairs `line` (built and scored) in place. At each [`Turn`], the
/// moves of the side it goes against are searched again with
/// `limits.per_move`, newest first, the turn's own ply (when that side
/// made it) and `limits.back_moves` more, stopping at a published move or
/// at that side's last repair; a turn where the line now turns decisive
/// before the last repair is looked at once. The first ply where another
/// move keeps the balance takes it; the line is cut there, extended with the engine (`searcher`,
/// `extend`, `settled` as for [`extend_with_engine`]) and scored again,
/// and the turns after it are looked at in turn. At most
/// `limits.max_searches` positions are searched again. A line still
/// decisive after that in the engine's own moves (a score that creeps
/// there by less than a man a ply) then has its engine part played again
/// at `limits.per_move`, kept when it is level or turns decisive later.
pub fn repair_line(
    line: &mut MainLine,
    searcher: &mut Searcher,
    oracle: &dyn Oracle,
    extend: &ExtendLimits,
    limits: &RepairLimits,
    settled: &dyn Fn(&Position) -> bool,
) -> RepairCount {
    let mut repairer = Repairer {
        searcher,
        oracle,
        extend,
        limits,
        settled,
    };
    let mut count = repairer.repair_turns(line);
    count.replayed = repairer.replay_deeper(line);
    count
}

/// What a repair searches with: the searcher, the oracle, how the line is
/// extended and how hard it is repaired.
struct Repairer<'a, 's> {
    searcher: &'s mut Searcher,
    oracle: &'a dyn Oracle,
    extend: &'a ExtendLimits,
    limits: &'a RepairLimits,
    settled: &'a dyn Fn(&Position) -> bool,
}

impl Repairer<'_, '_> {
    /// The repairs at the line's turns ([`repair_line`]'s first part).
    fn repair_turns(&mut self, line: &mut MainLine) -> RepairCount {
        let limits = *self.limits;
        let mut count = RepairCount::default();
        // Turns at or before this ply are done with (repaired or kept).
        let mut past = 0usize;
        // Decisive turns at or before `past` already looked at, and the
        // plies searched again that kept their move: both stand until a
        // repair before them changes the line there.
        let mut examined: Vec<Turn> = Vec::new();
        let mut kept: Vec<usize> = Vec::new();
        'turns: while count.repairs < limits.max_repairs {
            let Some(turn) = earlier_decisive_turn(line, past, &examined)
                .or_else(|| turns(line).into_iter().find(|t| t.ply > past))
            else {
                break;
            };
            let mover = |ply: usize| line.position(ply - 1).side_to_move();
            let floor = last_repair_by(line, turn.against);
            let newest = if mover(turn.ply) == turn.against {
                turn.ply
            } else {
                turn.ply - 1
            };
            for back in 0..=limits.back_moves {
                let Some(ply) = newest
                    .checked_sub(2 * back)
                    .filter(|&p| p > floor && p >= 1)
                else {
                    break;
                };
                if line.plies[ply - 1].origin == Origin::Published {
                    break;
                }
                if line.position(ply - 1).moves().len() < 2 || kept.contains(&ply) {
                    continue;
                }
                if count.searched >= limits.max_searches {
                    break 'turns;
                }
                count.searched += 1;
                let Some((best, best_score, played_score)) =
                    better_move(line, ply, self.searcher, self.oracle, &limits)
                else {
                    kept.push(ply);
                    continue;
                };
                let side = mover(ply);
                let replaced = line.plies[ply - 1].mv;
                line.plies.truncate(ply - 1);
                let pushed = line.push(best, Origin::Repair);
                debug_assert!(pushed, "the search's move is legal");
                if let Some(p) = line.plies.last_mut() {
                    p.repaired = Some(Repaired {
                        replaced,
                        replaced_score: as_white(played_score, side),
                        score: as_white(best_score, side),
                    });
                }
                let ext =
                    extend_with_engine(line, self.searcher, self.oracle, self.extend, self.settled);
                count.repeats_avoided += ext.repeats_avoided;
                score_line(line, self.searcher, self.oracle, &self.extend.per_move);
                count.repairs += 1;
                past = ply;
                examined.retain(|t| t.ply < ply);
                kept.retain(|&k| k < ply);
                continue 'turns;
            }
            if turn.ply <= past {
                examined.push(turn);
            }
            past = past.max(turn.ply);
        }
        count
    }

    /// Plays the engine's part of a line still decisive after its repairs
    /// again, at the repair's depth: a score that creeps to a man by less
    /// at each ply of the engine's own moves (the horizon of the line's
    /// depth, move after move) has no single move to replace. From the
    /// first engine move after the published and archive moves and the
    /// last repair, when the line turns decisive there or later, the
    /// engine extends the line again with `limits.per_move`; the new part
    /// is scored at the line's depth and its turns repaired. The line
    /// takes it when it is not decisive, or turns decisive later; its
    /// first move that differs is then a repair (the move it replaced and
    /// both positions' scores at the repair's depth kept). Returns
    /// whether the line took it.
    fn replay_deeper(&mut self, line: &mut MainLine) -> bool {
        let limits = *self.limits;
        if limits.max_repairs == 0 {
            return false;
        }
        let Some(decisive) = line_decisive(line) else {
            return false;
        };
        let after_repairs = line
            .plies
            .iter()
            .rposition(|p| p.origin == Origin::Repair)
            .map_or(0, |i| i + 1);
        let Some(start) = (after_repairs..line.len())
            .find(|&i| line.plies[i].origin == Origin::Engine)
            .map(|i| i + 1)
        else {
            return false;
        };
        if start > decisive.ply as usize {
            return false;
        }
        let mut replay = line.clone();
        replay.plies.truncate(start - 1);
        let deeper = ExtendLimits {
            per_move: limits.per_move,
            avoid_repeats: false,
            ..*self.extend
        };
        extend_with_engine(
            &mut replay,
            self.searcher,
            self.oracle,
            &deeper,
            self.settled,
        );
        if replay.len() < start {
            return false;
        }
        // The extension's moves carry the deeper search's scores; the
        // line's are at its own depth.
        for p in &mut replay.plies[start - 1..] {
            p.score = None;
        }
        score_line(
            &mut replay,
            self.searcher,
            self.oracle,
            &self.extend.per_move,
        );
        if let Some(k) = (start..=replay.len().min(line.len()))
            .find(|&k| !replay.plies[k - 1].mv.same_move(&line.plies[k - 1].mv))
        {
            let mover = line.position(k - 1).side_to_move();
            let history: Vec<Position> = (0..k).map(|j| line.position(j)).collect();
            let mut mover_score = |after: &Position| {
                let s = forced_score(
                    after,
                    &history,
                    self.searcher,
                    self.oracle,
                    &limits.per_move,
                );
                as_white(-s, mover)
            };
            let replaced_score = mover_score(&line.position(k));
            let score = mover_score(&replay.position(k));
            let ply = &mut replay.plies[k - 1];
            ply.origin = Origin::Repair;
            ply.repaired = Some(Repaired {
                replaced: line.plies[k - 1].mv,
                replaced_score,
                score,
            });
        }
        self.repair_turns(&mut replay);
        let better = line_decisive(&replay).is_none_or(|d| d.ply > decisive.ply);
        if better {
            *line = replay;
        }
        better
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replacement_must_beat_the_move_by_half_a_man_and_keep_the_balance() {
        assert!(keeps_the_balance(0, -MAN));
        assert!(keeps_the_balance(-MAN / 2, -MAN));
        assert!(!keeps_the_balance(-MAN, -2 * MAN), "still a man down");
        assert!(
            !keeps_the_balance(10, -30),
            "the played move was not a man worse"
        );
    }

    /// The repair at `ply` of `line` and the squares of the move it
    /// replaced; fails when the ply is not a repair.
    fn repair_at(line: &MainLine, ply: usize) -> (Repaired, (u8, u8)) {
        let p = &line.plies[ply - 1];
        assert_eq!(p.origin, Origin::Repair, "{line:?}");
        let r = p.repaired.expect("the replaced move is kept");
        (r, (r.replaced.from().number(), r.replaced.to().number()))
    }

    /// A line whose first ply jumps to `start`, then the moves, each
    /// scored `scores` (White's view).
    fn line_from(start: &str, moves: &[(u8, u8)], origin: Origin) -> MainLine {
        crate::line::test_line_from(start, Origin::Published, moves, origin)
    }

    /// Scores `line` as a build does, with no oracle.
    fn scored(line: &mut MainLine, extend: &ExtendLimits) {
        let mut searcher = Searcher::full_width(4);
        score_line(line, &mut searcher, &engine::NoOracle, &extend.per_move);
    }

    /// Repairs `line` with no oracle and nothing settled.
    fn repaired(line: &mut MainLine, extend: &ExtendLimits, repair: &RepairLimits) -> RepairCount {
        let mut searcher = Searcher::full_width(4);
        repair_line(
            line,
            &mut searcher,
            &engine::NoOracle,
            extend,
            repair,
            &|_| false,
        )
    }

    fn limits(depth: u32) -> (ExtendLimits, RepairLimits) {
        let per_move = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        let extend = ExtendLimits {
            per_move,
            max_plies: 6,
            settle_pieces: 0,
            quiet_plies: 0,
            shuffle_pieces: 0,
            avoid_repeats: true,
        };
        let repair = RepairLimits {
            per_move: Limits {
                depth: Some(depth + 2),
                ..Limits::default()
            },
            max_repairs: 4,
            back_moves: 2,
            max_searches: 16,
        };
        (extend, repair)
    }

    // White to move, men on 21 and 30, Black's man on 14 and king on 7:
    // 21-17 walks into 14x21, 30-26 keeps the men.
    const GIVES_A_MAN: &str = "W:W21,30,K32:B14,K7,3";

    #[test]
    fn a_move_that_gives_a_man_away_is_replaced_and_the_line_goes_on() {
        let (extend, repair) = limits(6);
        let mut line = line_from(GIVES_A_MAN, &[(21, 17)], Origin::Archive);
        scored(&mut line, &extend);
        assert_eq!(turns(&line).first().map(|t| t.ply), Some(2), "{line:?}");
        let count = repaired(&mut line, &extend, &repair);
        assert_eq!(count.repairs, 1);
        let (r, replaced) = repair_at(&line, 2);
        assert_eq!(replaced, (21, 17));
        assert!(r.score - r.replaced_score >= MAN / 2, "{r:?}");
        assert!(line.len() > 2, "the engine plays on from the repair");
        assert!(line.plies[2..].iter().all(|p| p.origin == Origin::Engine));
        assert!(line.plies.iter().all(|p| p.score.is_some()));
        assert!(crate::lines::swings(&line).iter().all(|s| s.ply != 2));
    }

    /// White's 21-17 scored level (a shallow search missed the shot),
    /// Black's capture after it a man up: the jump for the side that
    /// moved is a turn against White, whose move before it is replaced.
    #[test]
    fn a_jump_for_the_mover_repairs_the_opponents_move_before_it() {
        let (extend, repair) = limits(6);
        let mut line = line_from(GIVES_A_MAN, &[(21, 17), (14, 21)], Origin::Archive);
        for (p, s) in line.plies.iter_mut().zip([0, 0, -MAN]) {
            p.score = Some(s);
        }
        assert_eq!(
            turns(&line),
            vec![Turn {
                ply: 3,
                against: Color::White
            }]
        );
        let count = repaired(&mut line, &extend, &repair);
        assert_eq!(count.repairs, 1);
        let (_, replaced) = repair_at(&line, 2);
        assert_eq!(replaced, (21, 17));
    }

    /// A score that creeps to a man by less at each ply is a turn too,
    /// where the line turns decisive.
    #[test]
    fn a_line_turning_decisive_is_a_turn() {
        let mut line = line_from(GIVES_A_MAN, &[(21, 17), (14, 21)], Origin::Archive);
        for (p, s) in line.plies.iter_mut().zip([0, 60, 120]) {
            p.score = Some(s);
        }
        assert_eq!(
            turns(&line),
            vec![Turn {
                ply: 3,
                against: Color::Black
            }]
        );
    }

    /// A repair at or after the ply where the line now turns decisive
    /// (its better move showed the other side's mistake before it) has
    /// that turn looked at once more; a later turn is an ordinary one.
    #[test]
    fn a_decisive_turn_before_the_last_repair_is_looked_at_once() {
        let mut line = line_from(GIVES_A_MAN, &[(21, 17), (14, 21)], Origin::Archive);
        for (p, s) in line.plies.iter_mut().zip([0, 60, 120]) {
            p.score = Some(s);
        }
        let turn = Turn {
            ply: 3,
            against: Color::Black,
        };
        assert_eq!(earlier_decisive_turn(&line, 3, &[]), Some(turn));
        assert_eq!(earlier_decisive_turn(&line, 5, &[]), Some(turn));
        assert_eq!(earlier_decisive_turn(&line, 2, &[]), None);
        assert_eq!(earlier_decisive_turn(&line, 3, &[turn]), None);
    }

    /// A side's moves are searched again only after its last repair.
    #[test]
    fn the_search_floor_is_the_sides_own_last_repair() {
        let mut line = line_from(GIVES_A_MAN, &[(21, 17), (14, 21)], Origin::Archive);
        assert_eq!(last_repair_by(&line, Color::White), 0);
        line.plies[1].origin = Origin::Repair;
        assert_eq!(line.position(1).side_to_move(), Color::White);
        assert_eq!(last_repair_by(&line, Color::White), 2);
        assert_eq!(last_repair_by(&line, Color::Black), 0);
    }

    /// The line that gives a man away by a move of `origin`, scored,
    /// before and after a repair with `repair`, and what the repair counted.
    fn repair_given_man(
        origin: Origin,
        repair: &RepairLimits,
    ) -> (MainLine, MainLine, RepairCount) {
        let (extend, _) = limits(6);
        let mut line = line_from(GIVES_A_MAN, &[(21, 17)], origin);
        scored(&mut line, &extend);
        let before = line.clone();
        let count = repaired(&mut line, &extend, repair);
        (before, line, count)
    }

    #[test]
    fn published_moves_are_never_replaced() {
        let (before, after, count) = repair_given_man(Origin::Published, &limits(6).1);
        assert_eq!(count, RepairCount::default());
        assert_eq!(after, before);
    }

    #[test]
    fn no_repairs_allowed_changes_nothing() {
        let (before, after, _) = repair_given_man(Origin::Archive, &RepairLimits::none());
        assert_eq!(after, before);
    }

    /// A line whose engine moves from ply 2 creep to a man down for White
    /// by their (made-up) scores, after `origin` moves, and the same line
    /// after [`Repairer::replay_deeper`] with what it returned.
    fn creeping_line(origin: Origin, repair: &RepairLimits) -> (MainLine, MainLine, bool) {
        let (extend, _) = limits(6);
        let mut line = line_from(GIVES_A_MAN, &[(21, 17), (14, 21)], origin);
        for (p, s) in line.plies.iter_mut().zip([0, -60, -120]) {
            p.score = Some(s);
        }
        let before = line.clone();
        assert_eq!(line_decisive(&line).map(|d| d.ply), Some(3));
        let mut searcher = Searcher::full_width(4);
        let took = Repairer {
            searcher: &mut searcher,
            oracle: &engine::NoOracle,
            extend: &extend,
            limits: repair,
            settled: &|_| false,
        }
        .replay_deeper(&mut line);
        (before, line, took)
    }

    /// The engine's part is played again deeper: it no longer gives the
    /// man, so the line is not decisive there; its first other move is a
    /// repair keeping the move it replaced.
    #[test]
    fn a_line_creeping_to_decisive_in_engine_moves_is_played_again_deeper() {
        let (_, line, took) = creeping_line(Origin::Engine, &limits(6).1);
        assert!(took);
        assert!(
            line_decisive(&line).is_none_or(|d| d.ply > 3),
            "{:?}",
            line_decisive(&line)
        );
        let (r, replaced) = repair_at(&line, 2);
        assert_eq!(replaced, (21, 17));
        assert!(r.score > r.replaced_score, "{r:?}");
        assert!(line.plies.iter().all(|p| p.score.is_some()));
    }

    /// Archive moves are not the engine's: a line decisive before the
    /// engine's first move is left as it is, and so is every line when no
    /// repair is allowed.
    #[test]
    fn only_the_engines_part_is_played_again() {
        let (before, after, took) = creeping_line(Origin::Archive, &limits(6).1);
        assert!(!took);
        assert_eq!(after, before);
        let (before, after, took) = creeping_line(Origin::Engine, &RepairLimits::none());
        assert!(!took);
        assert_eq!(after, before);
    }
}
