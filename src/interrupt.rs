//! SIGINT/SIGTERM handling for long runs: the first signal sets a flag that
//! the run polls, so it commits what is done and exits resumable; a second
//! signal ends the process at once.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Installs the handlers and returns the flag the first signal sets.
pub fn stop_flag() -> anyhow::Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // Order matters: the conditional shutdown sees the flag before the
        // first signal sets it, so only a second signal exits.
        signal_hook::flag::register_conditional_shutdown(sig, 130, Arc::clone(&flag))?;
        signal_hook::flag::register(sig, Arc::clone(&flag))?;
    }
    Ok(flag)
}
