//! The training data file of `checkers tune`: self-play games appended as
//! they finish, each a `#game N RESULT` line and then one `FEN<TAB>result`
//! line per quiet position (the result for Black: 1, 0.5 or 0), read back
//! to count the games already played (a run resumes) and to fit the
//! evaluation ([`super::tune`]).

use super::record::GameOutcome;
use super::tune::Sample;
use super::{read_line, TextFileError};
use crate::notation::fen::{parse_fen, to_fen, FenError};
use crate::Position;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why the training data file could not be read.
#[derive(Debug, Error)]
pub enum TrainingError {
    /// Not a regular file (a device such as /dev/zero never ends).
    #[error("{0}: not a regular file (a device, folder or pipe): refused")]
    NotRegular(PathBuf),
    /// It could not be read, or a line is not `FEN<TAB>result` (or is
    /// longer than [`super::MAX_LINE`]).
    #[error(transparent)]
    File(#[from] TextFileError),
}

/// What is wrong with a `FEN<TAB>result` line of the training data.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum PositionLineError {
    /// No tab between the FEN and the result.
    #[error("expected FEN<tab>result")]
    NoTab,
    /// The FEN does not read as a position.
    #[error(transparent)]
    Fen(#[from] FenError),
    /// The result is not a number.
    #[error("bad result {0:?}")]
    Result(String),
}

/// The text appended for game number `number`: its `#game` line, then the
/// quiet positions of `positions` past the first `skip` (the random
/// opening plies), each with the game's result for Black.
pub fn game_text(
    number: usize,
    outcome: GameOutcome,
    positions: &[Position],
    skip: usize,
) -> String {
    let r = match outcome {
        GameOutcome::BlackWins => "1",
        GameOutcome::WhiteWins => "0",
        _ => "0.5",
    };
    let mut text = format!("#game {number} {}\n", outcome.pdn());
    for p in positions.iter().skip(skip) {
        if !p.has_capture() && !p.is_terminal() {
            text.push_str(&format!("{}\t{r}\n", to_fen(p)));
        }
    }
    text
}

/// Number of games in the file `path` (0 when it does not exist yet).
pub fn count_games(path: &Path) -> Result<usize, TrainingError> {
    let mut games = 0;
    for_each_line(path, |_, line| {
        games += usize::from(line.starts_with("#game"));
        Ok(())
    })?;
    Ok(games)
}

/// One game of the file: its number, result and quiet positions.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainingGame {
    /// The game's number (its `#game` line).
    pub number: usize,
    /// The result for Black: 1, 0.5 or 0.
    pub black_result: f32,
    /// Its quiet positions, in the order played.
    pub positions: Vec<Position>,
}

/// Every game of the file `path`, sorted by number (games are appended in
/// the order they finish, which varies with the threads). A game is
/// read whole or not at all: its positions must all carry the same result.
pub fn read_games(path: &Path) -> Result<Vec<TrainingGame>, TrainingError> {
    let mut games: Vec<TrainingGame> = Vec::new();
    for_each_line(path, |n, line| {
        let bad = |detail: String| TextFileError::Line {
            path: path.to_path_buf(),
            line: n,
            detail,
        };
        if let Some(rest) = line.strip_prefix("#game ") {
            let number = rest
                .split_whitespace()
                .next()
                .and_then(|x| x.parse().ok())
                .ok_or_else(|| bad("expected `#game NUMBER RESULT`".into()))?;
            games.push(TrainingGame {
                number,
                black_result: 0.5,
                positions: Vec::new(),
            });
            return Ok(());
        }
        if line.starts_with('#') || line.trim().is_empty() {
            return Ok(());
        }
        let (pos, r) = position_line(line).map_err(|e| bad(e.to_string()))?;
        let g = games
            .last_mut()
            .ok_or_else(|| bad("a position before any `#game` line".into()))?;
        if !g.positions.is_empty() && g.black_result != r {
            return Err(bad(format!("result {r} differs within game {}", g.number)).into());
        }
        g.black_result = r;
        g.positions.push(pos);
        Ok(())
    })?;
    games.sort_by_key(|g| g.number);
    Ok(games)
}

/// A `FEN<tab>result` line of a positions file: the position and Black's
/// result, or what is wrong with it.
fn position_line(line: &str) -> Result<(crate::board::Position, f32), PositionLineError> {
    let (fen, r) = line.split_once('\t').ok_or(PositionLineError::NoTab)?;
    let pos = parse_fen(fen)?;
    let r: f32 = r
        .trim()
        .parse()
        .map_err(|_| PositionLineError::Result(r.to_string()))?;
    Ok((pos, r))
}

/// Every position of the file `path` with its result, as training samples.
pub fn read_samples(path: &Path) -> Result<Vec<Sample>, TrainingError> {
    let mut samples = Vec::new();
    for_each_line(path, |n, line| {
        if line.starts_with('#') || line.trim().is_empty() {
            return Ok(());
        }
        let bad = |detail: String| TextFileError::Line {
            path: path.to_path_buf(),
            line: n,
            detail,
        };
        let (pos, r) = position_line(line).map_err(|e| bad(e.to_string()))?;
        samples.push(Sample::new(&pos, r));
        Ok(())
    })?;
    Ok(samples)
}

/// Calls `each` with the number (from 1) and text of every line of
/// `path`, streamed; nothing when it does not exist. Only a regular file
/// is read, and a line longer than [`super::MAX_LINE`] is an error naming it.
fn for_each_line(
    path: &Path,
    mut each: impl FnMut(usize, &str) -> Result<(), TrainingError>,
) -> Result<(), TrainingError> {
    let io = |source| TextFileError::Io {
        path: path.to_path_buf(),
        source,
    };
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io(e).into()),
        Ok(m) if !m.is_file() => return Err(TrainingError::NotRegular(path.to_path_buf())),
        Ok(_) => {}
    }
    let mut input = std::io::BufReader::new(std::fs::File::open(path).map_err(io)?);
    let mut n = 0;
    while let Some(line) = read_line(&mut input).map_err(|e| TextFileError::Line {
        path: path.to_path_buf(),
        line: n + 1,
        detail: e.to_string(),
    })? {
        n += 1;
        each(n, &line)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_are_written_counted_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data.tsv");
        assert_eq!(count_games(&path).unwrap(), 0);
        let start = Position::initial();
        let next = start.play_unchecked(&start.moves().as_slice()[0]);
        let mut text = game_text(0, GameOutcome::BlackWins, &[start, next], 0);
        text += &game_text(1, GameOutcome::Draw, &[start, next], 1);
        assert_eq!(text.lines().filter(|l| l.ends_with("\t1")).count(), 2);
        assert_eq!(text.lines().filter(|l| l.ends_with("\t0.5")).count(), 1);
        std::fs::write(&path, &text).unwrap();
        assert_eq!(count_games(&path).unwrap(), 2);
        assert_eq!(read_samples(&path).unwrap().len(), 3);
        let games = read_games(&path).unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!((games[0].number, games[0].black_result), (0, 1.0));
        assert_eq!(games[0].positions, vec![start, next]);
        assert_eq!((games[1].number, games[1].black_result), (1, 0.5));
    }

    #[test]
    fn a_bad_line_or_a_folder_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data.tsv");
        std::fs::write(&path, "#game 0 1-0\nB:W21-32:B1-12\tmaybe\n").unwrap();
        let e = read_samples(&path).unwrap_err().to_string();
        assert!(e.contains("data.tsv:2: bad result"), "{e}");
        let e = count_games(dir.path()).unwrap_err().to_string();
        assert!(e.contains("not a regular file"), "{e}");
    }

    #[test]
    fn a_position_line_names_what_is_wrong() {
        let e = position_line("B:W21-32:B1-12").unwrap_err();
        assert_eq!(e.to_string(), "expected FEN<tab>result");
        let e = position_line("B:W21-32:B1-12\tmaybe").unwrap_err();
        assert_eq!(e, PositionLineError::Result("maybe".into()));
        assert_eq!(e.to_string(), "bad result \"maybe\"");
        assert!(matches!(
            position_line("X\t1"),
            Err(PositionLineError::Fen(_))
        ));
    }
}
