//! Where the ballot jobs stand, from the store's main-line and job-record
//! tables: one row per ballot ([`BallotStatus`]), and its JSON (the
//! text table, Markdown and SVG plot are the binary's `present` layer).
//!
//! The *frontier* of a ballot is the earliest ply of its main line whose
//! position has an exact value in the store's results table (a one-sided
//! bound does not count). Its time, nodes and proof size come from the job
//! record of that ply, else from the stored result's provenance.
//!
//! Each row also shows the engine's score of the frontier position (as
//! the line stored it, White's point of view, in men) and where the line
//! turns decisive, if it does ([`crate::score`]), so a reader can tell a
//! frontier on a level line from one on a line that already lost a man.

use crate::deck::Ballot;
use crate::score::Decisive;
use crate::show::{line_state, OpenPly};
use crate::tables::BallotTables;
use proofdb::{Outcome, Store, StoreError};
use serde::Serialize;
use std::path::Path;

/// One ballot's state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BallotStatus {
    /// ACF number.
    pub number: u32,
    /// The three moves.
    pub moves: String,
    /// Opening name, or empty.
    pub name: String,
    /// `deck144`, `added12` or `barred`.
    pub deck: String,
    /// Plies stored in its main line (0 when none).
    pub line_plies: u32,
    /// The last ply of the main line.
    pub last_ply: Option<u32>,
    /// Earliest proved ply.
    pub frontier_ply: Option<u32>,
    /// Pieces on the board at the frontier.
    pub frontier_pieces: Option<u32>,
    /// The frontier position (FEN).
    pub frontier_fen: Option<String>,
    /// The value proved at the frontier (side to move there).
    pub value: Option<Outcome>,
    /// Side to move at the frontier (`Black`/`White`).
    pub to_move: Option<String>,
    /// Time spent proving the frontier (ms).
    pub millis: Option<u64>,
    /// Nodes searched proving the frontier.
    pub nodes: Option<u64>,
    /// Proof size at the frontier.
    pub proof_size: Option<u64>,
    /// Plies of the main line with an exact value stored.
    pub proved_plies: u32,
    /// Job records of the ballot.
    pub job_records: u32,
    /// Total time over all its job records (ms).
    pub job_millis: u64,
    /// The engine's score of the frontier position as the line stored it
    /// (centi-men, White's view; `None` for an unscored line).
    pub frontier_score: Option<i32>,
    /// The first ply whose stored score says a side is lost.
    pub decisive: Option<Decisive>,
    /// Plies of the line a repair replaced (origin `repair`).
    pub repairs: u32,
    /// Where the walk stands: the position a rerun tries first and the
    /// question open there (`None` when the line is proved from the
    /// ballot's position on, or there is no line).
    pub open: Option<OpenPly>,
    /// Largest database size the line's results were proved with.
    pub egdb_pieces: Option<u32>,
}

/// The status of each of `ballots`, in the order given.
pub fn status(store: &Store, ballots: &[&Ballot]) -> Result<Vec<BallotStatus>, StoreError> {
    ballots.iter().map(|b| ballot_status(store, b)).collect()
}

fn ballot_status(store: &Store, b: &Ballot) -> Result<BallotStatus, StoreError> {
    let jobs = store.job_records(b.number)?;
    let mut st = BallotStatus {
        number: b.number,
        moves: b.moves_text(),
        name: b.name.clone(),
        deck: b.deck.name().to_string(),
        line_plies: 0,
        last_ply: None,
        frontier_ply: None,
        frontier_pieces: None,
        frontier_fen: None,
        value: None,
        to_move: None,
        millis: None,
        nodes: None,
        proof_size: None,
        proved_plies: 0,
        job_records: jobs.len() as u32,
        job_millis: jobs.iter().map(|j| j.millis).sum(),
        frontier_score: None,
        decisive: None,
        repairs: 0,
        open: None,
        egdb_pieces: None,
    };
    let Some(line) = line_state(store, b)? else {
        return Ok(st);
    };
    st.line_plies = line.plies.len() as u32;
    st.last_ply = line.plies.last().map(|p| p.step.ply);
    st.decisive = line.summary.decisive;
    st.repairs = line.summary.origins[3];
    st.open = line.open.clone();
    st.egdb_pieces = line.egdb_pieces;
    st.proved_plies = line
        .plies
        .iter()
        .filter(|p| matches!(p.stored, Some(Outcome::Exact(_))))
        .count() as u32;
    let Some(front) = line
        .frontier_ply
        .and_then(|f| line.plies.iter().find(|p| p.step.ply == f))
    else {
        return Ok(st);
    };
    st.frontier_ply = Some(front.step.ply);
    st.frontier_score = front.step.score;
    st.frontier_pieces = Some(front.pieces);
    st.frontier_fen = Some(front.valued.fen.clone());
    st.value = front.stored;
    st.to_move = Some(front.valued.side_to_move.to_string());
    match &front.job {
        Some(j) => {
            st.millis = Some(j.effort.millis);
            st.nodes = Some(j.effort.nodes);
            st.proof_size = Some(j.proof_size);
        }
        None => {
            let rec = store.get_record(&front.position)?;
            st.millis = rec.as_ref().map(|r| r.provenance.millis);
            st.nodes = rec.as_ref().map(|r| r.provenance.nodes);
            st.proof_size = rec.as_ref().map(|r| r.proof_size);
        }
    }
    Ok(st)
}

/// Whether `s` is one of the ballots barred as believed lost, whose
/// lines are expected to be decisive.
pub fn is_barred(s: &BallotStatus) -> bool {
    s.deck == crate::deck::DeckKind::Barred.name()
}

/// One ballot's status as `ballots status --json` writes it (one object
/// per line; keys in docs/json.txt): the [`BallotStatus`], its frontier's
/// value and label by name, the decisive ply and score apart, and the
/// open ply with the commands that attack it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusJson<'a> {
    /// The status.
    pub status: &'a BallotStatus,
    /// Where the walk stands, with the commands that attack it.
    pub open: Option<OpenJson>,
}

impl Serialize for StatusJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let s = self.status;
        let mut m = serializer.serialize_map(None)?;
        m.serialize_entry("number", &s.number)?;
        m.serialize_entry("moves", &s.moves)?;
        m.serialize_entry("name", &s.name)?;
        m.serialize_entry("deck", &s.deck)?;
        m.serialize_entry("line_plies", &s.line_plies)?;
        m.serialize_entry("last_ply", &s.last_ply)?;
        m.serialize_entry("frontier_ply", &s.frontier_ply)?;
        m.serialize_entry("frontier_pieces", &s.frontier_pieces)?;
        // The frontier position and its value (all null without one).
        m.serialize_entry("fen", &s.frontier_fen)?;
        m.serialize_entry("side_to_move", &s.to_move)?;
        m.serialize_entry("value", &s.value.map(Outcome::name))?;
        m.serialize_entry("label", &s.value.map(Outcome::label))?;
        m.serialize_entry("nodes", &s.nodes)?;
        m.serialize_entry("millis", &s.millis)?;
        m.serialize_entry("proof_size", &s.proof_size)?;
        m.serialize_entry("proved_plies", &s.proved_plies)?;
        m.serialize_entry("job_records", &s.job_records)?;
        m.serialize_entry("job_millis", &s.job_millis)?;
        m.serialize_entry("frontier_score", &s.frontier_score)?;
        m.serialize_entry("decisive_ply", &s.decisive.map(|d| d.ply))?;
        m.serialize_entry("decisive_score", &s.decisive.map(|d| d.score))?;
        m.serialize_entry("repairs", &s.repairs)?;
        m.serialize_entry("open", &self.open)?;
        m.end()
    }
}

/// The open ply and what to run next.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OpenJson {
    /// The open ply.
    #[serde(flatten)]
    pub ply: OpenPly,
    /// Commands that attack it ([`OpenPly::commands`]).
    pub next: [String; 2],
}

impl BallotStatus {
    /// The status as JSON; the commands name `store` and databases of
    /// `egdb_pieces` pieces unless the line's results say which.
    pub fn to_json(&self, store: &Path, egdb_pieces: u32) -> StatusJson<'_> {
        StatusJson {
            status: self,
            open: self.open.as_ref().map(|o| OpenJson {
                ply: o.clone(),
                next: o.commands(self.number, store, self.egdb_pieces.unwrap_or(egdb_pieces)),
            }),
        }
    }
}

/// The rows as JSON Lines: one [`StatusJson`] object per line.
pub fn to_json_lines(rows: &[BallotStatus], store: &Path, egdb_pieces: u32) -> String {
    rows.iter()
        .map(|r| serde_json::to_string(&r.to_json(store, egdb_pieces)).unwrap_or_default() + "\n")
        .collect()
}
