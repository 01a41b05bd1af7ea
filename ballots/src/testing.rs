//! Helpers for tests of code that reads the ballot tables: main lines
//! and job records made up for a test. Compiled for this crate's tests
//! and with the `testing` feature, which the shipped binary does not
//! enable.

use crate::tables::{JobRecord, JobStatus, LinePlyRow, Origin};
use engine::Position;
use proofdb::Outcome;

/// The start of a main line: ply 0 alone, the start position, published
/// and unscored.
pub fn line_start() -> Vec<LinePlyRow> {
    vec![LinePlyRow {
        ply: 0,
        position: Position::initial(),
        move_text: String::new(),
        origin: Origin::Published,
        score: None,
        repair: None,
    }]
}

/// A ballot job's record of `ballot`'s `ply`: `status` and `outcome`
/// after `millis` ms (its budget too), 1,000 nodes, a proof of 7
/// positions, run `r`.
pub fn job_record(
    ballot: u32,
    ply: u32,
    outcome: Option<Outcome>,
    millis: u64,
    status: JobStatus,
) -> JobRecord {
    JobRecord {
        ballot,
        ply,
        outcome,
        nodes: 1000,
        millis,
        budget_millis: millis,
        proof_size: 7,
        status,
        run_id: "r".into(),
        updated: 0,
    }
}

/// A main line from the start position through `moves` (move texts as
/// the move type prints them, `9-13`), ply 0 included: every ply
/// published and unscored. Panics on a move that is not legal (a test's
/// own data).
pub fn line_from_moves(moves: &[&str]) -> Vec<LinePlyRow> {
    let ply = |ply: u32, position: Position, text: &str| LinePlyRow {
        ply,
        position,
        move_text: text.to_string(),
        origin: Origin::Published,
        score: None,
        repair: None,
    };
    let mut p = Position::initial();
    let mut line = line_start();
    for (i, text) in moves.iter().enumerate() {
        let m = p.moves().iter().find(|m| m.to_string() == *text).copied();
        p = p.play_unchecked(&m.unwrap_or_else(|| panic!("{text} is not legal here")));
        line.push(ply(i as u32 + 1, p, text));
    }
    line
}
