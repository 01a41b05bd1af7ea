//! The Elo difference a match's score shows, with its 95% margin.

/// Elo difference for a score fraction `p` in (0, 1).
pub fn elo(p: f64) -> f64 {
    let p = p.clamp(1e-6, 1.0 - 1e-6);
    -400.0 * (1.0 / p - 1.0).log10()
}

/// Elo difference and the half-width of its 95% interval from wins,
/// draws and losses (normal approximation on the per-game score).
pub fn elo_with_margin(w: u32, d: u32, l: u32) -> (f64, f64) {
    let n = (w + d + l) as f64;
    if n == 0.0 {
        return (0.0, 0.0);
    }
    let p = (w as f64 + 0.5 * d as f64) / n;
    let var =
        (w as f64 * (1.0 - p).powi(2) + d as f64 * (0.5 - p).powi(2) + l as f64 * p.powi(2)) / n;
    let se = (var / n).sqrt();
    let lo = elo(p - 1.96 * se);
    let hi = elo(p + 1.96 * se);
    (elo(p), (hi - lo) / 2.0)
}

/// Wins, draws and losses of one player over a match.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

impl Tally {
    /// Counts a game that scored `score` (1 win, 0.5 draw, 0 loss).
    pub fn add(&mut self, score: f64) {
        match score {
            x if x > 0.75 => self.wins += 1,
            x if x < 0.25 => self.losses += 1,
            _ => self.draws += 1,
        }
    }

    /// Games counted.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// `+W =D -L of N games, score S%, Elo difference E +/- M (95%)`.
    pub fn summary(&self) -> String {
        let (w, d, l) = (self.wins, self.draws, self.losses);
        let n = self.games();
        let (e, m) = elo_with_margin(w, d, l);
        format!(
            "+{w} ={d} -{l} of {n} games, score {:.1}%, Elo difference {:+.0} +/- {:.0} (95%)",
            100.0 * (w as f64 + 0.5 * d as f64) / n.max(1) as f64,
            e,
            m
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_margin_is_symmetric_and_sensible() {
        let (e, m) = elo_with_margin(60, 20, 20);
        assert!(e > 100.0 && e < 200.0, "{e}");
        assert!(m > 30.0 && m < 120.0, "{m}");
        let (e2, _) = elo_with_margin(20, 20, 60);
        assert!((e + e2).abs() < 1e-6);
        assert_eq!(elo_with_margin(5, 0, 5).0, 0.0);
        assert_eq!(elo_with_margin(0, 0, 0), (0.0, 0.0));
        // A 75% score is about +191 Elo.
        assert!((elo(0.75) - 190.85).abs() < 0.1, "{}", elo(0.75));
    }

    #[test]
    fn a_tally_counts_and_summarises() {
        let mut t = Tally::default();
        for s in [1.0, 1.0, 0.5, 0.0] {
            t.add(s);
        }
        assert_eq!(
            t,
            Tally {
                wins: 2,
                draws: 1,
                losses: 1
            }
        );
        assert!(
            t.summary()
                .starts_with("+2 =1 -1 of 4 games, score 62.5%, Elo difference +89"),
            "{}",
            t.summary()
        );
        assert_eq!(
            Tally::default().summary(),
            "+0 =0 -0 of 0 games, score 0.0%, Elo difference +0 +/- 0 (95%)"
        );
    }
}
