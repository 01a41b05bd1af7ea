//! `checkers pdn` (not built yet).

/// Arguments (none yet).
#[derive(clap::Args)]
pub struct Args {}

/// Not built yet: says so and fails.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`checkers pdn` is not built yet")
}
