//! Tables decoded into memory, two bits a position: a probe then reads
//! one byte at a place computed from the position, instead of the men
//! offsets, the block index, the checkpoints and a scan of tokens. The
//! files stay compressed on disk; [`crate::egdb::Egdb::unpack`] decodes
//! chosen tables when the databases are opened (in parallel, every block
//! checked as it is decoded), into anonymous memory asked for in huge
//! pages.
//!
//! Layout: a table occupies a quarter byte for each place of its padded
//! index ([`TableIndex::padded_index`], which needs no table read) from
//! its start; place `i` is bits `2 (i % 4) .. 2 (i % 4) + 2` of byte
//! `i / 4`, a value code ([`super::codec::LOSS`], `DRAW`, `WIN`). Places
//! of no position (the padding) and capture positions hold whatever was
//! left there: the probe never reads them (it searches the captures
//! first).

use super::file::SliceFile;
use super::index::TableIndex;
use super::EgdbError;
use memmap2::{Mmap, MmapMut};
use rayon::prelude::*;
use std::path::Path;

/// Positions per byte.
pub const PER_BYTE: u64 = 4;

/// One table to decode: where its values come from and go.
#[derive(Clone, Copy)]
pub struct UnpackJob<'a> {
    /// The file holding the table.
    pub file: &'a SliceFile,
    /// The table's number in the file.
    pub table: usize,
    /// Its index.
    pub index: &'a TableIndex,
    /// Its first byte in the decoded memory.
    pub start: usize,
}

/// The byte holding place `idx` of the table starting at byte `start`.
#[inline(always)]
pub fn byte_of(start: usize, idx: u64) -> usize {
    start + (idx / PER_BYTE) as usize
}

/// The shift of place `idx`'s two bits in their byte.
#[inline(always)]
pub fn shift_of(idx: u64) -> u32 {
    2 * (idx % PER_BYTE) as u32
}

/// Bytes a table takes decoded, in its padded layout.
pub fn bytes_for(index: &TableIndex) -> usize {
    index.padded_size().div_ceil(PER_BYTE) as usize
}

/// The decoded values of many tables, read-only once built.
pub struct UnpackedValues {
    map: Option<Mmap>,
}

impl UnpackedValues {
    /// No table decoded.
    pub fn none() -> UnpackedValues {
        UnpackedValues { map: None }
    }

    /// Decodes `jobs` (whose byte ranges, `start .. start +
    /// bytes_for(index)`, must not overlap) into `total` bytes of new
    /// memory, tables in parallel. A malformed block is an error naming
    /// its file.
    pub fn decode(jobs: &[UnpackJob], total: usize) -> Result<UnpackedValues, EgdbError> {
        let mut map = MmapMut::map_anon(total.max(1)).map_err(|error| EgdbError::Io {
            path: Path::new("<memory>").to_path_buf(),
            error,
        })?;
        #[cfg(target_os = "linux")]
        {
            // Only advice: without transparent huge pages decoding still works.
            let _ = map.advise(memmap2::Advice::HugePage);
        }
        // Each table's memory, in order of its start.
        let mut order: Vec<&UnpackJob> = jobs.iter().collect();
        order.sort_by_key(|j| j.start);
        let mut work: Vec<(&UnpackJob, &mut [u8])> = Vec::new();
        let mut rest: &mut [u8] = &mut map[..];
        let mut at = 0usize;
        for job in order {
            let len = bytes_for(job.index);
            assert!(job.start >= at, "unpack jobs overlap");
            let (_, tail) = rest.split_at_mut(job.start - at);
            let (mine, tail) = tail.split_at_mut(len);
            rest = tail;
            at = job.start + len;
            work.push((job, mine));
        }
        // The largest first, so that the last to finish are small.
        work.sort_by_key(|(j, _)| std::cmp::Reverse(j.index.size()));
        work.into_par_iter()
            .try_for_each(|(job, out)| decode_table(job, out))?;
        let map = map.make_read_only().map_err(|error| EgdbError::Io {
            path: Path::new("<memory>").to_path_buf(),
            error,
        })?;
        Ok(UnpackedValues { map: Some(map) })
    }

    /// The decoded bytes (empty when nothing was decoded).
    #[inline(always)]
    pub fn bytes(&self) -> &[u8] {
        match &self.map {
            Some(m) => m,
            None => &[],
        }
    }

    /// The value code of place `idx` of the table starting at byte
    /// `start` (`None` past the memory).
    #[inline(always)]
    pub fn code(&self, start: usize, idx: u64) -> Option<u8> {
        let byte = *self.bytes().get(byte_of(start, idx))?;
        Some((byte >> shift_of(idx)) & 3)
    }
}

/// Decodes one table into `out` (zeroed, [`bytes_for`] its index long),
/// block by block, each black men set's positions to its padded row.
fn decode_table(job: &UnpackJob, out: &mut [u8]) -> Result<(), EgdbError> {
    let block = job.file.header().block_positions as u64;
    let mut values = Vec::with_capacity(block as usize);
    // The block in `values` and the dense index of its first position.
    let mut loaded: Option<u64> = None;
    for (dense, padded) in job.index.men_rows() {
        let mut to = padded;
        let mut i = dense.start;
        while i < dense.end {
            let k = i / block;
            if loaded != Some(k) {
                job.file.block_values(job.table, k, &mut values)?;
                loaded = Some(k);
            }
            let from = (i - k * block) as usize;
            let n = ((dense.end - i) as usize).min(values.len() - from);
            put(out, to, &values[from..from + n]);
            i += n as u64;
            to += n as u64;
        }
    }
    Ok(())
}

/// Writes value codes (0-3) into the two-bit places `at ..` of `out`
/// (zero there before).
fn put(out: &mut [u8], at: u64, values: &[u8]) {
    for (k, &v) in values.iter().enumerate() {
        let p = at + k as u64;
        out[(p / PER_BYTE) as usize] |= (v & 3) << (2 * (p % PER_BYTE));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_put_at_any_offset_stay_in_their_places() {
        let values: Vec<u8> = (0..23u32).map(|i| (i * 7 % 3) as u8).collect();
        for at in 0..5u64 {
            let mut out = vec![0u8; 8];
            put(&mut out, at, &values);
            for (i, &v) in values.iter().enumerate() {
                let p = at as usize + i;
                assert_eq!((out[p / 4] >> (2 * (p % 4))) & 3, v, "place {p}");
            }
            for p in 0..at as usize {
                assert_eq!((out[p / 4] >> (2 * (p % 4))) & 3, 0, "place {p} before");
            }
        }
    }
}
