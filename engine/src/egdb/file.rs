//! Slice files: header, block index, compressed blocks, checksum (layout
//! in docs/egdb-format.txt). Files are written to a temporary name,
//! synced and renamed, so a published file is always complete; they are
//! read through a read-only memory map and never change once published.
//!
//! The checksum covers the whole file and is verified when a file is
//! opened: a 64-bit multiply-rotate hash runs at several GB/s, so opening
//! every 6-piece file costs well under a second, and a damaged file can
//! never give a wrong value.

use super::codec;
use super::index::{Material, TableIndex, TableKey};
use super::slice::SliceKey;
use super::EgdbError;
use memmap2::{Mmap, MmapMut};
use rayon::prelude::*;
use std::fs::{self, File};
use std::io::Read;
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The first 8 bytes of every file.
pub const MAGIC: [u8; 8] = *b"CKEGDB\r\n";
/// The format version this program writes and reads.
pub const VERSION: u32 = 2;
/// Header length in bytes.
pub const HEADER_LEN: usize = 128;
/// Positions per block. A block takes at most `BLOCK_POSITIONS / 4`
/// bytes (all literals), so a group of 32 blocks fits in the 16-bit
/// offsets of the block index.
pub const BLOCK_POSITIONS: u32 = 4096;
const _: () = assert!(BLOCK_POSITIONS.is_power_of_two());
/// Blocks per group of the block index (one 32-bit base per group).
pub const GROUP_BLOCKS: usize = 32;

/// Bytes of the block index for `nblocks` blocks: a 32-bit base per group
/// of 32 block boundaries, then a 16-bit delta per boundary
/// (`nblocks + 1` boundaries).
pub fn index_len(nblocks: u64) -> u64 {
    let bounds = nblocks + 1;
    4 * bounds.div_ceil(GROUP_BLOCKS as u64) + 2 * bounds
}

/// The format version of the database file at `path` when it is older
/// than [`VERSION`]; `None` when it is current, newer, absent or not a
/// database file.
pub fn old_version(path: &Path) -> Option<u32> {
    use std::io::Read;
    let mut head = [0u8; 12];
    crate::durable::open_regular(path)
        .ok()?
        .read_exact(&mut head)
        .ok()?;
    let version = u32::from_le_bytes([head[8], head[9], head[10], head[11]]);
    (head[..8] == MAGIC && version < VERSION).then_some(version)
}

/// Win, draw and loss counts of one table (Black to move), capture
/// positions included.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Positions won by the side to move.
    pub wins: u64,
    /// Drawn positions.
    pub draws: u64,
    /// Positions lost by the side to move.
    pub losses: u64,
}

impl Counts {
    /// Total.
    pub fn total(&self) -> u64 {
        self.wins + self.draws + self.losses
    }
}

impl std::ops::Add for Counts {
    type Output = Counts;

    /// The counts of two parts of a table together.
    fn add(self, other: Counts) -> Counts {
        Counts {
            wins: self.wins + other.wins,
            draws: self.draws + other.draws,
            losses: self.losses + other.losses,
        }
    }
}

/// The decoded header of a slice file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The slice.
    pub slice: SliceKey,
    /// Number of tables (1 or 2).
    pub tables: usize,
    /// Positions per block.
    pub block_positions: u32,
    /// Positions per table.
    pub sizes: [u64; 2],
    /// Value counts per table.
    pub counts: [Counts; 2],
    /// Number of blocks (all tables).
    pub blocks: u64,
    /// Length of the compressed data.
    pub data_len: u64,
    /// Checksum of the whole file with this field zeroed.
    pub checksum: u64,
}

const CHECKSUM_AT: usize = 112;

impl Header {
    fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[0..8].copy_from_slice(&MAGIC);
        h[8..12].copy_from_slice(&VERSION.to_le_bytes());
        h[12..16].copy_from_slice(&(HEADER_LEN as u32).to_le_bytes());
        let t = self.slice.canonical();
        h[16..22].copy_from_slice(&[
            t.black.men,
            t.black.kings,
            t.black.lead,
            t.white.men,
            t.white.kings,
            t.white.lead,
        ]);
        h[22] = self.tables as u8;
        h[24..28].copy_from_slice(&self.block_positions.to_le_bytes());
        for i in 0..2 {
            h[32 + 8 * i..40 + 8 * i].copy_from_slice(&self.sizes[i].to_le_bytes());
            let c = self.counts[i];
            for (j, x) in [c.wins, c.draws, c.losses].into_iter().enumerate() {
                let at = 48 + 24 * i + 8 * j;
                h[at..at + 8].copy_from_slice(&x.to_le_bytes());
            }
        }
        h[96..104].copy_from_slice(&self.blocks.to_le_bytes());
        h[104..112].copy_from_slice(&self.data_len.to_le_bytes());
        h[CHECKSUM_AT..CHECKSUM_AT + 8].copy_from_slice(&self.checksum.to_le_bytes());
        h
    }

    fn parse(file: &Path, b: &[u8]) -> Result<Header, EgdbError> {
        let corrupted = |offset: u64, what: String| EgdbError::Corrupted {
            file: file.to_path_buf(),
            offset,
            what,
        };
        if b.len() < 8 || b[0..8] != MAGIC {
            return Err(EgdbError::Foreign {
                file: file.to_path_buf(),
            });
        }
        if b.len() < HEADER_LEN {
            return Err(corrupted(
                b.len() as u64,
                format!("truncated header: {} of {HEADER_LEN} bytes", b.len()),
            ));
        }
        let u32_at = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"));
        let u64_at = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"));
        let version = u32_at(8);
        if version != VERSION {
            return Err(EgdbError::WrongVersion {
                file: file.to_path_buf(),
                found: version,
                expected: VERSION,
            });
        }
        if u32_at(12) as usize != HEADER_LEN {
            return Err(corrupted(12, format!("header length {}", u32_at(12))));
        }
        let side = |at: usize| Material {
            men: b[at],
            kings: b[at + 1],
            lead: b[at + 2],
        };
        let key = TableKey {
            black: side(16),
            white: side(19),
        };
        if !key.black.is_valid()
            || !key.white.is_valid()
            || !key.is_canonical()
            || key.black.men > 7
            || key.black.kings > 7
            || key.white.men > 7
            || key.white.kings > 7
        {
            return Err(corrupted(16, "invalid slice description".into()));
        }
        let slice = SliceKey::of(key);
        let tables = b[22] as usize;
        if tables != slice.tables().len() {
            return Err(corrupted(22, format!("{tables} tables")));
        }
        let block_positions = u32_at(24);
        if block_positions != BLOCK_POSITIONS {
            return Err(corrupted(
                24,
                format!("{block_positions} positions per block, expected {BLOCK_POSITIONS}"),
            ));
        }
        let mut counts = [Counts::default(); 2];
        for (i, c) in counts.iter_mut().enumerate() {
            c.wins = u64_at(48 + 24 * i);
            c.draws = u64_at(56 + 24 * i);
            c.losses = u64_at(64 + 24 * i);
        }
        Ok(Header {
            slice,
            tables,
            block_positions,
            sizes: [u64_at(32), u64_at(40)],
            counts,
            blocks: u64_at(96),
            data_len: u64_at(104),
            checksum: u64_at(CHECKSUM_AT),
        })
    }
}

/// Streaming 64-bit hash: per little-endian 8-byte word `w`,
/// `h = rotl(h ^ w) * K`; every step is a bijection of `h`, so a change
/// in any one word always changes the result. The final partial word is
/// zero-padded and the length is mixed in.
#[derive(Clone, Copy, Debug)]
pub struct Checksum {
    h: u64,
    len: u64,
}

impl Default for Checksum {
    fn default() -> Self {
        Checksum {
            h: 0x243F_6A88_85A3_08D3,
            len: 0,
        }
    }
}

impl Checksum {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;

    /// Feeds `bytes`; every call but the last must have a multiple of 8
    /// bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        let mut h = self.h;
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            h = (h ^ w).rotate_left(23).wrapping_mul(Self::K);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            h = (h ^ u64::from_le_bytes(last))
                .rotate_left(23)
                .wrapping_mul(Self::K);
        }
        self.h = h;
        self.len += bytes.len() as u64;
    }

    /// The hash.
    pub fn finish(&self) -> u64 {
        (self.h ^ self.len).rotate_left(31).wrapping_mul(Self::K)
    }
}

/// Checksum of a whole file image (the checksum field counts as zero).
/// `image` must be at least a header long.
fn file_checksum(image: &[u8]) -> u64 {
    let mut c = Checksum::default();
    let mut head = [0u8; HEADER_LEN];
    head.copy_from_slice(&image[..HEADER_LEN]);
    head[CHECKSUM_AT..CHECKSUM_AT + 8].fill(0);
    c.update(&head);
    c.update(&image[HEADER_LEN..]);
    c.finish()
}

/// Encodes the values of a slice (the codes of each table, as in
/// [`codec`], a position a byte) into a complete file image.
pub fn encode_slice<V: AsRef<[u8]>>(slice: SliceKey, values: &[V], counts: &[Counts]) -> Vec<u8> {
    let bp = BLOCK_POSITIONS as usize;
    let mut sizes = [0u64; 2];
    let mut cnt = [Counts::default(); 2];
    let mut blocks: Vec<Vec<u8>> = Vec::new();
    for (t, v) in values.iter().enumerate() {
        let v = v.as_ref();
        sizes[t] = v.len() as u64;
        cnt[t] = counts[t];
        let enc: Vec<Vec<u8>> = v
            .par_chunks(bp)
            .map(|c| {
                let mut out = Vec::new();
                codec::encode_block(c, &mut out);
                out
            })
            .collect();
        blocks.extend(enc);
    }
    let data_len: usize = blocks.iter().map(|b| b.len()).sum();
    assert!(data_len <= u32::MAX as usize, "slice data over 4 GiB");
    let mut image =
        Vec::with_capacity(HEADER_LEN + index_len(blocks.len() as u64) as usize + data_len);
    let header = Header {
        slice,
        tables: values.len(),
        block_positions: BLOCK_POSITIONS,
        sizes,
        counts: cnt,
        blocks: blocks.len() as u64,
        data_len: data_len as u64,
        checksum: 0,
    };
    image.extend_from_slice(&header.to_bytes());
    let mut bounds = Vec::with_capacity(blocks.len() + 1);
    let mut off = 0u32;
    bounds.push(0);
    for b in &blocks {
        off += b.len() as u32;
        bounds.push(off);
    }
    for g in bounds.chunks(GROUP_BLOCKS) {
        image.extend_from_slice(&g[0].to_le_bytes());
    }
    for g in bounds.chunks(GROUP_BLOCKS) {
        for &o in g {
            let d = o - g[0];
            assert!(d <= u16::MAX as u32, "block group over 64 KiB");
            image.extend_from_slice(&(d as u16).to_le_bytes());
        }
    }
    for b in &blocks {
        image.extend_from_slice(b);
    }
    let sum = file_checksum(&image);
    image[CHECKSUM_AT..CHECKSUM_AT + 8].copy_from_slice(&sum.to_le_bytes());
    image
}

/// Publishes a file image atomically as `dir/file_name` (see
/// [`crate::durable::replace_file`]).
pub fn publish(dir: &Path, file_name: &str, image: &[u8]) -> Result<PathBuf, EgdbError> {
    fs::create_dir_all(dir).map_err(|error| EgdbError::Io {
        path: dir.to_path_buf(),
        error,
    })?;
    let dest = dir.join(file_name);
    crate::durable::replace_file(&dest, |f| f.write_all(image)).map_err(|e| EgdbError::Io {
        path: e.path,
        error: e.source,
    })?;
    Ok(dest)
}

/// The bytes of an opened file.
enum Bytes {
    Map(Mmap),
    Owned(Vec<u8>),
    /// A range of an [`Arena`] shared by many files.
    Shared(Arc<Mmap>, Range<usize>),
}

impl Bytes {
    #[inline(always)]
    fn as_slice(&self) -> &[u8] {
        match self {
            Bytes::Map(m) => m,
            Bytes::Owned(v) => v,
            Bytes::Shared(m, r) => &m[r.clone()],
        }
    }
}

/// Anonymous memory holding copies of many files, asked for in huge pages
/// (2 MiB on x86-64) so that random probes over tens of megabytes do not
/// miss the TLB at every read. Built by [`Arena::load`]; files are then
/// opened from it with [`SliceFile::from_arena`].
pub struct Arena {
    map: Arc<Mmap>,
    ranges: Vec<Range<usize>>,
}

impl Arena {
    /// Reads `paths` into one anonymous mapping (each file 64-byte
    /// aligned). An unreadable file is an error naming it.
    pub fn load(paths: &[PathBuf]) -> Result<Arena, EgdbError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |error| EgdbError::Io { path, error }
        };
        let mut ranges = Vec::with_capacity(paths.len());
        let mut total = 0usize;
        for p in paths {
            let len = fs::metadata(p).map_err(io(p))?.len() as usize;
            ranges.push(total..total + len);
            total += len.div_ceil(64) * 64;
        }
        let mut map = MmapMut::map_anon(total.max(1)).map_err(io(Path::new("<memory>")))?;
        #[cfg(target_os = "linux")]
        {
            // Only advice: without transparent huge pages the copy still works.
            let _ = map.advise(memmap2::Advice::HugePage);
        }
        for (p, r) in paths.iter().zip(&ranges) {
            let mut f = crate::durable::open_regular(p).map_err(io(p))?;
            f.read_exact(&mut map[r.clone()]).map_err(io(p))?;
        }
        let map = map.make_read_only().map_err(io(Path::new("<memory>")))?;
        Ok(Arena {
            map: Arc::new(map),
            ranges,
        })
    }
}

/// Maps `file` read-only.
///
/// # Safety contract
/// One of the databases' three `unsafe` blocks (the others view a
/// build's scratch map as a slice, `egdb::scratch`). A memory map is only sound
/// while nobody modifies the file. Slice files are immutable once
/// published: they are written under a temporary name and renamed into
/// place, never rewritten (a rebuild publishes a new file by rename, which
/// leaves the mapped old one intact). Users must not edit files in the
/// database folder while a program has them open.
fn map_readonly(file: &File) -> std::io::Result<Mmap> {
    // SAFETY: see the contract above: published files are never modified.
    unsafe { Mmap::map(file) }
}

/// Where one position's value is stored in a file: from
/// [`SliceFile::locate`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockSpot {
    /// First byte of the block in the file image.
    pub start: usize,
    /// End of the block.
    pub end: usize,
    /// The position's offset in the block.
    pub offset: u16,
}

impl BlockSpot {
    /// The first byte of the block in `image` (0 for an empty block):
    /// reading it brings the block into the cache, so that a batch of
    /// probes can have all their blocks read before any is decoded.
    #[inline(always)]
    pub fn touch(&self, image: &[u8]) -> u8 {
        image.get(self.start).copied().unwrap_or(0)
    }

    /// The value code stored here in `image` (the file image the spot was
    /// located in), or `None` for a malformed block.
    #[inline(always)]
    pub fn value(&self, image: &[u8]) -> Option<u8> {
        codec::decode_at(image.get(self.start..self.end)?, self.offset as usize)
    }
}

/// Where the blocks of one table lie in its file image: all a probe needs
/// besides the image, small enough to keep beside the table's index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockLayout {
    first_block: u64,
    size: u64,
    data_start: usize,
    groups: usize,
}

impl BlockLayout {
    /// Where position `idx` is stored in `image` (the image of the file
    /// this layout came from; `None` when `idx` is past the table). Reads
    /// the block index only.
    #[inline(always)]
    pub fn locate(&self, image: &[u8], idx: u64) -> Option<BlockSpot> {
        // Every opened file has BLOCK_POSITIONS (a power of two) per block.
        const SHIFT: u32 = BLOCK_POSITIONS.trailing_zeros();
        // The block index lies before `data_start`.
        if idx >= self.size || image.len() < self.data_start {
            return None;
        }
        let blk = (self.first_block + (idx >> SHIFT)) as usize;
        let (lo, hi) = block_bounds(image, self.groups, blk);
        Some(BlockSpot {
            start: self.data_start + lo as usize,
            end: self.data_start + hi as usize,
            offset: (idx & (BLOCK_POSITIONS as u64 - 1)) as u16,
        })
    }
}

/// An opened, checked slice file.
pub struct SliceFile {
    path: PathBuf,
    header: Header,
    tables: Vec<TableIndex>,
    /// First block of each table.
    first_block: [u64; 2],
    bytes: Bytes,
    data_start: usize,
    /// Groups of the block index.
    groups: usize,
}

/// Offset (in the data) of block boundary `i` of a file image whose
/// block index has `groups` groups. `b` must hold the index.
#[inline(always)]
fn bound(b: &[u8], groups: usize, i: usize) -> u32 {
    group_base(b, i / GROUP_BLOCKS) + delta(b, groups, i)
}

/// The data offset where block group `g` starts.
#[inline(always)]
fn group_base(b: &[u8], g: usize) -> u32 {
    let at = HEADER_LEN + 4 * g;
    u32::from_le_bytes(b[at..at + 4].try_into().expect("four bytes"))
}

/// The offset of block boundary `i` from its group's start.
#[inline(always)]
fn delta(b: &[u8], groups: usize, i: usize) -> u32 {
    let at = HEADER_LEN + 4 * groups + 2 * i;
    u16::from_le_bytes(b[at..at + 2].try_into().expect("two bytes")) as u32
}

/// The data range of block `i` (boundaries `i` and `i + 1`), reading the
/// group start once unless the block ends a group.
#[inline(always)]
fn block_bounds(b: &[u8], groups: usize, i: usize) -> (u32, u32) {
    let g = i / GROUP_BLOCKS;
    let base = group_base(b, g);
    let end_base = if (i + 1).is_multiple_of(GROUP_BLOCKS) {
        group_base(b, g + 1)
    } else {
        base
    };
    (
        base + delta(b, groups, i),
        end_base + delta(b, groups, i + 1),
    )
}

impl SliceFile {
    /// Opens and checks `path`, expected to hold `slice`: magic, version,
    /// slice description, sizes, layout and checksum.
    pub fn open(path: &Path, slice: SliceKey) -> Result<SliceFile, EgdbError> {
        // Checked by its metadata first: a pipe would block the open.
        let f = crate::durable::open_regular(path).map_err(|error| EgdbError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        let len = f
            .metadata()
            .map_err(|error| EgdbError::Io {
                path: path.to_path_buf(),
                error,
            })?
            .len();
        let bytes = if len == 0 {
            Bytes::Owned(Vec::new())
        } else {
            Bytes::Map(map_readonly(&f).map_err(|error| EgdbError::Io {
                path: path.to_path_buf(),
                error,
            })?)
        };
        SliceFile::from_bytes(path, slice, bytes)
    }

    /// Opens file number `i` of `arena` (loaded from `path`), checked as
    /// [`SliceFile::open`] does.
    ///
    /// # Panics
    /// If `i` is not less than the number of paths the arena loaded.
    pub fn from_arena(
        arena: &Arena,
        i: usize,
        path: &Path,
        slice: SliceKey,
    ) -> Result<SliceFile, EgdbError> {
        let bytes = Bytes::Shared(arena.map.clone(), arena.ranges[i].clone());
        SliceFile::from_bytes(path, slice, bytes)
    }

    /// Checks an in-memory file image as [`SliceFile::open`] does.
    pub fn from_image(
        path: &Path,
        slice: SliceKey,
        image: Vec<u8>,
    ) -> Result<SliceFile, EgdbError> {
        SliceFile::from_bytes(path, slice, Bytes::Owned(image))
    }

    fn from_bytes(path: &Path, slice: SliceKey, bytes: Bytes) -> Result<SliceFile, EgdbError> {
        let b = bytes.as_slice();
        let header = Header::parse(path, b)?;
        let corrupted = |offset: u64, what: String| EgdbError::Corrupted {
            file: path.to_path_buf(),
            offset,
            what,
        };
        if header.slice != slice {
            return Err(corrupted(
                16,
                format!("holds slice {}, expected {}", header.slice, slice),
            ));
        }
        let tables: Vec<TableIndex> = slice.tables().into_iter().map(TableIndex::new).collect();
        let bp = header.block_positions as u64;
        let mut first_block = [0u64; 2];
        let mut nblocks = 0u64;
        for (i, t) in tables.iter().enumerate() {
            if header.sizes[i] != t.size() {
                return Err(corrupted(
                    32 + 8 * i as u64,
                    format!(
                        "table {} has {} positions, expected {}",
                        t.key(),
                        header.sizes[i],
                        t.size()
                    ),
                ));
            }
            if header.counts[i].total() != t.size() {
                return Err(corrupted(
                    48 + 24 * i as u64,
                    "value counts do not add up".into(),
                ));
            }
            first_block[i] = nblocks;
            nblocks += t.size().div_ceil(bp);
        }
        if header.blocks != nblocks {
            return Err(corrupted(
                96,
                format!("{} blocks, expected {nblocks}", header.blocks),
            ));
        }
        let ilen = index_len(nblocks);
        let expected_len = HEADER_LEN as u64 + ilen + header.data_len;
        if b.len() as u64 != expected_len {
            return Err(corrupted(
                (b.len() as u64).min(expected_len),
                format!("file is {} bytes, header says {expected_len}", b.len()),
            ));
        }
        let sum = file_checksum(b);
        if sum != header.checksum {
            return Err(corrupted(
                CHECKSUM_AT as u64,
                format!(
                    "checksum mismatch (stored {:016x}, computed {sum:016x})",
                    header.checksum
                ),
            ));
        }
        let data_start = HEADER_LEN + ilen as usize;
        let groups = (nblocks + 1).div_ceil(GROUP_BLOCKS as u64) as usize;
        let mut prev = 0u64;
        for i in 0..=nblocks as usize {
            let o = bound(b, groups, i) as u64;
            if o < prev || o > header.data_len || (i == 0 && o != 0) {
                return Err(corrupted(
                    (HEADER_LEN + 4 * groups + 2 * i) as u64,
                    format!("bad offset {o} of block {i}"),
                ));
            }
            prev = o;
        }
        if prev != header.data_len {
            return Err(corrupted(
                (HEADER_LEN + 4 * groups + 2 * nblocks as usize) as u64,
                "block index does not end at the data end".into(),
            ));
        }
        Ok(SliceFile {
            path: path.to_path_buf(),
            header,
            tables,
            first_block,
            bytes,
            data_start,
            groups,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The indexes of the stored tables.
    pub fn tables(&self) -> &[TableIndex] {
        &self.tables
    }

    /// Bytes on disk.
    pub fn file_len(&self) -> u64 {
        self.bytes.as_slice().len() as u64
    }

    /// The encoded bytes of block `block` and its number of positions.
    #[inline]
    fn block(&self, table: usize, block_in_table: u64) -> (&[u8], usize) {
        let b = self.bytes.as_slice();
        let bp = self.header.block_positions as u64;
        let n = (self.header.sizes[table] - block_in_table * bp).min(bp) as usize;
        let blk = (self.first_block[table] + block_in_table) as usize;
        let (lo, hi) = block_bounds(b, self.groups, blk);
        (
            &b[self.data_start + lo as usize..self.data_start + hi as usize],
            n,
        )
    }

    /// The stored value code of position `idx` of table `table` (capture
    /// positions give an arbitrary value), or `None` for a malformed block.
    #[inline(always)]
    pub fn value(&self, table: usize, idx: u64) -> Option<u8> {
        self.locate(table, idx)?.value(self.bytes())
    }

    /// Where the value of position `idx` of table `table` is stored: its
    /// block's byte range in the file image and its offset in the block
    /// (`None` when `idx` is past the table).
    #[inline(always)]
    pub fn locate(&self, table: usize, idx: u64) -> Option<BlockSpot> {
        self.layout(table)?.locate(self.bytes(), idx)
    }

    /// Where the blocks of table `table` lie (`None` past the file's
    /// tables).
    #[inline(always)]
    pub fn layout(&self, table: usize) -> Option<BlockLayout> {
        Some(BlockLayout {
            first_block: *self.first_block.get(table)?,
            size: self.header.sizes[table],
            data_start: self.data_start,
            groups: self.groups,
        })
    }

    /// The whole file image (header, block index, blocks).
    #[inline(always)]
    pub fn bytes(&self) -> &[u8] {
        self.bytes.as_slice()
    }

    /// Decodes every block of table `table`, checking that each is well
    /// formed; `f` receives (first index of the block, values).
    pub fn for_each_block(
        &self,
        table: usize,
        mut f: impl FnMut(u64, &[u8]),
    ) -> Result<(), EgdbError> {
        let bp = self.header.block_positions as u64;
        let mut out = Vec::new();
        for k in 0..self.header.sizes[table].div_ceil(bp) {
            self.block_values(table, k, &mut out)?;
            f(k * bp, &out);
        }
        Ok(())
    }

    /// Decodes block `k` of table `table` into `out` (its value codes),
    /// checking that it is well formed; a malformed block is an error
    /// naming the file and the block.
    ///
    /// # Panics
    /// If the file has no table `table` or the table no block `k`.
    pub fn block_values(&self, table: usize, k: u64, out: &mut Vec<u8>) -> Result<(), EgdbError> {
        let (blk, n) = self.block(table, k);
        match codec::decode_block(blk, n, out) {
            Some(()) => Ok(()),
            None => Err(EgdbError::Corrupted {
                file: self.path.clone(),
                offset: (HEADER_LEN + 4 * self.groups) as u64 + 2 * (self.first_block[table] + k),
                what: format!("block {k} of table {table} is malformed"),
            }),
        }
    }
}
