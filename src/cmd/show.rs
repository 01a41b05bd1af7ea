//! `checkers show` (not built yet).

/// Arguments (none yet).
#[derive(clap::Args)]
pub struct Args {}

/// Not built yet: says so and fails.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`checkers show` is not built yet")
}
