//! Where commands get their exact-value sources: the endgame databases
//! (built on first use) and, later, the proof store.

use engine::egdb::{default_dir, ensure};
use engine::{NoOracle, Oracle};
use std::sync::Arc;

/// The endgame databases up to `pieces` pieces as an [`Oracle`], built
/// first if missing (with progress bars) in the default folder
/// (`$CHECKERS_EGDB`, else `$HOME/.cache/checkers/egdb`). `0` means no
/// databases. Larger slices present in the folder are not used: a result
/// obtained with `--egdb-pieces N` depends on the N-piece databases only.
pub fn open_egdb(pieces: u32) -> anyhow::Result<Arc<dyn Oracle>> {
    if pieces == 0 {
        return Ok(Arc::new(NoOracle));
    }
    let dir = default_dir();
    let progress = crate::cmd::egdb::BarProgress::new();
    let mut db = ensure(&dir, pieces, &progress)?;
    db.limit_pieces(pieces);
    Ok(Arc::new(db))
}
