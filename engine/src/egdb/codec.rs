//! Compression of one block of values.
//!
//! Values are 2-bit codes: [`LOSS`], [`DRAW`], [`WIN`], and [`DONT_CARE`]
//! for positions whose value is not stored (the side to move must capture;
//! the value is found at probe time by a capture search). The encoder may
//! give a don't-care position any value; the decoder never returns
//! [`DONT_CARE`].
//!
//! A block starts with a tag byte:
//! * `0`, `1`, `2`: every position of the block has that value (1 byte).
//! * `3`: packed, 2 bits per position, position `i` in bits
//!   `2 (i % 4)` of byte `1 + i / 4`.
//! * `4`: runs. Each run is a byte `v << 6 | c` (value `v`, 0-2): if
//!   `c < 63` the run has `c + 1` positions, else a LEB128 number `x`
//!   follows and the run has `64 + x` positions. The runs cover exactly
//!   the block.
//!
//! The encoder picks the shortest form.

/// Loss for the side to move.
pub const LOSS: u8 = 0;
/// Draw.
pub const DRAW: u8 = 1;
/// Win for the side to move.
pub const WIN: u8 = 2;
/// Not stored (capture position): any value may be encoded.
pub const DONT_CARE: u8 = 3;

const TAG_PACKED: u8 = 3;
const TAG_RUNS: u8 = 4;

/// Replaces don't-care values by the value of the run they extend (the
/// previous value, or the first stored value at the start).
fn fill(values: &[u8], out: &mut Vec<u8>) {
    out.clear();
    let first = values
        .iter()
        .copied()
        .find(|&v| v != DONT_CARE)
        .unwrap_or(LOSS);
    let mut cur = first;
    for &v in values {
        if v != DONT_CARE {
            cur = v;
        }
        out.push(cur);
    }
}

/// Appends the encoding of `values` (codes 0-3) to `out`.
pub fn encode_block(values: &[u8], out: &mut Vec<u8>) {
    let mut filled = Vec::with_capacity(values.len());
    fill(values, &mut filled);
    if filled.iter().all(|&v| v == filled[0]) {
        out.push(filled.first().copied().unwrap_or(LOSS));
        return;
    }
    let mut runs = vec![TAG_RUNS];
    let mut i = 0;
    while i < filled.len() {
        let v = filled[i];
        let mut j = i + 1;
        while j < filled.len() && filled[j] == v {
            j += 1;
        }
        let len = j - i;
        if len <= 63 {
            runs.push(v << 6 | (len - 1) as u8);
        } else {
            runs.push(v << 6 | 63);
            let mut x = len - 64;
            loop {
                let b = (x & 0x7F) as u8;
                x >>= 7;
                if x == 0 {
                    runs.push(b);
                    break;
                }
                runs.push(b | 0x80);
            }
        }
        i = j;
    }
    let packed_len = 1 + filled.len().div_ceil(4);
    if runs.len() <= packed_len {
        out.extend_from_slice(&runs);
    } else {
        out.push(TAG_PACKED);
        for chunk in filled.chunks(4) {
            let mut b = 0u8;
            for (k, &v) in chunk.iter().enumerate() {
                b |= v << (2 * k);
            }
            out.push(b);
        }
    }
}

/// The value at position `offset` of an encoded block of `len` positions,
/// or `None` if the block is malformed. Never panics.
#[inline]
pub fn decode_at(block: &[u8], len: usize, offset: usize) -> Option<u8> {
    let (&tag, rest) = block.split_first()?;
    match tag {
        0..=2 => Some(tag),
        TAG_PACKED => {
            let b = *rest.get(offset / 4)?;
            let v = (b >> (2 * (offset % 4))) & 3;
            (v != DONT_CARE).then_some(v)
        }
        TAG_RUNS => {
            let mut pos = 0usize;
            let mut i = 0usize;
            while i < rest.len() {
                let b = rest[i];
                i += 1;
                let c = (b & 63) as usize;
                let run = if c < 63 {
                    c + 1
                } else {
                    let mut x = 0usize;
                    let mut shift = 0;
                    loop {
                        let y = *rest.get(i)?;
                        i += 1;
                        if shift > 35 {
                            return None;
                        }
                        x |= ((y & 0x7F) as usize) << shift;
                        shift += 7;
                        if y & 0x80 == 0 {
                            break;
                        }
                    }
                    64 + x
                };
                pos += run;
                if offset < pos {
                    let v = b >> 6;
                    return (v != DONT_CARE && pos <= len).then_some(v);
                }
            }
            None
        }
        _ => None,
    }
}

/// Decodes a whole block of `len` positions into `out`, checking that it
/// is well formed (runs cover exactly the block, no don't-care code).
pub fn decode_block(block: &[u8], len: usize, out: &mut Vec<u8>) -> Option<()> {
    out.clear();
    let (&tag, rest) = block.split_first()?;
    match tag {
        0..=2 => {
            if !rest.is_empty() {
                return None;
            }
            out.resize(len, tag)
        }
        TAG_PACKED => {
            if rest.len() != len.div_ceil(4) {
                return None;
            }
            for i in 0..len {
                let v = (rest[i / 4] >> (2 * (i % 4))) & 3;
                if v == DONT_CARE {
                    return None;
                }
                out.push(v);
            }
        }
        TAG_RUNS => {
            let mut i = 0usize;
            while i < rest.len() {
                let b = rest[i];
                i += 1;
                let c = (b & 63) as usize;
                let run = if c < 63 {
                    c + 1
                } else {
                    let mut x = 0usize;
                    let mut shift = 0;
                    loop {
                        let y = *rest.get(i)?;
                        i += 1;
                        if shift > 35 {
                            return None;
                        }
                        x |= ((y & 0x7F) as usize) << shift;
                        shift += 7;
                        if y & 0x80 == 0 {
                            break;
                        }
                    }
                    64 + x
                };
                let v = b >> 6;
                if v == DONT_CARE || out.len() + run > len {
                    return None;
                }
                out.resize(out.len() + run, v);
            }
            if out.len() != len {
                return None;
            }
        }
        _ => return None,
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(values: &[u8]) {
        let mut enc = Vec::new();
        encode_block(values, &mut enc);
        let mut dec = Vec::new();
        decode_block(&enc, values.len(), &mut dec).expect("well formed");
        for (i, &v) in values.iter().enumerate() {
            let d = decode_at(&enc, values.len(), i).expect("decodes");
            assert_eq!(d, dec[i]);
            if v != DONT_CARE {
                assert_eq!(d, v, "position {i}");
            }
        }
    }

    #[test]
    fn blocks_round_trip() {
        check(&[DONT_CARE; 10]);
        check(&[WIN; 1000]);
        check(&[DONT_CARE, LOSS, DONT_CARE, WIN, WIN, DRAW]);
        let mut v: Vec<u8> = (0..5000).map(|i| ((i / 300) % 4) as u8).collect();
        check(&v);
        v = (0..777).map(|i| ((i * 7 + i / 5) % 3) as u8).collect();
        check(&v);
        v = (0..20000)
            .map(|i| if i < 19000 { DRAW } else { LOSS })
            .collect();
        check(&v);
    }

    #[test]
    fn malformed_blocks_are_refused() {
        let mut dec = Vec::new();
        assert!(decode_block(&[], 4, &mut dec).is_none());
        assert!(decode_block(&[9], 4, &mut dec).is_none());
        assert!(decode_block(&[TAG_RUNS, 2], 4, &mut dec).is_none());
        assert!(decode_block(&[TAG_RUNS, 3 << 6 | 3], 4, &mut dec).is_none());
        assert!(decode_block(&[TAG_RUNS, 63, 0x80], 100, &mut dec).is_none());
        assert!(decode_at(&[TAG_RUNS, 63, 0x80], 100, 99).is_none());
        assert!(decode_at(&[TAG_PACKED], 4, 3).is_none());
    }
}
