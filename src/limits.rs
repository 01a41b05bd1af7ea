//! The numbers the command line takes, checked in one place: durations,
//! thread counts, memory sizes, depths and piece counts. Each check is a
//! clap value parser, so a bad value is a usage error (exit status 2)
//! naming the option, the value and the limit, before anything runs; a
//! limit that depends on several options together is a [`UsageError`],
//! which `main` also turns into exit status 2.

use std::time::Duration;

/// Longest duration an option takes: 365 days, in seconds (the games'
/// limit, [`engine::play::MAX_SECONDS`]).
pub use engine::play::MAX_SECONDS;

/// Most worker threads a command starts. More than the machine's cores
/// only slows a run down; past this many it is a typing mistake (and
/// four thousand million threads never end starting).
pub const MAX_THREADS: usize = 1024;

/// Deepest nominal search depth an option takes (the search stops
/// extending well before its path limit of 128 plies).
pub const MAX_DEPTH: u32 = 100;

/// Deepest perft: the counts of the initial position pass `u64` well
/// before it, and depth 20 already takes days.
pub const MAX_PERFT_DEPTH: u32 = 30;

/// An error in the options that clap could not see alone (a product of
/// two of them, a count larger than what it counts): `main` reports it
/// like clap's own errors, with exit status 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Fails with a [`UsageError`] saying `why` unless `ok`.
pub fn usage(ok: bool, why: impl FnOnce() -> String) -> anyhow::Result<()> {
    if ok {
        Ok(())
    } else {
        Err(UsageError(why()).into())
    }
}

/// A number of seconds: positive, finite and at most [`MAX_SECONDS`].
/// Use it with [`duration`] once parsed.
pub fn seconds(text: &str) -> Result<f64, String> {
    let s: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("expected a number of seconds, not {text:?}"))?;
    check_seconds(s)
}

/// [`seconds`] of a number already read (a Hub `level`, a `--clock`).
pub fn check_seconds(s: f64) -> Result<f64, String> {
    if s.is_finite() && s > 0.0 && s <= MAX_SECONDS {
        Ok(s)
    } else {
        Err(format!(
            "expected a positive number of seconds, at most {MAX_SECONDS} (365 days)"
        ))
    }
}

/// The duration of seconds checked by [`seconds`] (a value past the
/// limits is clamped into them, never a panic).
pub fn duration(secs: f64) -> Duration {
    engine::play::duration_of_secs(secs)
}

/// A number of worker threads, 1 to [`MAX_THREADS`].
pub fn threads(text: &str) -> Result<usize, String> {
    bounded(text, 1, MAX_THREADS as u64, "threads").map(|n| n as usize)
}

/// A nominal search depth, 1 to [`MAX_DEPTH`] plies.
pub fn depth(text: &str) -> Result<u32, String> {
    bounded(text, 1, MAX_DEPTH as u64, "plies").map(|n| n as u32)
}

/// A repair's depth: 0 (no repair) to [`MAX_DEPTH`] plies.
pub fn repair_depth(text: &str) -> Result<u32, String> {
    bounded(text, 0, MAX_DEPTH as u64, "plies").map(|n| n as u32)
}

/// A perft depth, 0 to [`MAX_PERFT_DEPTH`].
pub fn perft_depth(text: &str) -> Result<u32, String> {
    bounded(text, 0, MAX_PERFT_DEPTH as u64, "plies").map(|n| n as u32)
}

/// The endgame databases' size every command that searches uses unless
/// told otherwise (`--egdb-pieces`): 5 pieces, built on first use.
pub const DEFAULT_EGDB_PIECES: u32 = 5;

/// The largest piece count of the endgame databases to use, 0 (none) to
/// [`engine::egdb::index::MAX_PIECES`].
pub fn egdb_pieces(text: &str) -> Result<u32, String> {
    let max = engine::egdb::index::MAX_PIECES as u64;
    bounded(text, 0, max, "pieces").map(|n| n as u32)
}

/// A piece count of databases to build, probe or list, 2 to
/// [`engine::egdb::index::MAX_PIECES`].
pub fn slice_pieces(text: &str) -> Result<u32, String> {
    let max = engine::egdb::index::MAX_PIECES as u64;
    bounded(text, 2, max, "pieces").map(|n| n as u32)
}

/// A parser of whole numbers from `lo` to `hi` (`unit` names what they
/// count, for the message), as the option's integer type.
pub fn whole<T: TryFrom<u64>>(
    lo: u64,
    hi: u64,
    unit: &'static str,
) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static {
    move |text| {
        let n = bounded(text, lo, hi, unit)?;
        T::try_from(n).map_err(|_| format!("{n} {unit} is too large for this machine"))
    }
}

fn bounded(text: &str, lo: u64, hi: u64, unit: &str) -> Result<u64, String> {
    let n: u64 = text
        .trim()
        .parse()
        .map_err(|_| format!("expected a whole number from {lo} to {hi}, not {text:?}"))?;
    if (lo..=hi).contains(&n) {
        Ok(n)
    } else {
        Err(format!("expected {lo} to {hi} {unit}"))
    }
}

/// This machine's memory in bytes (`MemTotal` of /proc/meminfo), if
/// known.
pub fn machine_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line
        .trim_start_matches("MemTotal:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}

/// The memory this process may use, in bytes: the machine's, or less
/// where its control group limits it (cgroup v1 or v2, as a Slurm job's
/// `--mem` does), if known.
pub fn memory_allowed() -> Option<u64> {
    let group = std::fs::read_to_string("/proc/self/cgroup")
        .ok()
        .and_then(|text| cgroup_memory_limit(&text, |p| std::fs::read_to_string(p).ok()));
    match (machine_memory(), group) {
        (Some(m), Some(g)) => Some(m.min(g)),
        (m, g) => m.or(g),
    }
}

/// The memory a build of endgame databases may hold a slice's tables
/// in: `mib` mebibytes, else three quarters of what this process may use
/// ([`memory_allowed`]), else no limit; its scratch files in `scratch`
/// when given (`egdb build --memory`, `--scratch`).
pub fn build_memory_limit(
    mib: Option<u64>,
    scratch: Option<&std::path::Path>,
) -> engine::egdb::BuildMemory {
    use engine::egdb::BuildMemory;
    let memory = match (mib, memory_allowed()) {
        (Some(m), _) => BuildMemory::within(m << 20),
        (None, Some(allowed)) => BuildMemory::within(allowed / 4 * 3),
        (None, None) => BuildMemory::UNLIMITED,
    };
    match scratch {
        Some(dir) => memory.scratch_in(dir),
        None => memory,
    }
}

/// The smallest memory limit of the control groups listed in `cgroups`
/// (the text of /proc/self/cgroup), reading each limit file with `read`:
/// `memory.max` under /sys/fs/cgroup for the unified hierarchy (also
/// /sys/fs/cgroup/unified), `memory.limit_in_bytes` under
/// /sys/fs/cgroup/memory for the v1 memory controller. "max" is no limit.
fn cgroup_memory_limit(cgroups: &str, read: impl Fn(&str) -> Option<String>) -> Option<u64> {
    cgroups
        .lines()
        .flat_map(|line| {
            let mut parts = line.splitn(3, ':');
            let (_, controllers, path) = (parts.next(), parts.next(), parts.next());
            let path = path.unwrap_or("").trim_end_matches('/');
            match controllers {
                Some("") => vec![
                    format!("/sys/fs/cgroup{path}/memory.max"),
                    format!("/sys/fs/cgroup/unified{path}/memory.max"),
                ],
                Some(c) if c.split(',').any(|c| c == "memory") => {
                    vec![format!("/sys/fs/cgroup/memory{path}/memory.limit_in_bytes")]
                }
                _ => Vec::new(),
            }
        })
        .filter_map(|file| read(&file)?.trim().parse::<u64>().ok())
        .min()
}

/// Checks that `bytes` (what `what` asks for, `None` when it does not
/// even fit a number) fits in this machine's memory, before anything is
/// allocated: a request past it is a [`UsageError`] naming it, not an
/// abort on the allocation. Where the memory is unknown, only a size that
/// overflows is refused.
pub fn fits_memory(what: &str, bytes: Option<u128>) -> anyhow::Result<()> {
    let mib = |b: u128| b.div_ceil(1 << 20);
    match (bytes, machine_memory()) {
        (None, _) => Err(UsageError(format!("{what}: more memory than any machine has")).into()),
        (Some(b), Some(total)) if b > total as u128 => Err(UsageError(format!(
            "{what}: needs {} MiB, more than this machine's {} MiB of memory",
            mib(b),
            mib(total as u128)
        ))
        .into()),
        _ => Ok(()),
    }
}

/// Bytes a solver's table takes per entry, at most: slots of 36 bytes
/// (df-pn), a power of two of them, at most 70% full (302 MB for 4 M
/// entries).
pub const TABLE_ENTRY_BYTES: u64 = 75;

/// Bytes the retrograde analysis takes per position, about.
pub const RETRO_POSITION_BYTES: u64 = 100;

/// A parser of a count of things of `bytes` bytes each that are held in
/// memory at once (table entries, positions): at least 1, and no more
/// than this machine's memory holds.
pub fn held(bytes: u64) -> impl Fn(&str) -> Result<usize, String> + Clone + Send + Sync + 'static {
    move |text| {
        let n = at_least_one(text, "a whole number", "1")?;
        let what = format!("{n} of {bytes} bytes each");
        fits_memory(&what, (n as u128).checked_mul(bytes as u128)).map_err(|e| e.to_string())?;
        Ok(n)
    }
}

/// A count of at least one: `what` names the number expected, `one` the
/// least (for the messages).
fn at_least_one(text: &str, what: &str, one: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Err(_) => Err(format!("expected {what}, not {text:?}")),
        Ok(0) => Err(format!("expected at least {one}")),
        Ok(n) => Ok(n),
    }
}

/// A size in MiB for one table: at least 1, and no more than this
/// machine's memory.
pub fn mebibytes(text: &str) -> Result<usize, String> {
    let n = at_least_one(text, "a number of MiB", "1 MiB")?;
    fits_memory("the table", Some((n as u128) << 20)).map_err(|e| e.to_string())?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The v1 memory controller's and the unified hierarchy's limit
    /// files are read, the smallest limit wins, and "max" is none.
    #[test]
    fn control_group_limits_are_read_from_both_hierarchies() {
        let files = |p: &str| -> Option<String> {
            match p {
                "/sys/fs/cgroup/memory/job_7/memory.limit_in_bytes" => Some("4294967296\n".into()),
                "/sys/fs/cgroup/slurm/job_7/memory.max" => Some("2147483648\n".into()),
                "/sys/fs/cgroup/free/memory.max" => Some("max\n".into()),
                _ => None,
            }
        };
        let v1 = "4:memory:/job_7\n3:cpu,cpuacct:/job_7\n";
        assert_eq!(cgroup_memory_limit(v1, files), Some(4 << 30));
        let both = "4:memory:/job_7\n0::/slurm/job_7\n";
        assert_eq!(cgroup_memory_limit(both, files), Some(2 << 30));
        assert_eq!(cgroup_memory_limit("0::/free\n", files), None);
        assert_eq!(cgroup_memory_limit("0::/\n1:pids:/\n", files), None);
        assert_eq!(cgroup_memory_limit("", files), None);
    }

    #[test]
    fn seconds_past_a_year_or_not_positive_are_refused() {
        assert_eq!(seconds("1.5"), Ok(1.5));
        for bad in ["0", "-1", "NaN", "inf", "1e30", "31536001", "x"] {
            let e = seconds(bad).unwrap_err();
            assert!(e.contains("seconds"), "{bad}: {e}");
        }
        assert!(seconds("1e30").unwrap_err().contains("31536000"));
        assert_eq!(duration(1e30), Duration::from_secs_f64(MAX_SECONDS));
        assert_eq!(duration(f64::NAN), Duration::ZERO);
    }

    #[test]
    fn counts_name_their_limits() {
        assert_eq!(threads("2"), Ok(2));
        assert!(threads("0").unwrap_err().contains("1 to 1024 threads"));
        assert!(threads("4294967296").unwrap_err().contains("1 to 1024"));
        assert!(threads("18446744073709551616").is_err());
        assert!(depth("101").unwrap_err().contains("1 to 100"));
        assert_eq!(egdb_pieces("0"), Ok(0));
        assert!(egdb_pieces("9").is_err());
        assert!(slice_pieces("1").unwrap_err().contains("2 to 8"));
    }

    #[test]
    fn memory_past_the_machine_is_refused_before_allocating() {
        assert_eq!(mebibytes("1"), Ok(1));
        assert!(mebibytes("0").is_err());
        for huge in ["4294967296", "18446744073709551615"] {
            let e = mebibytes(huge).unwrap_err();
            assert!(e.contains("memory"), "{e}");
        }
        assert!(fits_memory("x", None).is_err());
    }
}
