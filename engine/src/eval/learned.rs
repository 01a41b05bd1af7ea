//! The learned evaluation: the hand features of [`super::features`] with
//! fitted weights, plus pattern tables over the board fitted by `checkers
//! train` (docs/learned-eval.md).
//!
//! The board is seen from the side to move (White to move is evaluated
//! on [`Position::black_to_move_view`], so one set of tables serves both
//! colours and the evaluation is antisymmetric by construction). Squares
//! are bits 0-31, four to a row. A window is eight squares: two adjacent
//! rows (the bits `4r..4r+8`, [`ROW_WINDOWS`] of them), or a block of
//! four rows by two squares of each row (a 4x4 region of the board, left,
//! centre or right: [`BLOCK_WINDOWS`] of them). Each of the [`WINDOWS`]
//! windows has a table of [`CELLS`] values indexed by the base-3 code of
//! its squares (0 empty, 1 a piece of the side to move, 2 an opponent's
//! piece, man or king).
//! Every weight has an opening and an endgame value, blended by
//! [`phase`] as the hand evaluation is.
//!
//! The weights file (`learned.bin`, embedded in the build; format in
//! docs/learned-eval.md) is a 32-byte header — magic `CKLE`, version,
//! shape, fraction bits and an FNV-1a checksum of the payload — then the
//! weights as little-endian `i16` in units of `1 / 2^frac_bits`
//! centi-men. A file that is truncated, of another version or shape, or
//! whose checksum does not match is a [`LearnedError`], never a panic.
//! A version 1 file (the row windows only, before the blocks) still
//! loads, its blocks weighing nothing.

use super::features::{features, phase, N_FEATURES, PHASE_MAX};
use crate::board::Position;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use thiserror::Error;

/// Windows of two adjacent rows (rows `r, r + 1` for `r` in `0..7`).
pub const ROW_WINDOWS: usize = 7;
/// Windows of four rows by two squares of each row (first row `0..5`,
/// first square of the row `0..3`).
pub const BLOCK_WINDOWS: usize = 15;
/// Number of pattern windows: the row windows, then the blocks.
pub const WINDOWS: usize = ROW_WINDOWS + BLOCK_WINDOWS;
/// Squares in a window.
pub const WINDOW_SQUARES: usize = 8;
/// Entries of a window's table: `3^8`.
pub const CELLS: usize = 6561;
/// Version of the weights file format.
pub const VERSION: u32 = 2;
/// Magic bytes that open a weights file.
pub const MAGIC: [u8; 4] = *b"CKLE";
/// Bytes of the header.
pub const HEADER_BYTES: usize = 32;
/// Number of `i16` weights in a file: the opening and endgame weights of
/// the features, then per window and cell the opening and endgame value.
pub const N_WEIGHTS: usize = 2 * N_FEATURES + 2 * WINDOWS * CELLS;
/// Bytes of a weights file.
pub const FILE_BYTES: usize = HEADER_BYTES + 2 * N_WEIGHTS;

/// The committed weights, embedded in the build.
static EMBEDDED_FILE: &[u8] = include_bytes!("learned.bin");

/// Why a weights file could not be used.
#[derive(Debug, Error)]
pub enum LearnedError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Not a weights file, or one of another version or shape, or its
    /// checksum does not match its contents.
    #[error("{what}: not a usable learned-evaluation weights file: {detail}")]
    Corrupted {
        /// The file (or "embedded weights").
        what: String,
        /// What is wrong.
        detail: String,
    },
    /// The weights embedded in the build (engine/src/eval/learned.bin) do
    /// not parse: why, as [`Learned::from_bytes`] found it (parsed once,
    /// so shared by every call of [`Learned::embedded`]).
    #[error("engine/src/eval/learned.bin: not a usable learned-evaluation weights file: {0}")]
    Embedded(Arc<LearnedError>),
}

/// `BASE3[b]`: the base-3 number whose digits are the bits of `b`
/// (bit `j` contributes `3^j`).
const BASE3: [u16; 256] = {
    let mut t = [0u16; 256];
    let mut b = 0;
    while b < 256 {
        let (mut v, mut p, mut j) = (0u16, 1u16, 0);
        while j < 8 {
            if b & (1 << j) != 0 {
                v += p;
            }
            p *= 3;
            j += 1;
        }
        t[b] = v;
        b += 1;
    }
    t
};

/// The eight squares of window `w` in `bits`, as the low byte: a row
/// window's two rows in order; a block's squares row by row, two a row.
#[inline(always)]
pub fn window_bits(bits: u32, w: usize) -> usize {
    if w < ROW_WINDOWS {
        ((bits >> (4 * w)) & 0xFF) as usize
    } else {
        let b = w - ROW_WINDOWS;
        let (row, col) = (b / 3, b % 3);
        let y = bits >> (4 * row + col);
        ((y & 0x3) | ((y >> 2) & 0xC) | ((y >> 4) & 0x30) | ((y >> 6) & 0xC0)) as usize
    }
}

/// The table index of window `w` for the side to move's pieces `us` and
/// the opponent's `them` (disjoint bitboards, in the side to move's view).
#[inline(always)]
pub fn window_index(us: u32, them: u32, w: usize) -> usize {
    BASE3[window_bits(us, w)] as usize + 2 * BASE3[window_bits(them, w)] as usize
}

/// The pattern indices of `pos`, one per window, from the side to move's
/// view.
#[inline]
pub fn pattern_indices(pos: &Position) -> [u16; WINDOWS] {
    let v = pos.black_to_move_view();
    let mut out = [0u16; WINDOWS];
    for (w, o) in out.iter_mut().enumerate() {
        *o = window_index(v.black(), v.white(), w) as u16;
    }
    out
}

/// Learned weights, ready to evaluate.
#[derive(Clone, PartialEq, Eq)]
pub struct Learned {
    /// Fraction bits of every weight.
    frac_bits: u32,
    /// Opening and endgame weight of each feature.
    opening: [i32; N_FEATURES],
    endgame: [i32; N_FEATURES],
    /// Per window and cell: `[opening, endgame]`.
    tables: Vec<[i16; 2]>,
}

impl std::fmt::Debug for Learned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Learned")
            .field("frac_bits", &self.frac_bits)
            .field("opening", &self.opening)
            .field("endgame", &self.endgame)
            .field("checksum", &format_args!("{:016x}", self.checksum()))
            .finish()
    }
}

/// 64-bit FNV-1a of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

impl Learned {
    /// The weights embedded in the build (engine/src/eval/learned.bin),
    /// parsed once.
    pub fn embedded() -> Result<Arc<Learned>, LearnedError> {
        static PARSED: OnceLock<Result<Arc<Learned>, Arc<LearnedError>>> = OnceLock::new();
        PARSED
            .get_or_init(|| {
                Learned::from_bytes(EMBEDDED_FILE, "embedded weights")
                    .map(Arc::new)
                    .map_err(Arc::new)
            })
            .clone()
            .map_err(LearnedError::Embedded)
    }

    /// Reads a weights file.
    pub fn load(path: &Path) -> Result<Learned, LearnedError> {
        let bytes = std::fs::read(path).map_err(|source| LearnedError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Learned::from_bytes(&bytes, &path.display().to_string())
    }

    /// Parses the bytes of a weights file; `what` names it in errors.
    pub fn from_bytes(bytes: &[u8], what: &str) -> Result<Learned, LearnedError> {
        let bad = |detail: String| LearnedError::Corrupted {
            what: what.to_string(),
            detail,
        };
        if bytes.len() < HEADER_BYTES || bytes[..4] != MAGIC {
            return Err(bad("no CKLE header".into()));
        }
        let version = u32_at(bytes, 4);
        // Version 1 had the row windows only.
        let windows = match version {
            VERSION => WINDOWS,
            1 => ROW_WINDOWS,
            _ => return Err(bad(format!("version {version}, expected {VERSION} (or 1)"))),
        };
        let shape = [u32_at(bytes, 8), u32_at(bytes, 12), u32_at(bytes, 16)];
        let want = [windows as u32, CELLS as u32, N_FEATURES as u32];
        if shape != want {
            return Err(bad(format!(
                "shape windows/cells/features {shape:?}, expected {want:?}"
            )));
        }
        let frac_bits = u32_at(bytes, 20);
        if frac_bits > 8 {
            return Err(bad(format!("{frac_bits} fraction bits, at most 8")));
        }
        let size = HEADER_BYTES + 2 * (2 * N_FEATURES + 2 * windows * CELLS);
        if bytes.len() != size {
            return Err(bad(format!("{} bytes, expected {size}", bytes.len())));
        }
        let sum = u64::from_le_bytes(bytes[24..32].try_into().expect("8 bytes"));
        let payload = &bytes[HEADER_BYTES..];
        if fnv1a(payload) != sum {
            return Err(bad("checksum mismatch".into()));
        }
        let mut w: Vec<i16> = payload
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect();
        // A version 1 file's blocks weigh nothing.
        w.resize(N_WEIGHTS, 0);
        Ok(Learned::from_weights(&w, frac_bits))
    }

    /// Builds weights from the flat vector of a file's payload
    /// ([`N_WEIGHTS`] values in units of `1 / 2^frac_bits` centi-men).
    ///
    /// # Panics
    /// If `w` does not hold [`N_WEIGHTS`] values (a caller's bug).
    pub fn from_weights(w: &[i16], frac_bits: u32) -> Learned {
        assert_eq!(w.len(), N_WEIGHTS, "weights vector length");
        let mut opening = [0; N_FEATURES];
        let mut endgame = [0; N_FEATURES];
        for i in 0..N_FEATURES {
            opening[i] = w[i] as i32;
            endgame[i] = w[N_FEATURES + i] as i32;
        }
        let tables = w[2 * N_FEATURES..]
            .chunks_exact(2)
            .map(|c| [c[0], c[1]])
            .collect();
        Learned {
            frac_bits,
            opening,
            endgame,
            tables,
        }
    }

    /// The flat weights vector (the file's payload, see
    /// [`Learned::from_weights`]).
    pub fn weights(&self) -> Vec<i16> {
        let mut w = Vec::with_capacity(N_WEIGHTS);
        w.extend(self.opening.iter().map(|&x| x as i16));
        w.extend(self.endgame.iter().map(|&x| x as i16));
        for c in &self.tables {
            w.extend_from_slice(c);
        }
        w
    }

    /// Fraction bits of the weights.
    pub fn frac_bits(&self) -> u32 {
        self.frac_bits
    }

    /// The bytes of the weights file.
    pub fn to_bytes(&self) -> Vec<u8> {
        let payload: Vec<u8> = self
            .weights()
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let mut out = Vec::with_capacity(FILE_BYTES);
        out.extend_from_slice(&MAGIC);
        for v in [
            VERSION,
            WINDOWS as u32,
            CELLS as u32,
            N_FEATURES as u32,
            self.frac_bits,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&fnv1a(&payload).to_le_bytes());
        out.extend_from_slice(&payload);
        out
    }

    /// Checksum of the weights (as in the file header).
    pub fn checksum(&self) -> u64 {
        let payload: Vec<u8> = self
            .weights()
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        fnv1a(&payload)
    }

    /// Evaluates `pos` in centi-men from the side to move's point of
    /// view (the hand evaluation's scale).
    #[inline]
    pub fn evaluate(&self, pos: &Position) -> i32 {
        let f = features(pos);
        let ph = phase(pos);
        let (mut o, mut e) = (0i32, 0i32);
        for ((x, wo), we) in f.iter().zip(&self.opening).zip(&self.endgame) {
            o += x * wo;
            e += x * we;
        }
        let v = pos.black_to_move_view();
        let (us, them) = (v.black(), v.white());
        for w in 0..WINDOWS {
            let [a, b] = self.tables[w * CELLS + window_index(us, them, w)];
            o += a as i32;
            e += b as i32;
        }
        (o * ph + e * (PHASE_MAX - ph)) / (PHASE_MAX << self.frac_bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen::parse_fen;

    #[test]
    fn window_indices_are_a_bijection() {
        // Every (us, them) pair of disjoint bytes has its own index, and
        // the indices fill 0..CELLS.
        let mut seen = vec![false; CELLS];
        for us in 0u32..256 {
            for them in 0u32..256 {
                if us & them == 0 {
                    let i = window_index(us, them, 0);
                    assert!(!seen[i], "{us:08b} {them:08b}");
                    seen[i] = true;
                }
            }
        }
        assert!(seen.iter().all(|&s| s));
        // The window at offset 4w reads squares 4w..4w+8.
        assert_eq!(window_index(1 << 8, 0, 2), 1);
        assert_eq!(window_index(0, 1 << 31, 6), 2 * 3usize.pow(7));
        // A block: rows 2-5, squares 1 and 2 of each row (bits 9, 10,
        // 13, 14, 17, 18, 21, 22) in that order.
        let block = ROW_WINDOWS + 2 * 3 + 1;
        for (j, bit) in [9, 10, 13, 14, 17, 18, 21, 22].into_iter().enumerate() {
            assert_eq!(window_bits(1 << bit, block), 1 << j);
        }
        assert_eq!(window_bits(!0x0066_6600, block), 0);
        // Every square is in some block, and each block has 8 squares.
        let mut covered = 0u32;
        for w in ROW_WINDOWS..WINDOWS {
            let squares = (0..32).filter(|&b| window_bits(1 << b, w) != 0);
            assert_eq!(squares.clone().count(), 8);
            covered |= squares.fold(0, |a, b| a | 1 << b);
        }
        assert_eq!(covered, !0);
    }

    #[test]
    fn embedded_weights_load_and_are_antisymmetric() {
        let l = Learned::embedded().unwrap();
        for fen in [
            "W:W12,15,16,25,30,32:B3,7,9,14,18,24",
            "B:W18,24,30,31:B3,7,11,27",
            "W:WK19,K23:B12,K28",
            "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
        ] {
            let p = parse_fen(fen).unwrap();
            assert_eq!(l.evaluate(&p), l.evaluate(&p.flipped()), "{fen}");
        }
        // A man up is good for the side that has it.
        let p = parse_fen("B:W22,23,24:B1,2,3,4").unwrap();
        assert!(l.evaluate(&p) > 30, "{}", l.evaluate(&p));
        assert!(l.evaluate(&p.with_side(crate::Color::White)) < -30);
    }

    #[test]
    fn a_file_round_trips_and_a_corrupted_copy_is_refused() {
        let l = Learned::embedded().unwrap();
        let bytes = l.to_bytes();
        assert_eq!(bytes.len(), FILE_BYTES);
        assert_eq!(&Learned::from_bytes(&bytes, "x").unwrap(), l.as_ref());
        // One flipped bit in the payload: the checksum catches it.
        let mut bad = bytes.clone();
        bad[HEADER_BYTES + 1000] ^= 4;
        let e = Learned::from_bytes(&bad, "copy.bin")
            .unwrap_err()
            .to_string();
        assert!(e.contains("copy.bin") && e.contains("checksum"), "{e}");
        // Another version, a truncated file, something else altogether.
        let mut v3 = bytes.clone();
        v3[4] = 3;
        let e = Learned::from_bytes(&v3, "x").unwrap_err().to_string();
        assert!(e.contains("version 3"), "{e}");
        // The embedded file's error names the source file, then why.
        let e = LearnedError::Embedded(Arc::new(
            Learned::from_bytes(&v3, "embedded weights").unwrap_err(),
        ));
        assert_eq!(
            e.to_string(),
            "engine/src/eval/learned.bin: not a usable learned-evaluation weights file: \
             embedded weights: not a usable learned-evaluation weights file: \
             version 3, expected 2 (or 1)"
        );
        // A version 1 file: the row windows only, the blocks zero.
        let rows = 2 * N_FEATURES + 2 * ROW_WINDOWS * CELLS;
        let w = l.weights();
        let payload: Vec<u8> = w[..rows].iter().flat_map(|x| x.to_le_bytes()).collect();
        let mut v1 = bytes[..HEADER_BYTES].to_vec();
        v1[4] = 1;
        v1[8] = ROW_WINDOWS as u8;
        v1[24..32].copy_from_slice(&fnv1a(&payload).to_le_bytes());
        v1.extend_from_slice(&payload);
        let old = Learned::from_bytes(&v1, "v1").unwrap();
        assert_eq!(old.weights()[..rows], w[..rows]);
        assert!(old.weights()[rows..].iter().all(|&x| x == 0));
        assert!(Learned::from_bytes(&v1[..v1.len() - 2], "v1").is_err());
        let e = Learned::from_bytes(&bytes[..1000], "x")
            .unwrap_err()
            .to_string();
        assert!(e.contains("bytes, expected"), "{e}");
        assert!(Learned::from_bytes(b"hello", "x").is_err());
        // On disk: a missing file names itself.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.bin");
        std::fs::write(&path, &bad).unwrap();
        assert!(Learned::load(&path).is_err());
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(&Learned::load(&path).unwrap(), l.as_ref());
        let e = Learned::load(&dir.path().join("none.bin"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("none.bin"), "{e}");
    }
}
