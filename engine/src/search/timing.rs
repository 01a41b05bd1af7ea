//! Whether iterative deepening starts another iteration: with a soft time
//! (a share of a game clock, [`super::Limits::soft_time`]) no iteration
//! starts past it, nor one that is not expected to finish before the
//! hard time (the most the move may take). An iteration is expected to
//! take the last one's time times the growth between the last two
//! (between [`MIN_GROWTH`] and [`MAX_GROWTH`]; [`FIRST_GROWTH`] before
//! two have finished). Without a soft time every iteration starts and the
//! hard time interrupts the last (a fixed time per move: time not used is
//! lost).

use std::time::{Duration, Instant};

/// Least expected growth of an iteration's time over the last one's.
pub const MIN_GROWTH: f64 = 1.5;
/// Most expected growth.
pub const MAX_GROWTH: f64 = 5.0;
/// Expected growth before two iterations have finished.
pub const FIRST_GROWTH: f64 = 3.0;

/// The timing of the iterations of one search.
#[derive(Clone, Debug)]
pub struct IterationTimer {
    /// No iteration starts past this (none: no soft time).
    soft: Option<Instant>,
    /// The hard deadline the search is interrupted at (none: no time).
    hard: Option<Instant>,
    /// When the iteration under way started.
    began: Instant,
    /// Time of the last finished iteration.
    last: Option<Duration>,
    /// Expected ratio of the next iteration's time to the last one's.
    growth: f64,
}

impl IterationTimer {
    /// A timer for a search that started at `start`, with the soft time
    /// `soft` and the hard deadline `hard` (already less its margin);
    /// the soft time is held to the hard deadline.
    pub fn new(start: Instant, soft: Option<Duration>, hard: Option<Instant>) -> IterationTimer {
        let soft = match (soft, hard) {
            (Some(s), Some(h)) => Some((start + s).min(h)),
            _ => None,
        };
        IterationTimer {
            soft,
            hard,
            began: start,
            last: None,
            growth: FIRST_GROWTH,
        }
    }

    /// Whether the next iteration should start now: always without a
    /// soft time or before an iteration has finished; else only before
    /// the soft time and when it is expected to finish by the hard one.
    pub fn may_start(&self, now: Instant) -> bool {
        let (Some(soft), Some(hard), Some(last)) = (self.soft, self.hard, self.last) else {
            return true;
        };
        now < soft && now + last.mul_f64(self.growth) <= hard
    }

    /// An iteration starts at `now`.
    pub fn begin(&mut self, now: Instant) {
        self.began = now;
    }

    /// The iteration under way finished at `now`.
    pub fn finished(&mut self, now: Instant) {
        let took = now.saturating_duration_since(self.began);
        if let Some(last) = self.last {
            let ratio = took.as_secs_f64() / last.as_secs_f64().max(1e-6);
            self.growth = ratio.clamp(MIN_GROWTH, MAX_GROWTH);
        }
        self.last = Some(took);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn without_a_soft_time_every_iteration_starts() {
        let t0 = Instant::now();
        let mut t = IterationTimer::new(t0, None, Some(t0 + 100 * MS));
        t.begin(t0);
        t.finished(t0 + 90 * MS);
        assert!(t.may_start(t0 + 95 * MS));
    }

    #[test]
    fn no_iteration_starts_past_the_soft_time_or_when_it_cannot_finish() {
        let t0 = Instant::now();
        let mut t = IterationTimer::new(t0, Some(100 * MS), Some(t0 + 200 * MS));
        assert!(t.may_start(t0));
        t.begin(t0);
        t.finished(t0 + 10 * MS);
        // expected 30 ms (growth 3 before two iterations)
        assert!(t.may_start(t0 + 10 * MS));
        t.begin(t0 + 10 * MS);
        t.finished(t0 + 50 * MS);
        // the last took 40 ms, 4 times the one before: expected 160 ms
        assert!(t.may_start(t0 + 40 * MS));
        assert!(!t.may_start(t0 + 60 * MS), "cannot finish by the hard time");
        assert!(!t.may_start(t0 + 100 * MS), "past the soft time");
    }
}
