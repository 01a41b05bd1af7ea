//! Progress reporting for long commands: indicatif bars on a terminal,
//! plain log lines (at most one every few seconds per bar) otherwise.

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

    /// Prints a line above the bars (or plainly).
    pub fn println(&self, line: &str) {
        match &self.multi {
            Some(m) => {
                let _ = m.println(line);
            }
            None => eprintln!("{line}"),
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

    /// Ends the bar with a final message.
    pub fn finish(&self, msg: &str) {
        match &self.pb {
            Some(pb) => pb.finish_with_message(msg.to_string()),
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
