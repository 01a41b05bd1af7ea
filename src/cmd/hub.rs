//! `checkers hub`: the Hub protocol (version 2, as Scan documents it),
//! adapted to English checkers. See docs/hub-protocol.txt for the dialect;
//! its text (moves, positions, arguments, scores, levels) is
//! `engine::play::hub`. This command holds the session: the input thread,
//! the engine's state, pondering.

use crate::oracle::Needs;
use engine::notation::fen::parse_fen;
use engine::play::hub::{
    hub_args, hub_move, hub_score, parse_hub_move, parse_hub_position, HubLevel, SideLetters,
};
use engine::play::read_line;
use engine::search::{Iteration, Limits, SearchOptions, Searcher};
use engine::{Oracle, Position};
use player::choose;
use solver::proved::ProvedOracle;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Speak the Hub protocol on stdin/stdout (for GUIs and pydraughts'
/// HubEngine); see docs/hub-protocol.txt.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub engine: crate::cli::EngineArgs,
    /// Search options `key=value,...` (as for `checkers bestmove --options`).
    #[arg(long, default_value = "")]
    pub options: String,
}

struct Engine {
    searcher: Searcher,
    /// The databases, opened (built if missing, silently) at `init` or
    /// at the first `go`.
    oracle: Option<Arc<dyn Oracle>>,
    egdb_pieces: u32,
    /// The proof store played with (`--store`, `set-param name=store`).
    proved: Option<crate::oracle::ProvedStore>,
    /// The opening book (`--book`, or the default one when present).
    book: Option<engine::play::book::Book>,
    letters: SideLetters,
    pos: Position,
    history: Vec<Position>,
    level: HubLevel,
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// What the input thread shares with the searching thread: the stop flag
/// and, while pondering, the time to allow once `ponder-hit` arrives.
/// Once the input has ended the input thread keeps the stop flag set, so
/// every search, running or queued, stops at once: nothing can send
/// `stop` any more.
struct Control {
    stop: Arc<AtomicBool>,
    ponder_budget: Mutex<Option<Option<Duration>>>,
}

impl Engine {
    fn set_position(&mut self, args: &[(String, String)]) -> anyhow::Result<()> {
        let mut pos = Position::initial();
        let mut moves = String::new();
        for (k, v) in args {
            match k.as_str() {
                "pos" => pos = parse_hub_position(v, self.letters)?,
                "fen" => pos = parse_fen(v).map_err(|e| anyhow::anyhow!("bad fen {v:?}: {e}"))?,
                "start" => pos = Position::initial(),
                "moves" => moves = v.clone(),
                _ => anyhow::bail!("unknown pos argument {k:?}"),
            }
        }
        let mut history = Vec::new();
        for t in moves.split_whitespace() {
            let m = parse_hub_move(&pos, t)
                .map_err(|e| anyhow::anyhow!("move {t:?} does not fit the position: {e}"))?;
            history.push(pos);
            pos = pos.play_unchecked(&m);
        }
        self.pos = pos;
        self.history = history;
        Ok(())
    }

    /// Opens the databases if not yet open. Nothing is written while
    /// they are built: a driver may read the standard error as the
    /// protocol channel.
    fn open_databases(&mut self) -> anyhow::Result<Arc<dyn Oracle>> {
        if let Some(o) = &self.oracle {
            return Ok(o.clone());
        }
        let o = crate::oracle::open_egdb_quiet(self.egdb_pieces, Needs::All)?;
        self.oracle = Some(o.clone());
        Ok(o)
    }

    /// Searches on this thread; the input thread may set the stop flag.
    fn go(&mut self, ponder: bool, control: &Control) -> anyhow::Result<()> {
        let oracle = self.open_databases()?;
        let limits = if ponder {
            // After `ponder-hit` the move takes its share of the clock
            // (the soft time) or its fixed time.
            let l = self.level.limits();
            *control.ponder_budget.lock().expect("lock") = Some(l.soft_time.or(l.time));
            Limits {
                depth: self.level.depth,
                ..Limits::default()
            }
        } else {
            self.level.limits()
        };
        let mut progress = |it: &engine::search::Iteration| {
            let nps = it.nodes as f64 / it.elapsed.as_secs_f64().max(1e-6);
            say(&format!(
                "info depth={} score={} nodes={} time={:.3} nps={:.0} pv=\"{}\"",
                it.depth,
                hub_score(it.score),
                it.nodes,
                it.elapsed.as_secs_f64(),
                nps,
                it.pv.iter().map(hub_move).collect::<Vec<_>>().join(" ")
            ));
        };
        let plain = |searcher: &mut Searcher, progress: &mut dyn FnMut(&Iteration)| {
            searcher.search_with_progress(&self.pos, &limits, &*oracle, &self.history, progress)
        };
        let booked = self.book.as_ref().and_then(|b| {
            b.play(
                &mut self.searcher,
                &self.pos,
                &limits,
                &*oracle,
                &self.history,
                &mut progress,
            )
        });
        let r = match &self.proved {
            _ if booked.is_some() => booked.expect("a book move"),
            Some(p) => {
                self.searcher.set_probe_max_pieces(32);
                let proved = ProvedOracle::new(&*oracle, self.egdb_pieces, &p.results);
                match choose(
                    &mut self.searcher,
                    &self.pos,
                    &limits,
                    &self.history,
                    &proved,
                    &p.store,
                    &mut progress,
                ) {
                    Ok(c) => c.result,
                    Err(err) => {
                        say(&format!("error proof store: {err}; the search alone plays"));
                        plain(&mut self.searcher, &mut progress)
                    }
                }
            }
            None => {
                if self.egdb_pieces > 0 {
                    self.searcher.set_probe_max_pieces(self.egdb_pieces);
                }
                plain(&mut self.searcher, &mut progress)
            }
        };
        *control.ponder_budget.lock().expect("lock") = None;
        match r.best_move {
            Some(m) => {
                let mut line = format!("done move={}", hub_move(&m));
                if let Some(p) = r.pv.get(1) {
                    line.push_str(&format!(" ponder={}", hub_move(p)));
                }
                say(&line);
            }
            None => say("done"),
        }
        Ok(())
    }
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<()> {
    let options = SearchOptions::parse(&args.options)?;
    let searcher = Searcher::try_with_options(args.engine.tt_mb, options)?;
    let proved = args
        .engine
        .store
        .as_deref()
        .map(crate::oracle::open_proved)
        .transpose()?;
    let control = Arc::new(Control {
        stop: searcher.stop_handle(),
        ponder_budget: Mutex::new(None),
    });
    let mut e = Engine {
        searcher,
        oracle: None,
        egdb_pieces: args.engine.egdb_pieces,
        proved,
        book: args.engine.book.open()?,
        letters: SideLetters::Pydraughts,
        pos: Position::initial(),
        history: Vec::new(),
        level: HubLevel::default(),
    };
    // The input thread reads commands; `stop`, `quit` and `ponder-hit`
    // act at once on the running search, everything goes to the queue.
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let c2 = control.clone();
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        loop {
            let line = match read_line(&mut input) {
                Ok(Some(line)) => line,
                Ok(None) => break,
                Err(e) => {
                    say(&format!("error {e}: the input ends here"));
                    break;
                }
            };
            let t = line.trim().to_string();
            match t.as_str() {
                "stop" | "quit" => c2.stop.store(true, Ordering::SeqCst),
                "ponder-hit" => {
                    if let Some(Some(d)) = c2.ponder_budget.lock().expect("lock").take() {
                        let stop = c2.stop.clone();
                        std::thread::spawn(move || {
                            std::thread::sleep(d);
                            stop.store(true, Ordering::SeqCst);
                        });
                    }
                }
                _ => {}
            }
            if tx.send(t).is_err() {
                break;
            }
        }
        // End of input: as `stop` for the search running now and for
        // every one queued (a search clears the flag when it starts, so
        // it is set again until the queue is done and the program ends).
        drop(tx);
        loop {
            c2.stop.store(true, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(20));
        }
    });
    for line in rx {
        if line.is_empty() {
            continue;
        }
        let (cmd, rest) = line.split_once(' ').unwrap_or((line.as_str(), ""));
        let a = hub_args(rest);
        match cmd {
            "hub" => {
                say(&format!(
                    "id name=checkers version={} author=\"checkers project\"",
                    env!("CARGO_PKG_VERSION")
                ));
                say("param name=variant value=english type=enum values=\"english american\"");
                say("param name=side-letters value=pydraughts type=enum values=\"pydraughts literal\"");
                say(&format!(
                    "param name=store value=\"{}\" type=string",
                    args.engine
                        .store
                        .as_deref()
                        .map(|p| p.display().to_string())
                        .unwrap_or_default()
                ));
                say("wait");
            }
            "init" => {
                if let Err(err) = e.open_databases() {
                    say(&format!("error {err:#}"));
                    return Err(err);
                }
                say("ready")
            }
            "ping" => say("pong"),
            "set-param" => {
                let name = a.iter().find(|(k, _)| k == "name").map(|(_, v)| v.as_str());
                let value = a
                    .iter()
                    .find(|(k, _)| k == "value")
                    .map(|(_, v)| v.as_str());
                match (name, value) {
                    (Some("side-letters"), Some("literal")) => e.letters = SideLetters::Literal,
                    (Some("side-letters"), Some("pydraughts")) => {
                        e.letters = SideLetters::Pydraughts
                    }
                    (Some("variant"), Some("english" | "american")) => {}
                    (Some("store"), Some("")) => e.proved = None,
                    (Some("store"), Some(path)) => {
                        match crate::oracle::open_proved(std::path::Path::new(path)) {
                            Ok(p) => e.proved = Some(p),
                            Err(err) => say(&format!("error store {path:?}: {err:#}")),
                        }
                    }
                    _ => say(&format!("error unsupported set-param {rest}")),
                }
            }
            "new-game" => {
                e.searcher.clear();
                e.pos = Position::initial();
                e.history.clear();
            }
            "pos" => {
                if let Err(err) = e.set_position(&a) {
                    say(&format!("error {err}"));
                }
            }
            "level" => match HubLevel::parse(&a, crate::limits::MAX_DEPTH) {
                Ok(l) => e.level = l,
                Err(why) => say(&format!("error {why}; the previous level is kept")),
            },
            "go" => {
                let ponder = rest.trim() == "ponder" || a.iter().any(|(k, _)| k == "ponder");
                if let Err(err) = e.go(ponder, &control) {
                    say(&format!("error {err:#}"));
                    return Err(err);
                }
            }
            // handled by the input thread; nothing runs now
            "stop" | "ponder-hit" => {}
            "quit" => return Ok(()),
            _ => say(&format!("error unknown command {cmd}")),
        }
    }
    Ok(())
}
