//! Settling the lines' positions of one piece more than the databases:
//! before a walk, `ballots run` builds the slices of that size that
//! games from those positions may enter (what `egdb build --for` builds),
//! when the build's estimate is within `--settle-limit`. The walk then
//! finds those positions, and every position of their games, in the
//! databases, so the plies one piece above the run's databases are
//! settled exactly by a lookup instead of resisting df-pn's budget (a
//! king ending of 6 pieces that stays open for minutes with 5-piece
//! databases is a draw by the 6-piece ones).

use engine::egdb::build::{estimated_seconds, human_count, human_duration, to_build_for};
use engine::egdb::reach::reachable_slices;
use engine::egdb::slice::SliceKey;
use engine::egdb::{default_dir, Egdb};
use engine::Position;

/// Default of `--settle-limit`, in estimated seconds of wall time on all
/// cores ([`estimated_seconds`]): room for the 6-piece slices that a
/// few lines reach (the quick start's four lines: 157 slices, 920 M
/// positions, estimated at about a minute on 2 cores and built in 173 s
/// of wall time on a loaded 2-core machine), not for a 7-piece set.
pub const SETTLE_LIMIT_SECONDS: u64 = 300;

/// What settling the positions one piece above the databases needs.
#[derive(Debug)]
pub struct SettlePlan {
    /// The piece count settled: the run's databases' and one more.
    pub pieces: u32,
    /// The lines' positions of exactly that many pieces.
    pub positions: Vec<Position>,
    /// The slices of that size their games may enter.
    pub slices: Vec<SliceKey>,
    /// The slices a build of them builds: those missing, and those
    /// missing of the slices of that size they read.
    pub missing: Vec<SliceKey>,
}

impl SettlePlan {
    /// The plan for the positions of `line_positions` with one piece more
    /// than `egdb_pieces`, given what `db` holds; `None` when there are
    /// none, or the size is past what the databases can be built to.
    pub fn new(line_positions: &[Position], egdb_pieces: u32, db: &Egdb) -> Option<SettlePlan> {
        let pieces = egdb_pieces + 1;
        if egdb_pieces < 2 || pieces > engine::egdb::index::MAX_PIECES {
            return None;
        }
        let positions: Vec<Position> = line_positions
            .iter()
            .copied()
            .filter(|p| p.piece_count() == pieces)
            .collect();
        if positions.is_empty() {
            return None;
        }
        let slices = reachable_slices(&positions, pieces);
        let missing = to_build_for(db, pieces, &slices);
        Some(SettlePlan {
            pieces,
            positions,
            slices,
            missing,
        })
    }

    /// About how many wall seconds building the missing slices takes on
    /// `threads` threads.
    pub fn seconds(&self, threads: usize) -> f64 {
        estimated_seconds(&self.missing, threads)
    }

    /// What the plan builds, said before it does: positions, slices, the
    /// estimate.
    pub fn describe(&self, threads: usize) -> String {
        let positions: u64 = self.missing.iter().map(|s| s.positions()).sum();
        format!(
            "the lines' {} position(s) of {} pieces may reach {} slices of that size; {} slices to \
             build with those they read ({} positions, {} on {threads} thread(s))",
            self.positions.len(),
            self.pieces,
            self.slices.len(),
            self.missing.len(),
            human_count(positions),
            human_duration(self.seconds(threads)),
        )
    }
}

/// The plan for `line_positions` against the databases in the default
/// folder (`$CHECKERS_EGDB`, else the cache).
pub fn plan(line_positions: &[Position], egdb_pieces: u32) -> anyhow::Result<Option<SettlePlan>> {
    let dir = default_dir();
    let db = if dir.exists() {
        Egdb::open(&dir)?
    } else {
        Egdb::empty(&dir)
    };
    Ok(SettlePlan::new(line_positions, egdb_pieces, &db))
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::notation::fen::parse_fen;

    /// The plan keeps only the positions one piece above the databases,
    /// names the slices they reach, and counts as missing those a folder
    /// lacks; nothing to settle gives no plan.
    #[test]
    fn a_plan_takes_the_positions_one_piece_above() {
        let six = parse_fen("B:WK10,K30,32:BK1,12,28").unwrap();
        let five = parse_fen("B:WK10,K30:BK1,12,28").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let db = Egdb::empty(dir.path());
        let p = SettlePlan::new(&[six, five], 5, &db).unwrap();
        assert_eq!(p.pieces, 6);
        assert_eq!(p.positions, vec![six]);
        assert_eq!(p.slices, reachable_slices(&[six], 6));
        assert!(!p.slices.is_empty());
        assert!(p.slices.iter().all(|s| p.missing.contains(s)));
        assert!(p.missing.len() >= p.slices.len());
        assert!(p.seconds(1) > p.seconds(2));
        assert!(p.describe(2).contains(&format!(
            "may reach {} slices of that size; {} slices to build",
            p.slices.len(),
            p.missing.len()
        )));
        assert!(SettlePlan::new(&[five], 5, &db).is_none());
        assert!(SettlePlan::new(&[six], 8, &db).is_none());
    }
}
