//! One stored main line, ply by ply: where its plies came from, the
//! engine's score of each position, its FEN, the value the store holds
//! for it, the job's last attempt, whether the line is flagged decisive
//! ([`crate::score`]), and the open question where the walk stands with
//! the commands that attack it. `ballots show`, `ballots status`,
//! `ballots report` and the proof browser all read lines through
//! [`line_state`].

use crate::deck::Ballot;
use crate::frontier::frontier;
use crate::job::moot;
use crate::score::decisive_from;
use crate::tables::{BallotTables, JobStatus, LinePlyRow, Origin};
use engine::Position;
use proofdb::json::{Effort, Valued};
use proofdb::{Outcome, Store, StoreError};
use serde::Serialize;
use std::path::Path;

/// The summary of a line: plies by origin and the flag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineSummary {
    /// Last ply.
    pub last_ply: u32,
    /// Plies of each origin: published, archive, engine, repair.
    pub origins: [u32; 4],
    /// How many plies carry a score.
    pub scored: u32,
    /// Where the line turns decisive.
    pub decisive: Option<crate::score::Decisive>,
}

/// Sums up `rows` (a stored line).
pub fn summarize(rows: &[LinePlyRow]) -> LineSummary {
    let count = |o: Origin| rows.iter().filter(|p| p.origin == o).count() as u32;
    LineSummary {
        last_ply: rows.last().map_or(0, |p| p.ply),
        origins: Origin::ALL.map(count),
        scored: rows.iter().filter(|p| p.score.is_some()).count() as u32,
        decisive: decisive_from(rows.iter().map(|p| (p.ply, p.score))),
    }
}

/// The verdict line of a summary: `decisive from ply N: ...`, `level
/// throughout`, or `not scored`.
pub fn verdict(s: &LineSummary) -> String {
    match (s.decisive, s.scored) {
        (Some(d), _) => d.to_string(),
        (None, 0) => "not scored (stored before lines had scores)".to_string(),
        (None, _) => "level throughout (no score of a man or more for a side)".to_string(),
    }
}

/// The first ply the ballot job walks to: the ballot's own position,
/// after its three moves.
pub const FIRST_WALKED_PLY: u32 = 3;

/// What the ballot job last did at a ply: keys `status`, `nodes`,
/// `millis`, `proof_size`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct JobState {
    /// `proved`, `partial`, `budget`, `running` or `error`.
    pub status: &'static str,
    /// Nodes and time spent of its last attempt (records of schema
    /// version 4 and before: for an open ply, the larger of the time
    /// spent and the budget it had).
    #[serde(flatten)]
    pub effort: Effort,
    /// The budget that attempt had (ms).
    #[serde(skip)]
    pub budget_millis: u64,
    /// Positions in the proof(s) it found.
    pub proof_size: u64,
}

/// A ply of a stored main line as the line holds it: its number, the
/// move that reached it, where the move came from and the engine's score.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlyMove {
    /// Plies from the start of the game.
    pub ply: u32,
    /// The move that reached it, PDN text (empty at ply 0).
    #[serde(rename = "move")]
    pub move_text: String,
    /// `published`, `archive`, `engine` or `repair`.
    pub origin: &'static str,
    /// The engine's score (centi-men, White's view), if stored.
    pub score: Option<i32>,
}

/// One ply of a stored main line with what the store knows of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlyState {
    /// The ply, its move, origin and score.
    #[serde(flatten)]
    pub step: PlyMove,
    /// Pieces on the board.
    pub pieces: u32,
    /// The position and the value or bound the store holds for it.
    #[serde(flatten)]
    pub valued: Valued,
    /// Positions in the stored proof(s) of that value (`null` when none
    /// is stored).
    pub proof_size: Option<u64>,
    /// The ballot job's last record of this ply.
    pub job: Option<JobState>,
    /// The position.
    #[serde(skip)]
    pub position: Position,
    /// The stored value or bound.
    #[serde(skip)]
    pub stored: Option<Outcome>,
}

/// The position where the ballot's walk stands: the last ply of the line
/// (from ply [`FIRST_WALKED_PLY`] on) without an exact stored value whose
/// ply before the walk has not proved either (a ply whose ply before the
/// walk proved is moot: the frontier is already before it), which is the
/// ply a rerun of the job tries first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OpenPly {
    /// Its ply.
    pub ply: u32,
    /// Pieces on the board.
    pub pieces: u32,
    /// The position and the bound already proved, if any.
    #[serde(flatten)]
    pub valued: Valued,
    /// The question still open, as `solve --question` names it: `win`
    /// (does the side to move win? its draw is proved), `draw` (does it
    /// at least draw? its win is refuted) or `value` (nothing is proved
    /// yet).
    pub question: &'static str,
    /// The largest budget the job gave it without settling it, in
    /// milliseconds (`null` when the job never tried it).
    pub budget_millis: Option<u64>,
}

impl OpenPly {
    /// The question in words: `does Black win?`, `does White at least
    /// draw?`, `what is the value (Black to move)?`.
    pub fn asks(&self) -> String {
        let side = self.valued.side_to_move;
        match self.question {
            "win" => format!("does {side} win? (its draw is proved)"),
            "draw" => format!("does {side} at least draw? (its win is refuted)"),
            _ => format!("what is the value ({side} to move)? (nothing proved yet)"),
        }
    }

    /// The commands that attack it, ready to paste: a rerun of the
    /// ballot's job with a budget that lets this ply have twice what it
    /// resisted, and a `solve` of the position alone that stores what it
    /// proves in the same store. `store` is the store's path,
    /// `egdb_pieces` the database size to use.
    pub fn commands(&self, ballot: u32, store: &Path, egdb_pieces: u32) -> [String; 2] {
        let had = self.budget_millis.unwrap_or(0).div_ceil(1000);
        let store = shell_quote(&store.display().to_string());
        let budget = (2 * had).max(20);
        let time = (2 * had).max(60);
        let question = if self.question == "value" {
            String::new()
        } else {
            format!(" --question {}", self.question)
        };
        [
            format!(
                "checkers ballots run --ballot {ballot} --store {store} --egdb-pieces {egdb_pieces} \
                 --budget {budget}"
            ),
            format!(
                "checkers solve '{}'{question} --egdb-pieces {egdb_pieces} --time {time} \
                 --store {store}",
                self.valued.fen
            ),
        ]
    }
}

/// `text` quoted for a POSIX shell when it needs to be.
fn shell_quote(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+:,=@".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// What `rerun` and `solve` of [`OpenPly::commands`] do, in a sentence
/// for a reader (the ballot walk's resuming rules, ballots::job::walk).
pub const NEXT_STEP_NOTE: &str = "the rerun skips the proved plies and gives the open ply the \
     larger of --position-budget and twice the budget it resisted, within --budget (df-pn goes \
     on from its tables in STORE.dfpn unless --no-carry-over); a solve of the position alone \
     that proves it lets the next rerun step past it";

/// A ballot's stored main line, ply by ply, with what the store holds
/// for each position, where the frontier is and where the walk stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LineState {
    /// ACF number.
    pub number: u32,
    /// The three moves.
    pub moves: String,
    /// Plies by origin and the decisive flag.
    #[serde(skip)]
    pub summary: LineSummary,
    /// [`verdict`] of the summary.
    pub verdict: String,
    /// Earliest ply with an exact stored value.
    pub frontier_ply: Option<u32>,
    /// Where the walk stands (`null` when, and only when, the ballot's
    /// position, ply [`FIRST_WALKED_PLY`], is proved: a ply after it left
    /// open is moot).
    pub open: Option<OpenPly>,
    /// Largest database size the line's stored results were proved with
    /// (`null` when none says).
    pub egdb_pieces: Option<u32>,
    /// Every ply, from ply 0.
    pub plies: Vec<PlyState>,
}

/// The main line of `ballot` as the store holds it (`None` when it has
/// none).
pub fn line_state(store: &Store, ballot: &Ballot) -> Result<Option<LineState>, StoreError> {
    let rows = store.main_line(ballot.number)?;
    if rows.is_empty() {
        return Ok(None);
    }
    let jobs = store.job_records(ballot.number)?;
    let mut plies = Vec::with_capacity(rows.len());
    let mut egdb_pieces: Option<u32> = None;
    for p in &rows {
        let rec = store.get_record(&p.position)?;
        if let Some(r) = &rec {
            if r.provenance.egdb_pieces > 0 {
                egdb_pieces = egdb_pieces.max(Some(r.provenance.egdb_pieces));
            }
        }
        let stored = rec.as_ref().map(|r| r.outcome);
        plies.push(PlyState {
            step: PlyMove {
                ply: p.ply,
                move_text: p.move_text.clone(),
                origin: p.origin.name(),
                score: p.score,
            },
            pieces: p.position.piece_count(),
            valued: Valued::new(&p.position, stored),
            proof_size: rec.as_ref().map(|r| r.proof_size),
            job: jobs.iter().find(|j| j.ply == p.ply).map(|j| JobState {
                status: j.status.name(),
                effort: Effort {
                    nodes: j.nodes,
                    millis: j.millis,
                },
                budget_millis: j.budget_millis,
                proof_size: j.proof_size,
            }),
            position: p.position,
            stored,
        });
    }
    let exact = |p: &PlyState| matches!(p.stored, Some(Outcome::Exact(_)));
    let frontier_ply = frontier(plies.iter().map(|p| (p.step.ply, p.stored))).map(|(ply, _)| ply);
    // Where the walk stands, as it walks ([`crate::job::walk`]): down
    // from the line's end, past the proved plies and the moot ones;
    // nothing once the ballot's position is proved.
    // The row of ply `q` (the stored rows need not start at ply 0).
    let at = |q: usize| {
        plies
            .binary_search_by_key(&q, |p| p.step.ply as usize)
            .ok()
            .map(|i| &plies[i])
    };
    let walk_proved = |q: usize| {
        at(q)
            .and_then(|p| p.job.as_ref())
            .is_some_and(|j| j.status == JobStatus::Proved.name())
    };
    let first = FIRST_WALKED_PLY as usize;
    let solved = at(first).is_some_and(exact);
    let open = plies
        .iter()
        .rev()
        .take_while(|p| !solved && p.step.ply >= FIRST_WALKED_PLY)
        .find(|p| !exact(p) && !moot(p.step.ply as usize, first, walk_proved))
        .map(|p| OpenPly {
            ply: p.step.ply,
            pieces: p.pieces,
            valued: p.valued.clone(),
            question: match p.stored {
                Some(Outcome::AtLeastDraw) => "win",
                Some(Outcome::AtMostDraw) => "draw",
                _ => "value",
            },
            budget_millis: p
                .job
                .as_ref()
                .filter(|j| matches!(j.status, "partial" | "budget"))
                .map(|j| j.budget_millis),
        });
    let summary = summarize(&rows);
    Ok(Some(LineState {
        number: ballot.number,
        moves: ballot.moves_text(),
        verdict: verdict(&summary),
        summary,
        frontier_ply,
        open,
        egdb_pieces,
        plies,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Position;

    fn row(ply: u32, origin: Origin, score: Option<i32>) -> LinePlyRow {
        LinePlyRow {
            ply,
            position: Position::initial(),
            move_text: String::new(),
            origin,
            score,
            repair: None,
        }
    }

    #[test]
    fn a_line_a_man_down_is_flagged() {
        let rows = [
            row(1, Origin::Published, Some(0)),
            row(2, Origin::Archive, Some(40)),
            row(3, Origin::Engine, Some(130)),
            row(4, Origin::Engine, Some(20_000)),
        ];
        let s = summarize(&rows);
        assert_eq!(s.origins, [1, 1, 2, 0]);
        assert_eq!(verdict(&s), "decisive from ply 3: White +1.30 men");
        let level = summarize(&rows[..2]);
        assert!(verdict(&level).starts_with("level throughout"));
        let old = summarize(&[row(1, Origin::Published, None)]);
        assert!(verdict(&old).starts_with("not scored"));
    }

    /// A store in a temporary folder (kept while the folder lives) with
    /// ballot 1's line of six plies.
    fn store_with_line() -> (tempfile::TempDir, Store, Vec<LinePlyRow>) {
        let dir = tempfile::Builder::new()
            .prefix("show-test-")
            .tempdir()
            .unwrap();
        let store = Store::open(dir.path().join("s.sqlite")).unwrap();
        let line =
            crate::testing::line_from_moves(&["9-13", "21-17", "5-9", "25-21", "11-15", "29-25"]);
        store.set_main_line(1, &line).unwrap();
        (dir, store, line)
    }

    #[test]
    fn the_open_ply_is_where_a_rerun_starts_and_names_its_question() {
        use crate::deck::Deck;
        use engine::notation::fen::to_fen;
        use proofdb::testing::put_outcome_unverified;
        use proofdb::Provenance;
        let (_dir, store, line) = store_with_line();
        let deck = Deck::builtin();
        let ballot = deck.get(1).expect("ballot 1");
        let prov = Provenance {
            solver: "dfpn".into(),
            egdb_pieces: 6,
            ..Provenance::default()
        };
        let draw = Outcome::Exact(engine::Value::Draw);
        for ply in [5, 6] {
            put_outcome_unverified(&store, &line[ply].position, draw, &prov).unwrap();
        }
        // Ply 4: the draw of the side to move is proved, not its win; the
        // job gave it 4.5 s.
        put_outcome_unverified(&store, &line[4].position, Outcome::AtLeastDraw, &prov).unwrap();
        store
            .put_job_record(&crate::testing::job_record(
                1,
                4,
                Some(Outcome::AtLeastDraw),
                4500,
                JobStatus::Partial,
            ))
            .unwrap();
        let l = line_state(&store, ballot).unwrap().unwrap();
        assert_eq!(l.frontier_ply, Some(5));
        assert_eq!(l.egdb_pieces, Some(6));
        assert_eq!(l.plies[6].valued.fen, to_fen(&line[6].position));
        let o = l.open.as_ref().expect("ply 4 is open");
        assert_eq!((o.ply, o.question, o.budget_millis), (4, "win", Some(4500)));
        assert_eq!(o.valued.label, Some("D or W"));
        let fen = to_fen(&line[4].position);
        let [rerun, solve] = o.commands(1, Path::new("/tmp/a b.sqlite"), 6);
        assert_eq!(
            rerun,
            "checkers ballots run --ballot 1 --store '/tmp/a b.sqlite' --egdb-pieces 6 --budget 20"
        );
        assert_eq!(
            solve,
            format!(
                "checkers solve '{fen}' --question win --egdb-pieces 6 --time 60 \
                 --store '/tmp/a b.sqlite'"
            )
        );
        // Once ply 4 is proved the walk stands at ply 3, where nothing is
        // known.
        put_outcome_unverified(&store, &line[4].position, draw, &prov).unwrap();
        let l = line_state(&store, ballot).unwrap().unwrap();
        let o = l.open.unwrap();
        assert_eq!((o.ply, o.question, o.budget_millis), (3, "value", None));
    }

    /// A ply past the frontier that only holds (the walk proved the ply
    /// before it instead and went on) is not where the walk stands.
    #[test]
    fn the_open_ply_is_below_the_frontier_past_a_moot_one() {
        use crate::deck::Deck;
        use proofdb::testing::put_outcome_unverified;
        use proofdb::Provenance;
        let (_dir, store, line) = store_with_line();
        // As `ballots run` stores a line: from ply 1.
        store.set_main_line(1, &line[1..]).unwrap();
        let deck = Deck::builtin();
        let ballot = deck.get(1).expect("ballot 1");
        let prov = Provenance::default();
        let draw = Outcome::Exact(engine::Value::Draw);
        let record = |ply: u32, outcome: Outcome, millis: u64, status: JobStatus| {
            let r = crate::testing::job_record(1, ply, Some(outcome), millis, status);
            store.put_job_record(&r).unwrap();
        };
        // The walk's records: ply 6 proved, 5 only held (10 s), 4 proved
        // (tried past 5), 3 only held (20 s).
        for (ply, outcome, status, millis) in [
            (6, draw, JobStatus::Proved, 100),
            (5, Outcome::AtLeastDraw, JobStatus::Partial, 10_000),
            (4, draw, JobStatus::Proved, 100),
            (3, Outcome::AtMostDraw, JobStatus::Partial, 20_000),
        ] {
            put_outcome_unverified(&store, &line[ply].position, outcome, &prov).unwrap();
            record(ply as u32, outcome, millis, status);
        }
        let l = line_state(&store, ballot).unwrap().unwrap();
        assert_eq!(l.frontier_ply, Some(4));
        let o = l.open.expect("ply 3 is open");
        assert_eq!(
            (o.ply, o.question, o.budget_millis),
            (3, "draw", Some(20_000))
        );
        // Once the ballot's position is proved, nothing is open: ply 5
        // stays moot.
        put_outcome_unverified(&store, &line[3].position, draw, &prov).unwrap();
        let l = line_state(&store, ballot).unwrap().unwrap();
        assert_eq!((l.frontier_ply, l.open.as_ref()), (Some(3), None));
        // Even where the walk's records would not make ply 5 moot.
        record(4, Outcome::AtLeastDraw, 5_000, JobStatus::Partial);
        let l = line_state(&store, ballot).unwrap().unwrap();
        assert_eq!(l.open, None);
    }
}
