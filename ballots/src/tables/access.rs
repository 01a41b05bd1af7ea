//! Reading and writing the ballot job's tables of a [`Store`]
//! ([`BallotTables`]), through the store's extension interface.

use super::rows::{BallotRow, JobRecord, JobStatus, LinePlyRow, Origin, RepairRow};
use super::EXTENSION;
use engine::Position;
use proofdb::codec::{decode_outcome, decode_pos, pos_key, stm_code, to_i64};
use proofdb::{Store, StoreError};
use rusqlite::{params, Connection};

/// The ballot job's tables of a store: its ballots, their main lines and
/// the record of each ply the walk tried. Read-only, a store that has none
/// of them reads as empty.
pub trait BallotTables {
    /// Inserts or replaces a ballot row.
    fn put_ballot(&self, b: &BallotRow) -> Result<(), StoreError>;
    /// All stored ballots, by number.
    fn ballots(&self) -> Result<Vec<BallotRow>, StoreError>;
    /// Replaces the main line of `ballot` with `line`, in one transaction.
    /// Plies must be distinct.
    fn set_main_line(&self, ballot: u32, line: &[LinePlyRow]) -> Result<(), StoreError>;
    /// The main line of `ballot`, by ply (empty when none is stored).
    fn main_line(&self, ballot: u32) -> Result<Vec<LinePlyRow>, StoreError>;
    /// Ballots that have a stored main line.
    fn ballots_with_lines(&self) -> Result<Vec<u32>, StoreError>;
    /// Which (ballot, ply) main-line plies stand on `pos`.
    fn main_line_plies_at(&self, pos: &Position) -> Result<Vec<(u32, u32)>, StoreError>;
    /// Inserts or replaces the record of (`ballot`, `ply`).
    fn put_job_record(&self, rec: &JobRecord) -> Result<(), StoreError>;
    /// All job records of `ballot`, by ply.
    fn job_records(&self, ballot: u32) -> Result<Vec<JobRecord>, StoreError>;
    /// Every job record, by ballot and ply.
    fn all_job_records(&self) -> Result<Vec<JobRecord>, StoreError>;
    /// The record of (`ballot`, `ply`), if any.
    fn job_record(&self, ballot: u32, ply: u32) -> Result<Option<JobRecord>, StoreError>;
}

impl BallotTables for Store {
    fn put_ballot(&self, b: &BallotRow) -> Result<(), StoreError> {
        self.extension_write(&EXTENSION, |tx| {
            tx.execute(
                "INSERT OR REPLACE INTO ballots (number, moves, deck, ctd, name, fen) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![b.number, b.moves, b.deck, b.ctd, b.name, b.fen],
            )
            .map_err(|e| self.sql_error(e))?;
            Ok(())
        })
    }

    fn ballots(&self) -> Result<Vec<BallotRow>, StoreError> {
        self.extension_select(
            &EXTENSION,
            "SELECT number, moves, deck, ctd, name, fen FROM ballots ORDER BY number",
            [],
            |r| {
                let (number, moves, deck, ctd, name, fen) = r.try_into()?;
                Ok(BallotRow {
                    number,
                    moves,
                    deck,
                    ctd,
                    name,
                    fen,
                })
            },
        )
    }

    fn set_main_line(&self, ballot: u32, line: &[LinePlyRow]) -> Result<(), StoreError> {
        self.extension_write(&EXTENSION, |tx| {
            tx.execute("DELETE FROM main_lines WHERE ballot = ?1", [ballot])
                .map_err(|e| self.sql_error(e))?;
            let mut ins = tx
                .prepare_cached(
                    "INSERT INTO main_lines (ballot, ply, pos, stm, move, origin, score, \
                     replaced, replaced_score, repair_score) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                )
                .map_err(|e| self.sql_error(e))?;
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
                        self.invalid_input(format!(
                            "main line of ballot {ballot} gives ply {} twice",
                            p.ply
                        ))
                    }
                    e => self.sql_error(e),
                })?;
            }
            Ok(())
        })
    }

    fn main_line(&self, ballot: u32) -> Result<Vec<LinePlyRow>, StoreError> {
        self.extension_read(&EXTENSION, Vec::new, |conn| {
            read_main_line(self, conn, ballot)
        })
    }

    fn ballots_with_lines(&self) -> Result<Vec<u32>, StoreError> {
        self.extension_select(
            &EXTENSION,
            "SELECT DISTINCT ballot FROM main_lines ORDER BY ballot",
            [],
            |r| r.get(0),
        )
    }

    fn main_line_plies_at(&self, pos: &Position) -> Result<Vec<(u32, u32)>, StoreError> {
        self.extension_select(
            &EXTENSION,
            "SELECT ballot, ply FROM main_lines WHERE pos = ?1 AND stm = ?2 ORDER BY ballot, ply",
            params![&pos_key(pos)[..], stm_code(pos)],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
    }

    fn put_job_record(&self, rec: &JobRecord) -> Result<(), StoreError> {
        self.extension_write(&EXTENSION, |tx| {
            write_job_record(tx, rec).map_err(|e| self.sql_error(e))
        })
    }

    fn job_records(&self, ballot: u32) -> Result<Vec<JobRecord>, StoreError> {
        let what = format!("job record of ballot {ballot}");
        job_records_where(self, "WHERE ballot = ?1 ORDER BY ply", [ballot], &what)
    }

    fn all_job_records(&self) -> Result<Vec<JobRecord>, StoreError> {
        job_records_where(self, "ORDER BY ballot, ply", [], "job record")
    }

    fn job_record(&self, ballot: u32, ply: u32) -> Result<Option<JobRecord>, StoreError> {
        let what = format!("job record of ballot {ballot}");
        let mut one =
            job_records_where(self, "WHERE ballot = ?1 AND ply = ?2", [ballot, ply], &what)?;
        Ok(one.pop())
    }
}

/// The rows of `ballot`'s main line on `conn`; a row that does not decode
/// is corrupt.
fn read_main_line(
    store: &Store,
    conn: &Connection,
    ballot: u32,
) -> Result<Vec<LinePlyRow>, StoreError> {
    let sq = |e| store.sql_error(e);
    let mut stmt = conn
        .prepare_cached(
            "SELECT ply, pos, stm, move, origin, score, replaced, replaced_score, \
             repair_score FROM main_lines WHERE ballot = ?1 ORDER BY ply",
        )
        .map_err(sq)?;
    let mut rows = stmt.query([ballot]).map_err(sq)?;
    let mut out = Vec::new();
    while let Some(r) = rows.next().map_err(sq)? {
        let ply: u32 = r.get(0).map_err(sq)?;
        let key: Vec<u8> = r.get(1).map_err(sq)?;
        let stm: i64 = r.get(2).map_err(sq)?;
        let move_text: String = r.get(3).map_err(sq)?;
        let origin: String = r.get(4).map_err(sq)?;
        let score: Option<i32> = r.get(5).map_err(sq)?;
        let replaced: Option<String> = r.get(6).map_err(sq)?;
        let replaced_score: Option<i32> = r.get(7).map_err(sq)?;
        let repair_score: Option<i32> = r.get(8).map_err(sq)?;
        let bad =
            |d: String| store.corrupt_row(format!("main line of ballot {ballot}, ply {ply}: {d}"));
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

/// The job records `tail` (a WHERE and ORDER BY clause over `params`)
/// selects; a row that does not decode is corrupt, named by `what`.
fn job_records_where<P: rusqlite::Params>(
    store: &Store,
    tail: &str,
    params: P,
    what: &str,
) -> Result<Vec<JobRecord>, StoreError> {
    store.extension_read(&EXTENSION, Vec::new, |conn| {
        let sq = |e| store.sql_error(e);
        let mut stmt = conn
            .prepare_cached(&format!(
                "SELECT ballot, ply, outcome, nodes, millis, proof_size, status, run_id, updated, \
                 budget_millis FROM job_records {tail}"
            ))
            .map_err(sq)?;
        let mut rows = stmt.query(params).map_err(sq)?;
        let mut out = Vec::new();
        while let Some(r) = rows.next().map_err(sq)? {
            let rec = read_job_record(r)
                .map_err(sq)?
                .map_err(|d| store.corrupt_row(format!("{what}: {d}")))?;
            out.push(rec);
        }
        Ok(out)
    })
}

/// Writes (insert or replace) one job record on `conn`.
fn write_job_record(conn: &Connection, rec: &JobRecord) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT OR REPLACE INTO job_records \
         (ballot, ply, outcome, nodes, millis, proof_size, status, run_id, updated, budget_millis) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?
    .execute(params![
        rec.ballot,
        rec.ply,
        rec.outcome.map(|o| o.name()),
        to_i64(rec.nodes),
        to_i64(rec.millis),
        to_i64(rec.proof_size),
        rec.status.name(),
        rec.run_id,
        rec.updated,
        to_i64(rec.budget_millis)
    ])?;
    Ok(())
}

/// Why a job record's values do not decode.
#[derive(Debug, thiserror::Error)]
enum BadRecord {
    /// An outcome column that names no outcome.
    #[error(transparent)]
    Outcome(#[from] proofdb::codec::DecodeError),
    /// A status column that names no [`JobStatus`].
    #[error("unknown status {0:?}")]
    Status(String),
}

/// Reads a row of `SELECT ballot, ply, outcome, nodes, millis, proof_size,
/// status, run_id, updated, budget_millis`: the record, or why its values
/// do not decode.
fn read_job_record(r: &rusqlite::Row<'_>) -> rusqlite::Result<Result<JobRecord, BadRecord>> {
    let outcome: Option<String> = r.get(2)?;
    let status: String = r.get(6)?;
    let outcome = match outcome.as_deref().map(decode_outcome).transpose() {
        Ok(o) => o,
        Err(e) => return Ok(Err(e.into())),
    };
    let Some(status) = JobStatus::from_name(&status) else {
        return Ok(Err(BadRecord::Status(status)));
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
