//! What `ballots run` and `ballots lines` share: the ballots chosen
//! (`--ballot`, `--deck`), how a main line is built and repaired
//! (`--line-depth`, `--repair-depth`), and the trunks and archive it
//! follows.

use anyhow::Context;
use ballots::deck::{Ballot, Deck, Selection};
use ballots::extend::ExtendLimits;
use ballots::plan::{build_line, main_line, LineSources};
use ballots::repair::{LineRepair, RepairLimits};
use ballots::sources::{archive_from_games, find_data_file, trunks_from_games};
use engine::notation::pdn::{read_file, Game};
use engine::search::{Limits, Searcher};
use engine::Oracle;
use proofdb::{ResultCache, Store};
use solver::proved::ProvedOracle;
use std::path::PathBuf;

/// The ballots run when neither `--ballot` nor `--deck` is given: a small
/// default for a first run.
pub const DEFAULT_BALLOTS: [u32; 4] = [1, 2, 3, 4];

/// Which ballots `ballots run` and `ballots lines` take.
#[derive(clap::Args, Debug)]
pub struct ChosenBallots {
    /// These ballots (ACF numbers). Without it and without --deck:
    /// ballots 1-4.
    #[arg(long = "ballot", value_name = "N", num_args = 1.., conflicts_with = "deck")]
    pub ballots: Vec<u32>,
    /// A whole deck: all (174), 156, 144, barred.
    #[arg(long, value_name = "all|156|144|barred")]
    pub deck: Option<Selection>,
    /// Ballot table (default: as for `ballots list`).
    #[arg(long, value_name = "FILE")]
    pub ballots_file: Option<PathBuf>,
}

impl ChosenBallots {
    /// The ballot table.
    pub fn deck(&self) -> anyhow::Result<Deck> {
        Ok(Deck::locate(self.ballots_file.as_deref())?)
    }

    /// The ballots of `deck` chosen: `--deck`, else `--ballot`, else
    /// [`DEFAULT_BALLOTS`]; a number the deck lacks is an error naming it.
    pub fn choose<'d>(&self, deck: &'d Deck) -> anyhow::Result<Vec<&'d Ballot>> {
        if let Some(sel) = self.deck {
            return Ok(deck.select(sel));
        }
        let numbers: Vec<u32> = if self.ballots.is_empty() {
            DEFAULT_BALLOTS.to_vec()
        } else {
            self.ballots.clone()
        };
        numbers
            .iter()
            .map(|&n| {
                deck.get(n)
                    .with_context(|| format!("no ballot {n} in {}", deck.source()))
            })
            .collect()
    }
}

/// How main lines are built and repaired (`ballots run` and `ballots
/// lines`).
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct LineBuild {
    /// Depth of the engine's search for each move it adds to a main line
    /// and for the score of each of its positions (1 to 100).
    #[arg(long, default_value_t = 14, value_parser = crate::limits::depth)]
    pub line_depth: u32,
    /// Depth of the searches that repair a line: each move that loses a
    /// man or more by the line's scores, and the same side's three moves
    /// before it, are searched again this deep (with the databases and
    /// the store's proved results), and a move that keeps the balance
    /// replaces it (origin `repair`); published moves are never replaced.
    /// A line still decisive in the engine's own moves has them played
    /// again this deep, each search within 16 M nodes (its deepest
    /// finished iteration kept). Default: --line-depth + 4; 0: no repair.
    #[arg(long, value_name = "PLIES", value_parser = crate::limits::repair_depth)]
    pub repair_depth: Option<u32>,
}

impl LineBuild {
    /// The repair's limits.
    pub fn repair(&self) -> RepairLimits {
        match self.repair_depth {
            Some(0) => RepairLimits::none(),
            Some(depth) => RepairLimits::at_depth(depth),
            None => RepairLimits::at_depth(
                (self.line_depth + RepairLimits::EXTRA_DEPTH).min(crate::limits::MAX_DEPTH),
            ),
        }
    }
}

/// The store's proved results for the searches that repair lines, read
/// from the store the first time a line is built (a run whose lines are
/// all stored never reads them).
pub struct RepairResults<'a> {
    store: &'a Store,
    loaded: std::sync::OnceLock<ResultCache>,
}

impl<'a> RepairResults<'a> {
    /// The results of `store`, not read yet.
    pub fn new(store: &'a Store) -> RepairResults<'a> {
        RepairResults {
            store,
            loaded: std::sync::OnceLock::new(),
        }
    }

    /// The results, read now if they were not (a read that fails is
    /// tried again by the next call).
    pub fn get(&self) -> Result<&ResultCache, proofdb::StoreError> {
        if let Some(r) = self.loaded.get() {
            return Ok(r);
        }
        let read = ResultCache::load(self.store)?;
        Ok(self.loaded.get_or_init(|| read))
    }
}

/// How main lines are built where the store has none: from the trunks
/// and the archive, extended by the engine with the databases of
/// `egdb_pieces` pieces, then repaired.
#[derive(Clone, Copy)]
pub struct LineMaker<'a> {
    /// The trunks and the archive.
    pub sources: &'a LineSources,
    /// How far the engine extends a line.
    pub limits: &'a ExtendLimits,
    /// How a line is repaired.
    pub repair: RepairLimits,
    /// The store's proved results that repair consults.
    pub results: &'a RepairResults<'a>,
    /// The size of the databases `oracle` holds.
    pub egdb_pieces: u32,
}

impl LineMaker<'_> {
    /// The main line of `ballot` as `store` holds it, else built with the
    /// databases `oracle`, repaired, and stored.
    pub fn line(
        &self,
        store: &Store,
        ballot: &Ballot,
        oracle: &dyn Oracle,
    ) -> anyhow::Result<ballots::line::MainLine> {
        let mut searcher = Searcher::full_width(16);
        main_line(store, ballot, || self.build(ballot, &mut searcher, oracle))
            .with_context(|| format!("ballot {}: main line", ballot.number))
    }

    /// Builds the main line of `ballot` (`plan::build_line`) with the
    /// databases `oracle`, repaired over them and the store's proved
    /// results.
    fn build(
        &self,
        ballot: &Ballot,
        searcher: &mut Searcher,
        oracle: &dyn Oracle,
    ) -> Result<ballots::line::MainLine, ballots::plan::PlanError> {
        let proved = ProvedOracle::new(oracle, self.egdb_pieces, self.results.get()?);
        let repair = self.repair_over(&proved);
        build_line(ballot, self.sources, searcher, oracle, self.limits, &repair)
    }

    /// Repairs `line`, already built and scored (`plan::repair_built`),
    /// with the databases `oracle` and the store's proved results.
    pub fn repair(
        &self,
        line: &mut ballots::line::MainLine,
        oracle: &dyn Oracle,
    ) -> Result<ballots::repair::RepairCount, proofdb::StoreError> {
        let proved = ProvedOracle::new(oracle, self.egdb_pieces, self.results.get()?);
        let mut searcher = Searcher::full_width(16);
        Ok(ballots::plan::repair_built(
            line,
            &mut searcher,
            oracle,
            self.limits,
            &self.repair_over(&proved),
        ))
    }

    /// The line repair, its searches probing `proved`.
    fn repair_over<'o>(&self, proved: &'o ProvedOracle<'o>) -> LineRepair<'o> {
        LineRepair {
            limits: self.repair,
            oracle: proved,
        }
    }
}

/// How far the engine extends a main line for a run with databases of
/// `egdb_pieces` pieces, searching each move to `depth`.
pub fn line_limits(egdb_pieces: u32, depth: u32) -> ExtendLimits {
    ExtendLimits {
        per_move: Limits {
            depth: Some(depth),
            ..Limits::default()
        },
        max_plies: 400,
        settle_pieces: egdb_pieces,
        quiet_plies: ExtendLimits::QUIET_PLIES,
        shuffle_pieces: egdb_pieces + 1,
        avoid_repeats: true,
    }
}

/// The published trunks (`trunks`, else fortman-trunks.pdn in the data
/// folder) and the master-game archive (`archive`, else
/// games/acf-archive.pdn) that main lines follow; a missing default file
/// is a warning, a missing or bad explicit file an error.
pub fn line_sources(
    trunks: Option<&std::path::Path>,
    archive: Option<&std::path::Path>,
) -> anyhow::Result<LineSources> {
    let mut sources = LineSources::default();
    match trunks
        .map(PathBuf::from)
        .or_else(|| find_data_file("fortman-trunks.pdn"))
    {
        Some(p) => {
            let games = read_file(&p).with_context(|| format!("reading trunks {}", p.display()))?;
            sources.trunks = trunks_from_games(&games);
            usable(&p, &games, sources.trunks.by_ballot.len(), "trunks")?;
        }
        None => eprintln!("checkers: no fortman-trunks.pdn found; main lines without trunks"),
    }
    match archive
        .map(PathBuf::from)
        .or_else(|| find_data_file("games/acf-archive.pdn"))
    {
        Some(p) => {
            let games =
                read_file(&p).with_context(|| format!("reading archive {}", p.display()))?;
            sources.archive = archive_from_games(&games);
            usable(&p, &games, sources.archive.len(), "archive")?;
        }
        None => eprintln!("checkers: no games/acf-archive.pdn found; main lines without archive"),
    }
    Ok(sources)
}

/// Says how many of the games of `path` (the trunks or the archive) were
/// skipped, for not replaying legally from the initial position (the
/// first reason given); none usable is an error.
fn usable(path: &std::path::Path, games: &[Game], used: usize, what: &str) -> anyhow::Result<()> {
    let illegal = games.iter().filter(|g| !g.is_legal()).count();
    let first = games
        .iter()
        .find_map(|g| {
            g.error
                .as_ref()
                .map(|e| format!(" (game {}: {e})", g.number))
        })
        .unwrap_or_default();
    anyhow::ensure!(
        used > 0,
        "{what} {}: none of its {} games gives a line from the initial position \
         ({illegal} do not replay{first})",
        path.display(),
        games.len()
    );
    if illegal > 0 {
        eprintln!(
            "checkers: {what} {}: {illegal} of {} games do not replay and are skipped{first}",
            path.display(),
            games.len()
        );
    }
    Ok(())
}
