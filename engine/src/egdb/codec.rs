//! Compression of one block of values (format version 2).
//!
//! Values are 2-bit codes: [`LOSS`], [`DRAW`], [`WIN`], and [`DONT_CARE`]
//! for positions whose value is not stored (the side to move must capture;
//! the value is found at probe time by a capture search). The encoder may
//! give a don't-care position any value; the decoder never returns
//! [`DONT_CARE`].
//!
//! A block is a sequence of one-byte tokens, each covering several
//! positions:
//! * `t < 81`: a ternary literal, four positions with values `t % 3`,
//!   `t / 3 % 3`, `t / 9 % 3`, `t / 27`.
//! * `81 <= t < 177`: a binary literal, five positions holding the values
//!   of pair `(t - 81) / 32` ([`LOSS`]/[`DRAW`], [`LOSS`]/[`WIN`],
//!   [`DRAW`]/[`WIN`]), bit `k` of `(t - 81) % 32` choosing for position `k`.
//! * `177 <= t < 255`: a run, `RUN_LENGTHS[(t - 177) % 26]` positions of
//!   value `(t - 177) / 26`.
//! * `255` is no token.
//!
//! The tokens cover the block; the last one may overhang its end. The
//! encoder finds the fewest tokens by dynamic programming, letting
//! don't-care positions join whatever literal or run suits them. Reading
//! one value scans the tokens from the start of the block, one table
//! lookup per token.

/// Loss for the side to move.
pub const LOSS: u8 = 0;
/// Draw.
pub const DRAW: u8 = 1;
/// Win for the side to move.
pub const WIN: u8 = 2;
/// Not stored (capture position): any value may be encoded.
pub const DONT_CARE: u8 = 3;

/// Run lengths of the run tokens: 5 to 12 one by one, then a ratio of
/// about 1.38 up to 4096, the largest block.
pub const RUN_LENGTHS: [u16; RUN_CODES] = [
    5, 6, 7, 8, 9, 10, 11, 12, 17, 23, 32, 44, 61, 84, 116, 160, 222, 307, 424, 586, 810, 1121,
    1549, 2142, 2962, 4096,
];
const RUN_CODES: usize = 26;

/// Tokens below this are ternary literals: four values `a + 3b + 9c + 27d`.
pub const TERNARY: u8 = 81;
/// Tokens from [`TERNARY`] below this are binary literals: five positions
/// holding one of a pair of values (32 tokens per pair).
pub const BINARY: u8 = TERNARY + 3 * 32;
/// The one byte that is no token (`BINARY + 3 * 26 = 255` codes are used).
pub const INVALID_TOKEN: u8 = 255;

/// The pairs of values of the binary literals: bit `k` of the token's low
/// five bits clear means the first value of the pair, set the second.
const PAIRS: [[u8; 2]; 3] = [[LOSS, DRAW], [LOSS, WIN], [DRAW, WIN]];

/// Positions covered by each token.
static TOKEN_SPAN: [u16; 256] = token_spans();
/// Value of each token at each offset `0..5` (runs: the same value; a
/// ternary literal has four).
static TOKEN_VALUES: [[u8; 5]; 256] = token_values();

const fn token_spans() -> [u16; 256] {
    let mut t = [0u16; 256];
    let mut i = 0;
    while i < 255 {
        t[i] = if i < TERNARY as usize {
            4
        } else if i < BINARY as usize {
            5
        } else {
            RUN_LENGTHS[(i - BINARY as usize) % RUN_CODES]
        };
        i += 1;
    }
    t
}

const fn token_values() -> [[u8; 5]; 256] {
    let mut t = [[DONT_CARE; 5]; 256];
    let mut i = 0;
    while i < 255 {
        let mut k = 0;
        while k < 5 {
            t[i][k] = if i < TERNARY as usize {
                if k < 4 {
                    ((i / [1, 3, 9, 27][k]) % 3) as u8
                } else {
                    DONT_CARE
                }
            } else if i < BINARY as usize {
                let j = i - TERNARY as usize;
                PAIRS[j / 32][(j >> k) & 1]
            } else {
                ((i - BINARY as usize) / RUN_CODES) as u8
            };
            k += 1;
        }
        i += 1;
    }
    t
}

/// How many run lengths below the longest that fits the encoder tries.
const RUN_CANDIDATES: usize = 4;

/// `RUNS_UP_TO[r]`: how many of [`RUN_LENGTHS`] are at most `r`, for any
/// run within a block (a table in place of a binary search per position).
const RUNS_UP_TO: [u8; MAX_BLOCK + 1] = {
    let mut t = [0u8; MAX_BLOCK + 1];
    let mut r = 0;
    while r <= MAX_BLOCK {
        let mut j = 0;
        while j < RUN_CODES && RUN_LENGTHS[j] as usize <= r {
            j += 1;
        }
        t[r] = j as u8;
        r += 1;
    }
    t
};

/// The most positions a block holds: the longest run.
const MAX_BLOCK: usize = RUN_LENGTHS[RUN_CODES - 1] as usize;

/// Appends the token encoding of `values` (codes 0-3, at most 4096) to
/// `out`: the fewest tokens, found by dynamic programming over the
/// positions, don't-care positions matching any value.
pub fn encode_tokens(values: &[u8], out: &mut Vec<u8>) {
    let n = values.len();
    if n == 0 {
        return;
    }
    // A block of one value (don't-cares aside) is one run.
    let first = values
        .iter()
        .copied()
        .find(|&v| v != DONT_CARE)
        .unwrap_or(DRAW);
    if values.iter().all(|&v| v == first || v == DONT_CARE) {
        let j = RUN_LENGTHS.partition_point(|&l| (l as usize) < n);
        if j < RUN_CODES {
            out.push(BINARY + first * RUN_CODES as u8 + j as u8);
            return;
        }
    }
    // One pass from the block's end: `run[v]`, how many positions from i
    // on can be value v, and `pair[p]`, how many can be written with pair
    // p, are kept for the current i only; cost[i]: fewest tokens for
    // positions i..n; choice[i]: first token (for literals, a marker: 255
    // ternary, 252 + p binary of pair p).
    const TERN: u16 = 0x100;
    const BIN: u16 = 0x200;
    let mut run = [0u32; 3];
    let mut pair = [0u32; 3];
    let mut cost = vec![0u32; n + 1];
    let mut choice = vec![0u16; n + 1];
    for i in (0..n).rev() {
        let x = values[i];
        for (v, r) in run.iter_mut().enumerate() {
            *r = if x == v as u8 || x == DONT_CARE {
                *r + 1
            } else {
                0
            };
        }
        for (p, r) in pair.iter_mut().enumerate() {
            let ok = x == DONT_CARE || PAIRS[p].contains(&x);
            *r = if ok { *r + 1 } else { 0 };
        }
        let mut best = 1 + cost[(i + 4).min(n)];
        let mut tok = TERN;
        for (p, &r) in pair.iter().enumerate() {
            if r as usize >= 5.min(n - i) {
                let c = 1 + cost[(i + 5).min(n)];
                if c < best {
                    best = c;
                    tok = BIN | p as u16;
                }
            }
        }
        for (v, &r) in run.iter().enumerate() {
            let r = r as usize;
            if r < RUN_LENGTHS[0] as usize {
                continue;
            }
            // The longest lengths that fit, and (when the run reaches the
            // block's end) the shortest that overhangs it.
            let top = RUNS_UP_TO[r.min(MAX_BLOCK)] as usize;
            let lo = top.saturating_sub(RUN_CANDIDATES);
            let hi = if i + r == n {
                (top + 1).min(RUN_CODES)
            } else {
                top
            };
            for j in lo..hi {
                let c = 1 + cost[(i + RUN_LENGTHS[j] as usize).min(n)];
                if c < best {
                    best = c;
                    tok = (BINARY as usize + v * RUN_CODES + j) as u16;
                }
            }
        }
        cost[i] = best;
        choice[i] = tok;
    }
    let mut i = 0;
    while i < n {
        let t = choice[i];
        let at = |k: usize| values.get(i + k).copied().unwrap_or(DONT_CARE);
        if t == TERN {
            let mut lit = 0u8;
            for (k, mul) in [1u8, 3, 9, 27].into_iter().enumerate() {
                let v = at(k);
                lit += if v == DONT_CARE { 0 } else { v } * mul;
            }
            out.push(lit);
            i += 4;
        } else if t & BIN != 0 {
            let p = (t & 3) as usize;
            let mut bits = 0u8;
            for k in 0..5 {
                if at(k) == PAIRS[p][1] {
                    bits |= 1 << k;
                }
            }
            out.push(TERNARY + 32 * p as u8 + bits);
            i += 5;
        } else {
            out.push(t as u8);
            i += TOKEN_SPAN[t as usize] as usize;
        }
    }
}

/// The value at `offset` of a token-coded block, or `None` if the block
/// ends before it. Never panics.
#[inline]
pub fn decode_tokens_at(block: &[u8], offset: usize) -> Option<u8> {
    decode_tokens_from(block, 0, offset)
}

/// Bytes of a `u64` all set to one: `L * b` repeats byte `b`.
const L: u64 = 0x0101_0101_0101_0101;
/// The high bit of every byte.
const H: u64 = 0x8080_8080_8080_8080;
/// The low seven bits of every byte.
const M7: u64 = 0x7F7F_7F7F_7F7F_7F7F;

/// The high bit of each byte of `x` set when that byte exceeds `n`
/// (`n <= 127`), others clear: the low seven bits plus `127 - n` reach
/// the high bit exactly when they exceed `n`, and a byte with its own high
/// bit set exceeds `n` anyway. No carry crosses a byte.
#[inline(always)]
const fn bytes_above(x: u64, n: u64) -> u64 {
    (((x & M7) + L * (127 - n)) | x) & H
}

/// The high bit of each byte of `x` that is a run token (`>= BINARY`),
/// others clear: a byte of 128 or more whose low seven bits exceed
/// `BINARY - 129`.
#[inline(always)]
const fn run_bytes(x: u64) -> u64 {
    x & ((x & M7) + L * (127 - (BINARY as u64 - 129))) & H
}

/// [`decode_tokens_at`] for tokens whose first one starts at position
/// `pos` of the block.
///
/// Eight tokens at a time: a group without a run token (only four- and
/// five-position literals) spans `32 +` its number of binary literals,
/// counted with word-wide byte comparisons; the token holding the offset
/// is found in the group from the prefix sums of its spans (one multiply).
/// A group holding a run is scanned token by token.
#[inline(always)]
fn decode_tokens_from(block: &[u8], mut pos: usize, offset: usize) -> Option<u8> {
    let mut chunks = block.chunks_exact(8);
    let mut start = 0;
    for c in &mut chunks {
        let x = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        if run_bytes(x) == 0 {
            // Spans 4 or 5 (one more for a binary literal, byte > 80).
            let fives = bytes_above(x, TERNARY as u64 - 1) >> 7;
            let span = 32 + fives.count_ones() as usize;
            if offset >= pos + span {
                pos += span;
                start += 8;
                continue;
            }
            let d = (offset - pos) as u64;
            // Byte j of `ends`: the positions covered by tokens 0..=j
            // (at most 40, so no byte carries). The token holding `d` is
            // the first whose end exceeds it.
            let ends = (L * 4 + fives).wrapping_mul(L);
            let k = 8 - (bytes_above(ends, d).count_ones() as usize);
            let begin = if k == 0 {
                0
            } else {
                (ends >> (8 * (k - 1))) & 0xFF
            };
            let t = c[k];
            return Some(TOKEN_VALUES[t as usize][(d - begin) as usize]);
        }
        // A run among these eight: one token at a time.
        if let Some(found) = scan_tokens(c, &mut pos, offset)? {
            return Some(found);
        }
        start += 8;
    }
    scan_tokens(&block[start..], &mut pos, offset)?
}

/// Scans `tokens` one at a time, the first starting at position `*pos`
/// (advanced past them): `Some(Some(value))` for the token covering
/// `offset`, `Some(None)` when none does, `None` for a byte that is no
/// token.
#[inline(always)]
fn scan_tokens(tokens: &[u8], pos: &mut usize, offset: usize) -> Option<Option<u8>> {
    for &t in tokens {
        let span = TOKEN_SPAN[t as usize] as usize;
        if span == 0 {
            return None;
        }
        if offset < *pos + span {
            let k = (offset - *pos).min(4);
            return Some(Some(TOKEN_VALUES[t as usize][k]));
        }
        *pos += span;
    }
    Some(None)
}

/// Decodes a token-coded block of `len` positions into `out`, checking
/// that the tokens cover the block (the last token may overhang it by
/// less than its span).
pub fn decode_tokens(block: &[u8], len: usize, out: &mut Vec<u8>) -> Option<()> {
    out.clear();
    for &t in block {
        let span = TOKEN_SPAN[t as usize] as usize;
        if out.len() >= len || span == 0 {
            return None;
        }
        let vals = &TOKEN_VALUES[t as usize];
        if t < BINARY {
            out.extend_from_slice(&vals[..span]);
        } else {
            out.resize(out.len() + span, vals[0]);
        }
    }
    if out.len() < len {
        return None;
    }
    out.truncate(len);
    Some(())
}

/// Block bytes per checkpoint: a block of `len` bytes starts with
/// `k = len / CHECKPOINT_BYTES` checkpoints (see [`encode_block`]).
pub const CHECKPOINT_BYTES: usize = 98;

/// Number of checkpoints of a block of `len` bytes.
#[inline(always)]
fn checkpoints(len: usize) -> usize {
    len / CHECKPOINT_BYTES
}

/// Byte offset (in the whole block) of checkpoint `j` (1-based) of a block
/// of `len` bytes with `k` checkpoints.
#[inline(always)]
fn checkpoint_byte(len: usize, k: usize, j: usize) -> usize {
    // In 32 bits (a block is far smaller): a faster division.
    2 * k + (j as u32 * (len - 2 * k) as u32 / (k + 1) as u32) as usize
}

/// Appends the encoding of one block of `values` (codes 0-3, at most
/// 4096 positions) to `out`: `k` checkpoints, then the tokens. Checkpoint
/// `j` (a 16-bit little-endian number) is the first position of the token
/// at byte [`checkpoint_byte`]`(len, k, j)`, so that reading a value scans
/// at most about `CHECKPOINT_BYTES` tokens.
pub fn encode_block(values: &[u8], out: &mut Vec<u8>) {
    let mut tokens = Vec::new();
    encode_tokens(values, &mut tokens);
    // The fixed point of k = (2k + tokens) / CHECKPOINT_BYTES.
    let mut k = 0;
    while checkpoints(2 * k + tokens.len()) > k {
        k += 1;
    }
    let len = 2 * k + tokens.len();
    debug_assert_eq!(checkpoints(len), k);
    let mut starts = Vec::with_capacity(tokens.len());
    let mut pos = 0u32;
    for &t in &tokens {
        starts.push(pos as u16);
        pos += TOKEN_SPAN[t as usize] as u32;
    }
    for j in 1..=k {
        let q = checkpoint_byte(len, k, j) - 2 * k;
        out.extend_from_slice(&starts[q].to_le_bytes());
    }
    out.extend_from_slice(&tokens);
}

/// The value at `offset` of an encoded block, or `None` if the block is
/// malformed. Never panics.
#[inline(always)]
pub fn decode_at(block: &[u8], offset: usize) -> Option<u8> {
    let len = block.len();
    let k = checkpoints(len);
    // The last checkpoint not past `offset` (one division, at the end).
    let (mut last, mut pos) = (0, 0usize);
    for (j, c) in block.get(..2 * k)?.chunks_exact(2).enumerate() {
        let c = u16::from_le_bytes([c[0], c[1]]) as usize;
        if c > offset {
            break;
        }
        (last, pos) = (j + 1, c);
    }
    let from = if last == 0 {
        2 * k
    } else {
        checkpoint_byte(len, k, last)
    };
    decode_tokens_from(block.get(from..)?, pos, offset)
}

/// Decodes a whole block of `len` positions into `out`, checking that it
/// is well formed: the tokens cover the block and the checkpoints are
/// right.
pub fn decode_block(block: &[u8], len: usize, out: &mut Vec<u8>) -> Option<()> {
    let k = checkpoints(block.len());
    decode_tokens(block.get(2 * k..)?, len, out)?;
    let mut pos = 0usize;
    let mut j = 1;
    for (q, &t) in block.iter().enumerate().skip(2 * k) {
        if j <= k && q == checkpoint_byte(block.len(), k, j) {
            let c = u16::from_le_bytes([block[2 * j - 2], block[2 * j - 1]]) as usize;
            if c != pos {
                return None;
            }
            j += 1;
        }
        pos += TOKEN_SPAN[t as usize] as usize;
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_run_table_counts_the_lengths_up_to_each_run() {
        assert_eq!(RUNS_UP_TO.len(), MAX_BLOCK + 1);
        for (r, &up_to) in RUNS_UP_TO.iter().enumerate() {
            let by_search = RUN_LENGTHS.partition_point(|&l| (l as usize) <= r);
            assert_eq!(up_to as usize, by_search, "run of {r}");
        }
    }

    fn check(values: &[u8]) -> usize {
        check_block(values);
        let mut enc = Vec::new();
        encode_tokens(values, &mut enc);
        let mut dec = Vec::new();
        decode_tokens(&enc, values.len(), &mut dec).expect("well formed");
        assert_eq!(dec.len(), values.len());
        for (i, &v) in values.iter().enumerate() {
            let d = decode_tokens_at(&enc, i).expect("decodes");
            assert_eq!(d, dec[i]);
            assert_ne!(d, DONT_CARE);
            if v != DONT_CARE {
                assert_eq!(d, v, "position {i}");
            }
        }
        enc.len()
    }

    /// The block form (checkpoints + tokens) decodes like the tokens.
    fn check_block(values: &[u8]) {
        let mut enc = Vec::new();
        encode_block(values, &mut enc);
        let mut dec = Vec::new();
        decode_block(&enc, values.len(), &mut dec).expect("well formed");
        for (i, &v) in values.iter().enumerate() {
            assert_eq!(decode_at(&enc, i), Some(dec[i]), "position {i}");
            if v != DONT_CARE {
                assert_eq!(dec[i], v, "position {i}");
            }
        }
        // A wrong checkpoint is caught by the full decode.
        if checkpoints(enc.len()) > 0 {
            enc[0] ^= 1;
            assert!(decode_block(&enc, values.len(), &mut dec).is_none());
        }
    }

    #[test]
    fn noisy_blocks_get_checkpoints() {
        let mut x = 12345u32;
        let v: Vec<u8> = (0..4096)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                ((x >> 16) % 3) as u8
            })
            .collect();
        let mut enc = Vec::new();
        encode_block(&v, &mut enc);
        assert!(checkpoints(enc.len()) >= 5, "{} bytes", enc.len());
        check_block(&v);
    }

    #[test]
    fn blocks_round_trip() {
        assert_eq!(check(&[DONT_CARE; 10]), 1);
        assert_eq!(check(&[WIN; 4096]), 1);
        assert_eq!(check(&[WIN; 4095]), 1, "a final run may overhang");
        check(&[DONT_CARE, LOSS, DONT_CARE, WIN, WIN, DRAW]);
        check(&[DRAW]);
        let mut v: Vec<u8> = (0..4096).map(|i| ((i / 300) % 4) as u8).collect();
        check(&v);
        v = (0..777).map(|i| ((i * 7 + i / 5) % 3) as u8).collect();
        check(&v);
        v = (0..4096)
            .map(|i| if i < 4000 { DRAW } else { LOSS })
            .collect();
        assert!(check(&v) <= 8);
    }

    #[test]
    fn dont_care_positions_join_runs() {
        // W...W ? ? W...W is one run; the same with L in the middle is not.
        let mut v = vec![WIN; 100];
        v[50] = DONT_CARE;
        v[51] = DONT_CARE;
        let with_dc = check(&v);
        v[50] = LOSS;
        assert!(check(&v) > with_dc);
    }

    #[test]
    fn random_blocks_round_trip() {
        let mut rng = crate::rng::XorShift64::new(0x9E37_79B9_7F4A_7C15);
        for len in [1usize, 3, 4, 5, 63, 64, 1000, 4096] {
            for _ in 0..20 {
                let v: Vec<u8> = (0..len)
                    // Runs and noise: mostly the previous value.
                    .map(|_| rng.below(11).min(3) as u8)
                    .collect();
                check(&v);
            }
        }
    }

    /// Stretches of two-value noise (binary literals), three-value noise
    /// (ternary literals) and runs, so that the eight-token groups hold
    /// every mix of spans: each offset decodes as the whole block does.
    #[test]
    fn mixed_literal_and_run_blocks_decode_at_every_offset() {
        let mut rng = crate::rng::XorShift64::new(0x2545_F491_4F6C_DD1D);
        let mut rnd = move || rng.next_u64();
        for _ in 0..40 {
            let mut v = Vec::new();
            while v.len() < 4096 {
                let len = 1 + (rnd() % 60) as usize;
                let kind = rnd() % 4;
                let (a, b) = (
                    [LOSS, LOSS, DRAW][(rnd() % 3) as usize],
                    [DRAW, WIN, WIN][(rnd() % 3) as usize],
                );
                for _ in 0..len {
                    v.push(match kind {
                        0 => (rnd() % 3) as u8,
                        1 => {
                            if rnd() & 1 == 0 {
                                a
                            } else {
                                b
                            }
                        }
                        2 => a,
                        _ => DONT_CARE,
                    });
                }
            }
            v.truncate(4096);
            check(&v);
        }
    }

    #[test]
    fn malformed_blocks_are_refused() {
        let mut dec = Vec::new();
        assert!(decode_tokens(&[], 4, &mut dec).is_none());
        assert!(decode_tokens(&[INVALID_TOKEN], 4, &mut dec).is_none());
        assert!(decode_tokens(&[0], 5, &mut dec).is_none(), "too short");
        assert!(decode_tokens(&[0, 0], 4, &mut dec).is_none(), "too long");
        assert!(decode_tokens_at(&[INVALID_TOKEN], 0).is_none());
        assert!(decode_tokens_at(&[0], 4).is_none());
        assert!(decode_tokens_at(&[], 0).is_none());
    }
}
