//! `egdb bench`.

use super::DirArg;
use engine::egdb::index::TableIndex;
use engine::egdb::slice::all_slices;
use engine::egdb::Egdb;
use engine::{Oracle, Position};
use std::time::Instant;

#[derive(clap::Args)]
pub(super) struct BenchArgs {
    /// Largest piece count of the probed positions, 2 to 8 (all its
    /// slices must be built).
    #[arg(long, default_value_t = 6, value_parser = crate::limits::slice_pieces)]
    pub(super) pieces: u32,
    /// Number of distinct random positions.
    #[arg(long, default_value_t = 1_000_000)]
    pub(super) positions: usize,
    /// Passes over the positions, 1 to 1000; the best pass is reported.
    #[arg(long, default_value_t = 5, value_parser = crate::limits::whole::<u32>(1, 1000, "passes"))]
    pub(super) repeat: u32,
    /// Read the files into memory (huge pages) instead of mapping them.
    #[arg(long)]
    pub(super) in_memory: bool,
    /// Decode the probed tables into memory, two bits a position, as
    /// commands do within CHECKERS_EGDB_MEMORY.
    #[arg(long)]
    pub(super) unpacked: bool,
    /// Threads probing at once, each over its own random positions; the
    /// figures are per thread (memory shared by the cores is part of what
    /// is measured); 1 to 256.
    #[arg(long, default_value_t = 1, value_parser = crate::limits::whole::<usize>(1, 256, "threads"))]
    pub(super) threads: usize,
    #[command(flatten)]
    pub(super) dir: DirArg,
}

pub(super) fn bench(a: BenchArgs) -> anyhow::Result<()> {
    let dir = a.dir.get();
    let mut db = if a.in_memory {
        Egdb::open_in_memory(&dir)?
    } else {
        Egdb::open(&dir)?
    };
    let mut decoded_bytes = 0;
    if a.unpacked {
        db.limit_pieces(a.pieces);
        let t = Instant::now();
        let u = db.unpack(u64::MAX)?;
        decoded_bytes = u.bytes;
        println!(
            "decoded {} tables ({} positions) into {:.1} MB in {:.1} s",
            u.tables,
            u.positions,
            u.bytes as f64 / 1e6,
            t.elapsed().as_secs_f64()
        );
    }
    anyhow::ensure!(
        db.max_pieces() >= a.pieces,
        "{} holds complete databases up to {} pieces, the bench asks for {}",
        dir.display(),
        db.max_pieces(),
        a.pieces
    );
    // Random positions without a capture: a table chosen with probability
    // proportional to its size, a uniform index, half of them colour-
    // reversed to White to move.
    let tables: Vec<TableIndex> = all_slices(a.pieces)
        .iter()
        .flat_map(|s| s.tables())
        .map(TableIndex::new)
        .collect();
    let mut cum = Vec::with_capacity(tables.len());
    let mut total = 0u64;
    for t in &tables {
        total += t.size();
        cum.push(total);
    }
    let mut rng = engine::rng::XorShift64::new(0x2545_F491_4F6C_DD1D);
    let mut rnd = move || rng.next_u64();
    let each = a.positions.max(1);
    // Too many to count or to hold: an error, not an abort.
    let too_many = || anyhow::anyhow!("--positions {each} on {} threads: too many", a.threads);
    let wanted = each.checked_mul(a.threads).ok_or_else(too_many)?;
    // The positions and the values of two passes.
    let per_position =
        std::mem::size_of::<Position>() + 2 * std::mem::size_of::<Option<engine::Value>>();
    crate::limits::fits_memory(
        &format!("--positions {each} on {} threads", a.threads),
        (wanted as u128).checked_mul(per_position as u128),
    )?;
    let mut positions: Vec<Position> = Vec::new();
    positions
        .try_reserve_exact(wanted)
        .map_err(|_| too_many())?;
    while positions.len() < wanted {
        let r = rnd() % total;
        let t = cum.partition_point(|&c| c <= r);
        let p = tables[t].position(rnd() % tables[t].size());
        if p.has_capture() {
            continue;
        }
        positions.push(if rnd() & 1 == 1 { p.flipped() } else { p });
    }
    // One probe at a time, then the same positions with `probe_many`,
    // which must give the same values.
    let mut first: Option<Vec<Option<engine::Value>>> = None;
    for batched in [false, true] {
        let (best, values) = best_pass(&db, &positions, each, batched, a.repeat.max(1))?;
        if let Some(i) = first
            .as_ref()
            .and_then(|f| (0..each).find(|&i| f[i] != values[i]))
        {
            anyhow::bail!(
                "probe_many and one probe at a time disagree on {:?}",
                positions[i]
            );
        }
        let wins = values
            .iter()
            .filter(|v| **v == Some(engine::Value::Win))
            .count();
        first.get_or_insert(values);
        println!(
            "{} random positions of 2-{} pieces without capture ({} wins), {}: {:.1} million \
             probes/s per thread, {}, best of {} passes ({:.0} ns/probe)",
            each,
            a.pieces,
            wins,
            if batched {
                "probe_many (groups of positions, memory reads overlapped)"
            } else {
                "one probe at a time"
            },
            each as f64 / best / 1e6,
            match a.threads {
                1 => "one thread".to_string(),
                n => format!("{n} threads at once, each over its own {each} positions"),
            },
            a.repeat.max(1),
            best * 1e9 / each as f64
        );
    }
    // The buffer is as large as what the probes read, the files or the
    // decoded tables (capped at 1 GiB: past the caches and the TLB reach,
    // size no longer matters).
    let files: u64 = db
        .slices()
        .iter()
        .filter(|f| f.header().slice.pieces() <= a.pieces)
        .map(|f| f.file_len())
        .sum();
    let bytes = if a.unpacked { decoded_bytes } else { files }.min(1 << 30);
    let (dependent, independent) = random_read_ns(bytes as usize)?;
    println!(
        "memory here: {dependent:.0} ns per dependent random read over {:.1} MB (the size of what \
         is probed; a probe that misses the caches costs at least one), {independent:.1} ns \
         per random read with many in flight (the floor under a batch of probes)",
        bytes as f64 / 1e6
    );
    Ok(())
}

/// The shortest of `repeat` passes, in seconds, in which threads probe at
/// once each its own `each` of `positions` (one probe at a time, or with
/// [`Egdb::probe_many`] when `batched`); a pass lasts until its slowest
/// thread is done. Every position must get a value. Also the values of the
/// first thread's positions.
pub(super) fn best_pass(
    db: &Egdb,
    positions: &[Position],
    each: usize,
    batched: bool,
    repeat: u32,
) -> anyhow::Result<(f64, Vec<Option<engine::Value>>)> {
    let chunks: Vec<&[Position]> = positions.chunks(each).collect();
    let start = std::sync::Barrier::new(chunks.len());
    let mut best = f64::INFINITY;
    let mut first = Vec::new();
    for _ in 0..repeat {
        let passes: Vec<anyhow::Result<(f64, Vec<Option<engine::Value>>)>> =
            std::thread::scope(|scope| {
                let workers: Vec<_> = chunks
                    .iter()
                    .map(|chunk| {
                        let start = &start;
                        scope.spawn(move || {
                            let mut out = vec![None; chunk.len()];
                            start.wait();
                            let t = Instant::now();
                            if batched {
                                db.probe_many(chunk, &mut out);
                            } else {
                                for (p, o) in chunk.iter().zip(out.iter_mut()) {
                                    *o = db.probe(p);
                                }
                            }
                            let seconds = t.elapsed().as_secs_f64();
                            match out.iter().position(|v| v.is_none()) {
                                Some(i) => Err(anyhow::anyhow!("no value for {:?}", chunk[i])),
                                None => Ok((seconds, out)),
                            }
                        })
                    })
                    .collect();
                workers
                    .into_iter()
                    .map(|w| {
                        w.join()
                            .unwrap_or_else(|_| Err(anyhow::anyhow!("a probe thread failed")))
                    })
                    .collect()
            });
        let mut slowest = 0f64;
        for (n, pass) in passes.into_iter().enumerate() {
            let (seconds, values) = pass?;
            slowest = slowest.max(seconds);
            if n == 0 {
                first = values;
            }
        }
        best = best.min(slowest);
    }
    Ok((best, first))
}

/// Nanoseconds per read over a buffer of `bytes` bytes (64-byte lines):
/// of a pointer chase over a random cycle through it (each read waits for
/// the one before: the cost of one cache and TLB miss on this machine, the
/// floor under a single random probe of databases larger than the caches),
/// and of independent random reads (as many in flight as the machine
/// allows: the floor under a batch of probes, `probe_many`).
pub(super) fn random_read_ns(bytes: usize) -> anyhow::Result<(f64, f64)> {
    const LINE: usize = 64;
    let lines = (bytes / LINE).max(2);
    // Anonymous memory asked for in huge pages, as the decoded tables are.
    let mut buf = memmap2::MmapMut::map_anon(lines * LINE)?;
    #[cfg(target_os = "linux")]
    {
        let _ = buf.advise(memmap2::Advice::HugePage);
    }
    let link = |buf: &[u8], line: usize| {
        let at = line * LINE;
        u32::from_le_bytes([buf[at], buf[at + 1], buf[at + 2], buf[at + 3]]) as usize
    };
    // The lines in a random order (Fisher-Yates), linked into one cycle.
    let mut order: Vec<u32> = (0..lines as u32).collect();
    let mut rng = engine::rng::XorShift64::default();
    let mut rnd = move || rng.next_u64();
    for i in (1..lines).rev() {
        order.swap(i, (rnd() % (i as u64 + 1)) as usize);
    }
    for i in 0..lines {
        let at = order[i] as usize * LINE;
        buf[at..at + 4].copy_from_slice(&order[(i + 1) % lines].to_le_bytes());
    }
    let steps = 4_000_000usize;
    let mut at = 0usize;
    let t = Instant::now();
    for _ in 0..steps {
        at = link(&buf, at);
    }
    let dependent = t.elapsed().as_secs_f64() * 1e9 / steps as f64;
    std::hint::black_box(at);
    let places: Vec<usize> = (0..steps)
        .map(|_| (rnd() % lines as u64) as usize * LINE)
        .collect();
    let t = Instant::now();
    let sum = places.iter().fold(0u8, |s, &p| s ^ buf[p]);
    let independent = t.elapsed().as_secs_f64() * 1e9 / steps as f64;
    std::hint::black_box(sum);
    Ok((dependent, independent))
}
