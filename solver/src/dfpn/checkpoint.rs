//! A df-pn search's tables on disk, so that a long search survives being
//! stopped or killed and goes on where it was (`checkers solve
//! --checkpoint FILE`).
//!
//! df-pn keeps all it knows in its tables: a search restarted from the
//! root with them follows the proof and disproof numbers back to where it
//! left off. A checkpoint therefore holds the tables and the node count,
//! nothing of the recursion. What it holds needs no trust: a settled entry
//! is a fact about its position (or marked as held on trust, which a
//! search checks before it answers), an open one only steers the search,
//! and every proof is extracted and verified anew.
//!
//! The file (little-endian; docs/checkpoint-format.txt says more):
//!
//! ```text
//! magic "CKDFPNCP", version u32, context length u32, context (UTF-8),
//! nodes u64, entries u64, looped entries u64, slots u64, looped slots u64,
//! entries:  black u32, white u32, kings u32, flags u8,
//!           phi u32, delta u32, work u32, best u8           (26 bytes)
//! looped:   black u32, white u32, kings u32, flags u8,
//!           status u8, best u8                               (15 bytes)
//! checksum u64 of every byte before it
//! ```
//!
//! The slots are the sizes of the tables written (powers of two): the
//! entries, written in the order of their slots, are read back into
//! tables of the same size, where each lands where it was.
//! `flags`: bit 0 White to move, bit 1 the threshold is a win. `best`:
//! the move's place in the position's legal move list, 255 for none.
//! `status`: 0 success, 1 failure, 2 unknown. The context names what the tables were
//! searched for (the root and the databases); a checkpoint is only read
//! back for the same one. Writes go to a temporary file that is synced
//! and renamed over the old checkpoint, so a kill during a write leaves
//! the previous checkpoint whole.

use super::{Dfpn, Entry, Looped};
use crate::question::Status;
use crate::table::{Key, MoveSlot};
use engine::durable::replace_file;
use engine::egdb::file::Checksum;
use engine::{Color, Move, MoveList, Position, PositionError};
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The first bytes of a checkpoint.
const MAGIC: &[u8; 8] = b"CKDFPNCP";
/// The format version written and read.
pub const VERSION: u32 = 1;
/// [`Entry`] record bytes.
const ENTRY_BYTES: usize = 26;
/// [`Looped`] record bytes.
const LOOPED_BYTES: usize = 15;
/// `best` of a record without a move.
const NO_MOVE: u8 = u8::MAX;
/// Most slots a table read back may have (a file claiming more is
/// refused rather than allocated).
const MAX_SLOTS: u64 = 1 << 34;
/// Bytes buffered before they are hashed and written.
const CHUNK: usize = 1 << 20;

/// Why a checkpoint could not be written or read back.
#[derive(Debug, Error)]
pub enum CheckpointError {
    /// The file system refused.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file does not start as a checkpoint does.
    #[error(
        "{path}: not a df-pn checkpoint (it does not start with \"{}\")",
        String::from_utf8_lossy(MAGIC)
    )]
    NotCheckpoint {
        /// The file.
        path: PathBuf,
    },
    /// Another version of the format.
    #[error("{path}: checkpoint version {found}, this program reads version {VERSION}")]
    Version {
        /// The file.
        path: PathBuf,
        /// Its version.
        found: u32,
    },
    /// The file ends early.
    #[error("{path}: truncated (it ends inside {inside})")]
    Truncated {
        /// The file.
        path: PathBuf,
        /// The part it ends in.
        inside: &'static str,
    },
    /// The bytes are not the ones written.
    #[error("{path}: checksum mismatch: the file is corrupt")]
    Checksum {
        /// The file.
        path: PathBuf,
    },
    /// A header that no search writes (the checksum held).
    #[error("{path}: header: {what}")]
    Header {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// A record that no search writes (the checksum held).
    #[error("{path}: record {record}: {what}")]
    Record {
        /// The file.
        path: PathBuf,
        /// Its number (entries first, then looped entries).
        record: u64,
        /// What is wrong.
        what: RecordError,
    },
    /// Written for another search.
    #[error("{path}: written for {found}, not for {wanted}")]
    OtherSearch {
        /// The file.
        path: PathBuf,
        /// Its context.
        found: String,
        /// This search's.
        wanted: String,
    },
}

/// What is wrong with one record of a checkpoint whose checksum held.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum RecordError {
    /// The flags byte has bits other than 0 (White to move) and 1 (the
    /// threshold is a win).
    #[error("flags {0} (bits 0-1 only)")]
    Flags(u8),
    /// The pieces do not make a legal position.
    #[error("not a position: {0}")]
    NotPosition(PositionError),
    /// The best move's place is past the position's legal moves.
    #[error("move {index} of a position with {moves} moves")]
    Move {
        /// The place stored.
        index: u8,
        /// How many legal moves the position has.
        moves: usize,
    },
    /// A looped entry's status byte is not 0 (success), 1 (failure) or
    /// 2 (unknown).
    #[error("status {0} (0-2 only)")]
    Status(u8),
}

/// What a checkpoint holds, in numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckpointStats {
    /// Nodes searched by every run that built the tables.
    pub nodes: u64,
    /// Table entries.
    pub entries: u64,
    /// Results kept apart (tagged with a repetition of their path).
    pub looped: u64,
}

/// Writes `bytes` through a buffer that is hashed in whole words.
struct HashedWriter<'f> {
    file: &'f mut File,
    buf: Vec<u8>,
    sum: Checksum,
}

impl HashedWriter<'_> {
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= CHUNK {
            // Every update but the last must be whole words.
            let n = self.buf.len() / 8 * 8;
            self.sum.update(&self.buf[..n]);
            self.file.write_all(&self.buf[..n])?;
            self.buf.drain(..n);
        }
        Ok(())
    }

    /// Writes what is buffered and the checksum of everything.
    fn finish(mut self) -> std::io::Result<()> {
        self.sum.update(&self.buf);
        let sum = self.sum.finish();
        self.buf.extend_from_slice(&sum.to_le_bytes());
        self.file.write_all(&self.buf)
    }
}

fn key_bytes(key: &Key) -> [u8; 13] {
    let (b, w, k, side) = key.pos.parts();
    let mut out = [0u8; 13];
    out[0..4].copy_from_slice(&b.to_le_bytes());
    out[4..8].copy_from_slice(&w.to_le_bytes());
    out[8..12].copy_from_slice(&k.to_le_bytes());
    out[12] = (side == Color::White) as u8 | (key.win as u8) << 1;
    out
}

/// The place of `m` among the legal moves of `pos`.
fn move_index(pos: &Position, m: Option<Move>) -> u8 {
    let Some(m) = m else { return NO_MOVE };
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    list.iter()
        .position(|x| *x == m)
        .and_then(|i| u8::try_from(i).ok())
        .filter(|&i| i != NO_MOVE)
        .unwrap_or(NO_MOVE)
}

/// Writes the tables of `df` to `path` (through a temporary file renamed
/// over it).
pub(super) fn save(
    df: &Dfpn<'_>,
    path: &Path,
    context: &str,
) -> Result<CheckpointStats, CheckpointError> {
    let stats = CheckpointStats {
        nodes: df.nodes(),
        entries: df.tt.len() as u64,
        looped: df.looped.len() as u64,
    };
    replace_file(path, |file| {
        let mut w = HashedWriter {
            file,
            buf: Vec::with_capacity(CHUNK + 64),
            sum: Checksum::default(),
        };
        w.put(MAGIC)?;
        w.put(&VERSION.to_le_bytes())?;
        w.put(&(context.len() as u32).to_le_bytes())?;
        w.put(context.as_bytes())?;
        let slots = [df.tt.slots() as u64, df.looped.slots() as u64];
        for n in [stats.nodes, stats.entries, stats.looped, slots[0], slots[1]] {
            w.put(&n.to_le_bytes())?;
        }
        for (key, e) in df.tt.entries() {
            let mut r = [0u8; ENTRY_BYTES];
            r[..13].copy_from_slice(&key_bytes(&key));
            r[13..17].copy_from_slice(&e.phi.to_le_bytes());
            r[17..21].copy_from_slice(&e.delta.to_le_bytes());
            r[21..25].copy_from_slice(&e.work.to_le_bytes());
            r[25] = move_index(&key.pos, e.best.get());
            w.put(&r)?;
        }
        for (key, l) in df.looped.entries() {
            let mut r = [0u8; LOOPED_BYTES];
            r[..13].copy_from_slice(&key_bytes(&key));
            r[13] = match l.status {
                Status::Success => 0,
                Status::Failure => 1,
                Status::Unknown => 2,
            };
            r[14] = move_index(&key.pos, l.best);
            w.put(&r)?;
        }
        w.finish()
    })
    .map_err(|e| CheckpointError::Io {
        path: e.path,
        source: e.source,
    })?;
    Ok(stats)
}

/// Reads a file's bytes in order through a buffer, never past the length
/// it had when opened, naming the part that runs short.
struct Reader<'a> {
    file: BufReader<File>,
    /// Bytes read so far.
    at: u64,
    /// The file's length.
    len: u64,
    path: &'a Path,
}

impl<'a> Reader<'a> {
    fn open(path: &'a Path) -> Result<Reader<'a>, CheckpointError> {
        let io = |source| CheckpointError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        Ok(Reader {
            file: BufReader::with_capacity(CHUNK, file),
            at: 0,
            len,
            path,
        })
    }

    fn truncated(&self, inside: &'static str) -> CheckpointError {
        CheckpointError::Truncated {
            path: self.path.to_path_buf(),
            inside,
        }
    }

    /// Fills `out` with the next bytes.
    fn take_into(&mut self, out: &mut [u8], inside: &'static str) -> Result<(), CheckpointError> {
        if self.len - self.at < out.len() as u64 {
            return Err(self.truncated(inside));
        }
        match self.file.read_exact(out) {
            Ok(()) => {
                self.at += out.len() as u64;
                Ok(())
            }
            // Cut short since it was opened.
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Err(self.truncated(inside)),
            Err(source) => Err(CheckpointError::Io {
                path: self.path.to_path_buf(),
                source,
            }),
        }
    }

    fn take<const N: usize>(&mut self, inside: &'static str) -> Result<[u8; N], CheckpointError> {
        let mut out = [0u8; N];
        self.take_into(&mut out, inside)?;
        Ok(out)
    }

    fn u32(&mut self, inside: &'static str) -> Result<u32, CheckpointError> {
        Ok(u32::from_le_bytes(self.take(inside)?))
    }

    fn u64(&mut self, inside: &'static str) -> Result<u64, CheckpointError> {
        Ok(u64::from_le_bytes(self.take(inside)?))
    }

    /// Whether the checksum at the end of the file is the one of every
    /// byte before it, read from the start in chunks; then back to where
    /// the reader was.
    fn checksum_holds(&mut self) -> Result<bool, CheckpointError> {
        let io = |source| CheckpointError::Io {
            path: self.path.to_path_buf(),
            source,
        };
        let back = self.at;
        self.file.seek(SeekFrom::Start(0)).map_err(io)?;
        self.at = 0;
        let body = self.len - 8;
        let mut sum = Checksum::default();
        let mut buf = vec![0u8; CHUNK];
        while self.at < body {
            // Whole words but for the last piece.
            let n = (body - self.at).min(CHUNK as u64) as usize;
            self.take_into(&mut buf[..n], "the records")?;
            sum.update(&buf[..n]);
        }
        let stored = self.u64("the checksum")?;
        self.file.seek(SeekFrom::Start(back)).map_err(io)?;
        self.at = back;
        Ok(sum.finish() == stored)
    }
}

fn word(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// The key of a record, checked to be a position.
fn record_key(r: &[u8]) -> Result<Key, RecordError> {
    if r[12] > 3 {
        return Err(RecordError::Flags(r[12]));
    }
    let side = if r[12] & 1 != 0 {
        Color::White
    } else {
        Color::Black
    };
    // Checked before it is a Position (a file's bytes are input; the
    // unchecked constructor asserts the invariants in a debug build).
    let (black, white, kings) = (word(r, 0), word(r, 4), word(r, 8));
    let pos = Position::from_setup(&engine::Setup {
        black_men: black & !kings,
        black_kings: black & kings,
        white_men: white & !kings,
        white_kings: white & kings,
        side: Some(side),
    })
    .map_err(RecordError::NotPosition)?;
    Ok(Key {
        pos,
        win: r[12] & 2 != 0,
    })
}

/// The move at place `i` of the legal moves of `pos`.
fn record_move(pos: &Position, i: u8) -> Result<Option<Move>, RecordError> {
    if i == NO_MOVE {
        return Ok(None);
    }
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    list.iter()
        .nth(i as usize)
        .map(|m| Some(*m))
        .ok_or(RecordError::Move {
            index: i,
            moves: list.len(),
        })
}

/// Reads the tables of a checkpoint written for `context` into `df`
/// (whose tables should be empty; entries read replace those present).
pub(super) fn load(
    df: &mut Dfpn<'_>,
    path: &Path,
    context: &str,
) -> Result<CheckpointStats, CheckpointError> {
    let r = &mut Reader::open(path)?;
    if &r.take::<8>("the magic")? != MAGIC {
        return Err(CheckpointError::NotCheckpoint {
            path: path.to_path_buf(),
        });
    }
    let version = r.u32("the version")?;
    if version != VERSION {
        return Err(CheckpointError::Version {
            path: path.to_path_buf(),
            found: version,
        });
    }
    let n = r.u32("the context")? as u64;
    // Before the buffer is made: a damaged length must not allocate.
    if r.len - r.at < n {
        return Err(r.truncated("the context"));
    }
    let mut context_bytes = vec![0u8; n as usize];
    r.take_into(&mut context_bytes, "the context")?;
    let found = String::from_utf8_lossy(&context_bytes).into_owned();
    let stats = CheckpointStats {
        nodes: r.u64("the counts")?,
        entries: r.u64("the counts")?,
        looped: r.u64("the counts")?,
    };
    let slots = [r.u64("the counts")?, r.u64("the counts")?];
    // The length the counts imply, then the checksum, before anything
    // else is believed.
    let want = (r.at as u128)
        + stats.entries as u128 * ENTRY_BYTES as u128
        + stats.looped as u128 * LOOPED_BYTES as u128
        + 8;
    if (r.len as u128) < want {
        return Err(r.truncated("the records"));
    }
    if r.len as u128 != want || !r.checksum_holds()? {
        return Err(CheckpointError::Checksum {
            path: path.to_path_buf(),
        });
    }
    if found != context {
        return Err(CheckpointError::OtherSearch {
            path: path.to_path_buf(),
            found,
            wanted: context.to_string(),
        });
    }
    let bad = |record: u64, what: RecordError| CheckpointError::Record {
        path: path.to_path_buf(),
        record,
        what,
    };
    for (n, (s, what)) in slots
        .into_iter()
        .zip([(stats.entries, "entries"), (stats.looped, "looped entries")])
        .enumerate()
    {
        let empty = s == 0 && what.0 == 0;
        if !empty && (!s.is_power_of_two() || s > MAX_SLOTS || s < what.0) {
            return Err(CheckpointError::Header {
                path: path.to_path_buf(),
                what: format!("table {n}: {s} slots for {} {}", what.0, what.1),
            });
        }
    }
    df.tt.reserve_slots(slots[0] as usize);
    df.looped.reserve_slots(slots[1] as usize);
    // A bad record leaves the tables as they were: empty.
    if let Err(e) = read_records(df, r, stats, &bad) {
        df.tt.clear();
        df.looped.clear();
        return Err(e);
    }
    df.budget.set_nodes(stats.nodes);
    Ok(stats)
}

/// The records of a checkpoint into the tables of `df`.
fn read_records(
    df: &mut Dfpn<'_>,
    r: &mut Reader<'_>,
    stats: CheckpointStats,
    bad: &dyn Fn(u64, RecordError) -> CheckpointError,
) -> Result<(), CheckpointError> {
    for i in 0..stats.entries {
        let rec = r.take::<ENTRY_BYTES>("the entries")?;
        let key = record_key(&rec).map_err(|w| bad(i, w))?;
        let best = record_move(&key.pos, rec[25]).map_err(|w| bad(i, w))?;
        df.tt.insert(
            key,
            Entry {
                phi: word(&rec, 13),
                delta: word(&rec, 17),
                work: word(&rec, 21),
                best: MoveSlot::new(best),
            },
        );
    }
    for i in 0..stats.looped {
        let rec = r.take::<LOOPED_BYTES>("the looped entries")?;
        let n = stats.entries + i;
        let key = record_key(&rec).map_err(|w| bad(n, w))?;
        let status = match rec[13] {
            0 => Status::Success,
            1 => Status::Failure,
            2 => Status::Unknown,
            s => return Err(bad(n, RecordError::Status(s))),
        };
        let best = record_move(&key.pos, rec[14]).map_err(|w| bad(n, w))?;
        df.looped.insert(key, Looped { status, best });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::CallLimits;
    use crate::dfpn::DfpnConfig;
    use crate::leaves::Leaves;
    use engine::notation::fen::parse_fen;
    use engine::NoOracle;
    use proofdb::outcome::NoResults;
    use proofdb::Question;

    fn prover() -> Dfpn<'static> {
        Dfpn::new(
            Leaves::new(&NoOracle, &NoResults),
            DfpnConfig {
                limits: CallLimits::nodes(20_000),
                ..DfpnConfig::default()
            },
        )
    }

    /// Every entry of both tables, in a fixed order.
    fn contents(df: &Dfpn<'_>) -> Vec<String> {
        let mut v: Vec<String> = df
            .tt
            .entries()
            .map(|(k, e)| {
                let best = e.best.get();
                format!("{k:?} {} {} {} {best:?}", e.phi, e.delta, e.work)
            })
            .chain(df.looped.entries().map(|(k, l)| format!("L {k:?} {l:?}")))
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_checkpoint_written_to_the_periodic_file_restarts_its_clock() {
        let dir = std::env::temp_dir();
        let path = dir.join(format!("checkers-clock-{}.ckpt", std::process::id()));
        let other = dir.join(format!("checkers-clock-other-{}.ckpt", std::process::id()));
        let hour = std::time::Duration::from_secs(3600);
        let mut df = prover();
        df.checkpoint_every(&path, "here", hour, true);
        let long_ago = |df: &mut Dfpn<'_>| {
            let p = df.periodic.as_mut().unwrap();
            p.last = std::time::Instant::now().checked_sub(2 * hour).unwrap();
        };
        let due = |df: &Dfpn<'_>| df.periodic.as_ref().unwrap().last.elapsed() >= hour;
        long_ago(&mut df);
        df.save_checkpoint(&other, "here").unwrap();
        assert!(due(&df), "another file leaves the periodic clock alone");
        df.save_checkpoint(&path, "here").unwrap();
        assert!(!due(&df), "the periodic file's clock starts again");
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_file(&other);
    }

    #[test]
    fn the_tables_read_back_are_the_tables_written() {
        std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(256 << 20)
                .spawn_scoped(s, || {
                    let mut df = prover();
                    // A draw of shuttling kings: entries of both kinds,
                    // with and without moves.
                    let root = parse_fen("W:WK22,K23,K24:BK31,K32").unwrap();
                    df.prove(root, Question::AtLeastDraw, &[]);
                    df.prove(root, Question::Win, &[]);
                    let failed = Looped {
                        status: Status::Failure,
                        ..Looped::default()
                    };
                    df.looped.insert(Key::new(root, Question::Win), failed);
                    let path = std::env::temp_dir()
                        .join(format!("checkers-tables-{}.ckpt", std::process::id()));
                    let written = save(&df, &path, "here").unwrap();
                    let mut back = prover();
                    let read = load(&mut back, &path, "here").unwrap();
                    assert_eq!(written, read);
                    assert_eq!(back.nodes(), df.nodes());
                    let (a, b) = (contents(&df), contents(&back));
                    assert!(a.iter().any(|x| x.contains("Some(")), "entries with moves");
                    assert!(a.iter().any(|x| x.starts_with('L')), "looped entries");
                    assert_eq!(a, b);
                    // A bad last record (under a checksum that holds): the
                    // tables read so far are dropped.
                    let _ = save(&df, &path, "here").unwrap();
                    let mut bytes = std::fs::read(&path).unwrap();
                    let body = bytes.len() - 8;
                    bytes[body - LOOPED_BYTES + 12] = 9;
                    let mut sum = Checksum::default();
                    sum.update(&bytes[..body]);
                    bytes[body..].copy_from_slice(&sum.finish().to_le_bytes());
                    std::fs::write(&path, &bytes).unwrap();
                    let mut refused = prover();
                    let e = load(&mut refused, &path, "here").unwrap_err();
                    let _ = std::fs::remove_file(&path);
                    assert!(
                        matches!(
                            e,
                            CheckpointError::Record {
                                what: RecordError::Flags(9),
                                ..
                            }
                        ),
                        "{e}"
                    );
                    assert!(e.to_string().ends_with(": flags 9 (bits 0-1 only)"), "{e}");
                    assert!(refused.tt.is_empty() && refused.looped.is_empty());
                })
                .unwrap()
                .join()
                .unwrap()
        });
    }
    #[test]
    fn a_record_with_bad_flags_or_move_is_named() {
        let mut rec = [0u8; ENTRY_BYTES];
        // Black men on 1 and 2, a white man on 32: Black to move.
        rec[0..4].copy_from_slice(&3u32.to_le_bytes());
        rec[4..8].copy_from_slice(&(1u32 << 31).to_le_bytes());
        let key = record_key(&rec).unwrap();
        let n = key.pos.moves().len();
        let e = record_move(&key.pos, n as u8).unwrap_err();
        assert_eq!(
            e,
            RecordError::Move {
                index: n as u8,
                moves: n
            }
        );
        assert_eq!(
            e.to_string(),
            format!("move {n} of a position with {n} moves")
        );
        // A record whose pieces overlap is refused, not asserted on.
        let mut overlap = rec;
        overlap.copy_within(0..4, 4);
        overlap[12] = 0;
        assert!(matches!(
            record_key(&overlap),
            Err(RecordError::NotPosition(_))
        ));
        rec[12] = 4;
        assert_eq!(record_key(&rec).unwrap_err(), RecordError::Flags(4));
        assert_eq!(RecordError::Status(5).to_string(), "status 5 (0-2 only)");
    }
}
