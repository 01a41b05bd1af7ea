//! The time a player took over its moves, as the referee measured it
//! (wall time from asking for a move to receiving it): all moves, and
//! apart the moves with a choice (more than one legal move), which an
//! engine may answer at once when there is none.

use std::time::Duration;

/// Time taken over a player's moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveTimes {
    /// Moves timed.
    pub moves: u32,
    /// Their total time.
    pub total: Duration,
    /// Moves timed in positions with more than one legal move.
    pub choice_moves: u32,
    /// Their total time.
    pub choice_total: Duration,
    /// The longest time a move took.
    pub longest: Duration,
}

impl MoveTimes {
    /// Counts a move that took `t`; `choice` says whether there was more
    /// than one legal move.
    pub fn add(&mut self, t: Duration, choice: bool) {
        self.moves += 1;
        self.total += t;
        if choice {
            self.choice_moves += 1;
            self.choice_total += t;
        }
        self.longest = self.longest.max(t);
    }

    /// Adds the moves of `other`.
    pub fn merge(&mut self, other: &MoveTimes) {
        self.moves += other.moves;
        self.total += other.total;
        self.choice_moves += other.choice_moves;
        self.choice_total += other.choice_total;
        self.longest = self.longest.max(other.longest);
    }

    /// Mean seconds a move (0 with no move).
    pub fn mean(&self) -> f64 {
        self.total.as_secs_f64() / self.moves.max(1) as f64
    }

    /// Mean seconds a move with a choice (0 with none).
    pub fn choice_mean(&self) -> f64 {
        self.choice_total.as_secs_f64() / self.choice_moves.max(1) as f64
    }

    /// One line: `mean 0.0931 s over 5120 moves, 0.0975 s over the 4800
    /// with a choice, longest 0.1050 s`.
    pub fn summary(&self) -> String {
        format!(
            "mean {:.4} s over {} moves, {:.4} s over the {} with a choice, longest {:.4} s",
            self.mean(),
            self.moves,
            self.choice_mean(),
            self.choice_moves,
            self.longest.as_secs_f64()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn means_count_moves_with_a_choice_apart() {
        let mut t = MoveTimes::default();
        assert_eq!(t.mean(), 0.0);
        t.add(Duration::from_millis(100), true);
        t.add(Duration::from_millis(0), false);
        let mut u = MoveTimes::default();
        u.add(Duration::from_millis(50), true);
        t.merge(&u);
        assert_eq!((t.moves, t.choice_moves), (3, 2));
        assert!((t.mean() - 0.05).abs() < 1e-9);
        assert!((t.choice_mean() - 0.075).abs() < 1e-9);
        assert_eq!(t.longest, Duration::from_millis(100));
    }
}
