//! Reading the published trunk lines and the master-game archive into the
//! inputs of main-line construction.

use crate::line::{ArchiveGame, GameResult};
use engine::notation::pdn::{read_file, Game, PdnError};
use engine::{Move, Position};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Published trunk lines keyed by the position after their first three
/// moves (the ballot position), so a trunk is found whatever the ballot's
/// numbering. Games that do not replay legally are skipped and counted.
#[derive(Clone, Debug, Default)]
pub struct Trunks {
    /// Move sequences from the initial position, by ballot position.
    pub by_ballot: HashMap<Position, Vec<Move>>,
    /// Games that were skipped (illegal, or shorter than three moves).
    pub skipped: usize,
}

/// Reads trunk lines from already-read PDN games.
pub fn trunks_from_games(games: &[Game]) -> Trunks {
    let mut t = Trunks::default();
    for g in games {
        if !g.is_legal() || g.start != Position::initial() || g.moves.len() < 3 {
            t.skipped += 1;
            continue;
        }
        let ballot = g.positions()[3];
        t.by_ballot.entry(ballot).or_insert_with(|| g.moves.clone());
    }
    t
}

/// Reads trunk lines from a PDN file.
pub fn read_trunks(path: &Path) -> Result<Trunks, PdnError> {
    Ok(trunks_from_games(&read_file(path)?))
}

/// The archive games that replay legally from the initial position.
pub fn archive_from_games(games: &[Game]) -> Vec<ArchiveGame> {
    games
        .iter()
        .filter(|g| g.is_legal() && g.start == Position::initial())
        .map(|g| ArchiveGame {
            moves: g.moves.clone(),
            result: GameResult::from_pdn(g.result.as_deref().or(g.tag("Result"))),
        })
        .collect()
}

/// Reads an archive PDN file.
pub fn read_archive(path: &Path) -> Result<Vec<ArchiveGame>, PdnError> {
    Ok(archive_from_games(&read_file(path)?))
}

/// Finds the data file `name` (a path under the data folder, such as
/// `games/acf-archive.pdn`): under `$CHECKERS_DATA` when it is set, else
/// under `../shared/data` from the current directory, else from each
/// folder above the executable. `None` when it is nowhere.
pub fn find_data_file(name: &str) -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CHECKERS_DATA").filter(|d| !d.is_empty()) {
        let p = Path::new(&dir).join(name);
        return p.is_file().then_some(p);
    }
    let rel = Path::new("..").join("shared").join("data").join(name);
    if rel.is_file() {
        return Some(rel);
    }
    let exe = std::env::current_exe().ok()?;
    exe.ancestors()
        .skip(1)
        .map(|dir| dir.join(&rel))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/data")
            .join(name)
    }

    #[test]
    fn six_fortman_trunks_and_the_archive_load() {
        let t = read_trunks(&shared("fortman-trunks.pdn")).unwrap();
        assert_eq!(t.by_ballot.len(), 6);
        assert_eq!(t.skipped, 0);
        let games = read_archive(&shared("games/acf-archive.pdn")).unwrap();
        assert_eq!(games.len(), 9377);
        let draws = games
            .iter()
            .filter(|g| g.result == GameResult::Draw)
            .count();
        assert!(draws > 1000 && draws < 9377, "{draws} draws");
    }
}
