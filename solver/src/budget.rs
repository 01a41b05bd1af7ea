//! The node count of a search and the limits that end one of its calls:
//! a node budget, a deadline, a stop flag set from outside, and a shared
//! counter that reports the work to another thread.

use crate::clock::Instant;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// A search whose limits of one call ([`CallLimits`]) can be changed
/// between calls.
pub trait CallLimited {
    /// The limits of the next call.
    fn limits(&self) -> &CallLimits;
    /// The limits of the next call, to change.
    fn limits_mut(&mut self) -> &mut CallLimits;

    /// Changes only the deadline (on the call's clock).
    fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.limits_mut().deadline = deadline;
    }

    /// The node budget of one call.
    fn max_nodes(&self) -> u64 {
        self.limits().max_nodes
    }

    /// Changes only the node budget of one call.
    fn set_max_nodes(&mut self, max_nodes: u64) {
        self.limits_mut().max_nodes = max_nodes;
    }
}

/// Nodes between two checks of the limits (and two progress reports).
const CHECK_EVERY: u64 = 1024;

/// The limits of one call of a search ([`crate::prover::AbConfig`],
/// [`crate::dfpn::DfpnConfig`]). The stop flag and the progress counter
/// are shared with the thread that sets or reads them.
#[derive(Clone, Debug)]
pub struct CallLimits {
    /// Nodes one call may search.
    pub max_nodes: u64,
    /// Deadline, if any, on the clock of [`crate::clock::Instant`] (the
    /// searching thread's CPU time by default, wall time if chosen).
    pub deadline: Option<Instant>,
    /// Set from outside (SIGINT, a run's end) to stop the search as if
    /// its budget ran out.
    pub stop: Option<Arc<AtomicBool>>,
    /// Nodes searched are added here as the search goes (1,024 at a
    /// time), for a report from another thread.
    pub progress: Option<Arc<AtomicU64>>,
}

impl CallLimits {
    /// A node budget alone.
    pub fn nodes(max_nodes: u64) -> CallLimits {
        CallLimits {
            max_nodes,
            ..CallLimits::default()
        }
    }

    /// These limits with `deadline` instead of their own.
    pub fn until(self, deadline: Option<Instant>) -> CallLimits {
        CallLimits { deadline, ..self }
    }

    /// Whether the stop flag is set.
    pub fn stop_requested(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

impl Default for CallLimits {
    /// Ten million nodes, nothing else.
    fn default() -> Self {
        CallLimits {
            max_nodes: 10_000_000,
            deadline: None,
            stop: None,
            progress: None,
        }
    }
}

/// Nodes searched over all calls of a search, and whether the current
/// call has run out of its limits.
#[derive(Debug, Default)]
pub(crate) struct Budget {
    nodes: u64,
    start: u64,
    aborted: bool,
}

impl Budget {
    /// Starts a call: its node budget counts from here.
    pub fn begin(&mut self) {
        self.aborted = false;
        self.start = self.nodes;
    }

    /// Counts one node; every [`CHECK_EVERY`] nodes reports them and
    /// checks `limits`. Returns whether the call has run out.
    #[inline]
    #[must_use]
    pub fn tick(&mut self, limits: &CallLimits) -> bool {
        self.nodes += 1;
        if self.nodes.is_multiple_of(CHECK_EVERY) {
            if let Some(p) = &limits.progress {
                p.fetch_add(CHECK_EVERY, Ordering::Relaxed);
            }
            self.aborted |= self.out_of(limits);
        }
        self.aborted
    }

    fn out_of(&self, limits: &CallLimits) -> bool {
        self.nodes - self.start >= limits.max_nodes
            || limits.stop_requested()
            || limits.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Nodes counted over all calls.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Whether the current call has run out.
    pub fn aborted(&self) -> bool {
        self.aborted
    }

    /// Ends the current call as if it had run out.
    pub fn abort(&mut self) {
        self.aborted = true;
    }

    /// Sets the count over all calls (a search resumed from a checkpoint
    /// goes on from the nodes its tables took).
    pub fn set_nodes(&mut self, nodes: u64) {
        self.nodes = nodes;
        self.start = nodes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_runs_out_at_the_check_after_its_node_budget() {
        let mut b = Budget::default();
        b.begin();
        let ticks = (1..=3 * CHECK_EVERY)
            .find(|_| b.tick(&CallLimits::nodes(1500)))
            .expect("runs out");
        assert_eq!(ticks, 2 * CHECK_EVERY);
        // The next call has a fresh budget; the count goes on.
        b.begin();
        assert!(!b.aborted());
        assert!((0..CHECK_EVERY - 1).all(|_| !b.tick(&CallLimits::nodes(1500))));
        assert_eq!(b.nodes(), 3 * CHECK_EVERY - 1);
    }

    #[test]
    fn the_stop_flag_and_progress_are_seen_at_a_check() {
        let stop = Arc::new(AtomicBool::new(false));
        let seen = Arc::new(AtomicU64::new(0));
        let l = CallLimits {
            stop: Some(Arc::clone(&stop)),
            progress: Some(Arc::clone(&seen)),
            ..CallLimits::nodes(u64::MAX)
        };
        let mut b = Budget::default();
        b.begin();
        assert!((0..CHECK_EVERY).all(|_| !b.tick(&l)));
        assert_eq!(seen.load(Ordering::Relaxed), CHECK_EVERY);
        stop.store(true, Ordering::Relaxed);
        assert!((0..CHECK_EVERY - 1).all(|_| !b.tick(&l)));
        assert!(b.tick(&l));
    }
}
