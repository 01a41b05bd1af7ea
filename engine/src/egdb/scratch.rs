//! Where a build holds a slice's tables: in memory, or, for a slice whose
//! build needs more memory than it is allowed ([`BuildMemory`]), in
//! scratch files mapped into memory, which the system writes out to disk
//! and reads back as it needs room (out of core).
//!
//! A scratch file is made in the database folder, filled with zeros (so
//! that a full disk is an error here, before the build starts, not a
//! fault when a page is written back), mapped, and removed from the
//! folder at once: the mapping keeps it alive, nothing else can open it,
//! and a build that is killed leaves no scratch behind.

use super::EgdbError;
use memmap2::MmapRaw;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicU8, AtomicUsize, Ordering::Relaxed};

/// The memory a build may hold one slice's tables in, in bytes
/// ([`super::build::build_memory`] gives what a slice needs), and where
/// the tables of a slice that needs more go: it is built out of core
/// ([`Storage::Scratch`]), in the scratch folder or else the database
/// folder.
///
/// It also names the retrograde solver a build uses ([`Builder`]): the
/// settings a build passes down unchanged to every slice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildMemory {
    limit: u64,
    scratch: Option<PathBuf>,
    builder: Option<Builder>,
}

/// Which retrograde solver builds a slice: the reference (a state byte a
/// position, predecessors with counters, `egdb::build`) or the bitbase
/// builder (`egdb::bitbase`, 32 positions to a word). Both write the
/// same file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builder {
    /// `egdb::build::solve_slice`.
    Reference,
    /// `egdb::bitbase::solve_slice`.
    Bitbase,
}

impl Builder {
    /// The builder `CHECKERS_EGDB_BUILDER` names (`reference` or
    /// `bitbase`), if it names one.
    pub fn from_env() -> Option<Builder> {
        match std::env::var("CHECKERS_EGDB_BUILDER").as_deref() {
            Ok("bitbase") => Some(Builder::Bitbase),
            Ok("reference") => Some(Builder::Reference),
            _ => None,
        }
    }

    /// The default builder of a slice of `pieces` pieces: the bitbase
    /// builder up to 6 pieces, where its files are shown identical to
    /// the reference's (every slice) and it takes fewer CPU-seconds (the
    /// 5-piece set 1.43 times, the 6-piece set 1.37 times fewer,
    /// docs/egdb-build.txt), the reference above (slower on the largest
    /// 7-piece king slices).
    pub fn default_for(pieces: u32) -> Builder {
        if pieces <= 6 {
            Builder::Bitbase
        } else {
            Builder::Reference
        }
    }
}

impl BuildMemory {
    /// No limit: every slice is built in memory.
    pub const UNLIMITED: BuildMemory = BuildMemory {
        limit: u64::MAX,
        scratch: None,
        builder: None,
    };

    /// At most `bytes` bytes a slice.
    pub fn within(bytes: u64) -> BuildMemory {
        BuildMemory {
            limit: bytes,
            scratch: None,
            builder: None,
        }
    }

    /// The same limit, the scratch files of a build out of core in `dir`
    /// (a disk of the node's own, say, rather than the shared database
    /// folder).
    pub fn scratch_in(self, dir: &Path) -> BuildMemory {
        BuildMemory {
            scratch: Some(dir.to_path_buf()),
            ..self
        }
    }

    /// The same settings, slices built by `builder`.
    pub fn with_builder(self, builder: Builder) -> BuildMemory {
        BuildMemory {
            builder: Some(builder),
            ..self
        }
    }

    /// The builder of a slice of `pieces` pieces: the one set by
    /// [`BuildMemory::with_builder`], else [`Builder::from_env`]'s, else
    /// [`Builder::default_for`].
    pub fn builder(&self, pieces: u32) -> Builder {
        self.builder
            .or_else(Builder::from_env)
            .unwrap_or_else(|| Builder::default_for(pieces))
    }

    /// The limit in bytes (`u64::MAX`: none).
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Bytes a build may keep of the slices it has built as words
    /// ([`crate::egdb::bitbase::words`]): a quarter of the limit, at most
    /// [`crate::egdb::bitbase::words::HELD_BYTES`].
    pub fn held_words(&self) -> u64 {
        (self.limit / 4).min(crate::egdb::bitbase::words::HELD_BYTES)
    }

    /// Where a build that needs `needs` bytes keeps its tables: in memory
    /// within the limit, else in scratch files in the scratch folder, or
    /// in `dir` (the database folder) without one.
    pub fn storage_for(&self, needs: u64, dir: &Path) -> Storage {
        if needs <= self.limit {
            Storage::Memory
        } else {
            Storage::Scratch(self.scratch.clone().unwrap_or_else(|| dir.to_path_buf()))
        }
    }
}

impl Default for BuildMemory {
    fn default() -> BuildMemory {
        BuildMemory::UNLIMITED
    }
}

/// Where a build's tables are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Storage {
    /// In the process's memory.
    Memory,
    /// In scratch files made (and at once removed) in this folder, mapped.
    Scratch(PathBuf),
}

/// The atomic cells a build's tables are made of; all-zero bytes are a
/// valid cell holding 0.
pub(crate) trait ZeroCell: Sized + Send + Sync {
    /// A cell holding 0.
    fn zero() -> Self;
}

impl ZeroCell for AtomicU8 {
    fn zero() -> Self {
        AtomicU8::new(0)
    }
}

impl ZeroCell for AtomicU64 {
    fn zero() -> Self {
        AtomicU64::new(0)
    }
}

/// `len` cells of `T`, all 0 at first, in memory or in a scratch file.
pub(crate) struct Cells<T> {
    backing: Backing<T>,
}

/// What holds an array: a vector, or a mapped scratch file of `len`
/// elements, all-zero bytes at first.
enum Backing<T> {
    Heap(Vec<T>),
    Mapped(MmapRaw, usize),
}

impl<T> Backing<T> {
    /// `len` elements where `storage` says; `zeroed` makes the vector.
    fn new(
        len: usize,
        storage: &Storage,
        zeroed: impl FnOnce(usize) -> Vec<T>,
    ) -> Result<Backing<T>, EgdbError> {
        Ok(match storage {
            Storage::Scratch(dir) if len > 0 => {
                Backing::Mapped(map_scratch(dir, len * std::mem::size_of::<T>())?, len)
            }
            _ => Backing::Heap(zeroed(len)),
        })
    }

    /// The elements, shared.
    #[inline(always)]
    fn as_slice(&self) -> &[T] {
        match self {
            Backing::Heap(v) => v,
            // SAFETY: see `map_scratch`: the map is `len` elements long,
            // page-aligned, zero-filled (a valid `T`: an atomic cell,
            // `ZeroCell`, or a byte) and ours alone; only raw pointers to
            // it exist besides the views made here, and `&self` keeps it
            // mapped while this one lives. Cells change through `&` as
            // atomics do; bytes only through `as_mut_slice`.
            Backing::Mapped(map, len) => unsafe {
                std::slice::from_raw_parts(map.as_mut_ptr() as *const T, *len)
            },
        }
    }

    /// The elements, to change.
    #[inline(always)]
    fn as_mut_slice(&mut self) -> &mut [T] {
        match self {
            Backing::Heap(v) => v,
            // SAFETY: as in `as_slice`; `&mut self` makes this the only
            // view of the map while it lives.
            Backing::Mapped(map, len) => unsafe {
                std::slice::from_raw_parts_mut(map.as_mut_ptr() as *mut T, *len)
            },
        }
    }

    /// Where the elements are, in words.
    fn place(&self) -> &'static str {
        match self {
            Backing::Heap(_) => "memory",
            Backing::Mapped(..) => "scratch file",
        }
    }
}

impl<T: ZeroCell> Cells<T> {
    /// `len` zero cells where `storage` says.
    pub(crate) fn new(len: usize, storage: &Storage) -> Result<Cells<T>, EgdbError> {
        let backing = Backing::new(len, storage, |n| {
            std::iter::repeat_with(T::zero).take(n).collect()
        })?;
        Ok(Cells { backing })
    }
}

impl<T> Deref for Cells<T> {
    type Target = [T];

    #[inline(always)]
    fn deref(&self) -> &[T] {
        self.backing.as_slice()
    }
}

/// `len` bytes, all 0 at first, in memory or in a scratch file (a
/// slice's values, [`super::build::Solved`]).
pub struct ByteArray {
    backing: Backing<u8>,
}

impl ByteArray {
    /// `len` zero bytes where `storage` says.
    pub(crate) fn new(len: usize, storage: &Storage) -> Result<ByteArray, EgdbError> {
        let backing = Backing::new(len, storage, |n| vec![0; n])?;
        Ok(ByteArray { backing })
    }
}

impl Deref for ByteArray {
    type Target = [u8];

    #[inline(always)]
    fn deref(&self) -> &[u8] {
        self.backing.as_slice()
    }
}

impl std::fmt::Debug for ByteArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ByteArray({} bytes in {})",
            self.len(),
            self.backing.place()
        )
    }
}

impl AsRef<[u8]> for ByteArray {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl DerefMut for ByteArray {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [u8] {
        self.backing.as_mut_slice()
    }
}

/// Scratch files made by this process so far (for unique names).
static MADE: AtomicUsize = AtomicUsize::new(0);

/// A writable map of a new scratch file of `bytes` zero bytes in `dir`.
///
/// # Safety contract
/// With the read-only maps of published files ([`super::file`]), the
/// only `unsafe` of the databases is viewing this map as a slice
/// (`Backing::as_slice` and `as_mut_slice`, under [`Cells`] and
/// [`ByteArray`]). That is sound because the file is this
/// map's alone: made new under a name of this process, filled with zeros
/// before it is mapped, and removed from the folder as soon as it is, so
/// that no other process or handle can change it; the map is
/// page-aligned and exactly `bytes` long, and is reached only through raw
/// pointers ([`MmapRaw`]) until a view is made from it.
fn map_scratch(dir: &Path, bytes: usize) -> Result<MmapRaw, EgdbError> {
    let n = MADE.fetch_add(1, Relaxed);
    let path = dir.join(format!(".build-scratch-{}-{n}", std::process::id()));
    let io = |error| EgdbError::Io {
        path: path.clone(),
        error,
    };
    let mut file: File = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(io)?;
    let filled = fill_zeros(&mut file, bytes).and_then(|()| MmapRaw::map_raw(&file));
    // Removed whatever happened: a mapped file lives on without its name.
    let removed = std::fs::remove_file(&path);
    let map = filled.map_err(io)?;
    removed.map_err(io)?;
    Ok(map)
}

/// Writes `bytes` zeros to `file` (allocating its blocks, unlike a sparse
/// `set_len`: a full disk fails here).
fn fill_zeros(file: &mut File, bytes: usize) -> std::io::Result<()> {
    const STEP: usize = 1 << 20;
    let zeros = vec![0u8; STEP.min(bytes)];
    let mut left = bytes;
    while left > 0 {
        let n = left.min(STEP);
        file.write_all(&zeros[..n])?;
        left -= n;
    }
    file.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cells and bytes in a scratch file start at zero, keep what is
    /// written, and leave no file in the folder.
    #[test]
    fn scratch_arrays_are_zeroed_writable_and_leave_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let scratch = Storage::Scratch(dir.path().to_path_buf());
        let cells: Cells<AtomicU64> = Cells::new(10_000, &scratch).unwrap();
        assert!(matches!(cells.backing, Backing::Mapped(..)));
        assert!(cells.iter().all(|c| c.load(Relaxed) == 0));
        cells[9_999].fetch_or(1 << 63, Relaxed);
        assert_eq!(cells[9_999].load(Relaxed), 1 << 63);
        let mut bytes = ByteArray::new(5_000, &scratch).unwrap();
        assert!(bytes.iter().all(|&b| b == 0));
        bytes[4_999] = 7;
        assert_eq!(bytes[4_999], 7);
        assert_eq!(bytes.len(), 5_000);
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");
        let empty: Cells<AtomicU8> = Cells::new(0, &scratch).unwrap();
        assert!(empty.is_empty());
    }

    /// A scratch folder that does not exist is an error naming the file.
    #[test]
    fn a_missing_scratch_folder_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let gone = Storage::Scratch(dir.path().join("missing"));
        let e = ByteArray::new(10, &gone).expect_err("an error");
        assert!(e.to_string().contains("missing"), "{e}");
    }

    /// A limit puts what needs more into scratch files.
    #[test]
    fn the_limit_decides_the_storage() {
        let dir = Path::new("/d");
        assert_eq!(
            BuildMemory::within(100).storage_for(100, dir),
            Storage::Memory
        );
        assert_eq!(
            BuildMemory::within(100).storage_for(101, dir),
            Storage::Scratch(dir.to_path_buf())
        );
        assert_eq!(
            BuildMemory::UNLIMITED.storage_for(u64::MAX, dir),
            Storage::Memory
        );
        let elsewhere = BuildMemory::within(100).scratch_in(Path::new("/local"));
        assert_eq!(elsewhere.storage_for(100, dir), Storage::Memory);
        assert_eq!(
            elsewhere.storage_for(101, dir),
            Storage::Scratch(PathBuf::from("/local"))
        );
    }
}
