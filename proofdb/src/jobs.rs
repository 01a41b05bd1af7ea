//! The tables of the ballot job: ballots, their main lines, per-ply job
//! records, and runs.
//!
//! Plies count from the start of the game: ply `p` is the position after
//! `p` moves (ply 3 is the ballot's position), and its `move` is the move
//! that reached it (empty at ply 0).

use crate::codec::{
    decode_outcome, decode_pos, host_name, pos_key, stm_code, unix_now, DecodeError,
};
use crate::error::{Result, StoreError};
use crate::outcome::Outcome;
use crate::store::Store;
use engine::Position;
use rusqlite::params;

/// A ballot as stored (the deck file's row).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BallotRow {
    /// ACF number, 1-174.
    pub number: u32,
    /// The three moves, space-separated (`9-13 21-17 5-9`).
    pub moves: String,
    /// `deck144`, `added12` or `barred`.
    pub deck: String,
    /// In the computer-tough deck.
    pub ctd: bool,
    /// Opening name, or empty.
    pub name: String,
    /// FEN after the three moves.
    pub fen: String,
}

/// Where a main-line ply came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    /// A published trunk line (Fortman).
    Published,
    /// The master-game archive.
    Archive,
    /// The engine's principal variation.
    Engine,
    /// A line repair: the engine's move, searched deeper, in place of a
    /// move that lost a man or more by the engine's score
    /// ([`LinePlyRow::repair`] keeps the move it replaced).
    Repair,
}

impl Origin {
    /// Every origin, in the order summaries count them.
    pub const ALL: [Origin; 4] = [
        Origin::Published,
        Origin::Archive,
        Origin::Engine,
        Origin::Repair,
    ];

    /// `published`, `archive`, `engine` or `repair`.
    pub const fn name(self) -> &'static str {
        match self {
            Origin::Published => "published",
            Origin::Archive => "archive",
            Origin::Engine => "engine",
            Origin::Repair => "repair",
        }
    }

    /// Parses [`Origin::name`].
    pub fn from_name(s: &str) -> Option<Origin> {
        match s {
            "published" => Some(Origin::Published),
            "archive" => Some(Origin::Archive),
            "engine" => Some(Origin::Engine),
            "repair" => Some(Origin::Repair),
            _ => None,
        }
    }
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One ply of a ballot's main line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinePlyRow {
    /// Plies from the start of the game.
    pub ply: u32,
    /// The position after `ply` moves.
    pub position: Position,
    /// The move that reached it, PDN text (empty at ply 0).
    pub move_text: String,
    /// Where the move came from.
    pub origin: Origin,
    /// The engine's score of `position` at the depth the line was built
    /// with: centi-men (a man = 100) from White's point of view, beyond
    /// +-15000 a proven win or loss (the engine's scale,
    /// `engine::search`). `None` for lines stored without scores.
    pub score: Option<i32>,
    /// At a ply of origin [`Origin::Repair`]: the move it replaced and
    /// both moves' scores at the repair's depth.
    pub repair: Option<RepairRow>,
}

/// What a repaired ply replaced: the line's move before the repair and
/// the scores, at the repair's deeper search, of the positions after each
/// move (centi-men, White's point of view, as [`LinePlyRow::score`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepairRow {
    /// The replaced move, PDN text.
    pub replaced: String,
    /// The score after the replaced move.
    pub replaced_score: i32,
    /// The score after the repair's move.
    pub score: i32,
}

/// State of one ply's job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JobStatus {
    /// The exact value is proved.
    Proved,
    /// One bound is proved, the other is open.
    Partial,
    /// The search ran out of budget.
    Budget,
}

impl JobStatus {
    /// `proved`, `partial` or `budget`.
    pub const fn name(self) -> &'static str {
        match self {
            JobStatus::Proved => "proved",
            JobStatus::Partial => "partial",
            JobStatus::Budget => "budget",
        }
    }

    /// Parses [`JobStatus::name`] (the table's CHECK also allows
    /// `running` and `error`, which no version of this program wrote;
    /// they are refused as unknown).
    pub fn from_name(s: &str) -> Option<JobStatus> {
        Some(match s {
            "proved" => JobStatus::Proved,
            "partial" => JobStatus::Partial,
            "budget" => JobStatus::Budget,
            _ => return None,
        })
    }
}

/// What the job did at one ply of a ballot's main line: the one record
/// of a ply, which the walk (`ballots::job`) keeps and resumes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobRecord {
    /// ACF ballot number.
    pub ballot: u32,
    /// Ply of the main line.
    pub ply: u32,
    /// What was proved, if anything.
    pub outcome: Option<Outcome>,
    /// Nodes searched.
    pub nodes: u64,
    /// Time spent in milliseconds, on the run's clock (by default CPU
    /// time; wall time with `--wall-clock`). Rows of schema version 4 and
    /// before hold here, for an open ply, the larger of the time spent
    /// and the budget.
    pub millis: u64,
    /// The budget the attempt had, in milliseconds: an open ply is only
    /// tried again with a larger one. (Rows of schema version 4 and before
    /// have none: it reads as `millis`.)
    pub budget_millis: u64,
    /// Positions in the proof(s).
    pub proof_size: u64,
    /// Where the job stands.
    pub status: JobStatus,
    /// The run that wrote the record.
    pub run_id: String,
    /// When (Unix seconds).
    pub updated: i64,
}

/// A run of some command that wrote to the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunRow {
    /// Identifier (`host-unixtime-pid`).
    pub id: String,
    /// Start (Unix seconds).
    pub started: i64,
    /// End, when finished cleanly.
    pub finished: Option<i64>,
    /// The command line.
    pub command: String,
    /// The machine.
    pub host: String,
}

fn i(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl Store {
    /// Inserts or replaces a ballot row.
    pub fn put_ballot(&self, b: &BallotRow) -> Result<()> {
        self.write_tx(|tx| {
            tx.execute(
                "INSERT OR REPLACE INTO ballots (number, moves, deck, ctd, name, fen) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![b.number, b.moves, b.deck, b.ctd, b.name, b.fen],
            )
            .map_err(|e| self.sq(e))?;
            Ok(())
        })
    }

    /// All stored ballots, by number.
    pub fn ballots(&self) -> Result<Vec<BallotRow>> {
        self.select_rows(
            "SELECT number, moves, deck, ctd, name, fen FROM ballots ORDER BY number",
            [],
            |r| {
                Ok(BallotRow {
                    number: r.get(0)?,
                    moves: r.get(1)?,
                    deck: r.get(2)?,
                    ctd: r.get(3)?,
                    name: r.get(4)?,
                    fen: r.get(5)?,
                })
            },
        )
    }

    /// Every row `sql` (with `params`) selects, each made by `row`.
    fn select_rows<T, P: rusqlite::Params>(
        &self,
        sql: &str,
        params: P,
        row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>> {
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(sql).map_err(|e| self.sq(e))?;
        let rows = stmt.query_map(params, row).map_err(|e| self.sq(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.sq(e))
    }

    /// Replaces the main line of `ballot` with `line`, in one transaction.
    /// Plies must be distinct.
    pub fn set_main_line(&self, ballot: u32, line: &[LinePlyRow]) -> Result<()> {
        self.write_tx(|tx| {
            tx.execute("DELETE FROM main_lines WHERE ballot = ?1", [ballot])
                .map_err(|e| self.sq(e))?;
            let mut ins = tx
                .prepare_cached(
                    "INSERT INTO main_lines (ballot, ply, pos, stm, move, origin, score, \
                     replaced, replaced_score, repair_score) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                )
                .map_err(|e| self.sq(e))?;
            for p in line {
                ins.execute(params![
                    ballot,
                    p.ply,
                    &pos_key(&p.position)[..],
                    stm_code(&p.position),
                    p.move_text,
                    p.origin.name(),
                    p.score,
                    p.repair.as_ref().map(|r| r.replaced.as_str()),
                    p.repair.as_ref().map(|r| r.replaced_score),
                    p.repair.as_ref().map(|r| r.score),
                ])
                .map_err(|e| match e {
                    rusqlite::Error::SqliteFailure(f, _)
                        if f.code == rusqlite::ErrorCode::ConstraintViolation =>
                    {
                        StoreError::Invalid {
                            path: self.path().to_path_buf(),
                            detail: format!(
                                "main line of ballot {ballot} gives ply {} twice",
                                p.ply
                            ),
                        }
                    }
                    e => self.sq(e),
                })?;
            }
            Ok(())
        })
    }

    /// The main line of `ballot`, by ply (empty when none is stored).
    pub fn main_line(&self, ballot: u32) -> Result<Vec<LinePlyRow>> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare_cached(
                "SELECT ply, pos, stm, move, origin, score, replaced, replaced_score, \
                 repair_score FROM main_lines WHERE ballot = ?1 ORDER BY ply",
            )
            .map_err(|e| self.sq(e))?;
        let mut rows = stmt.query([ballot]).map_err(|e| self.sq(e))?;
        let mut out = Vec::new();
        while let Some(r) = rows.next().map_err(|e| self.sq(e))? {
            let ply: u32 = r.get(0).map_err(|e| self.sq(e))?;
            let key: Vec<u8> = r.get(1).map_err(|e| self.sq(e))?;
            let stm: i64 = r.get(2).map_err(|e| self.sq(e))?;
            let move_text: String = r.get(3).map_err(|e| self.sq(e))?;
            let origin: String = r.get(4).map_err(|e| self.sq(e))?;
            let score: Option<i32> = r.get(5).map_err(|e| self.sq(e))?;
            let replaced: Option<String> = r.get(6).map_err(|e| self.sq(e))?;
            let replaced_score: Option<i32> = r.get(7).map_err(|e| self.sq(e))?;
            let repair_score: Option<i32> = r.get(8).map_err(|e| self.sq(e))?;
            let bad =
                |d: String| self.corrupt(format!("main line of ballot {ballot}, ply {ply}: {d}"));
            out.push(LinePlyRow {
                ply,
                position: decode_pos(&key, stm).map_err(|e| bad(e.to_string()))?,
                move_text,
                origin: Origin::from_name(&origin)
                    .ok_or_else(|| bad(format!("unknown origin {origin:?}")))?,
                score,
                repair: match (replaced, replaced_score, repair_score) {
                    (Some(replaced), Some(replaced_score), Some(score)) => Some(RepairRow {
                        replaced,
                        replaced_score,
                        score,
                    }),
                    (None, None, None) => None,
                    _ => return Err(bad("a repair's move or scores are missing".into())),
                },
            });
        }
        Ok(out)
    }

    /// Ballots that have a stored main line.
    pub fn ballots_with_lines(&self) -> Result<Vec<u32>> {
        self.select_rows(
            "SELECT DISTINCT ballot FROM main_lines ORDER BY ballot",
            [],
            |r| r.get(0),
        )
    }

    /// Inserts or replaces the record of (`ballot`, `ply`).
    pub fn put_job_record(&self, rec: &JobRecord) -> Result<()> {
        self.write_tx(|tx| write_job_record(tx, rec).map_err(|e| self.sq(e)))
    }

    /// All job records of `ballot`, by ply.
    pub fn job_records(&self, ballot: u32) -> Result<Vec<JobRecord>> {
        let what = format!("job record of ballot {ballot}");
        self.job_records_where("WHERE ballot = ?1 ORDER BY ply", [ballot], &what)
    }

    /// Every job record, by ballot and ply.
    pub fn all_job_records(&self) -> Result<Vec<JobRecord>> {
        self.job_records_where("ORDER BY ballot, ply", [], "job record")
    }

    /// The job records `tail` (a WHERE and ORDER BY clause over `params`)
    /// selects; a row that does not decode is corrupt, named by `what`.
    fn job_records_where<P: rusqlite::Params>(
        &self,
        tail: &str,
        params: P,
        what: &str,
    ) -> Result<Vec<JobRecord>> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare_cached(&format!(
                "SELECT ballot, ply, outcome, nodes, millis, proof_size, status, run_id, updated, \
                 budget_millis FROM job_records {tail}"
            ))
            .map_err(|e| self.sq(e))?;
        let mut rows = stmt.query(params).map_err(|e| self.sq(e))?;
        let mut out = Vec::new();
        while let Some(r) = rows.next().map_err(|e| self.sq(e))? {
            let rec = read_job_record(r)
                .map_err(|e| self.sq(e))?
                .map_err(|d| self.corrupt(format!("{what}: {d}")))?;
            out.push(rec);
        }
        Ok(out)
    }

    /// Inserts `run` unless a run with its id is stored; whether it was.
    pub fn insert_run(&self, run: &RunRow) -> Result<bool> {
        self.write_tx(|tx| {
            let n = tx
                .execute(
                    "INSERT OR IGNORE INTO runs (id, started, finished, command, host) \
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![run.id, run.started, run.finished, run.command, run.host],
                )
                .map_err(|e| self.sq(e))?;
            Ok(n == 1)
        })
    }

    /// The record of (`ballot`, `ply`), if any.
    pub fn job_record(&self, ballot: u32, ply: u32) -> Result<Option<JobRecord>> {
        let what = format!("job record of ballot {ballot}");
        let mut one =
            self.job_records_where("WHERE ballot = ?1 AND ply = ?2", [ballot, ply], &what)?;
        Ok(one.pop())
    }

    /// Records the start of a run of `command` and returns its id
    /// (`host-unixtime-pid`, made unique if needed).
    pub fn begin_run(&self, command: &str) -> Result<String> {
        let started = unix_now();
        let host = host_name();
        let base = format!("{host}-{started}-{}", std::process::id());
        self.write_tx(|tx| {
            for n in 0u32.. {
                let id = if n == 0 {
                    base.clone()
                } else {
                    format!("{base}-{n}")
                };
                let inserted = tx
                    .execute(
                        "INSERT OR IGNORE INTO runs (id, started, finished, command, host) \
                         VALUES (?1, ?2, NULL, ?3, ?4)",
                        params![id, started, command, host],
                    )
                    .map_err(|e| self.sq(e))?;
                if inserted == 1 {
                    return Ok(id);
                }
            }
            unreachable!("u32 run suffixes exhausted")
        })
    }

    /// Marks run `id` finished now.
    pub fn finish_run(&self, id: &str) -> Result<()> {
        self.write_tx(|tx| {
            tx.execute(
                "UPDATE runs SET finished = ?2 WHERE id = ?1",
                params![id, unix_now()],
            )
            .map_err(|e| self.sq(e))?;
            Ok(())
        })
    }

    /// All runs, oldest first.
    pub fn runs(&self) -> Result<Vec<RunRow>> {
        self.select_rows(
            "SELECT id, started, finished, command, host FROM runs ORDER BY started, id",
            [],
            |r| {
                Ok(RunRow {
                    id: r.get(0)?,
                    started: r.get(1)?,
                    finished: r.get(2)?,
                    command: r.get(3)?,
                    host: r.get(4)?,
                })
            },
        )
    }

    /// Which (ballot, ply) main-line plies stand on `pos`.
    pub fn main_line_plies_at(&self, pos: &Position) -> Result<Vec<(u32, u32)>> {
        self.select_rows(
            "SELECT ballot, ply FROM main_lines WHERE pos = ?1 AND stm = ?2 ORDER BY ballot, ply",
            params![&pos_key(pos)[..], stm_code(pos)],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
    }
}

/// Writes (insert or replace) one job record on `conn`.
pub(crate) fn write_job_record(
    conn: &rusqlite::Connection,
    rec: &JobRecord,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT OR REPLACE INTO job_records \
         (ballot, ply, outcome, nodes, millis, proof_size, status, run_id, updated, budget_millis) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?
    .execute(params![
        rec.ballot,
        rec.ply,
        rec.outcome.map(|o| o.name()),
        i(rec.nodes),
        i(rec.millis),
        i(rec.proof_size),
        rec.status.name(),
        rec.run_id,
        rec.updated,
        i(rec.budget_millis)
    ])?;
    Ok(())
}

/// Reads a row of `SELECT ballot, ply, outcome, nodes, millis, proof_size,
/// status, run_id, updated, budget_millis`.
pub(crate) fn read_job_record(
    r: &rusqlite::Row<'_>,
) -> rusqlite::Result<std::result::Result<JobRecord, DecodeError>> {
    let outcome: Option<String> = r.get(2)?;
    let status: String = r.get(6)?;
    let outcome = match outcome.as_deref().map(decode_outcome).transpose() {
        Ok(o) => o,
        Err(e) => return Ok(Err(e)),
    };
    let Some(status) = JobStatus::from_name(&status) else {
        return Ok(Err(DecodeError::JobStatus(status)));
    };
    let millis = r.get::<_, i64>(4)? as u64;
    Ok(Ok(JobRecord {
        ballot: r.get(0)?,
        ply: r.get(1)?,
        outcome,
        nodes: r.get::<_, i64>(3)? as u64,
        millis,
        budget_millis: r.get::<_, Option<i64>>(9)?.map_or(millis, |b| b as u64),
        proof_size: r.get::<_, i64>(5)? as u64,
        status,
        run_id: r.get(7)?,
        updated: r.get(8)?,
    }))
}
