//! The proof file: plain text, documented in `docs/proof-format.txt`.
//! A file holds one or more proofs, each checked by a checksum; a corrupt,
//! truncated or wrong-version file is an error naming the line.

use engine::notation::fen::{parse_fen, to_fen};
use engine::{Move, Position, Square};
use proofdb::{LeafSource, ProofEntry, ProofTree, Question};
use std::io::{BufRead, Write};
use thiserror::Error;

/// First word of a proof file.
pub const MAGIC: &str = "checkers-proof";
/// Format version written and read.
pub const VERSION: u32 = 1;

/// A proof with the free-text description of where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredProof {
    /// The proof.
    pub tree: ProofTree,
    /// Provenance, one line (`solver=ab nodes=... millis=...`), may be empty.
    pub info: String,
}

/// Errors reading or writing a proof file.
#[derive(Debug, Error)]
pub enum ProofIoError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// Not a proof file.
    #[error("{path}: not a proof file (expected '{MAGIC} {VERSION}' on the first line)")]
    BadMagic {
        /// The file.
        path: String,
    },
    /// A version this program does not read.
    #[error("{path}: proof file version {found}, this program reads version {VERSION}")]
    BadVersion {
        /// The file.
        path: String,
        /// Version in the file.
        found: String,
    },
    /// A malformed line.
    #[error("{path}: line {line}: {what}")]
    Corrupt {
        /// The file.
        path: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        what: String,
    },
    /// The file ends inside a proof.
    #[error("{path}: truncated (the file ends inside a proof, after line {line})")]
    Truncated {
        /// The file.
        path: String,
        /// Last line read.
        line: usize,
    },
}

/// Longest line of a proof file (a FEN and an entry take under 200
/// bytes): a longer one is refused as it is read, so that a file that is
/// no proof file (`/dev/zero`) never fills the memory.
pub const MAX_LINE: usize = 1 << 16;

/// The lines of `input` without their line ends, each at most
/// [`MAX_LINE`] bytes and UTF-8 (else an error of kind `InvalidData`).
fn bounded_lines(mut input: impl BufRead) -> impl Iterator<Item = std::io::Result<String>> {
    use std::io::{Error, ErrorKind, Read};
    std::iter::from_fn(move || {
        let mut buf = Vec::new();
        let read = (&mut input)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut buf);
        match read {
            Ok(0) => None,
            Err(e) => Some(Err(e)),
            Ok(_) => {
                if buf.last() == Some(&b'\n') {
                    buf.pop();
                    if buf.last() == Some(&b'\r') {
                        buf.pop();
                    }
                } else if buf.len() > MAX_LINE {
                    let why = format!("a line longer than {MAX_LINE} bytes (not a proof file)");
                    return Some(Err(Error::new(ErrorKind::InvalidData, why)));
                }
                Some(
                    String::from_utf8(buf).map_err(|_| {
                        Error::new(ErrorKind::InvalidData, "not text (invalid UTF-8)")
                    }),
                )
            }
        }
    })
}

/// FNV-1a, 64 bits.
#[derive(Clone, Copy)]
struct Fnv(u64);
impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn line(&mut self, s: &str) {
        for b in s.bytes().chain(std::iter::once(b'\n')) {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

fn squares_list(bits: u32) -> String {
    if bits == 0 {
        return "-".into();
    }
    engine::square::Squares(bits)
        .map(|s| s.number().to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// The text of one node entry.
pub fn entry_text(e: &ProofEntry) -> String {
    match e {
        ProofEntry::Prover(m) => format!(
            "move {} {} {}",
            m.from().number(),
            m.to().number(),
            squares_list(m.captured())
        ),
        ProofEntry::Opponent => "opp".into(),
        ProofEntry::Leaf(LeafSource::Terminal) => "leaf terminal".into(),
        ProofEntry::Leaf(LeafSource::Egdb) => "leaf egdb".into(),
        ProofEntry::Leaf(LeafSource::Store) => "leaf store".into(),
    }
}

/// What is wrong with the entry of a node line (the text after the tab).
#[derive(Clone, Debug, Error, PartialEq, Eq)]
enum EntryError {
    /// A square of a `move` entry that is not a number from 1 to 32.
    #[error("bad square '{0}'")]
    Square(String),
    /// Not `opp`, `leaf SOURCE` or `move FROM TO CAPTURED`.
    #[error("bad entry '{0}'")]
    Entry(String),
}

/// Reads the entry of a node line, as [`entry_text`] writes it.
fn parse_entry(s: &str) -> Result<ProofEntry, EntryError> {
    let words: Vec<&str> = s.split(' ').collect();
    match words.as_slice() {
        ["opp"] => Ok(ProofEntry::Opponent),
        ["leaf", "terminal"] => Ok(ProofEntry::Leaf(LeafSource::Terminal)),
        ["leaf", "egdb"] => Ok(ProofEntry::Leaf(LeafSource::Egdb)),
        ["leaf", "store"] => Ok(ProofEntry::Leaf(LeafSource::Store)),
        ["move", from, to, caps] => {
            let sq = |t: &str| -> Result<Square, EntryError> {
                t.parse::<u8>()
                    .ok()
                    .and_then(Square::from_number)
                    .ok_or_else(|| EntryError::Square(t.to_string()))
            };
            let (from, to) = (sq(from)?, sq(to)?);
            let mut captured = 0u32;
            if *caps != "-" {
                for c in caps.split(',') {
                    captured |= sq(c)?.bit();
                }
            }
            Ok(ProofEntry::Prover(Move::new(from, to, captured)))
        }
        _ => Err(EntryError::Entry(s.to_string())),
    }
}

/// Writes `proofs` to `out` in the proof-file format.
pub fn write_proofs(out: &mut dyn Write, proofs: &[StoredProof]) -> std::io::Result<()> {
    writeln!(out, "{MAGIC} {VERSION}")?;
    for p in proofs {
        let t = &p.tree;
        writeln!(out, "proof {} {}", t.question.name(), to_fen(&t.root))?;
        if !p.info.is_empty() {
            writeln!(out, "info {}", p.info.replace('\n', " "))?;
        }
        writeln!(out, "nodes {}", t.nodes.len())?;
        let mut h = Fnv::new();
        for (pos, e) in &t.nodes {
            let line = format!("{}\t{}", to_fen(pos), entry_text(e));
            h.line(&line);
            writeln!(out, "{line}")?;
        }
        writeln!(out, "end {:016x}", h.0)?;
    }
    Ok(())
}

/// Writes `proofs` to the file `path` (through a temporary file synced
/// and renamed into place, so a crash never leaves half a file under the
/// name: [`engine::durable::replace_file`]).
pub fn save(path: &std::path::Path, proofs: &[StoredProof]) -> Result<(), ProofIoError> {
    engine::durable::replace_file(path, |f| {
        let mut w = std::io::BufWriter::new(f);
        write_proofs(&mut w, proofs)?;
        w.flush()
    })
    .map_err(|e| ProofIoError::Io {
        path: e.path.display().to_string(),
        source: e.source,
    })
}

/// Reads a proof file.
pub fn load(path: &std::path::Path) -> Result<Vec<StoredProof>, ProofIoError> {
    let name = path.display().to_string();
    let f = std::fs::File::open(path).map_err(|source| ProofIoError::Io {
        path: name.clone(),
        source,
    })?;
    read_proofs(std::io::BufReader::new(f), &name)
}

/// Reads proofs from `input`; `name` names the source in errors.
pub fn read_proofs(input: impl BufRead, name: &str) -> Result<Vec<StoredProof>, ProofIoError> {
    let corrupt = |line: usize, what: String| ProofIoError::Corrupt {
        path: name.to_string(),
        line,
        what,
    };
    let mut lines = bounded_lines(input).enumerate().map(|(i, l)| (i + 1, l));
    let mut next = |last: usize| -> Result<Option<(usize, String)>, ProofIoError> {
        match lines.next() {
            None => Ok(None),
            Some((n, Ok(l))) => Ok(Some((n, l))),
            Some((n, Err(e))) => {
                if e.kind() == std::io::ErrorKind::InvalidData {
                    Err(corrupt(n, e.to_string()))
                } else {
                    let _ = last;
                    Err(ProofIoError::Io {
                        path: name.to_string(),
                        source: e,
                    })
                }
            }
        }
    };
    let Some((_, first)) = next(0)? else {
        return Err(ProofIoError::BadMagic { path: name.into() });
    };
    let mut w = first.split_whitespace();
    if w.next() != Some(MAGIC) {
        return Err(ProofIoError::BadMagic { path: name.into() });
    }
    match w.next() {
        Some(v) if v == VERSION.to_string() => {}
        v => {
            return Err(ProofIoError::BadVersion {
                path: name.into(),
                found: v.unwrap_or("(none)").to_string(),
            })
        }
    }
    let mut proofs = Vec::new();
    let mut last = 1;
    while let Some((n, line)) = next(last)? {
        last = n;
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let Some(rest) = line.strip_prefix("proof ") else {
            return Err(corrupt(
                n,
                format!("expected 'proof QUESTION FEN', found '{line}'"),
            ));
        };
        let (qname, root_fen) = rest
            .split_once(' ')
            .ok_or_else(|| corrupt(n, "expected 'proof QUESTION FEN'".into()))?;
        let question = Question::from_name(qname)
            .ok_or_else(|| corrupt(n, format!("unknown question '{qname}'")))?;
        let root = parse_fen(root_fen).map_err(|e| corrupt(n, format!("root: {e}")))?;
        let mut info = String::new();
        let (n2, mut line) = next(last)?.ok_or(ProofIoError::Truncated {
            path: name.into(),
            line: last,
        })?;
        last = n2;
        if let Some(i) = line.strip_prefix("info ") {
            info = i.to_string();
            let (n3, l) = next(last)?.ok_or(ProofIoError::Truncated {
                path: name.into(),
                line: last,
            })?;
            last = n3;
            line = l;
        }
        let count: usize = line
            .strip_prefix("nodes ")
            .and_then(|c| c.trim().parse().ok())
            .ok_or_else(|| corrupt(last, format!("expected 'nodes N', found '{line}'")))?;
        let mut nodes = Vec::with_capacity(count.min(1 << 24));
        let mut h = Fnv::new();
        for _ in 0..count {
            let (n, l) = next(last)?.ok_or(ProofIoError::Truncated {
                path: name.into(),
                line: last,
            })?;
            last = n;
            h.line(&l);
            let (f, e) = l
                .split_once('\t')
                .ok_or_else(|| corrupt(n, "expected 'FEN<TAB>ENTRY'".into()))?;
            let pos: Position = parse_fen(f).map_err(|e| corrupt(n, format!("{e}")))?;
            let entry = parse_entry(e).map_err(|w| corrupt(n, w.to_string()))?;
            nodes.push((pos, entry));
        }
        let (n, l) = next(last)?.ok_or(ProofIoError::Truncated {
            path: name.into(),
            line: last,
        })?;
        last = n;
        let sum = l.strip_prefix("end ").ok_or_else(|| {
            corrupt(
                n,
                format!("expected 'end CHECKSUM' after {count} nodes, found '{l}'"),
            )
        })?;
        if u64::from_str_radix(sum.trim(), 16).ok() != Some(h.0) {
            return Err(corrupt(
                n,
                format!(
                    "checksum mismatch (file says {}, contents give {:016x})",
                    sum.trim(),
                    h.0
                ),
            ));
        }
        proofs.push(StoredProof {
            tree: ProofTree {
                root,
                question,
                nodes,
            },
            info,
        });
    }
    if proofs.is_empty() {
        return Err(corrupt(last, "no proof in the file".into()));
    }
    Ok(proofs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_line_is_refused_as_it_is_read() {
        let zeros = std::io::BufReader::new(std::io::repeat(0));
        let e = read_proofs(zeros, "/dev/zero").unwrap_err();
        assert!(matches!(e, ProofIoError::Corrupt { line: 1, .. }), "{e}");
        assert!(e.to_string().contains("longer than"), "{e}");
        let e = read_proofs(&b"\xff\xfe\n"[..], "x").unwrap_err();
        assert!(e.to_string().contains("not text"), "{e}");
    }
    #[test]
    fn entries_round_trip_and_a_bad_one_is_named() {
        let pos = Position::initial();
        for e in [
            ProofEntry::Prover(pos.moves().as_slice()[0]),
            ProofEntry::Opponent,
            ProofEntry::Leaf(LeafSource::Terminal),
            ProofEntry::Leaf(LeafSource::Egdb),
            ProofEntry::Leaf(LeafSource::Store),
        ] {
            assert_eq!(parse_entry(&entry_text(&e)).unwrap(), e);
        }
        let e = parse_entry("move 9 33 -").unwrap_err();
        assert_eq!(e, EntryError::Square("33".into()));
        assert_eq!(e.to_string(), "bad square '33'");
        let e = parse_entry("leaf book").unwrap_err();
        assert_eq!(e.to_string(), "bad entry 'leaf book'");
    }
}
