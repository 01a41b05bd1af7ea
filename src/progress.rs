//! Progress reporting for long commands: indicatif bars on a terminal,
//! plain log lines (at most one every few seconds per bar) otherwise.
//! Every bar the commands draw is built here: [`Bars`] for runs of many
//! jobs, [`BarProgress`] for database builds, [`counter_bar`] for a count
//! and [`terminal_bar`] for a bar that only a terminal shows.

use engine::egdb::build::SliceStats;
use engine::egdb::BuildProgress;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

const LOG_EVERY: Duration = Duration::from_secs(10);

/// A set of bars shown together.
pub struct Bars {
    multi: Option<MultiProgress>,
}

impl Default for Bars {
    fn default() -> Self {
        Bars::new()
    }
}

impl Bars {
    /// Bars on stderr when it is a terminal, log lines otherwise.
    pub fn new() -> Bars {
        let multi = std::io::stderr()
            .is_terminal()
            .then(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr()));
        Bars { multi }
    }

    /// Log lines only, even on a terminal (for a command whose standard
    /// output shares the terminal while its bars would be drawn).
    pub fn logging() -> Bars {
        Bars { multi: None }
    }

    /// A new bar of `len` steps named `name`.
    pub fn bar(&self, name: &str, len: u64) -> Bar {
        self.add(
            name,
            Some(len),
            "{prefix:>12} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}",
        )
    }

    /// A line of status without a length: a spinner with the elapsed time
    /// and a message on a terminal, `name: message` log lines otherwise.
    pub fn status(&self, name: &str) -> Bar {
        let line = self.add(
            name,
            None,
            "{prefix:>12} [{elapsed_precise}] {spinner} {msg}",
        );
        if let Some(pb) = &line.pb {
            pb.enable_steady_tick(Duration::from_millis(250));
        }
        line
    }

    /// A bar of `len` steps (`None`: a status line, a spinner) drawn
    /// with `template`.
    fn add(&self, name: &str, len: Option<u64>, template: &str) -> Bar {
        let pb = self.multi.as_ref().map(|m| {
            let pb = m.add(match len {
                Some(n) => ProgressBar::new(n),
                None => ProgressBar::new_spinner(),
            });
            pb.set_style(ProgressStyle::with_template(template).expect("valid template"));
            pb.set_prefix(name.to_string());
            pb
        });
        Bar {
            pb,
            name: name.to_string(),
            len,
            state: Mutex::new((0, Instant::now(), String::new())),
        }
    }
}

/// One bar.
pub struct Bar {
    pb: Option<ProgressBar>,
    name: String,
    /// Steps; `None` for a status line ([`Bars::status`]).
    len: Option<u64>,
    /// Position, time of the last log line, message.
    state: Mutex<(u64, Instant, String)>,
}

impl Bar {
    /// Sets the position.
    pub fn set(&self, pos: u64) {
        if let Some(pb) = &self.pb {
            pb.set_position(pos);
        }
        self.update(|s| s.0 = pos);
    }

    /// Advances by `n`.
    pub fn inc(&self, n: u64) {
        if let Some(pb) = &self.pb {
            pb.inc(n);
        }
        self.update(|s| s.0 += n);
    }

    /// Sets the message shown after the counts.
    pub fn message(&self, msg: &str) {
        if let Some(pb) = &self.pb {
            pb.set_message(msg.to_string());
        }
        self.update(|s| s.2 = msg.to_string());
    }

    /// Ends the bar with a final message, filled to its end.
    pub fn finish(&self, msg: &str) {
        self.end(msg, ProgressBar::finish_with_message);
    }

    /// Ends the bar where it stands, unfinished, with `msg` saying why
    /// (an interrupted or stuck job: the bar does not jump to its end).
    pub fn abandon(&self, msg: &str) {
        self.end(msg, ProgressBar::abandon_with_message);
    }

    /// Ends the bar with `msg`: `on_terminal` on a drawn bar, else one
    /// last log line.
    fn end(&self, msg: &str, on_terminal: fn(&ProgressBar, String)) {
        match &self.pb {
            Some(pb) => on_terminal(pb, msg.to_string()),
            None => {
                let pos = self.state.lock().map(|s| s.0).unwrap_or(0);
                eprintln!("{}", self.line(pos, msg));
            }
        }
    }

    /// Removes the bar from the terminal (no final log line).
    pub fn clear(&self) {
        if let Some(pb) = &self.pb {
            pb.finish_and_clear();
        }
    }

    /// The log line of position `pos` with `msg` (no counts on a status
    /// line, [`Bars::status`]).
    fn line(&self, pos: u64, msg: &str) -> String {
        match self.len {
            Some(len) => format!("{}: {pos}/{len} {msg}", self.name),
            None => format!("{}: {msg}", self.name),
        }
    }

    fn update(&self, f: impl FnOnce(&mut (u64, Instant, String))) {
        let Ok(mut s) = self.state.lock() else { return };
        f(&mut s);
        if self.pb.is_none() && s.1.elapsed() >= LOG_EVERY {
            s.1 = Instant::now();
            eprintln!("{}", self.line(s.0, &s.2));
        }
    }
}

/// Build progress: indicatif bars (overall and per slice) on a terminal,
/// plain log lines otherwise.
pub struct BarProgress {
    bars: Option<(MultiProgress, ProgressBar, Mutex<Option<ProgressBar>>)>,
    started: Instant,
}

impl BarProgress {
    /// Bars when stderr is a terminal, log lines otherwise.
    pub fn new() -> BarProgress {
        let bars = std::io::stderr().is_terminal().then(|| {
            let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
            let overall = multi.add(ProgressBar::new(0));
            overall.set_style(
                ProgressStyle::with_template("slices {pos}/{len} [{elapsed_precise}] {wide_msg}")
                    .expect("template"),
            );
            (multi, overall, Mutex::new(None))
        });
        BarProgress {
            bars,
            started: Instant::now(),
        }
    }
}

impl Default for BarProgress {
    fn default() -> Self {
        BarProgress::new()
    }
}

impl BuildProgress for BarProgress {
    fn slice_started(&self, slice: &str, positions: u64, number: usize, of: usize) {
        match &self.bars {
            Some((multi, overall, cur)) => {
                overall.set_length(of as u64);
                overall.set_position(number as u64 - 1);
                overall.set_message(slice.to_string());
                let bar = multi.add(ProgressBar::new(positions));
                bar.set_style(style(
                    "{prefix} [{bar:40}] {human_pos}/{human_len} {rate} eta {eta} {msg}",
                    "positions",
                ));
                bar.set_prefix(slice.to_string());
                *cur.lock().expect("no poisoning") = Some(bar);
            }
            None => eprintln!(
                "[{:>7.1}s] slice {number}/{of} {slice}: {positions} positions",
                self.started.elapsed().as_secs_f64()
            ),
        }
    }

    fn note(&self, text: &str) {
        match &self.bars {
            Some((multi, _, _)) => {
                let _ = multi.println(text);
            }
            None => eprintln!("{text}"),
        }
    }

    fn advance(&self, n: u64) {
        if let Some((_, _, cur)) = &self.bars {
            if let Some(b) = cur.lock().expect("no poisoning").as_ref() {
                b.inc(n);
            }
        }
    }

    fn propagating(&self, level: u32, decided: u64) {
        if let Some((_, _, cur)) = &self.bars {
            if let Some(b) = cur.lock().expect("no poisoning").as_ref() {
                b.set_message(format!("propagating: level {level}, {decided} decided"));
            }
        }
    }

    fn slice_finished(&self, slice: &str, s: &SliceStats) {
        let line = format!(
            "{slice}: {} positions, {} levels, {:.2} s (forward {:.1}, propagation {:.1}, \
             values {:.1}, file {:.1}), {} bytes ({:.1} positions/byte)",
            s.positions,
            s.levels,
            s.seconds,
            s.step_seconds[0],
            s.step_seconds[1],
            s.step_seconds[2],
            s.step_seconds[3],
            s.bytes,
            s.positions as f64 / s.bytes.max(1) as f64
        );
        match &self.bars {
            Some((multi, overall, cur)) => {
                if let Some(b) = cur.lock().expect("no poisoning").take() {
                    b.finish_and_clear();
                    multi.remove(&b);
                }
                overall.inc(1);
                let _ = multi.println(line);
            }
            None => eprintln!("[{:>7.1}s] {line}", self.started.elapsed().as_secs_f64()),
        }
    }
}

/// A progress bar on a terminal; on a non-terminal stderr, plain log lines
/// every few seconds instead.
pub fn counter_bar(len: u64, message: &str) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if std::io::stderr().is_terminal() {
        let bar = if len == 0 {
            indicatif::ProgressBar::new_spinner()
        } else {
            indicatif::ProgressBar::new(len)
        };
        bar.set_style(style("{msg} {pos} [{elapsed_precise}] {rate}", "rows"));
        bar.set_message(message.to_string());
        bar
    } else {
        eprintln!("{message}");
        indicatif::ProgressBar::hidden()
    }
}

/// `per_second` as a whole number with its unit: `955822 positions/s`
/// (what `{rate}` shows in the templates of [`style`]).
pub fn rate_text(per_second: f64, unit: &str) -> String {
    if per_second.is_finite() && per_second >= 0.0 {
        format!("{:.0} {unit}/s", per_second)
    } else {
        format!("- {unit}/s")
    }
}

/// The style of `template`, which may use `{rate}`: the steps a second as
/// a whole number with `unit` ([`rate_text`]), in place of indicatif's
/// `{per_sec}` (fractions of a step, no unit).
pub fn style(template: &str, unit: &'static str) -> ProgressStyle {
    ProgressStyle::with_template(template)
        .expect("valid template")
        .with_key(
            "rate",
            move |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = w.write_str(&rate_text(state.per_sec(), unit));
            },
        )
        .progress_chars("=> ")
}

/// A bar of `len` steps drawn with `template` on a terminal, hidden on a
/// non-terminal stderr (the caller logs what it wants instead).
pub fn terminal_bar(len: u64, template: &str) -> ProgressBar {
    let bar = if std::io::stderr().is_terminal() {
        ProgressBar::new(len)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(style(template, "positions"));
    bar
}

#[cfg(test)]
mod rate_tests {
    use super::rate_text;

    /// Rates are whole numbers with their unit, never indicatif's
    /// fractions (`955,822.0794/s`); a rate not yet known says so.
    #[test]
    fn rates_are_whole_numbers_with_units() {
        assert_eq!(rate_text(955_822.079_4, "positions"), "955822 positions/s");
        assert_eq!(rate_text(0.4, "rows"), "0 rows/s");
        assert_eq!(rate_text(f64::NAN, "rows"), "- rows/s");
        assert_eq!(rate_text(f64::INFINITY, "rows"), "- rows/s");
    }
}
