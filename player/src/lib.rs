//! The engine as a player with what was proved (the play policy, kept
//! out of the proof crates): the choice of a move at a proved root
//! ([`choose`]), the opening book of proved positions
//! ([`book_from_store`]) and the match player that uses both
//! ([`ProvedPlayer`]). The proofs it reads come through
//! [`solver::proved::ProvedOracle`] and the store.
//!
//! - a proved win plays the move of a stored win proof at once, the one
//!   whose proof ends soonest (the proof trees are acyclic, so following
//!   them always makes progress); without a proof move at the root, the
//!   search chooses among the moves to positions proved lost for the
//!   opponent;
//! - a proved draw (or ">=draw") plays only moves to positions proved
//!   "at most a draw" for the opponent; among those the search ranks, and
//!   draw differentiation as Chinook had it prefers the move that leaves
//!   the opponent the most replies that lose ([`Traps`]). At ">=draw" a
//!   win that the search proves (with the databases and the store) among
//!   all the moves is played instead;
//! - anything else (a loss, "<=draw", a position the store does not know)
//!   is the search's.
//!
//! Values are from the side to move's view. The store is only read.

#![deny(missing_docs)]

use engine::play::referee::{Choice, PlayError, Player, TimeControl};
use engine::play::GameRecord;
use engine::search::{Iteration, Limits, SearchResult, Searcher, ORACLE_WIN, WIN_THRESHOLD};
use engine::{Move, Position, Value};
use proofdb::{Outcome, ProofEntry, Question, Store};
use proofdb::{StoreError, TreeId};
use solver::proved::{proof_height, ProvedOracle};
use std::time::{Duration, Instant};

/// Where a move came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveSource {
    /// The search alone (the root is not proved to a value worth
    /// keeping).
    Search,
    /// A stored win proof's move, played at once.
    WinProof,
    /// The search, among the moves proved to keep the win.
    WinningMoves,
    /// The search and draw differentiation, among the moves proved to
    /// keep the draw (or the only such move, at once).
    DrawingMoves,
    /// An opening book of proved positions ([`engine::play::book`]).
    Book,
    /// At ">=draw", a win the search proves (every line of it ends in a
    /// database or store win) among all the moves.
    SearchedWin,
}

impl MoveSource {
    /// Short name for output: `search`, `win-proof`, `winning-moves`,
    /// `drawing-moves`, `book`, `searched-win`.
    pub const fn name(self) -> &'static str {
        match self {
            MoveSource::Search => "search",
            MoveSource::WinProof => "win-proof",
            MoveSource::WinningMoves => "winning-moves",
            MoveSource::DrawingMoves => "drawing-moves",
            MoveSource::Book => "book",
            MoveSource::SearchedWin => "searched-win",
        }
    }

    /// Whether a proof chose or bounded the move.
    pub const fn from_proof(self) -> bool {
        !matches!(self, MoveSource::Search)
    }
}

/// Draw differentiation at a proved draw: per move that keeps the draw,
/// the opponent's replies that lose (by the databases, the store, or the
/// search proving a win for us within its small budget).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Traps {
    /// `(move, losing replies, replies)` for each move that keeps the draw.
    pub counts: Vec<(Move, u32, u32)>,
    /// Whether every reply was looked at before the time ran out.
    pub complete: bool,
}

/// A move chosen with what was proved.
#[derive(Clone, Debug)]
pub struct ProvedChoice {
    /// The search's report (for a proof move played at once: the move,
    /// an oracle win score, no nodes).
    pub result: SearchResult,
    /// What the store knows of the root, if anything.
    pub proved: Option<Outcome>,
    /// Where the move came from.
    pub source: MoveSource,
    /// The moves proved to keep the root's value (empty for
    /// [`MoveSource::Search`] and [`MoveSource::WinProof`]).
    pub keeping: Vec<Move>,
    /// Draw differentiation, at a proved draw with more than one move
    /// that keeps it.
    pub traps: Option<Traps>,
}

/// Depth of the searches that look for an opponent reply that loses.
const TRAP_DEPTH: u32 = 6;
/// Node budget of each of those searches.
const TRAP_NODES: u64 = 20_000;

/// Chooses a move in `pos` (which must have one) within `limits`, with
/// the game so far `history` (oldest first, ending before `pos`), using
/// the databases and the store through `oracle` and the store's proof
/// trees from `store` (see the module doc). The searcher must probe every
/// position (its default, not [`Searcher::set_probe_max_pieces`]).
pub fn choose(
    searcher: &mut Searcher,
    pos: &Position,
    limits: &Limits,
    history: &[Position],
    oracle: &ProvedOracle<'_>,
    store: &Store,
    progress: &mut dyn FnMut(&Iteration),
) -> Result<ProvedChoice, StoreError> {
    let start = Instant::now();
    let proved = oracle.stored(pos);
    let plain = |searcher: &mut Searcher, progress: &mut dyn FnMut(&Iteration)| ProvedChoice {
        result: searcher.search_with_progress(pos, limits, oracle, history, progress),
        proved,
        source: MoveSource::Search,
        keeping: Vec::new(),
        traps: None,
    };
    let Some(outcome) = proved else {
        return Ok(plain(searcher, progress));
    };
    let moves: Vec<Move> = pos.moves().iter().copied().collect();
    if moves.is_empty() || !matches!(outcome.range().0, Value::Draw | Value::Win) {
        return Ok(plain(searcher, progress));
    }
    let child_outcome = |m: &Move| oracle.outcome(&pos.play_unchecked(m));
    let winning: Vec<Move> = moves
        .iter()
        .filter(|m| child_outcome(m) == Some(Outcome::Exact(Value::Loss)))
        .copied()
        .collect();
    if outcome == Outcome::Exact(Value::Win) || !winning.is_empty() {
        if let Some(m) = win_proof_move(store, pos, &moves)? {
            let result = SearchResult::immediate(m, ORACLE_WIN, start.elapsed());
            return Ok(ProvedChoice {
                result,
                proved,
                source: MoveSource::WinProof,
                keeping: Vec::new(),
                traps: None,
            });
        }
        if !winning.is_empty() {
            let result =
                searcher.search_among(pos, limits, oracle, history, Some(&winning), progress);
            return Ok(ProvedChoice {
                result,
                proved,
                source: MoveSource::WinningMoves,
                keeping: winning,
                traps: None,
            });
        }
    }
    let drawing: Vec<Move> = moves
        .iter()
        .filter(|m| child_outcome(m).is_some_and(|o| o.range().1 <= Value::Draw))
        .copied()
        .collect();
    if drawing.is_empty() {
        return Ok(plain(searcher, progress));
    }
    if drawing.len() == 1 {
        let m = drawing[0];
        let result = SearchResult::immediate(m, 0, start.elapsed());
        return Ok(ProvedChoice {
            result,
            proved,
            source: MoveSource::DrawingMoves,
            keeping: drawing,
            traps: None,
        });
    }
    // At ">=draw" the side to move may win: a third of the time to look
    // for a win the search can prove among all moves (played if found).
    if outcome == Outcome::AtLeastDraw {
        let look = Limits {
            time: limits.time.map(|t| t / 3),
            ..*limits
        };
        let r = searcher.search_with_progress(pos, &look, oracle, history, progress);
        if r.score > WIN_THRESHOLD {
            return Ok(ProvedChoice {
                result: r,
                proved,
                source: MoveSource::SearchedWin,
                keeping: drawing,
                traps: None,
            });
        }
    }
    // Then two thirds of what is left to rank the drawing moves, the rest
    // to count the opponent's losing replies after each.
    let ranked_limits = Limits {
        time: limits
            .time
            .map(|t| t.saturating_sub(start.elapsed()) * 2 / 3),
        ..*limits
    };
    let mut result = searcher.search_among(
        pos,
        &ranked_limits,
        oracle,
        history,
        Some(&drawing),
        progress,
    );
    let deadline = limits.time.map(|t| start + t);
    // Each trap search gets at most an eighth of a node budget and the
    // move's depth.
    let trap_limits = Limits {
        depth: Some(limits.depth.map_or(TRAP_DEPTH, |d| d.min(TRAP_DEPTH))),
        nodes: Some(
            limits
                .nodes
                .map_or(TRAP_NODES, |n| (n / 8).clamp(1, TRAP_NODES)),
        ),
        time: None,
        soft_time: None,
    };
    let traps = count_traps(
        searcher,
        pos,
        history,
        &drawing,
        oracle,
        &trap_limits,
        deadline,
    );
    let best = result.best_move.unwrap_or(drawing[0]);
    let count_of = |m: &Move| {
        traps
            .counts
            .iter()
            .find(|c| c.0.same_move(m))
            .map_or(0, |c| c.1)
    };
    let most = traps.counts.iter().map(|c| c.1).max().unwrap_or(0);
    if count_of(&best) < most {
        if let Some(&(m, _, _)) = traps.counts.iter().find(|c| c.1 == most) {
            result.best_move = Some(m);
            result.pv = vec![m];
        }
    }
    result.elapsed = start.elapsed();
    Ok(ProvedChoice {
        result,
        proved,
        source: MoveSource::DrawingMoves,
        keeping: drawing,
        traps: Some(traps),
    })
}

/// For each of `moves`, the opponent's replies that lose for them: by
/// the oracle, else by a small search of ours after the reply that finds
/// a proved win, within `trap_limits`. Stops looking past `deadline`
/// (the counts so far stand).
fn count_traps(
    searcher: &mut Searcher,
    pos: &Position,
    history: &[Position],
    moves: &[Move],
    oracle: &ProvedOracle<'_>,
    trap_limits: &Limits,
    deadline: Option<Instant>,
) -> Traps {
    let mut traps = Traps {
        counts: Vec::new(),
        complete: true,
    };
    let mut path: Vec<Position> = history.to_vec();
    path.push(*pos);
    for m in moves {
        let child = pos.play_unchecked(m);
        let replies = child.moves();
        let mut losing = 0;
        path.push(child);
        for r in replies.iter() {
            let after = child.play_unchecked(r);
            let lost = match oracle.outcome(&after) {
                Some(o) => o.range().0 == Value::Win,
                None => {
                    let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
                    if left == Some(Duration::ZERO) {
                        traps.complete = false;
                        false
                    } else {
                        let limits = Limits {
                            time: left,
                            ..*trap_limits
                        };
                        searcher.search(&after, &limits, oracle, &path).score > WIN_THRESHOLD
                    }
                }
            };
            losing += u32::from(lost);
        }
        path.pop();
        traps.counts.push((*m, losing, replies.len() as u32));
    }
    traps
}

/// The move of a stored win proof at `pos` (a tree proving a win or a
/// loss in which `pos`'s side to move is the prover, with a move at
/// `pos`): when the trees offer several moves, the one whose proof ends
/// soonest (fewest plies to its leaves along the proof's longest line).
fn win_proof_move(
    store: &Store,
    pos: &Position,
    legal: &[Move],
) -> Result<Option<Move>, StoreError> {
    let mut candidates: Vec<(TreeId, Move)> = Vec::new();
    for (id, entry) in store.find_tree_nodes(pos)? {
        let ProofEntry::Prover(m) = entry else {
            continue;
        };
        let Some(info) = store.tree_summary(id)? else {
            continue;
        };
        if !matches!(info.question, Question::Win | Question::Loss) {
            continue;
        }
        if let Some(l) = legal.iter().find(|l| l.same_move(&m)) {
            candidates.push((id, *l));
        }
    }
    let distinct = |c: &[(TreeId, Move)]| c.iter().skip(1).any(|(_, m)| !m.same_move(&c[0].1));
    if candidates.len() <= 1 || !distinct(&candidates) {
        return Ok(candidates.first().map(|c| c.1));
    }
    let mut best: Option<(usize, Move)> = None;
    for (id, m) in candidates {
        let Some(tree) = store.get_tree_by_id(id)? else {
            continue;
        };
        let height = proof_height(&tree, pos);
        if best.is_none_or(|b| height < b.0) {
            best = Some((height, m));
        }
    }
    Ok(best.map(|b| b.1))
}

/// This engine as a match player with what was proved: [`choose`] at
/// every move.
pub struct ProvedPlayer<'a> {
    searcher: Searcher,
    oracle: &'a ProvedOracle<'a>,
    store: &'a Store,
    book: Option<&'a engine::play::book::Book>,
}

impl<'a> ProvedPlayer<'a> {
    /// A player with this searcher (which must probe every position),
    /// oracle and store.
    pub fn new(searcher: Searcher, oracle: &'a ProvedOracle<'a>, store: &'a Store) -> Self {
        ProvedPlayer {
            searcher,
            oracle,
            store,
            book: None,
        }
    }

    /// The same player, playing from `book` where it holds the position.
    pub fn with_book(mut self, book: Option<&'a engine::play::book::Book>) -> Self {
        self.book = book;
        self
    }
}

impl Player for ProvedPlayer<'_> {
    fn choose(&mut self, game: &GameRecord, tc: TimeControl, clock: f64) -> Choice {
        let limits = tc.limits(clock);
        let pos = game.current();
        if let Some(r) = self
            .book
            .and_then(|b| b.play_in_game(&mut self.searcher, game, &limits, self.oracle))
        {
            return r.best_move.ok_or(PlayError::NoMove);
        }
        let r = match choose(
            &mut self.searcher,
            &pos,
            &limits,
            game.history(),
            self.oracle,
            self.store,
            &mut |_| {},
        ) {
            Ok(c) => c.result,
            // A proof tree that cannot be read: the search alone.
            Err(_) => self
                .searcher
                .search(&pos, &limits, self.oracle, game.history()),
        };
        r.best_move.ok_or(PlayError::NoMove)
    }
}

/// The opening book of everything `oracle`'s store proves (see
/// [`engine::play::book`]): every position proved a win or at least a
/// draw for its side to move, with the moves that keep that value (for a
/// win, the proofs' move first, then the other moves to positions proved
/// lost; for a draw, the moves to positions proved "at most a draw" for
/// the opponent). A position ">=draw" is booked as a draw.
pub fn book_from_store(
    store: &Store,
    oracle: &ProvedOracle<'_>,
) -> Result<engine::play::book::Book, StoreError> {
    use engine::play::book::{Book, BookEntry};
    let mut book = Book::new();
    for (pos, outcome) in oracle.results().iter() {
        let lo = outcome.range().0;
        if lo == Value::Loss {
            continue;
        }
        let legal: Vec<Move> = pos.moves().iter().copied().collect();
        let keeps = |m: &Move, highest: Value| {
            oracle
                .outcome(&pos.play_unchecked(m))
                .is_some_and(|o| o.range().1 <= highest)
        };
        let moves: Vec<Move> = if lo == Value::Win {
            let mut w: Vec<Move> = win_proof_move(store, pos, &legal)?.into_iter().collect();
            for m in &legal {
                if keeps(m, Value::Loss) && !w.iter().any(|x| x.same_move(m)) {
                    w.push(*m);
                }
            }
            w
        } else {
            legal
                .iter()
                .filter(|m| keeps(m, Value::Draw))
                .copied()
                .collect()
        };
        book.insert(*pos, BookEntry { value: lo, moves });
    }
    Ok(book)
}

/// The book's move `result` (of [`engine::play::book::Book::play`]) in
/// a position whose book entry is `entry`, as a [`ProvedChoice`]: source
/// [`MoveSource::Book`], the booked value as proved.
pub fn from_book(entry: &engine::play::book::BookEntry, result: SearchResult) -> ProvedChoice {
    ProvedChoice {
        result,
        proved: Some(Outcome::Exact(entry.value)),
        source: MoveSource::Book,
        keeping: entry.moves.clone(),
        traps: None,
    }
}
