//! [`Egdb`]: the opened databases and the probe used by every search.

use super::bitbase::words::{HeldWords, SliceWords};
use super::codec::{DRAW, LOSS, WIN};
use super::file::{Arena, BlockLayout, BlockSpot, SliceFile};
use super::index::{IndexParts, IndexShape, TableIndex, TableKey, MAX_PIECES, SIDE_SLOTS};
use super::slice::{slices_with, SliceKey};
use super::unpacked::{self, bytes_for, UnpackJob, UnpackedValues};
use super::EgdbError;
use crate::board::Position;
use crate::moves::MoveList;
use crate::value::{Oracle, Value};
use std::path::{Path, PathBuf};

const NO_TABLE: u32 = u32::MAX;
/// `HotTable::line` of a table read from its file.
const NOT_UNPACKED: u32 = u32::MAX;

/// Bytes of a line of `Egdb::unpacked` (each decoded table starts on one).
const LINE: usize = 64;

/// The endgame databases of one folder: every slice file present, opened
/// and checked. Thread-safe; a probe does not allocate.
pub struct Egdb {
    dir: PathBuf,
    slices: Vec<SliceFile>,
    /// Every table of the opened slices, with what a probe reads of it.
    tables: Vec<ProbeTable>,
    /// `lookup[TableKey::slot_id()]`: the table's place in `tables`, or
    /// [`NO_TABLE`].
    lookup: Vec<u32>,
    /// `hot[x]`: what a probe of the decoded table `tables[x]` reads.
    hot: Vec<HotTable>,
    max_pieces: u32,
    /// Slices with more pieces are not read (see [`Egdb::limit_pieces`]).
    limit: u32,
    /// Tables decoded into memory (see [`Egdb::unpack`]).
    unpacked: UnpackedValues,
    /// Slices just built, as the bitbase builder's words (see
    /// [`Egdb::hold_words`]).
    held: HeldWords,
}

/// What a probe reads of one table, kept together (two cache lines) so
/// that a probe follows few pointers before it reaches the file.
#[repr(align(64))]
struct ProbeTable {
    /// The table's index (a copy of the file's).
    index: TableIndex,
    /// Where its blocks lie in the file image.
    layout: BlockLayout,
    /// The file's place in `Egdb::slices`.
    file: u32,
}

/// What a probe of a decoded table reads of it: two to a cache line, in
/// an array of their own (a few hundred kilobytes for every table of up
/// to 7 pieces), so that random probes find them in the caches.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
struct HotTable {
    /// The words of its index.
    shape: IndexShape,
    /// Its first line ([`LINE`] bytes) in `Egdb::unpacked`, or
    /// [`NOT_UNPACKED`].
    line: u32,
}

impl HotTable {
    fn of(index: &TableIndex) -> HotTable {
        HotTable {
            shape: index.shape(),
            line: NOT_UNPACKED,
        }
    }

    /// The table's first byte in `Egdb::unpacked` when it is decoded.
    #[inline(always)]
    fn start(&self) -> Option<usize> {
        (self.line != NOT_UNPACKED).then_some(self.line as usize * LINE)
    }
}

impl ProbeTable {
    fn new(file: &SliceFile, file_number: usize, table: usize) -> ProbeTable {
        ProbeTable {
            index: file.tables()[table].clone(),
            layout: file.layout(table).expect("a table of the file"),
            file: file_number as u32,
        }
    }
}

/// What [`Egdb::unpack`] decoded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Unpacked {
    /// Tables decoded.
    pub tables: usize,
    /// Their positions.
    pub positions: u64,
    /// Memory they take.
    pub bytes: u64,
    /// Tables left compressed (over the budget).
    pub left_packed: usize,
}

/// Where a probed value came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Read from a slice file.
    Stored,
    /// The side to move must capture: found by a search over the captures.
    CaptureSearch,
    /// The side to move has no piece (loss) or the opponent has none (win).
    Trivial,
}

impl Source {
    /// A short name: `egdb`, `capture-search`, `trivial`.
    pub const fn name(self) -> &'static str {
        match self {
            Source::Stored => "egdb",
            Source::CaptureSearch => "capture-search",
            Source::Trivial => "trivial",
        }
    }
}

impl Egdb {
    /// Every legal move of `pos` with what it is worth to the side that
    /// plays it (the negated value of the position it leads to, and how
    /// that value was found), or `None` for a move into positions these
    /// databases do not cover. In the order the moves are generated.
    pub fn move_values(
        &self,
        pos: &Position,
    ) -> Vec<(crate::moves::Move, Option<(Value, Source)>)> {
        pos.moves()
            .iter()
            .map(|m| {
                let next = pos.play_unchecked(m);
                (
                    *m,
                    self.probe_with_source(&next).map(|(v, s)| (v.negate(), s)),
                )
            })
            .collect()
    }

    /// An empty database rooted at `dir` (nothing opened).
    pub fn empty(dir: &Path) -> Egdb {
        Egdb {
            dir: dir.to_path_buf(),
            slices: Vec::new(),
            tables: Vec::new(),
            lookup: vec![NO_TABLE; SIDE_SLOTS * SIDE_SLOTS],
            hot: Vec::new(),
            max_pieces: 0,
            limit: MAX_PIECES,
            unpacked: UnpackedValues::none(),
            held: HeldWords::default(),
        }
    }

    /// Keeps the values of a slice just built as the bitbase builder's
    /// words, within `budget` bytes for all those kept (the oldest go
    /// first), so that the slices built after it read them a word at a
    /// time ([`super::bitbase::words`]).
    pub fn hold_words(&mut self, words: SliceWords, budget: u64) {
        self.held.hold(words, budget);
    }

    /// Stops keeping slices as words (a build's end).
    pub fn release_words(&mut self) {
        self.held = HeldWords::default();
    }

    /// The slices kept as words.
    pub fn held_words(&self) -> &HeldWords {
        &self.held
    }

    /// Opens every slice file of `dir` with up to [`MAX_PIECES`] pieces.
    /// Each file is checked (header, layout, checksum); a damaged file is
    /// an error naming it. A missing folder is an error; a folder without
    /// files gives an empty database.
    pub fn open(dir: &Path) -> Result<Egdb, EgdbError> {
        let mut db = Egdb::empty(dir);
        for (s, path) in present_files(dir)? {
            db.insert(SliceFile::open(&path, s)?);
        }
        db.update_max_pieces();
        Ok(db)
    }

    /// Opens every slice file of `dir` as [`Egdb::open`] does, but reads
    /// them into memory (huge pages where the system gives them) instead
    /// of mapping them: random probes then miss the TLB far less often.
    /// Costs the files' size in RAM and the time to read them.
    pub fn open_in_memory(dir: &Path) -> Result<Egdb, EgdbError> {
        let found = present_files(dir)?;
        let paths: Vec<PathBuf> = found.iter().map(|(_, p)| p.clone()).collect();
        let arena = Arena::load(&paths)?;
        let mut db = Egdb::empty(dir);
        for (i, (s, p)) in found.into_iter().enumerate() {
            db.insert(SliceFile::from_arena(&arena, i, &p, s)?);
        }
        db.update_max_pieces();
        Ok(db)
    }

    /// Adds an opened slice (replacing one with the same name).
    pub fn add(&mut self, file: SliceFile) {
        self.insert(file);
        self.update_max_pieces();
    }

    /// Decodes tables into memory, two bits a position (see
    /// [`super::unpacked`]), so that probing them reads one byte instead
    /// of a compressed block: tables of fewer pieces first, then the
    /// smaller ones, as long as the total stays within `budget` bytes
    /// (a quarter byte a place of the padded index: 655 MB for every
    /// table of up to 6 pieces, 8.8 GB more for 7). Tables beyond
    /// [`Egdb::limit_pieces`] are left alone. Replaces what an earlier
    /// call decoded; a slice added later is read from its file. Every
    /// decoded block is checked; a malformed one is an error naming its
    /// file.
    pub fn unpack(&mut self, budget: u64) -> Result<Unpacked, EgdbError> {
        self.unpack_where(budget, |_| true)
    }

    /// [`Egdb::unpack`] for the tables of `slices` only (those present),
    /// replacing what an earlier call decoded.
    pub fn unpack_slices(
        &mut self,
        slices: &[SliceKey],
        budget: u64,
    ) -> Result<Unpacked, EgdbError> {
        let wanted: std::collections::HashSet<TableKey> =
            slices.iter().flat_map(|s| s.tables()).collect();
        self.unpack_where(budget, |k| wanted.contains(k))
    }

    /// [`Egdb::unpack`] for the tables whose key passes `wanted`.
    fn unpack_where(
        &mut self,
        budget: u64,
        wanted: impl Fn(&TableKey) -> bool,
    ) -> Result<Unpacked, EgdbError> {
        for h in &mut self.hot {
            h.line = NOT_UNPACKED;
        }
        self.unpacked = UnpackedValues::none();
        let mut order: Vec<usize> = (0..self.tables.len())
            .filter(|&x| {
                let key = self.tables[x].index.key();
                key.pieces() <= self.limit && wanted(&key)
            })
            .collect();
        order.sort_by_key(|&x| {
            let i = &self.tables[x].index;
            (i.key().pieces(), i.size())
        });
        let mut total = 0usize;
        let mut chosen = Vec::new();
        let mut summary = Unpacked::default();
        for x in order {
            let len = bytes_for(&self.tables[x].index);
            // Each table starts on a line.
            let start = total.div_ceil(LINE) * LINE;
            if (start + len) as u64 > budget || start / LINE >= NOT_UNPACKED as usize {
                summary.left_packed += 1;
                continue;
            }
            chosen.push((x, start));
            total = start + len;
            summary.tables += 1;
            summary.positions += self.tables[x].index.size();
        }
        let jobs: Vec<UnpackJob> = chosen
            .iter()
            .map(|&(x, start)| {
                let t = &self.tables[x];
                let file = &self.slices[t.file as usize];
                UnpackJob {
                    file,
                    table: file.header().slice.table_number(t.index.key()),
                    index: &t.index,
                    start,
                }
            })
            .collect();
        if !jobs.is_empty() {
            self.unpacked = UnpackedValues::decode(&jobs, total)?;
        }
        for (x, start) in chosen {
            self.hot[x].line = (start / LINE) as u32;
        }
        summary.bytes = total as u64;
        Ok(summary)
    }

    /// Adds a slice without recomputing [`Egdb::max_pieces`] (the opens
    /// do that once, after the last file).
    fn insert(&mut self, file: SliceFile) {
        let slice = file.header().slice;
        let n = match self.table_of(&slice.canonical()) {
            NO_TABLE => {
                self.slices.push(file);
                self.slices.len() - 1
            }
            x => {
                let i = self.tables[x as usize].file as usize;
                self.slices[i] = file;
                i
            }
        };
        for (t, key) in slice.tables().into_iter().enumerate() {
            let Some(id) = key.slot_id() else {
                // A file's slice is checked when it is read; a table
                // without a slot cannot be probed and is not kept.
                continue;
            };
            let table = ProbeTable::new(&self.slices[n], n, t);
            let hot = HotTable::of(&table.index);
            match self.lookup[id] {
                NO_TABLE => {
                    self.lookup[id] = self.tables.len() as u32;
                    self.tables.push(table);
                    self.hot.push(hot);
                }
                x => {
                    self.tables[x as usize] = table;
                    self.hot[x as usize] = hot;
                }
            }
        }
    }

    /// The place of `key`'s table in `tables`, or [`NO_TABLE`].
    fn table_of(&self, key: &TableKey) -> u32 {
        key.slot_id().map_or(NO_TABLE, |id| self.lookup[id])
    }

    fn update_max_pieces(&mut self) {
        let mut m = 1;
        for n in 2..=MAX_PIECES {
            if slices_with(n).iter().all(|s| self.has(s)) {
                m = n;
            } else {
                break;
            }
        }
        self.max_pieces = if self.slices.is_empty() {
            0
        } else {
            m.min(self.limit)
        };
    }

    /// Reads no slice of more than `pieces` pieces from now on, even when
    /// the folder holds larger ones: a search or proof told to use the
    /// databases up to `pieces` pieces uses exactly those. A larger
    /// position whose side to move must capture is still answered when
    /// its captures lead into those databases (the capture search).
    pub fn limit_pieces(&mut self, pieces: u32) {
        self.limit = pieces.min(MAX_PIECES);
        self.update_max_pieces();
    }

    /// Whether the slice is present.
    pub fn has(&self, s: &SliceKey) -> bool {
        self.table_of(&s.canonical()) != NO_TABLE
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The largest piece count for which every slice is present (0 when
    /// none is).
    pub fn max_pieces(&self) -> u32 {
        self.max_pieces
    }

    /// The opened slices.
    pub fn slices(&self) -> &[SliceFile] {
        &self.slices
    }

    /// The opened file of a slice.
    pub fn slice_file(&self, s: &SliceKey) -> Option<&SliceFile> {
        match self.table_of(&s.canonical()) {
            NO_TABLE => None,
            x => Some(&self.slices[self.tables[x as usize].file as usize]),
        }
    }

    /// The value stored for `pos` (Black to move, no capture for the side
    /// to move, both sides with pieces, at most [`MAX_PIECES`] pieces).
    #[inline]
    pub fn stored(&self, pos: &Position) -> Option<Value> {
        match self.table_of(&TableKey::of(pos)) {
            NO_TABLE => None,
            x => self.stored_in(x, pos),
        }
    }

    /// The value of `pos` for its side to move and where it came from, or
    /// `None` when a slice it needs is not present.
    pub fn probe_with_source(&self, pos: &Position) -> Option<(Value, Source)> {
        match self.route(pos) {
            Route::Done(r) => r,
            Route::Table(x, p) => Some((self.stored_in(x, &p)?, Source::Stored)),
        }
    }

    /// The values of `positions`, as [`Oracle::probe`] gives them one by
    /// one, written to `out` (which must be as long; only the first
    /// `out.len()` positions are probed when it is shorter).
    ///
    /// Faster than probing one at a time when the positions are spread
    /// over databases larger than the caches: the positions are taken in
    /// groups, and each stage (index, block index, first byte of the
    /// block, decoding) runs over the whole group before the next, so
    /// that the group's cache misses overlap instead of following one
    /// another. A search that probes every child of a node can use it.
    ///
    /// Groups of 256 (about 25 KB of stack): the reads of a group wait on
    /// address translation more than on memory (on the virtual machines
    /// measured here, a random read past a few megabytes costs 9-14 ns
    /// even with many in flight), and a larger group pays the latency of
    /// the first read fewer times (`checkers egdb bench --unpacked`
    /// measures it; docs/measurements.md, "Figures behind the code").
    pub fn probe_many(&self, positions: &[Position], out: &mut [Option<Value>]) {
        const GROUP: usize = 256;
        let decoded = self.unpacked.bytes();
        for (ps, os) in positions.chunks(GROUP).zip(out.chunks_mut(GROUP)) {
            let n = ps.len().min(os.len());
            // Stage 1: side to move, trivial cases, captures, the table
            // key; then (a loop of reads) the table; then, arithmetic only,
            // the index. A decoded table needs no read for its (padded)
            // index; a compressed one needs its men offset, read in stage 2.
            let mut keys = [usize::MAX; GROUP];
            let mut flipped = [Position::initial(); GROUP];
            for i in 0..n {
                match self.route_key(&ps[i]) {
                    Err(r) => os[i] = r.map(|(v, _)| v),
                    Ok((id, p)) => {
                        keys[i] = id;
                        flipped[i] = p;
                    }
                }
            }
            let mut tables = [NO_TABLE; GROUP];
            let mut touched = 0u64;
            for i in 0..n {
                if keys[i] != usize::MAX {
                    let x = self.lookup[keys[i]];
                    tables[i] = x;
                    if x == NO_TABLE {
                        os[i] = None;
                    } else {
                        // What the index reads of the table.
                        touched ^= self.hot[x as usize].line as u64;
                    }
                }
            }
            std::hint::black_box(touched);
            let mut spots = [Spot::Missing; GROUP];
            let mut parts = [IndexParts::default(); GROUP];
            // The decoded bytes to read, in a list of their own.
            let mut at = [0usize; GROUP];
            let mut reads = 0;
            let mut packed = false;
            for i in 0..n {
                let x = tables[i];
                if x == NO_TABLE {
                    continue;
                }
                let h = &self.hot[x as usize];
                parts[i] = h.shape.parts(&flipped[i]);
                spots[i] = if let Some(start) = h.start() {
                    let idx = h.shape.padded_index(&parts[i]);
                    at[reads] = unpacked::byte_of(start, idx);
                    reads += 1;
                    Spot::Unpacked(reads - 1, unpacked::shift_of(idx))
                } else {
                    packed = true;
                    Spot::Packed
                };
            }
            // Stage 2: the reads, in a loop of their own: a load that
            // misses waits at the head of the reorder buffer, and only a
            // short loop lets many be issued behind it.
            let mut bytes = [0u8; GROUP];
            for (b, &a) in bytes.iter_mut().zip(&at[..reads]) {
                *b = decoded.get(a).copied().unwrap_or(0);
            }
            // Stage 3, compressed tables: the men offsets, the block
            // holding each value (block index reads), then the first byte
            // of every block, each loop's reads issued before any is
            // waited for.
            if packed {
                let mut offsets = [0u64; GROUP];
                for i in 0..n {
                    if let Spot::Packed = spots[i] {
                        offsets[i] = self.tables[tables[i] as usize].index.men_offset(&parts[i]);
                    }
                }
                for i in 0..n {
                    if let Spot::Packed = spots[i] {
                        let x = tables[i];
                        let t = &self.tables[x as usize];
                        let idx = t.index.index_from(&parts[i], offsets[i]);
                        spots[i] = match t.layout.locate(self.image_of(x), idx) {
                            Some(b) => Spot::Block(b),
                            None => {
                                os[i] = None;
                                Spot::Missing
                            }
                        };
                    }
                }
                let mut touched = 0u8;
                for i in 0..n {
                    if let Spot::Block(b) = &spots[i] {
                        touched ^= b.touch(self.image_of(tables[i]));
                    }
                }
                std::hint::black_box(touched);
            }
            // Stage 4: the values, from the cache.
            for i in 0..n {
                let code = match &spots[i] {
                    // (A place past the memory cannot come from a valid
                    // index; it is answered as unknown, never guessed.)
                    Spot::Unpacked(slot, _) if at[*slot] >= decoded.len() => {
                        os[i] = None;
                        continue;
                    }
                    Spot::Unpacked(slot, shift) => (bytes[*slot] >> shift) & 3,
                    Spot::Block(b) => match b.value(self.image_of(tables[i])) {
                        Some(c) => c,
                        None => {
                            os[i] = None;
                            continue;
                        }
                    },
                    Spot::Missing => continue,
                    // Located in stage 3; not left over.
                    Spot::Packed => {
                        os[i] = None;
                        continue;
                    }
                };
                os[i] = value_of_code(code);
            }
        }
    }

    /// How `pos` is answered: `Err` with the answer when no table is
    /// read (no piece, a capture search, past the limit), else `Ok` with
    /// the key ([`TableKey::slot_id`]) of the table to read and the position
    /// with Black to move and no capture.
    #[inline(always)]
    fn route_key(&self, pos: &Position) -> Result<(usize, Position), Option<(Value, Source)>> {
        if pos.piece_count() > MAX_PIECES {
            return Err(None);
        }
        let p = pos.black_to_move_view();
        if p.black() == 0 {
            return Err(Some((Value::Loss, Source::Trivial)));
        }
        if p.black_has_capture_flat() {
            return Err(self.capture_search(&p).map(|v| (v, Source::CaptureSearch)));
        }
        if p.white() == 0 {
            // The opponent has no piece; a side to move without a move
            // still loses.
            let v = if p.is_terminal() {
                Value::Loss
            } else {
                Value::Win
            };
            return Err(Some((v, Source::Trivial)));
        }
        if p.piece_count() > self.limit {
            return Err(None);
        }
        match TableKey::of(&p).slot_id() {
            Some(id) => Ok((id, p)),
            None => Err(None),
        }
    }

    /// How `pos` is answered: directly, or from a table (see
    /// [`Egdb::route_key`]).
    #[inline(always)]
    fn route(&self, pos: &Position) -> Route {
        match self.route_key(pos) {
            Ok((id, p)) => match self.lookup[id] {
                NO_TABLE => Route::Done(None),
                x => Route::Table(x, p),
            },
            Err(r) => Route::Done(r),
        }
    }

    /// The file image holding table `x` (a `lookup` entry).
    #[inline(always)]
    fn image_of(&self, x: u32) -> &[u8] {
        self.slices[self.tables[x as usize].file as usize].bytes()
    }

    /// The stored value of `p` in table `x` (a `lookup` entry).
    #[inline(always)]
    fn stored_in(&self, x: u32, p: &Position) -> Option<Value> {
        let h = &self.hot[x as usize];
        let parts = h.shape.parts(p);
        if let Some(start) = h.start() {
            return value_of_code(self.unpacked.code(start, h.shape.padded_index(&parts))?);
        }
        let t = &self.tables[x as usize];
        let idx = t.index.index_from(&parts, t.index.men_offset(&parts));
        let image = self.slices[t.file as usize].bytes();
        let spot = t.layout.locate(image, idx)?;
        value_of_code(spot.value(image)?)
    }

    /// The best value over the captures of `p` (which has one).
    fn capture_search(&self, p: &Position) -> Option<Value> {
        let mut list = MoveList::new();
        p.push_captures(&mut list);
        let mut best = Value::Loss;
        for m in list.iter() {
            let v = self.probe_value(&p.play_unchecked(m))?.negate();
            if v > best {
                best = v;
                if best == Value::Win {
                    break;
                }
            }
        }
        Some(best)
    }

    #[inline]
    fn probe_value(&self, pos: &Position) -> Option<Value> {
        self.probe_with_source(pos).map(|(v, _)| v)
    }
}

impl Oracle for Egdb {
    /// The exact value of `pos` when its slice (and those of its captures)
    /// are present; positions with captures are resolved by a capture
    /// search.
    #[inline]
    fn probe(&self, pos: &Position) -> Option<Value> {
        self.probe_value(pos)
    }
}

/// Where [`Egdb::probe_many`] finds a value.
#[derive(Clone, Copy)]
enum Spot {
    /// Answered without a table (the answer is already written), or past
    /// the table.
    Missing,
    /// In a compressed table, not located yet.
    Packed,
    /// In the decoded tables: the place of its byte in the group's list of
    /// reads, and the shift of the value in it.
    Unpacked(usize, u32),
    /// In a compressed block.
    Block(BlockSpot),
}

/// How a probe is answered (see `Egdb::route`).
enum Route {
    /// Without reading a table.
    Done(Option<(Value, Source)>),
    /// From a table (its `lookup` entry) for this position.
    Table(u32, Position),
}

/// The value of a stored code ([`None`] for a don't-care code, which a
/// decoder never returns).
#[inline(always)]
fn value_of_code(code: u8) -> Option<Value> {
    match code {
        LOSS => Some(Value::Loss),
        DRAW => Some(Value::Draw),
        WIN => Some(Value::Win),
        _ => None,
    }
}

/// The slice files present in `dir` (an error if `dir` is not a folder).
fn present_files(dir: &Path) -> Result<Vec<(SliceKey, PathBuf)>, EgdbError> {
    Ok(folder_entries(dir)?
        .into_iter()
        .filter_map(|e| match e {
            FolderEntry::Slice(s, path) => Some((s, path)),
            _ => None,
        })
        .collect())
}

/// What a file of a database folder is ([`folder_entries`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FolderEntry {
    /// A slice file under its slice's name (of up to [`MAX_PIECES`]
    /// pieces).
    Slice(SliceKey, PathBuf),
    /// An unfinished build (`*.tmp`), which the next build redoes.
    Unfinished(PathBuf),
    /// A slice's file under another spelling of its name.
    Misnamed {
        /// The file.
        path: PathBuf,
        /// The name it should have.
        should_be: String,
    },
    /// Not a slice file (ignored).
    Other(PathBuf),
}

/// The files of the database folder `dir`, by name, each classified:
/// the one reading of a folder, which [`Egdb::open`] and `egdb verify`
/// share. A missing folder, or one that is not a folder, is an error.
pub fn folder_entries(dir: &Path) -> Result<Vec<FolderEntry>, EgdbError> {
    fs_check_dir(dir)?;
    let io = |error| EgdbError::Io {
        path: dir.to_path_buf(),
        error,
    };
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(io)?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    Ok(names
        .into_iter()
        .map(|name| {
            let path = dir.join(&name);
            if name.ends_with(".tmp") {
                return FolderEntry::Unfinished(path);
            }
            match name.strip_suffix(".egdb").and_then(SliceKey::parse) {
                Some(s) if s.pieces() > MAX_PIECES => FolderEntry::Other(path),
                Some(s) if s.file_name() != name => FolderEntry::Misnamed {
                    path,
                    should_be: s.file_name(),
                },
                Some(s) => FolderEntry::Slice(s, path),
                None => FolderEntry::Other(path),
            }
        })
        .collect())
}

fn fs_check_dir(dir: &Path) -> Result<(), EgdbError> {
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(EgdbError::Io {
            path: dir.to_path_buf(),
            error: std::io::Error::other("not a folder"),
        }),
        Err(error) => Err(EgdbError::Io {
            path: dir.to_path_buf(),
            error,
        }),
    }
}

#[cfg(test)]
mod folder_tests {
    use super::*;

    /// Each file of a folder is classified by its name alone.
    #[test]
    fn a_folder_s_files_are_slices_unfinished_misnamed_or_other() {
        let dir = std::env::temp_dir().join(format!("egdb-folder-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for name in [
            "0m2k-0m1k.egdb",
            "0m1k-0m2k.egdb",
            "0m3k-0m1k.egdb.123-0.tmp",
            "notes.txt",
            "9m0k@6-0m1k.egdb",
        ] {
            std::fs::write(dir.join(name), b"").unwrap();
        }
        let got = folder_entries(&dir).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let slice = SliceKey::parse("0m2k-0m1k").unwrap();
        assert_eq!(
            got,
            vec![
                FolderEntry::Misnamed {
                    path: dir.join("0m1k-0m2k.egdb"),
                    should_be: slice.file_name(),
                },
                FolderEntry::Slice(slice, dir.join("0m2k-0m1k.egdb")),
                FolderEntry::Unfinished(dir.join("0m3k-0m1k.egdb.123-0.tmp")),
                FolderEntry::Other(dir.join("9m0k@6-0m1k.egdb")),
                FolderEntry::Other(dir.join("notes.txt")),
            ]
        );
        assert!(
            folder_entries(&dir).is_err(),
            "a missing folder is an error"
        );
    }
}
