//! The rows of the ballot job's tables: ballots, main-line plies, and the
//! record of what the job did at each ply.
//!
//! Plies count from the start of the game: ply `p` is the position after
//! `p` moves (ply 3 is the ballot's position), and its `move` is the move
//! that reached it (empty at ply 0).

use engine::Position;
use proofdb::Outcome;

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
