//! `/api/ballots` (the ballots of the store with their frontier) and
//! `/api/ballot/N` (one main line, ply by ply).

use super::error::ApiError;
use super::position::Board;
use super::value::KnownValue;
use super::Browser;
use ballots::deck::Ballot;
use ballots::report;
use ballots::score::men_text;
use ballots::show::PlyMove;
use ballots::tables::BallotTables;
use serde::Serialize;

/// The job record of one ply, as far as the page shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct JobView {
    /// `proved`, `partial`, `budget`, `running` or `error`.
    pub status: &'static str,
    /// Positions in the proof(s) it found.
    pub proof_size: u64,
    /// Nodes searched.
    pub nodes: u64,
    /// Time spent (ms).
    pub millis: u64,
}

/// One ply of a main line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlyView {
    /// The ply, its move, origin and score, as the line holds them.
    #[serde(flatten)]
    pub step: PlyMove,
    /// The score in men (`+0.30`, `White wins`), if stored.
    pub score_text: Option<String>,
    /// The position.
    #[serde(flatten)]
    pub board: Board,
    /// Its proved value or bound, for its side to move.
    pub value: KnownValue,
    /// The ballot job's record of this ply, if it has one.
    pub job: Option<JobView>,
}

/// The answer to `/api/ballot/N`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BallotView {
    /// ACF number.
    pub number: u32,
    /// The three moves.
    pub moves: String,
    /// Opening name, or empty.
    pub name: String,
    /// `deck144`, `added12` or `barred`.
    pub deck: &'static str,
    /// Plies by origin: published, archive, engine, repair.
    pub origins: [u32; 4],
    /// Whether the engine's scores flag the line decisive.
    pub verdict: String,
    /// Earliest ply whose value is exact, if any.
    pub frontier_ply: Option<u32>,
    /// Every ply of the main line, from ply 0.
    pub plies: Vec<PlyView>,
}

impl Browser {
    /// The deck's ballot `number`.
    fn ballot(&self, number: u32) -> Result<&Ballot, ApiError> {
        self.deck
            .get(number)
            .ok_or_else(|| ApiError::UnknownBallot {
                number,
                deck: self.deck.source().to_string(),
            })
    }

    /// The `/api/ballot/N` answer; `text` is the `N` of the path.
    pub fn ballot_line(&self, text: &str) -> Result<BallotView, ApiError> {
        let number: u32 = text
            .trim()
            .parse()
            .map_err(|_| ApiError::BadBallot(text.to_string()))?;
        let b = self.ballot(number)?;
        let Some(line) = ballots::show::line_state(&self.store, b)? else {
            return Err(ApiError::NoMainLine {
                number,
                store: self.store.path().display().to_string(),
            });
        };
        let mut plies = Vec::with_capacity(line.plies.len());
        for p in &line.plies {
            let (_, value) = self.value_of(&p.position)?;
            plies.push(PlyView {
                step: p.step.clone(),
                score_text: p.step.score.map(men_text),
                board: Board::of(&p.position),
                value,
                job: p.job.as_ref().map(|j| JobView {
                    status: j.status,
                    proof_size: j.proof_size,
                    nodes: j.effort.nodes,
                    millis: j.effort.millis,
                }),
            });
        }
        Ok(BallotView {
            number,
            moves: line.moves,
            name: b.name.clone(),
            deck: b.deck.name(),
            origins: line.summary.origins,
            verdict: line.verdict,
            // The frontier as the ballot list and the CLI name it
            // (ballots::frontier), not from the values shown per ply,
            // which the databases and the proof trees complete.
            frontier_ply: line.frontier_ply,
            plies,
        })
    }

    /// The `/api/ballots` answer: the store's ballots (those with a row
    /// or a main line) as `ballots status --json` gives them (with
    /// Chinook's label of the frontier value).
    pub fn ballot_list(&self) -> Result<serde_json::Value, ApiError> {
        let mut numbers: Vec<u32> = self.store.ballots()?.iter().map(|r| r.number).collect();
        numbers.extend(self.store.ballots_with_lines()?);
        numbers.sort_unstable();
        numbers.dedup();
        let chosen: Vec<&Ballot> = numbers.iter().filter_map(|&n| self.deck.get(n)).collect();
        let rows = report::status(&self.store, &chosen)?;
        let list: Vec<report::StatusJson> = rows
            .iter()
            .map(|r| r.to_json(self.store.path(), self.egdb_pieces))
            .collect();
        let json = serde_json::json!({
            "summary": crate::present::ballot_status::summary(&rows),
            "store": self.store.path().display().to_string(),
            "ballots": list,
        });
        Ok(json)
    }
}
