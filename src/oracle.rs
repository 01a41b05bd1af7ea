//! Where commands get their exact-value sources: the endgame databases
//! (built on first use) and, later, the proof store.

use engine::{NoOracle, Oracle};
use std::sync::Arc;

#[allow(dead_code)] // used once the commands that take --egdb-pieces land
/// The endgame databases up to `pieces` pieces as an [`Oracle`], built
/// first if missing. `0` means no databases.
pub fn open_egdb(pieces: u32) -> anyhow::Result<Arc<dyn Oracle>> {
    if pieces == 0 {
        return Ok(Arc::new(NoOracle));
    }
    anyhow::bail!("endgame databases are not wired into the CLI yet (asked for {pieces} pieces)")
}
