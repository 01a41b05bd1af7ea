//! Where commands get their exact-value sources: the endgame databases
//! (built on first use), of one size or of each size a store's proofs
//! recorded, and for the engine commands (`bestmove`, `play`, `hub`,
//! `match`) a proof store's proved results beside them
//! ([`open_proved`], used through [`solver::proved`]).

use engine::egdb::reach::reachable_slices;
use engine::egdb::slice::slices_with;
use engine::egdb::{default_dir, ensure, ensure_reachable, Egdb};
use engine::{NoOracle, Oracle, Position};
use std::sync::Arc;

/// Memory for tables decoded at open (MiB) when `CHECKERS_EGDB_MEMORY`
/// does not say: every table of up to 5 pieces and the smallest of 6.
/// Decoding all of 6 pieces costs seconds at every start for a few
/// percent of solver speed: worth it for long runs, which ask for it
/// (figures in docs/measurements.md).
const DEFAULT_UNPACK_MIB: u64 = 64;

/// Which slices of the largest piece count a command needs.
#[derive(Clone, Copy, Debug)]
pub enum Needs<'a> {
    /// All of them: the positions are not known in advance (a game, a
    /// batch, the ballots).
    All,
    /// Those that games from these positions may enter
    /// ([`engine::egdb::reach`]): a search from one position never probes
    /// another slice, so a 9-piece king ending with `--egdb-pieces 7`
    /// builds 2 slices of 7 pieces instead of 1,491.
    From(&'a [Position]),
}

/// The endgame databases up to `pieces` pieces as an [`Oracle`], those
/// of the largest piece count that `needs` says built first if missing
/// (with progress bars; not with `CHECKERS_EGDB_BUILD=no`, see
/// [`build_missing`]) in the default folder
/// (`$CHECKERS_EGDB`, else `$HOME/.cache/checkers/egdb`). `0` means no
/// databases. Larger slices present in the folder are not used: a result
/// obtained with `--egdb-pieces N` depends on the N-piece databases only.
///
/// Tables are then decoded into memory, smallest piece counts first, up
/// to `$CHECKERS_EGDB_MEMORY` MiB (default 64; 0 decodes none): their
/// probes read one byte instead of a compressed block.
pub fn open_egdb(pieces: u32, needs: Needs) -> anyhow::Result<Arc<dyn Oracle>> {
    open_egdb_with(pieces, needs, &crate::progress::BarProgress::new(), true)
}

/// [`open_egdb`] writing nothing at all, neither progress nor warnings:
/// for the Hub protocol, whose drivers may read the standard error as
/// the protocol channel (pydraughts does).
pub fn open_egdb_quiet(pieces: u32, needs: Needs) -> anyhow::Result<Arc<dyn Oracle>> {
    open_egdb_with(pieces, needs, &engine::egdb::build::NoProgress, false)
}

fn open_egdb_with(
    pieces: u32,
    needs: Needs,
    progress: &dyn engine::egdb::build::BuildProgress,
    warn: bool,
) -> anyhow::Result<Arc<dyn Oracle>> {
    if pieces == 0 {
        return Ok(Arc::new(NoOracle));
    }
    let budget = unpack_budget()?;
    let build = build_missing()?;
    let dir = default_dir();
    // Looked up only for a build (it reads the control group's files).
    let memory = || crate::limits::build_memory_limit(None, None);
    let mut db = match (build, needs) {
        (true, Needs::All) => ensure(&dir, pieces, progress, &memory())?,
        (true, Needs::From(positions)) => {
            ensure_reachable(&dir, positions, pieces, progress, &memory())?
        }
        (false, _) => Egdb::open(&dir)?,
    };
    db.limit_pieces(pieces);
    if !build {
        // What a search may probe: with `From`, the reachable slices of
        // every size (a build needs all of the smaller sizes; a search
        // only those).
        let missing = (2..=pieces)
            .flat_map(|n| match needs {
                Needs::All => slices_with(n),
                Needs::From(positions) => reachable_slices(positions, n),
            })
            .filter(|s| !db.has(s))
            .count();
        if missing > 0 && warn {
            eprintln!(
                "{}: {missing} slices of up to {pieces} pieces that the searches may need are not built \
                 (CHECKERS_EGDB_BUILD=no): their positions are unknown to the searches",
                dir.display()
            );
        }
    }
    db.unpack(budget)?;
    Ok(Arc::new(db))
}

/// Whether missing slices are built before use: `$CHECKERS_EGDB_BUILD`
/// is `missing` (the default) or `no`. With `no`, the slices present are
/// used as they are and a missing one is unknown to every search (sound:
/// an unknown leaf never proves anything): for a folder whose larger
/// piece count is still being built, here or slice by slice on a cluster
/// (`egdb build --slice`).
pub fn build_missing() -> anyhow::Result<bool> {
    match std::env::var("CHECKERS_EGDB_BUILD") {
        Err(std::env::VarError::NotPresent) => Ok(true),
        Ok(v) if v == "missing" => Ok(true),
        Ok(v) if v == "no" => Ok(false),
        Ok(v) => anyhow::bail!("CHECKERS_EGDB_BUILD={v:?}: expected `missing` or `no`"),
        Err(e) => anyhow::bail!("CHECKERS_EGDB_BUILD: {e}"),
    }
}

/// Bytes of `$CHECKERS_EGDB_MEMORY` (given in MiB).
fn unpack_budget() -> anyhow::Result<u64> {
    match std::env::var("CHECKERS_EGDB_MEMORY") {
        Err(std::env::VarError::NotPresent) => Ok(DEFAULT_UNPACK_MIB << 20),
        Ok(v) => match v.trim().parse::<u64>() {
            Ok(mib) if mib <= u64::MAX >> 20 => Ok(mib << 20),
            _ => anyhow::bail!("CHECKERS_EGDB_MEMORY={v:?}: expected a number of MiB"),
        },
        Err(e) => anyhow::bail!("CHECKERS_EGDB_MEMORY: {e}"),
    }
}

/// The databases of each size that a proof store's trees and database
/// values recorded, opened once each: every stored proof is checked with
/// the databases it was verified with.
pub struct OraclesBySize {
    by_size: std::collections::BTreeMap<u32, Arc<dyn Oracle>>,
}

impl OraclesBySize {
    /// Opens the databases of every size that `store` recorded, of each
    /// size those slices that games from the positions recorded with it
    /// may enter ([`solver::storecheck::roots_by_size`]): a store whose
    /// runs settled a few positions one piece above their databases
    /// needs a few slices of that size, not the whole set.
    pub fn for_store(store: &proofdb::Store) -> anyhow::Result<OraclesBySize> {
        let mut by_size = std::collections::BTreeMap::new();
        for (n, roots) in solver::storecheck::roots_by_size(store)? {
            by_size.insert(n, open_egdb(n, Needs::From(&roots))?);
        }
        Ok(OraclesBySize { by_size })
    }

    /// Opens the databases of each of `sizes` (pieces), once each.
    pub fn open(sizes: impl IntoIterator<Item = u32>) -> anyhow::Result<OraclesBySize> {
        let mut by_size = std::collections::BTreeMap::new();
        for n in sizes {
            if let std::collections::btree_map::Entry::Vacant(slot) = by_size.entry(n) {
                slot.insert(open_egdb(n, Needs::All)?);
            }
        }
        Ok(OraclesBySize { by_size })
    }
}

impl solver::storecheck::OracleBySize for OraclesBySize {
    fn up_to(&self, pieces: u32) -> Result<&dyn Oracle, solver::storecheck::OracleBySizeError> {
        self.by_size
            .get(&pieces)
            .map(|o| o.as_ref())
            .ok_or(solver::storecheck::OracleBySizeError::NotOpened(pieces))
    }
}

/// A proof store opened read-only for play, with its proved results
/// loaded (the rows it trusts and the positions inside their proofs).
pub struct ProvedStore {
    /// The store, for its proof trees.
    pub store: proofdb::Store,
    /// Its proved results.
    pub results: proofdb::ResultCache,
}

/// Opens the proof store `path` read-only (it is never written) and
/// loads its proved results; a missing file or one that is not a store is
/// an error naming it.
pub fn open_proved(path: &std::path::Path) -> anyhow::Result<ProvedStore> {
    anyhow::ensure!(path.exists(), "no proof store at {}", path.display());
    let store = proofdb::Store::open_readonly(path)?;
    let results = proofdb::ResultCache::load(&store)?;
    Ok(ProvedStore { store, results })
}
