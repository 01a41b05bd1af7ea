//! The results table: one row per proved position, and the rule by which a
//! new result is folded into a stored one (intersection of what both say).
//!
//! Every row is sealed ([`crate::seal`]) and read back with its
//! [`Trust`]: only rows whose seal holds and whose outcome is backed by
//! the position's proof trees or by the databases ([`crate::trust`]) are
//! proved. A write that would leave a row unbacked is refused.

use crate::codec::{decode_outcome, decode_pos, pos_key, stm_code, to_i64, unix_now, DecodeError};
use crate::outcome::{Outcome, OutcomeConflict, Provenance};
use crate::proof::Question;
use crate::seal::Seal;
use crate::trust::{self, Trust};
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
    /// Neither the position's stored proof trees nor the databases back
    /// the outcome that would be stored; nothing was changed.
    Unproved,
}

const UPSERT: &str = "INSERT OR REPLACE INTO results \
     (pos, stm, outcome, pieces, solver, nodes, millis, egdb_pieces, proof_size, proved_at, run_id, checksum) \
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)";

/// The seal of a results row holding `rec` with `pieces` in its piece
/// column.
pub fn seal(rec: &ResultRecord, pieces: i64) -> i64 {
    let p = &rec.provenance;
    Seal::new("results")
        .blob(&pos_key(&rec.position))
        .int(stm_code(&rec.position))
        .text(rec.outcome.name())
        .int(pieces)
        .text(&p.solver)
        .int(to_i64(p.nodes))
        .int(to_i64(p.millis))
        .int(p.egdb_pieces as i64)
        .int(to_i64(rec.proof_size))
        .int(rec.proved_at)
        .text(&p.run_id)
        .finish()
}

/// The trust of a row holding `rec`, given its piece and checksum
/// columns and the questions of the trees stored for its position.
pub fn judge(rec: &ResultRecord, pieces: i64, checksum: Option<i64>, trees: &[Question]) -> Trust {
    match checksum {
        None => return Trust::Unsealed,
        Some(c) if c != seal(rec, pieces) => return Trust::Damaged,
        Some(_) => {}
    }
    let p = &rec.provenance;
    let egdb = trust::from_databases(rec.outcome, &p.solver, p.egdb_pieces);
    if egdb || trust::trees_prove(trees, rec.outcome) {
        Trust::Proved
    } else {
        Trust::Unproved
    }
}

/// The questions of the (sealed) proof trees stored for `pos`.
pub fn tree_questions(conn: &Connection, pos: &Position) -> rusqlite::Result<Vec<Question>> {
    let mut stmt = conn.prepare_cached(
        "SELECT question FROM trees WHERE root_pos = ?1 AND root_stm = ?2 AND checksum IS NOT NULL",
    )?;
    let rows = stmt.query_map(params![&pos_key(pos)[..], stm_code(pos)], |r| {
        r.get::<_, String>(0)
    })?;
    let mut out = Vec::new();
    for q in rows {
        if let Some(q) = Question::from_name(&q?) {
            out.push(q);
        }
    }
    Ok(out)
}

/// Reads the row of `pos`, whatever its trust, with its trust. A row that
/// breaks the schema's contract is reported as `Err(why)`.
pub fn select_row(
    conn: &Connection,
    pos: &Position,
) -> rusqlite::Result<Option<Result<(ResultRecord, Trust), DecodeError>>> {
    let sql = format!("SELECT {ROW_COLUMNS} FROM results r WHERE r.pos = ?1 AND r.stm = ?2");
    let mut stmt = conn.prepare_cached(&sql)?;
    stmt.query_row(params![&pos_key(pos)[..], stm_code(pos)], decode_row)
        .optional()
}

/// Reads the record of `pos` if it is proved ([`Trust::Proved`]); a row
/// that is not is treated as absent. A row that breaks the schema's
/// contract is reported as `Err(why)` inside the SQLite error's place.
pub fn select(conn: &Connection, pos: &Position) -> rusqlite::Result<Option<ResultRecord>> {
    match select_row(conn, pos)? {
        None => Ok(None),
        Some(Ok((rec, t))) => Ok(t.is_proved().then_some(rec)),
        Some(Err(e)) => Err(rusqlite::Error::FromSqlConversionFailure(
            0,
            rusqlite::types::Type::Text,
            Box::<dyn std::error::Error + Send + Sync>::from(e),
        )),
    }
}

/// Only the proved outcome of `pos` (the solvers' hot path).
pub fn select_outcome(conn: &Connection, pos: &Position) -> rusqlite::Result<Option<Outcome>> {
    Ok(select(conn, pos)?.map(|r| r.outcome))
}

fn write(conn: &Connection, rec: &ResultRecord) -> rusqlite::Result<()> {
    let p = &rec.provenance;
    let pieces = rec.position.piece_count() as i64;
    conn.prepare_cached(UPSERT)?.execute(params![
        &pos_key(&rec.position)[..],
        stm_code(&rec.position),
        rec.outcome.name(),
        pieces,
        p.solver,
        to_i64(p.nodes),
        to_i64(p.millis),
        p.egdb_pieces as i64,
        to_i64(rec.proof_size),
        rec.proved_at,
        p.run_id,
        seal(rec, pieces),
    ])?;
    Ok(())
}

/// Writes `rec` if the position's trees (already stored in this
/// transaction) or the databases back it.
fn write_backed(conn: &Connection, rec: &ResultRecord) -> rusqlite::Result<bool> {
    let trees = tree_questions(conn, &rec.position)?;
    let pieces = rec.position.piece_count() as i64;
    if !judge(rec, pieces, Some(seal(rec, pieces)), &trees).is_proved() {
        return Ok(false);
    }
    write(conn, rec)?;
    Ok(true)
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
/// transaction, in which the proof trees behind `rec` are already
/// stored): stores it when new, narrows a stored bound, leaves an
/// equal-or-stronger result alone, and refuses a contradiction or a
/// result nothing backs without writing anything. A stored row that is
/// not proved ([`Trust`]) counts as absent and is replaced.
pub fn apply(conn: &Connection, rec: &ResultRecord) -> rusqlite::Result<Applied> {
    let (row, effect) = match select(conn, &rec.position)? {
        None => (rec.clone(), PutEffect::New),
        Some(stored) => match stored.outcome.intersect(rec.outcome) {
            Err(conflict) => return Ok(Applied::Refused(conflict)),
            Ok(o) if o == stored.outcome => return Ok(Applied::Done(PutEffect::Unchanged)),
            Ok(o) => (combine(&stored, rec, o), PutEffect::Tightened),
        },
    };
    if write_backed(conn, &row)? {
        Ok(Applied::Done(effect))
    } else {
        Ok(Applied::Unproved)
    }
}

/// Decodes one full row of `SELECT` [`ROW_COLUMNS`] `FROM results r`,
/// with its trust; a position or outcome column that does not decode is
/// the inner `Err`.
pub fn decode_row(
    r: &rusqlite::Row<'_>,
) -> rusqlite::Result<Result<(ResultRecord, Trust), DecodeError>> {
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
    let rec = ResultRecord {
        position,
        outcome,
        provenance: Provenance {
            solver: r.get(3)?,
            nodes: r.get::<_, i64>(4)? as u64,
            millis: r.get::<_, i64>(5)? as u64,
            egdb_pieces: u32::try_from(r.get::<_, i64>(6)?).unwrap_or(u32::MAX),
            run_id: r.get(7)?,
        },
        proof_size: r.get::<_, i64>(8)? as u64,
        proved_at: r.get(9)?,
    };
    let pieces: i64 = r.get(10)?;
    let checksum: Option<i64> = r.get(11)?;
    let trees: Option<String> = r.get(12)?;
    let t = judge(
        &rec,
        pieces,
        checksum,
        &trust::parse_questions(trees.as_deref()),
    );
    Ok(Ok((rec, t)))
}

/// The column list [`decode_row`] reads, for `SELECT ... FROM results r`
/// (the table must be named `r`): the row, its piece and checksum
/// columns, and the questions of the trees stored for its position.
pub const ROW_COLUMNS: &str =
    "r.pos, r.stm, r.outcome, r.solver, r.nodes, r.millis, r.egdb_pieces, r.run_id, \
     r.proof_size, r.proved_at, r.pieces, r.checksum, \
     (SELECT group_concat(t.question) FROM trees t \
      WHERE t.root_pos = r.pos AND t.root_stm = r.stm AND t.checksum IS NOT NULL)";
