//! The results table: one row per proved position, and the rule by which a
//! new result is folded into a stored one (intersection of what both say).

use crate::codec::{decode_outcome, decode_pos, pos_key, stm_code, unix_now};
use crate::outcome::{Outcome, OutcomeConflict, Provenance};
use engine::Position;
use rusqlite::{params, Connection, OptionalExtension};

/// A stored result with everything kept about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResultRecord {
    /// The position.
    pub position: Position,
    /// What is proved, for its side to move.
    pub outcome: Outcome,
    /// Where it came from.
    pub provenance: Provenance,
    /// Number of positions in the proof(s) behind it (0 when unknown).
    pub proof_size: u64,
    /// When it was stored or last tightened (Unix seconds).
    pub proved_at: i64,
}

impl ResultRecord {
    /// A record stamped now.
    pub fn new(
        position: Position,
        outcome: Outcome,
        provenance: Provenance,
        proof_size: u64,
    ) -> ResultRecord {
        ResultRecord {
            position,
            outcome,
            provenance,
            proof_size,
            proved_at: unix_now(),
        }
    }
}

/// What a put did to the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PutEffect {
    /// The position was not stored before.
    New,
    /// The stored outcome was a bound and is now narrower.
    Tightened,
    /// The stored outcome already implied the incoming one.
    Unchanged,
}

/// The result of folding one record in: an effect, or a refusal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applied {
    /// Stored (or found already implied).
    Done(PutEffect),
    /// Contradicts the stored outcome; nothing was changed.
    Refused(OutcomeConflict),
}

const SELECT_ONE: &str =
    "SELECT outcome, solver, nodes, millis, egdb_pieces, run_id, proof_size, proved_at \
     FROM results WHERE pos = ?1 AND stm = ?2";

const UPSERT: &str = "INSERT OR REPLACE INTO results \
     (pos, stm, outcome, pieces, solver, nodes, millis, egdb_pieces, proof_size, proved_at, run_id) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";

fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Reads the record of `pos`. A row that breaks the schema's contract is
/// reported as `Err(detail)` inside the SQLite error's place.
pub fn select(conn: &Connection, pos: &Position) -> rusqlite::Result<Option<ResultRecord>> {
    let mut stmt = conn.prepare_cached(SELECT_ONE)?;
    stmt.query_row(params![&pos_key(pos)[..], stm_code(pos)], |r| {
        let outcome: String = r.get(0)?;
        let outcome = decode_outcome(&outcome).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(
                0,
                rusqlite::types::Type::Text,
                Box::<dyn std::error::Error + Send + Sync>::from(e),
            )
        })?;
        Ok(ResultRecord {
            position: *pos,
            outcome,
            provenance: Provenance {
                solver: r.get(1)?,
                nodes: r.get::<_, i64>(2)? as u64,
                millis: r.get::<_, i64>(3)? as u64,
                egdb_pieces: r.get::<_, i64>(4)? as u32,
                run_id: r.get(5)?,
            },
            proof_size: r.get::<_, i64>(6)? as u64,
            proved_at: r.get(7)?,
        })
    })
    .optional()
}

/// Only the outcome of `pos` (the solvers' hot path).
pub fn select_outcome(conn: &Connection, pos: &Position) -> rusqlite::Result<Option<Outcome>> {
    let mut stmt =
        conn.prepare_cached("SELECT outcome FROM results WHERE pos = ?1 AND stm = ?2")?;
    let name: Option<String> = stmt
        .query_row(params![&pos_key(pos)[..], stm_code(pos)], |r| r.get(0))
        .optional()?;
    Ok(name.and_then(|n| Outcome::from_name(&n)))
}

fn write(conn: &Connection, rec: &ResultRecord) -> rusqlite::Result<()> {
    let p = &rec.provenance;
    conn.prepare_cached(UPSERT)?.execute(params![
        &pos_key(&rec.position)[..],
        stm_code(&rec.position),
        rec.outcome.name(),
        rec.position.piece_count() as i64,
        p.solver,
        to_i64(p.nodes),
        to_i64(p.millis),
        p.egdb_pieces as i64,
        to_i64(rec.proof_size),
        rec.proved_at,
        p.run_id,
    ])?;
    Ok(())
}

/// The record kept when `incoming` narrows `stored` to `outcome`: the
/// solvers of both joined with `+` (once each), nodes, time and proof sizes
/// added (a draw needs both proofs), the larger database size, the newer
/// run and date.
pub fn combine(stored: &ResultRecord, incoming: &ResultRecord, outcome: Outcome) -> ResultRecord {
    let (s, i) = (&stored.provenance, &incoming.provenance);
    let solver = if s.solver == i.solver || s.solver.split('+').any(|x| x == i.solver) {
        s.solver.clone()
    } else {
        format!("{}+{}", s.solver, i.solver)
    };
    ResultRecord {
        position: stored.position,
        outcome,
        provenance: Provenance {
            solver,
            nodes: s.nodes.saturating_add(i.nodes),
            millis: s.millis.saturating_add(i.millis),
            egdb_pieces: s.egdb_pieces.max(i.egdb_pieces),
            run_id: i.run_id.clone(),
        },
        proof_size: stored.proof_size.saturating_add(incoming.proof_size),
        proved_at: stored.proved_at.max(incoming.proved_at),
    }
}

/// Folds `rec` into the store on `conn` (the caller holds a write
/// transaction): stores it when new, narrows a stored bound, leaves an
/// equal-or-stronger result alone, and refuses a contradiction without
/// writing anything.
pub fn apply(conn: &Connection, rec: &ResultRecord) -> rusqlite::Result<Applied> {
    match select(conn, &rec.position)? {
        None => {
            write(conn, rec)?;
            Ok(Applied::Done(PutEffect::New))
        }
        Some(stored) => match stored.outcome.intersect(rec.outcome) {
            Err(conflict) => Ok(Applied::Refused(conflict)),
            Ok(o) if o == stored.outcome => Ok(Applied::Done(PutEffect::Unchanged)),
            Ok(o) => {
                write(conn, &combine(&stored, rec, o))?;
                Ok(Applied::Done(PutEffect::Tightened))
            }
        },
    }
}

/// Decodes one full row of `SELECT pos, stm, outcome, solver, nodes,
/// millis, egdb_pieces, run_id, proof_size, proved_at`.
pub fn decode_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Result<ResultRecord, String>> {
    let key: Vec<u8> = r.get(0)?;
    let stm: i64 = r.get(1)?;
    let outcome: String = r.get(2)?;
    let position = match decode_pos(&key, stm) {
        Ok(p) => p,
        Err(e) => return Ok(Err(e)),
    };
    let outcome = match decode_outcome(&outcome) {
        Ok(o) => o,
        Err(e) => return Ok(Err(e)),
    };
    Ok(Ok(ResultRecord {
        position,
        outcome,
        provenance: Provenance {
            solver: r.get(3)?,
            nodes: r.get::<_, i64>(4)? as u64,
            millis: r.get::<_, i64>(5)? as u64,
            egdb_pieces: r.get::<_, i64>(6)? as u32,
            run_id: r.get(7)?,
        },
        proof_size: r.get::<_, i64>(8)? as u64,
        proved_at: r.get(9)?,
    }))
}

/// The column list [`decode_row`] reads, for `SELECT ... FROM results`.
pub const ROW_COLUMNS: &str =
    "pos, stm, outcome, solver, nodes, millis, egdb_pieces, run_id, proof_size, proved_at";
