//! Building a ballot's main line (DESIGN.md "Walking a ballot"): the
//! published trunk where there is one, else the ballot's three moves and
//! the archive's most played drawn path ([`crate::line`]), then the
//! engine's principal variation down to a position the databases settle
//! or where only kings would shuffle ([`crate::extend`]), each position
//! scored by the engine ([`crate::score`]). The line is kept in the
//! store, so a resumed run walks the same line.

use crate::deck::Ballot;
use crate::extend::{extend_with_engine, ExtendLimits};
use crate::line::{extend_with_archive, ArchiveGame, MainLine, Origin};
use crate::repair::{line_decisive, repair_line, LineRepair, RepairCount};
use crate::score::white_view;
use crate::sources::Trunks;
use crate::tables::{BallotTables, LinePlyRow, RepairRow};
use engine::notation::movetext::move_to_text;
use engine::search::{Limits, Searcher};
use engine::{Oracle, Position};
use proofdb::{Store, StoreError};
use thiserror::Error;

/// Why a main line could not be built or read back.
#[derive(Debug, Error)]
pub enum PlanError {
    /// The ballot's own moves do not replay (a broken deck file).
    #[error("ballot {ballot}: its moves {moves} do not replay from the start")]
    BadBallot {
        /// ACF number.
        ballot: u32,
        /// The moves.
        moves: String,
    },
    /// The stored main line is not a legal sequence of moves.
    #[error("ballot {ballot}: the stored main line breaks at ply {ply}")]
    BrokenLine {
        /// ACF number.
        ballot: u32,
        /// First ply that does not follow from the one before.
        ply: u32,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Where main lines come from.
#[derive(Clone, Debug, Default)]
pub struct LineSources {
    /// Published trunks, by ballot position.
    pub trunks: Trunks,
    /// The master-game archive.
    pub archive: Vec<ArchiveGame>,
}

/// The main line of `ballot` before the engine extends it: the published
/// trunk when one starts from the ballot's position, else the three
/// ballot moves (origin `published`) followed by the archive's most
/// played path.
pub fn book_line(ballot: &Ballot, sources: &LineSources) -> Result<MainLine, PlanError> {
    if let Some(moves) = sources.trunks.by_ballot.get(&ballot.position) {
        if let Some(line) = MainLine::from_moves(moves, Origin::Published) {
            return Ok(line);
        }
    }
    let bad = || PlanError::BadBallot {
        ballot: ballot.number,
        moves: ballot.moves_text(),
    };
    let mut line = MainLine::default();
    for text in &ballot.moves {
        let (mv, _) = crate::deck::play_move_text(&line.last(), text).map_err(|_| bad())?;
        if !line.push(mv, Origin::Published) {
            return Err(bad());
        }
    }
    if line.last() != ballot.position {
        return Err(bad());
    }
    extend_with_archive(&mut line, &sources.archive);
    Ok(line)
}

/// Builds the full main line of `ballot`: [`book_line`], cut back to the
/// first position the databases settle (or that ends the game), else
/// extended with the engine's principal variation (`searcher`, `limits`)
/// until [`crate::extend::stop_reason`] says stop; then every position is
/// scored ([`score_line`]) and the line repaired ([`repair_line`] with
/// `repair`). Settled means: the oracle answers, or the position has at
/// most `limits.settle_pieces` pieces. A line still decisive after its
/// repair, where [`ExtendLimits::avoid_repeats`] played a move, is built
/// again without it, and the line that stays level (or turns decisive
/// later) is kept.
pub fn build_line(
    ballot: &Ballot,
    sources: &LineSources,
    searcher: &mut Searcher,
    oracle: &dyn Oracle,
    limits: &ExtendLimits,
    repair: &LineRepair<'_>,
) -> Result<MainLine, PlanError> {
    // The book line cut at its first settled or terminal position, else
    // extended by the engine; then scored and repaired. With the moves
    // the repetition rule played.
    let mut build = |mut line: MainLine, limits: &ExtendLimits| {
        let settled =
            |p: &Position| p.piece_count() <= limits.settle_pieces || oracle.probe(p).is_some();
        let mut repeats_avoided = 0;
        if let Some(k) = (3..=line.len()).find(|&k| {
            let p = line.position(k);
            settled(&p) || p.is_terminal()
        }) {
            line.plies.truncate(k);
        } else {
            repeats_avoided +=
                extend_with_engine(&mut line, searcher, oracle, limits, &settled).repeats_avoided;
        }
        score_line(&mut line, searcher, oracle, &limits.per_move);
        repeats_avoided +=
            repair_built(&mut line, searcher, oracle, limits, repair).repeats_avoided;
        (line, repeats_avoided)
    };
    let book = book_line(ballot, sources)?;
    let (line, repeats_avoided) = build(book.clone(), limits);
    if repeats_avoided == 0 || line_decisive(&line).is_none() {
        return Ok(line);
    }
    // The repetition rule is there to carry a level line on to an end the
    // walk settles, never to cost the balance: a line decisive with it is
    // built again without it, and that one is kept when it is level or
    // turns decisive later.
    let plain = ExtendLimits {
        avoid_repeats: false,
        ..*limits
    };
    let (without, _) = build(book, &plain);
    Ok(later_decisive(line, without))
}

/// Of a decisive line `first` and another line `second`, `second` when it
/// is level or turns decisive at a later ply ([`line_decisive`]), else
/// `first`.
fn later_decisive(first: MainLine, second: MainLine) -> MainLine {
    match (line_decisive(&first), line_decisive(&second)) {
        (Some(a), Some(b)) if b.ply <= a.ply => first,
        _ => second,
    }
}

/// Repairs a built and scored `line` ([`repair_line`] with `repair`),
/// extending it as [`build_line`] does (`oracle`, `limits`).
pub fn repair_built(
    line: &mut MainLine,
    searcher: &mut Searcher,
    oracle: &dyn Oracle,
    limits: &ExtendLimits,
    repair: &LineRepair<'_>,
) -> RepairCount {
    let settled =
        |p: &Position| p.piece_count() <= limits.settle_pieces || oracle.probe(p).is_some();
    repair_line(
        line,
        searcher,
        repair.oracle,
        limits,
        &repair.limits,
        &settled,
    )
}

/// Gives every unscored ply of `line` the engine's score of its position
/// ([`forced_score`], the game so far as its history). Scores are White's
/// point of view ([`crate::score`]).
pub fn score_line(
    line: &mut MainLine,
    searcher: &mut Searcher,
    oracle: &dyn Oracle,
    per_move: &Limits,
) {
    for k in 1..=line.len() {
        if line.plies[k - 1].score.is_some() {
            continue;
        }
        let pos = line.position(k);
        let history: Vec<Position> = (0..k).map(|j| line.position(j)).collect();
        let score = forced_score(&pos, &history, searcher, oracle, per_move);
        line.plies[k - 1].score = Some(white_view(score, &pos));
    }
}

/// The engine's score of `pos` for its side to move: a loss when it has
/// no move; with one legal move, the negated score of the position after
/// it (followed while moves are forced), since the engine's search gives
/// a single-move root only a capture play-out (a shot that gives a man to
/// take two would read as a man lost); else a search with `per_move`.
pub fn forced_score(
    pos: &Position,
    history: &[Position],
    searcher: &mut Searcher,
    oracle: &dyn Oracle,
    per_move: &Limits,
) -> i32 {
    let mut history = history.to_vec();
    let mut here = *pos;
    let mut sign = 1;
    // Forced sequences are short; the bound only guards against a cycle.
    for _ in 0..64 {
        let moves = here.moves();
        match moves.as_slice() {
            [] => return sign * -engine::search::MATE,
            [only] => {
                history.push(here);
                here = here.play_unchecked(only);
                sign = -sign;
            }
            _ => break,
        }
    }
    sign * searcher.search(&here, per_move, oracle, &history).score
}

/// The line as the store keeps it: plies 1..=len with move text and origin.
pub fn to_rows(line: &MainLine) -> Vec<LinePlyRow> {
    line.plies
        .iter()
        .enumerate()
        .map(|(i, p)| LinePlyRow {
            ply: i as u32 + 1,
            position: p.after,
            move_text: move_to_text(&line.position(i), &p.mv),
            origin: p.origin,
            score: p.score,
            repair: p.repaired.map(|r| RepairRow {
                replaced: move_to_text(&line.position(i), &r.replaced),
                replaced_score: r.replaced_score,
                score: r.score,
            }),
        })
        .collect()
}

/// The stored main line of `ballot`, if there is one, replayed from the
/// start: each stored position must follow from the one before by a legal
/// move.
pub fn stored_line(store: &Store, ballot: u32) -> Result<Option<MainLine>, PlanError> {
    let rows = store.main_line(ballot)?;
    if rows.is_empty() {
        return Ok(None);
    }
    let mut line = MainLine::default();
    for (i, row) in rows.iter().enumerate() {
        let broken = PlanError::BrokenLine {
            ballot,
            ply: row.ply,
        };
        if row.ply as usize != i + 1 {
            return Err(broken);
        }
        let here = line.last();
        let Some(mv) = here
            .moves()
            .iter()
            .find(|m| here.play_unchecked(m) == row.position)
            .copied()
        else {
            return Err(broken);
        };
        let repaired = match &row.repair {
            Some(r) => {
                let (replaced, _) =
                    crate::deck::play_move_text(&here, &r.replaced).map_err(|_| {
                        PlanError::BrokenLine {
                            ballot,
                            ply: row.ply,
                        }
                    })?;
                Some(crate::repair::Repaired {
                    replaced,
                    replaced_score: r.replaced_score,
                    score: r.score,
                })
            }
            None => None,
        };
        line.push(mv, row.origin);
        if let Some(p) = line.plies.last_mut() {
            p.score = row.score;
            p.repaired = repaired;
        }
    }
    Ok(Some(line))
}

/// The main line of `ballot`: the stored one when the store has it (so a
/// resumed run walks the same line), else the one `build` makes (for
/// instance with [`build_line`]), stored with the ballot's row before it
/// is returned.
pub fn main_line(
    store: &Store,
    ballot: &Ballot,
    build: impl FnOnce() -> Result<MainLine, PlanError>,
) -> Result<MainLine, PlanError> {
    if let Some(line) = stored_line(store, ballot.number)? {
        return Ok(line);
    }
    let line = build()?;
    store.put_ballot(&ballot.to_row())?;
    store.set_main_line(ballot.number, &to_rows(&line))?;
    Ok(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deck::Deck;
    use engine::search::Limits;

    /// Settles positions of at most `n` pieces (a stand-in for databases).
    struct Pieces(u32);
    impl Oracle for Pieces {
        fn probe(&self, p: &Position) -> Option<engine::Value> {
            (p.piece_count() <= self.0).then_some(engine::Value::Draw)
        }
    }

    /// A line of legal `moves` (PDN squares), every ply scored by `scores`
    /// (White's view).
    fn scored(moves: &[&str], scores: &[i32]) -> MainLine {
        let scores: Vec<Option<i32>> = scores.iter().copied().map(Some).collect();
        crate::lines::tests::line_of(moves, &scores)
    }

    /// The line built without the repetition rule replaces a decisive one
    /// only when it is level or turns decisive later.
    #[test]
    fn the_line_without_the_repetition_rule_is_kept_when_it_stays_level_longer() {
        let moves = ["9-13", "22-18", "13-17", "21-14"];
        let early = scored(&moves, &[0, 150, 150, 150]);
        let late = scored(&moves, &[0, 0, 0, 150]);
        let level = scored(&moves, &[0, 10, -20, 30]);
        assert_eq!(line_decisive(&early).map(|d| d.ply), Some(2));
        assert_eq!(later_decisive(early.clone(), level.clone()), level);
        assert_eq!(later_decisive(early.clone(), late.clone()), late);
        assert_eq!(later_decisive(late.clone(), early.clone()), late);
        assert_eq!(later_decisive(early.clone(), early.clone()), early);
    }

    fn limits() -> ExtendLimits {
        ExtendLimits {
            per_move: Limits {
                depth: Some(4),
                ..Limits::default()
            },
            max_plies: 300,
            settle_pieces: 0,
            quiet_plies: ExtendLimits::QUIET_PLIES,
            shuffle_pieces: 32,
            avoid_repeats: true,
        }
    }

    #[test]
    fn line_starts_with_the_ballot_and_ends_settled() {
        let deck = Deck::builtin();
        let ballot = deck.get(1).expect("ballot 1");
        let mut searcher = Searcher::full_width(4);
        let (sources, limits) = (LineSources::default(), limits());
        let repair = LineRepair {
            limits: crate::repair::RepairLimits::none(),
            oracle: &Pieces(16),
        };
        let line = build_line(
            ballot,
            &sources,
            &mut searcher,
            &Pieces(16),
            &limits,
            &repair,
        )
        .unwrap();
        assert_eq!(line.position(3), ballot.position);
        assert!(line.plies[..3]
            .iter()
            .all(|p| p.origin == Origin::Published));
        assert!(line.plies[3..].iter().all(|p| p.origin == Origin::Engine));
        let last = line.last();
        assert!(last.piece_count() <= 16 || last.is_terminal());
        // The first settled position ends the line.
        assert!((3..line.len()).all(|k| line.position(k).piece_count() > 16));
        // Every position is scored, the last too.
        assert!(line.plies.iter().all(|p| p.score.is_some()));
    }

    #[test]
    fn a_forced_move_is_scored_by_the_position_after_it() {
        // Ballot 91's archive line to ply 16, 22-17: Black must take 9x18
        // (its only move), then White gets two for one back; the engine's
        // search of a single-move root only plays captures out.
        let deck = Deck::builtin();
        let line = book_line(deck.get(91).unwrap(), &LineSources::default()).unwrap();
        let mut line = MainLine::from_moves(
            &line.plies.iter().map(|p| p.mv).collect::<Vec<_>>(),
            Origin::Published,
        )
        .unwrap();
        for (f, t) in [
            (17, 14),
            (9, 18),
            (23, 14),
            (10, 17),
            (21, 14),
            (1, 6),
            (25, 21),
            (11, 16),
            (29, 25),
            (16, 19),
            (25, 22),
            (6, 9),
            (22, 17),
        ] {
            assert!(line.push_squares(f, t, Origin::Archive), "{f}-{t} is legal");
        }
        let forced = line.last();
        assert_eq!(forced.moves().len(), 1);
        let per_move = Limits {
            depth: Some(6),
            ..Limits::default()
        };
        let oracle = Pieces(0);
        let history: Vec<Position> = (0..line.len()).map(|k| line.position(k)).collect();
        let child = forced.play_unchecked(&forced.moves().as_slice()[0]);
        let mut child_history = history.clone();
        child_history.push(forced);
        let after = Searcher::full_width(4).search(&child, &per_move, &oracle, &child_history);
        let score = forced_score(
            &forced,
            &history,
            &mut Searcher::full_width(4),
            &oracle,
            &per_move,
        );
        assert_eq!(score, -after.score);
        score_line(&mut line, &mut Searcher::full_width(4), &oracle, &per_move);
        let stored = line.plies.last().unwrap().score.unwrap();
        assert_eq!(stored, white_view(score, &forced));
    }

    #[test]
    fn stored_line_round_trips_and_is_reused() {
        let dir = tempfile::Builder::new()
            .prefix("plan-test-")
            .tempdir()
            .unwrap();
        let path = dir.path().join("s.sqlite");
        let store = Store::open(&path).unwrap();
        let deck = Deck::builtin();
        let ballot = deck.get(7).expect("ballot 7");
        let mut searcher = Searcher::full_width(4);
        let (sources, limits) = (LineSources::default(), limits());
        let mut line_with = |oracle: &Pieces| {
            let repair = LineRepair {
                limits: crate::repair::RepairLimits::none(),
                oracle,
            };
            let build = || build_line(ballot, &sources, &mut searcher, oracle, &limits, &repair);
            main_line(&store, ballot, build).unwrap()
        };
        let a = line_with(&Pieces(18));
        // A different oracle would give a different line: the stored one
        // is returned instead.
        let b = line_with(&Pieces(10));
        assert_eq!(a, b);
        // Read back with its scores.
        assert!(a.plies.iter().all(|p| p.score.is_some()));
        assert_eq!(stored_line(&store, ballot.number).unwrap(), Some(a));
        drop(store);
    }

    #[test]
    fn a_repaired_ply_is_stored_with_the_move_it_replaced() {
        let dir = tempfile::Builder::new()
            .prefix("plan-test-")
            .tempdir()
            .unwrap();
        let store = Store::open(dir.path().join("s.sqlite")).unwrap();
        let deck = Deck::builtin();
        let ballot = deck.get(1).expect("ballot 1");
        let mut line = book_line(ballot, &LineSources::default()).unwrap();
        let here = line.last();
        let moves = here.moves();
        let (kept, replaced) = (moves.as_slice()[0], moves.as_slice()[1]);
        assert!(line.push(kept, Origin::Repair));
        let last = line.plies.last_mut().unwrap();
        last.score = Some(-12);
        last.repaired = Some(crate::repair::Repaired {
            replaced,
            replaced_score: -140,
            score: -12,
        });
        store.set_main_line(ballot.number, &to_rows(&line)).unwrap();
        let rows = store.main_line(ballot.number).unwrap();
        let row = rows.last().unwrap();
        assert_eq!(row.origin, Origin::Repair);
        assert_eq!(
            row.repair.as_ref().map(|r| r.replaced.clone()),
            Some(move_to_text(&here, &replaced))
        );
        assert_eq!(stored_line(&store, ballot.number).unwrap(), Some(line));
    }
}
