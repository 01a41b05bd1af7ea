//! The clock that the searches' time budgets count: wall time, or the CPU
//! time of the thread that searches.
//!
//! A budget in wall time decides marginal questions by the machine's load:
//! the same search may settle a position on a quiet machine and leave it
//! open on a loaded one (docs/measurements.md). A budget in the searching thread's CPU time
//! gives the same search the same work whatever else runs. Each
//! [`crate::solve::solve`] runs on a thread of its own, so its thread's
//! CPU time is the solve's.
//!
//! The clock is chosen per thread ([`use_clock`]); an [`Instant`] is only
//! meaningful on the thread that read it, and the solver never hands one
//! to another thread.

use nix::time::{clock_gettime, ClockId};
use std::cell::Cell;
use std::ops::Add;
use std::sync::OnceLock;
use std::time::Duration;

/// What time counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Clock {
    /// Elapsed real time.
    Wall,
    /// CPU time of the thread (user and system), which does not advance
    /// while the thread waits for a core.
    #[default]
    Cpu,
}

thread_local! {
    static CLOCK: Cell<Clock> = const { Cell::new(Clock::Wall) };
}

/// Makes the current thread's [`Instant::now`] read `clock` (threads start
/// on [`Clock::Wall`]).
pub fn use_clock(clock: Clock) {
    CLOCK.with(|c| c.set(clock));
}

/// The clock the current thread reads.
pub fn current() -> Clock {
    CLOCK.with(Cell::get)
}

/// A moment of the current thread's clock, as time since that clock's
/// origin (the wall clock's is the first reading in the process, the CPU
/// clock's the thread's start).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant(Duration);

impl Instant {
    /// Now, on the current thread's clock.
    pub fn now() -> Instant {
        Instant(read(current()))
    }

    /// Time from this moment until now.
    pub fn elapsed(&self) -> Duration {
        Instant::now().saturating_duration_since(*self)
    }

    /// Time from `earlier` to this moment, zero if `earlier` is later.
    pub fn saturating_duration_since(&self, earlier: Instant) -> Duration {
        self.0.saturating_sub(earlier.0)
    }
}

impl Add<Duration> for Instant {
    type Output = Instant;
    fn add(self, d: Duration) -> Instant {
        Instant(self.0.saturating_add(d))
    }
}

/// Reads `clock` on the current thread, whatever the thread's own
/// setting, as time since the clock's origin.
pub fn read(clock: Clock) -> Duration {
    match clock {
        Clock::Wall => wall_origin().elapsed(),
        Clock::Cpu => thread_cpu(),
    }
}

/// Time taken on one clock by the current thread, for code that hands
/// work to [`crate::solve::solve`] (which reports its own thread's time)
/// and adds what it does itself: [`Stopwatch::total`].
#[derive(Clone, Copy, Debug)]
pub struct Stopwatch {
    clock: Clock,
    start: Duration,
}

impl Stopwatch {
    /// Starts now on `clock`.
    pub fn start(clock: Clock) -> Stopwatch {
        Stopwatch {
            clock,
            start: read(clock),
        }
    }

    /// Time on the clock since the start, by this thread (all of it, for
    /// the wall clock).
    pub fn elapsed(&self) -> Duration {
        read(self.clock).saturating_sub(self.start)
    }

    /// Time taken since the start by this thread and by `waited`, the
    /// time of threads it waited for meanwhile (a solve's report): their
    /// sum on the CPU clock, the elapsed time alone on the wall clock
    /// (which already holds the wait).
    pub fn total(&self, waited: Duration) -> Duration {
        match self.clock {
            Clock::Wall => self.elapsed(),
            Clock::Cpu => self.elapsed() + waited,
        }
    }
}

fn wall_origin() -> std::time::Instant {
    static ORIGIN: OnceLock<std::time::Instant> = OnceLock::new();
    *ORIGIN.get_or_init(std::time::Instant::now)
}

/// The calling thread's CPU time. A system without a per-thread CPU clock
/// gets the wall clock's reading instead (Linux, the BSDs and macOS have
/// one), so budgets still end.
fn thread_cpu() -> Duration {
    match clock_gettime(ClockId::CLOCK_THREAD_CPUTIME_ID) {
        Ok(t) => Duration::new(t.tv_sec() as u64, t.tv_nsec() as u32),
        Err(_) => wall_origin().elapsed(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_clock_stands_still_while_the_thread_sleeps() {
        std::thread::spawn(|| {
            use_clock(Clock::Cpu);
            let t0 = Instant::now();
            std::thread::sleep(Duration::from_millis(200));
            let slept = t0.elapsed();
            // Spin until the CPU clock has moved 50 ms.
            let t1 = Instant::now();
            let mut x = 0u64;
            while t1.elapsed() < Duration::from_millis(50) {
                x = x.wrapping_add(1);
            }
            assert!(x > 0);
            assert!(slept < Duration::from_millis(100), "{slept:?}");
        })
        .join()
        .unwrap();
    }

    #[test]
    fn the_wall_clock_counts_sleep_and_is_the_default() {
        std::thread::spawn(|| {
            assert_eq!(current(), Clock::Wall);
            let t0 = Instant::now();
            std::thread::sleep(Duration::from_millis(60));
            assert!(t0.elapsed() >= Duration::from_millis(60));
        })
        .join()
        .unwrap();
    }
}
