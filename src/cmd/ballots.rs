//! `checkers ballots` (not built yet).

/// Arguments (none yet).
#[derive(clap::Args)]
pub struct Args {}

/// Not built yet: says so and fails.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`checkers ballots` is not built yet")
}
