//! How positions, outcomes and proof entries are written in the store's
//! columns, and the clock and host names it records.

use crate::outcome::Outcome;
use crate::proof::{LeafSource, ProofEntry, Question};
use engine::{Color, Move, Position, PositionError, Square};
use thiserror::Error;

/// Why a value read from one of the store's columns does not decode.
/// The store wraps it in [`StoreError::Corrupt`](crate::StoreError::Corrupt),
/// with the row it came from.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum DecodeError {
    /// A position key that is not 12 bytes.
    #[error("position key of {0} bytes, expected 12")]
    KeyLength(usize),
    /// A side-to-move column that is neither 0 nor 1.
    #[error("side to move {0}, expected 0 or 1")]
    Side(i64),
    /// The kings word has bits on squares no piece stands on.
    #[error("kings {0:#010x} on empty squares")]
    KingsOnEmpty(u32),
    /// The pieces do not make a legal position.
    #[error(transparent)]
    Position(#[from] PositionError),
    /// An outcome column that names no [`Outcome`].
    #[error("unknown outcome {0:?}")]
    Outcome(String),
    /// A question column that names no [`Question`].
    #[error("unknown question {0:?}")]
    Question(String),
    /// A prover entry's from or to square that is not 1-32 (or absent).
    #[error("bad move square {0:?}")]
    MoveSquare(Option<i64>),
    /// A prover entry's captured set that is not a 32-bit set (or absent).
    #[error("bad captured set {0:?}")]
    Captured(Option<i64>),
    /// A leaf entry whose source is not `terminal`, `egdb` or `store`.
    #[error("unknown leaf source {0:?}")]
    LeafSource(Option<String>),
    /// An entry kind other than `prover`, `opponent` or `leaf`.
    #[error("unknown proof entry kind {0:?}")]
    EntryKind(String),
}

/// The 12-byte key of a position's pieces: black, white, kings, each a
/// `u32` little-endian. The side to move is kept in its own column.
pub fn pos_key(pos: &Position) -> [u8; 12] {
    let (b, w, k, _) = pos.parts();
    let mut out = [0u8; 12];
    out[0..4].copy_from_slice(&b.to_le_bytes());
    out[4..8].copy_from_slice(&w.to_le_bytes());
    out[8..12].copy_from_slice(&k.to_le_bytes());
    out
}

/// The side-to-move column: 0 Black, 1 White.
pub fn stm_code(pos: &Position) -> i64 {
    pos.side_to_move() as u8 as i64
}

/// Rebuilds a position from its key and side column, checking every
/// invariant. `Err` says what is wrong.
pub fn decode_pos(key: &[u8], stm: i64) -> Result<Position, DecodeError> {
    if key.len() != 12 {
        return Err(DecodeError::KeyLength(key.len()));
    }
    let word = |i: usize| u32::from_le_bytes([key[i], key[i + 1], key[i + 2], key[i + 3]]);
    let side = match stm {
        0 => Color::Black,
        1 => Color::White,
        n => return Err(DecodeError::Side(n)),
    };
    let (black, white, kings) = (word(0), word(4), word(8));
    if kings & !(black | white) != 0 {
        return Err(DecodeError::KingsOnEmpty(kings));
    }
    let setup = engine::Setup {
        black_men: black & !kings,
        black_kings: black & kings,
        white_men: white & !kings,
        white_kings: white & kings,
        side: Some(side),
    };
    Ok(Position::from_setup(&setup)?)
}

/// Parses an outcome column.
pub fn decode_outcome(s: &str) -> Result<Outcome, DecodeError> {
    Outcome::from_name(s).ok_or_else(|| DecodeError::Outcome(s.to_string()))
}

/// The `question` column: `win`, `draw`, `notwin` or `loss`.
pub fn decode_question(s: &str) -> Result<Question, DecodeError> {
    Question::from_name(s).ok_or_else(|| DecodeError::Question(s.to_string()))
}

/// The columns of a proof entry: kind, from, to, captured, leaf.
pub type EntryColumns = (
    &'static str,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<&'static str>,
);

/// Splits a proof entry into its columns.
pub fn encode_entry(e: &ProofEntry) -> EntryColumns {
    match e {
        ProofEntry::Prover(m) => (
            "prover",
            Some(m.from().number() as i64),
            Some(m.to().number() as i64),
            Some(m.captured() as i64),
            None,
        ),
        ProofEntry::Opponent => ("opponent", None, None, None, None),
        ProofEntry::Leaf(src) => (
            "leaf",
            None,
            None,
            None,
            Some(match src {
                LeafSource::Terminal => "terminal",
                LeafSource::Egdb => "egdb",
                LeafSource::Store => "store",
            }),
        ),
    }
}

/// Rebuilds a proof entry from its columns.
pub fn decode_entry(
    kind: &str,
    from: Option<i64>,
    to: Option<i64>,
    captured: Option<i64>,
    leaf: Option<&str>,
) -> Result<ProofEntry, DecodeError> {
    match kind {
        "prover" => {
            let sq = |n: Option<i64>| {
                n.and_then(|n| u8::try_from(n).ok())
                    .and_then(Square::from_number)
                    .ok_or(DecodeError::MoveSquare(n))
            };
            let captured = captured
                .and_then(|c| u32::try_from(c).ok())
                .ok_or(DecodeError::Captured(captured))?;
            Ok(ProofEntry::Prover(Move::new(sq(from)?, sq(to)?, captured)))
        }
        "opponent" => Ok(ProofEntry::Opponent),
        "leaf" => Ok(ProofEntry::Leaf(match leaf {
            Some("terminal") => LeafSource::Terminal,
            Some("egdb") => LeafSource::Egdb,
            Some("store") => LeafSource::Store,
            other => return Err(DecodeError::LeafSource(other.map(str::to_string))),
        })),
        other => Err(DecodeError::EntryKind(other.to_string())),
    }
}

/// A count as an SQLite integer column holds it (saturating at
/// `i64::MAX`).
pub fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Seconds since the Unix epoch, now.
pub fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// The year, month (1-12) and day (1-31) of a day counted from the Unix
/// epoch (proleptic Gregorian; H. Hinnant's civil-from-days).
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// `YYYY-MM-DDTHH:MM:SSZ` for a Unix time (UTC, proleptic Gregorian).
pub fn iso8601(unix: i64) -> String {
    let days = unix.div_euclid(86_400);
    let secs = unix.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// This machine's name (from `/proc/sys/kernel/hostname`, `HOSTNAME`, or
/// `unknown`).
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_and_reject_garbage() {
        let p = engine::notation::fen::parse_fen("W:WK19,K23,30:B12,K28").unwrap();
        assert_eq!(decode_pos(&pos_key(&p), stm_code(&p)).unwrap(), p);
        let e = decode_pos(&[0u8; 11], 0).unwrap_err();
        assert_eq!(e, DecodeError::KeyLength(11));
        assert_eq!(e.to_string(), "position key of 11 bytes, expected 12");
        let e = decode_pos(&pos_key(&p), 2).unwrap_err();
        assert_eq!(e.to_string(), "side to move 2, expected 0 or 1");
        let mut bad = pos_key(&p);
        bad[8] |= 1; // a king on an empty square
        let e = decode_pos(&bad, 0).unwrap_err();
        assert!(matches!(e, DecodeError::KingsOnEmpty(_)), "{e:?}");
        assert!(e.to_string().ends_with(" on empty squares"), "{e}");
        assert_eq!(
            decode_outcome("maybe").unwrap_err().to_string(),
            "unknown outcome \"maybe\""
        );
        assert_eq!(
            decode_question("perhaps").unwrap_err().to_string(),
            "unknown question \"perhaps\""
        );
    }

    #[test]
    fn entries_round_trip() {
        let p = Position::initial();
        for m in p.moves().iter() {
            let e = ProofEntry::Prover(*m);
            let (k, f, t, c, l) = encode_entry(&e);
            assert_eq!(decode_entry(k, f, t, c, l).unwrap(), e);
        }
        for e in [
            ProofEntry::Opponent,
            ProofEntry::Leaf(LeafSource::Egdb),
            ProofEntry::Leaf(LeafSource::Terminal),
            ProofEntry::Leaf(LeafSource::Store),
        ] {
            let (k, f, t, c, l) = encode_entry(&e);
            assert_eq!(decode_entry(k, f, t, c, l).unwrap(), e);
        }
        let e = decode_entry("prover", Some(0), Some(5), Some(0), None).unwrap_err();
        assert_eq!(e.to_string(), "bad move square Some(0)");
        let e = decode_entry("prover", Some(1), Some(5), None, None).unwrap_err();
        assert_eq!(e.to_string(), "bad captured set None");
        let e = decode_entry("leaf", None, None, None, Some("book")).unwrap_err();
        assert_eq!(e.to_string(), "unknown leaf source Some(\"book\")");
        let e = decode_entry("twig", None, None, None, None).unwrap_err();
        assert_eq!(e.to_string(), "unknown proof entry kind \"twig\"");
    }

    #[test]
    fn dates() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso8601(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(iso8601(1_700_000_000), "2023-11-14T22:13:20Z");
    }
}
