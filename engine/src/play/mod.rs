//! Playing games: the opening book of proved positions ([`book`]), the
//! game record and its PDN text ([`record`]), the
//! Hub protocol's text ([`hub`]), players that choose moves and the
//! referee that plays a game between two of them ([`referee`]), another
//! engine over a pipe ([`hub_player`]), the Elo estimate of a match
//! ([`elo`]), the time the players took ([`timing`]) and the fitting of
//! the evaluation weights to self-play outcomes ([`tune`], and the learned
//! evaluation's [`learn`]) kept in a training data file ([`training`]).
//! The command line's `play`, `hub`, `match`, `tune` and `train` are thin
//! shells over these.

pub mod book;
pub mod elo;
pub mod hub;
pub mod hub_player;
pub mod learn;
pub mod record;
pub mod referee;
pub mod schedule;
pub mod timing;
pub mod training;
pub mod tune;

use std::path::PathBuf;
use std::time::Duration;
use thiserror::Error;

pub use record::{GameOutcome, GameRecord};

/// Why a text file of these modules, one record a line (an opening book,
/// the training data), could not be read or written.
#[derive(Debug, Error)]
pub enum TextFileError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A line that is not a record of the file's kind.
    #[error("{path}:{line}: {detail}")]
    Line {
        /// The file.
        path: PathBuf,
        /// Its line number (from 1).
        line: usize,
        /// What is wrong.
        detail: String,
    },
}

/// Longest duration a game-playing command takes: 365 days, in seconds.
/// Past it a number of seconds is a mistake (and `1e30` does not fit a
/// [`Duration`]).
pub const MAX_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

/// The duration of `secs` seconds, clamped into 0 to [`MAX_SECONDS`]
/// (`NaN` is zero): never a panic.
pub fn duration_of_secs(secs: f64) -> Duration {
    let s = if secs.is_nan() { 0.0 } else { secs };
    Duration::from_secs_f64(s.clamp(0.0, MAX_SECONDS))
}

/// Longest line read from an interactive input (the Hub protocol, a
/// game on the terminal): 64 KiB, far more than any command needs.
pub const MAX_LINE: usize = 1 << 16;

/// The next line of `input` without its line end, `None` at the end; a
/// line longer than [`MAX_LINE`] bytes (binary data, `/dev/zero`) is an
/// error of kind `InvalidData`, read no further than the limit, so that
/// such an input never fills the memory.
pub fn read_line(input: &mut impl std::io::BufRead) -> std::io::Result<Option<String>> {
    use std::io::{BufRead, Read};
    let mut buf = Vec::new();
    let n = (&mut *input)
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', &mut buf)?;
    if n == 0 {
        return Ok(None);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
    } else if buf.len() > MAX_LINE {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("an input line longer than {MAX_LINE} bytes"),
        ));
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(Some(String::from_utf8_lossy(&buf).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_past_the_limit_is_refused_unread() {
        let mut text: &[u8] = b"hub\r\ninit\nlast";
        assert_eq!(read_line(&mut text).unwrap().as_deref(), Some("hub"));
        assert_eq!(read_line(&mut text).unwrap().as_deref(), Some("init"));
        assert_eq!(read_line(&mut text).unwrap().as_deref(), Some("last"));
        assert_eq!(read_line(&mut text).unwrap(), None);
        let mut zeros = std::io::BufReader::new(std::io::repeat(0));
        let e = read_line(&mut zeros).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
    }

    #[test]
    fn durations_are_clamped_never_a_panic() {
        assert_eq!(duration_of_secs(1e30), Duration::from_secs_f64(MAX_SECONDS));
        assert_eq!(duration_of_secs(f64::NAN), Duration::ZERO);
        assert_eq!(duration_of_secs(-1.0), Duration::ZERO);
        assert_eq!(duration_of_secs(1.5), Duration::from_millis(1500));
    }
}
