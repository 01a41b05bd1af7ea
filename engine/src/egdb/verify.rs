//! Full verification: every stored value re-derived from its successors.
//!
//! For each stored position (Black to move, no capture) with value `v` and
//! successor values `s_i` (probed, capture search included):
//! * no legal move: `v` must be a loss;
//! * `v` win: some successor is a loss for its side to move;
//! * `v` loss: every successor is a win;
//! * `v` draw: no successor is a loss and some successor is a draw.
//!
//! This is local consistency, which the true values satisfy; it does not
//! rule out a cycle of positions all marked as wins (a win needs a finite
//! path), which only the retrograde construction excludes.

use super::build::build_reads;
use super::codec::DONT_CARE;
use super::file::SliceFile;
use super::probe::{Egdb, Unpacked};
use super::slice::SliceKey;
use super::EgdbError;
use crate::board::Position;
use crate::moves::MoveList;
use crate::notation::fen::to_fen;
use crate::value::Value;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

/// One inconsistent position.
#[derive(Clone, Debug)]
pub struct Inconsistency {
    /// The slice.
    pub slice: String,
    /// The position (FEN).
    pub fen: String,
    /// What is wrong.
    pub what: String,
}

/// The result of verifying one slice.
#[derive(Clone, Debug, Default)]
pub struct SliceReport {
    /// Positions checked (capture positions are skipped).
    pub checked: u64,
    /// Number of inconsistent positions.
    pub inconsistent: u64,
    /// The first few inconsistencies (at most 20).
    pub examples: Vec<Inconsistency>,
}

/// Why a stored value contradicts its successors, if it does.
fn check(db: &Egdb, pos: &Position, v: Value, list: &mut MoveList) -> Option<String> {
    pos.legal_moves(list);
    if list.is_empty() {
        return (v != Value::Loss).then(|| format!("no legal move but stored {v}"));
    }
    let mut any_loss = false;
    let mut any_draw = false;
    for m in list.iter() {
        match db.probe_with_source(&pos.play_unchecked(m)) {
            None => return Some(format!("successor after {m} cannot be probed")),
            Some((Value::Loss, _)) => any_loss = true,
            Some((Value::Draw, _)) => any_draw = true,
            Some((Value::Win, _)) => {}
        }
    }
    let ok = match v {
        Value::Win => any_loss,
        Value::Loss => !any_loss && !any_draw,
        Value::Draw => !any_loss && any_draw,
    };
    (!ok).then(|| {
        format!(
            "stored {v}, successors: {} a loss, {} a draw",
            if any_loss { "some" } else { "none" },
            if any_draw { "some" } else { "none" }
        )
    })
}

/// The most memory [`decode_for_verify`] decodes tables into (a quarter
/// byte a position): every 7-piece slice with the slices it reads fits;
/// an 8-piece slice's largest reads may not, and the rest are then read
/// from their files.
pub const VERIFY_DECODE_BYTES: u64 = 4 << 30;

/// Decodes `slice` and the slices its moves reach ([`build_reads`]) in
/// `db`, within [`VERIFY_DECODE_BYTES`], replacing what was decoded
/// before, so that [`verify_slice`]'s probes read a byte instead of a
/// compressed block (a quarter to a third less time, measured on 6-piece
/// slices). Every block is checked as it is decoded; the answers are the
/// files' either way.
pub fn decode_for_verify(db: &mut Egdb, slice: SliceKey) -> Result<Unpacked, EgdbError> {
    let mut decode = build_reads(slice);
    decode.push(slice);
    db.unpack_slices(&decode, VERIFY_DECODE_BYTES)
}

/// Checks every stored value of `file` against its successors in `db`
/// (which must hold the slice and everything it depends on). `advance`
/// receives the number of positions done as blocks finish.
pub fn verify_slice(
    db: &Egdb,
    file: &SliceFile,
    advance: &(dyn Fn(u64) + Sync),
) -> Result<SliceReport, EgdbError> {
    let slice = file.header().slice.name();
    let checked = AtomicU64::new(0);
    let inconsistent = AtomicU64::new(0);
    let examples = Mutex::new(Vec::new());
    for (t, table) in file.tables().iter().enumerate() {
        // Decode all blocks first (this also checks their structure).
        let mut blocks: Vec<(u64, Vec<u8>)> = Vec::new();
        file.for_each_block(t, |start, vals| blocks.push((start, vals.to_vec())))?;
        blocks.par_iter().for_each(|(start, vals)| {
            let mut list = MoveList::new();
            let mut n = 0;
            for (i, &code) in vals.iter().enumerate() {
                let pos = table.position(start + i as u64);
                if pos.has_capture() || code == DONT_CARE {
                    continue;
                }
                n += 1;
                let v = match code {
                    0 => Value::Loss,
                    1 => Value::Draw,
                    _ => Value::Win,
                };
                if let Some(what) = check(db, &pos, v, &mut list) {
                    inconsistent.fetch_add(1, Relaxed);
                    let mut ex = examples.lock().expect("no poisoning");
                    if ex.len() < 20 {
                        ex.push(Inconsistency {
                            slice: slice.clone(),
                            fen: to_fen(&pos),
                            what,
                        });
                    }
                }
            }
            checked.fetch_add(n, Relaxed);
            advance(vals.len() as u64);
        });
    }
    Ok(SliceReport {
        checked: checked.into_inner(),
        inconsistent: inconsistent.into_inner(),
        examples: examples.into_inner().expect("no poisoning"),
    })
}
