//! `checkers hub`: the Hub protocol (version 2, as Scan documents it),
//! adapted to English checkers. See docs/hub-protocol.txt for the dialect.

use super::play::parse_move;
use crate::oracle::Needs;
use engine::notation::fen::parse_fen;
use engine::search::{Limits, SearchOptions, Searcher, MATE, WIN_THRESHOLD};
use engine::{Color, Move, Oracle, Position};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Speak the Hub protocol on stdin/stdout (for GUIs and pydraughts'
/// HubEngine); see docs/hub-protocol.txt.
#[derive(clap::Args)]
pub struct Args {
    /// Endgame databases up to this many pieces (0: none).
    #[arg(long, default_value_t = 0, value_parser = crate::limits::egdb_pieces)]
    pub egdb_pieces: u32,
    /// Transposition table size in MiB (at most the machine's memory).
    #[arg(long, default_value_t = 64, value_parser = crate::limits::mebibytes)]
    pub tt_mb: usize,
    /// Search options `key=value,...` (as for `checkers bestmove --options`).
    #[arg(long, default_value = "")]
    pub options: String,
}

/// The Hub text of a move: `from-to`, or `fromxto` followed by `x` and
/// each captured square in increasing order (`26x17x22`).
pub fn hub_move(m: &Move) -> String {
    if m.is_capture() {
        let mut s = format!("{}x{}", m.from().number(), m.to().number());
        for sq in engine::square::Squares(m.captured()) {
            s.push_str(&format!("x{}", sq.number()));
        }
        s
    } else {
        m.to_string()
    }
}

/// How the side letter of a Hub `pos=` string is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SideLetters {
    /// pydraughts' English dialect: `W` = the first player (Black, men
    /// `b` on 1-12) to move, `B` = White to move.
    Pydraughts,
    /// `B` = Black to move, `W` = White to move.
    Literal,
}

/// Reads a Hub position: side letter then 32 characters for squares 1-32
/// (`e` empty, `b`/`w` men, `B`/`W` kings).
pub fn parse_hub_position(text: &str, letters: SideLetters) -> anyhow::Result<Position> {
    let chars: Vec<char> = text.trim().chars().collect();
    anyhow::ensure!(
        chars.len() == 33,
        "Hub position {text:?} has {} characters, expected 33 (side letter and 32 squares)",
        chars.len()
    );
    let first = match (chars[0].to_ascii_uppercase(), letters) {
        ('W', SideLetters::Pydraughts) | ('B', SideLetters::Literal) => Color::Black,
        ('B', SideLetters::Pydraughts) | ('W', SideLetters::Literal) => Color::White,
        (c, _) => anyhow::bail!("Hub position side letter {c:?} is not W or B"),
    };
    let mut setup = engine::Setup {
        side: Some(first),
        ..Default::default()
    };
    for (i, c) in chars[1..].iter().enumerate() {
        let bit = 1u32 << i;
        match c {
            'e' | 'E' | '.' => {}
            'b' => setup.black_men |= bit,
            'B' => setup.black_kings |= bit,
            'w' => setup.white_men |= bit,
            'W' => setup.white_kings |= bit,
            _ => anyhow::bail!("Hub position square {}: unknown piece {c:?}", i + 1),
        }
    }
    Ok(Position::from_setup(&setup)?)
}

/// The Hub position string of `pos` in the given dialect.
pub fn hub_position(pos: &Position, letters: SideLetters) -> String {
    let side = match (pos.side_to_move(), letters) {
        (Color::Black, SideLetters::Pydraughts) | (Color::White, SideLetters::Literal) => 'W',
        _ => 'B',
    };
    let mut s = String::from(side);
    for sq in engine::Square::all() {
        s.push(match pos.piece_at(sq) {
            None => 'e',
            Some((Color::Black, false)) => 'b',
            Some((Color::Black, true)) => 'B',
            Some((Color::White, false)) => 'w',
            Some((Color::White, true)) => 'W',
        });
    }
    s
}

/// Splits `key=value key="quoted value"` arguments.
pub fn hub_args(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let (key, after) = match rest.find(['=', ' ']) {
            Some(i) if rest.as_bytes()[i] == b'=' => (&rest[..i], &rest[i + 1..]),
            Some(i) => {
                out.push((rest[..i].to_string(), String::new()));
                rest = rest[i..].trim_start();
                continue;
            }
            None => {
                out.push((rest.to_string(), String::new()));
                break;
            }
        };
        let (value, after) = if let Some(q) = after.strip_prefix('"') {
            match q.find('"') {
                Some(j) => (&q[..j], &q[j + 1..]),
                None => (q, ""),
            }
        } else {
            match after.find(' ') {
                Some(j) => (&after[..j], &after[j..]),
                None => (after, ""),
            }
        };
        out.push((key.to_string(), value.to_string()));
        rest = after.trim_start();
    }
    out
}

/// The Hub score of a search score: men (centi-men / 100); a win in n
/// plies is `(10000 - n) / 100`, as Scan and pydraughts read it.
pub fn hub_score(score: i32) -> String {
    if score > WIN_THRESHOLD {
        let n = (MATE - score).clamp(1, 999);
        format!("{:.2}", (10000 - n) as f64 / 100.0)
    } else if score < -WIN_THRESHOLD {
        let n = (MATE + score).clamp(1, 999);
        format!("{:.2}", -(10000 - n) as f64 / 100.0)
    } else {
        format!("{:.2}", score as f64 / 100.0)
    }
}

/// Time controls as received by `level`.
#[derive(Clone, Copy, Debug, Default)]
struct Level {
    depth: Option<u32>,
    nodes: Option<u64>,
    move_time: Option<f64>,
    time: Option<f64>,
    inc: f64,
    moves: Option<u32>,
    infinite: bool,
}

impl Level {
    fn limits(&self) -> Limits {
        let time = if self.infinite {
            None
        } else if let Some(t) = self.move_time {
            Some(t)
        } else {
            self.time.map(|t| clock_budget(t, self.inc, self.moves))
        };
        Limits {
            depth: self.depth,
            nodes: self.nodes,
            time: time.map(|t| crate::limits::duration(t.max(0.01))),
        }
    }

    /// The level of a `level` command's arguments; an unknown argument or
    /// a value out of its range is an error naming it and the range (the
    /// level in force is then kept).
    fn parse(args: &[(String, String)]) -> Result<Level, String> {
        let mut l = Level::default();
        for (k, v) in args {
            let whole = |hi: u64| {
                crate::limits::whole::<u64>(1, hi, "")(v)
                    .map_err(|_| format!("level {k}={v}: expected a whole number from 1 to {hi}"))
            };
            let secs = |zero_ok: bool| {
                v.parse::<f64>()
                    .ok()
                    .filter(|&s| zero_ok && s == 0.0 || crate::limits::check_seconds(s).is_ok())
                    .ok_or_else(|| {
                        format!(
                            "level {k}={v}: expected {} number of seconds, at most {}",
                            if zero_ok { "a" } else { "a positive" },
                            crate::limits::MAX_SECONDS
                        )
                    })
            };
            match k.as_str() {
                "depth" => l.depth = Some(whole(crate::limits::MAX_DEPTH as u64)? as u32),
                "nodes" => l.nodes = Some(whole(u64::MAX)?),
                "move-time" => l.move_time = Some(secs(false)?),
                "time" => l.time = Some(secs(true)?),
                "inc" => l.inc = secs(true)?,
                "moves" => l.moves = Some(whole(10_000)? as u32),
                "infinite" => l.infinite = true,
                _ => return Err(format!("unknown level argument {k}")),
            }
        }
        Ok(l)
    }
}

/// Seconds to spend on one move with `remaining` seconds on the clock
/// (before the increment is added), `inc` per move and, if given, `moves`
/// moves to the next control: an even share of what is left, never more
/// than 40% of it.
pub fn clock_budget(remaining: f64, inc: f64, moves: Option<u32>) -> f64 {
    let total = (remaining + inc).max(0.0);
    let share = match moves {
        Some(m) if m > 0 => total / m as f64,
        _ => total / 30.0 + inc * 0.5,
    };
    share.min(total * 0.4).max(0.01)
}

struct Engine {
    searcher: Searcher,
    oracle: Arc<dyn Oracle>,
    letters: SideLetters,
    pos: Position,
    history: Vec<Position>,
    level: Level,
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
            let m = parse_move(&pos, t)
                .map_err(|e| anyhow::anyhow!("move {t:?} does not fit the position: {e:?}"))?;
            history.push(pos);
            pos = pos.play_unchecked(&m);
        }
        self.pos = pos;
        self.history = history;
        Ok(())
    }

    /// Searches on this thread; the input thread may set the stop flag.
    fn go(&mut self, ponder: bool, control: &Control) {
        let limits = if ponder {
            *control.ponder_budget.lock().expect("lock") = Some(self.level.limits().time);
            Limits {
                depth: self.level.depth,
                ..Limits::default()
            }
        } else {
            self.level.limits()
        };
        let r = self.searcher.search_with_progress(
            &self.pos,
            &limits,
            &*self.oracle,
            &self.history,
            &mut |it| {
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
            },
        );
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
    }
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<()> {
    let options = SearchOptions::parse(&args.options)?;
    let oracle = crate::oracle::open_egdb(args.egdb_pieces, Needs::All)?;
    let mut searcher = Searcher::try_with_options(args.tt_mb, options)?;
    if args.egdb_pieces > 0 {
        searcher.set_probe_max_pieces(args.egdb_pieces);
    }
    let control = Arc::new(Control {
        stop: searcher.stop_handle(),
        ponder_budget: Mutex::new(None),
    });
    let mut e = Engine {
        searcher,
        oracle,
        letters: SideLetters::Pydraughts,
        pos: Position::initial(),
        history: Vec::new(),
        level: Level::default(),
    };
    // The input thread reads commands; `stop`, `quit` and `ponder-hit`
    // act at once on the running search, everything goes to the queue.
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let c2 = control.clone();
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        loop {
            let line = match crate::limits::read_line(&mut input) {
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
                say("wait");
            }
            "init" => say("ready"),
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
            "level" => match Level::parse(&a) {
                Ok(l) => e.level = l,
                Err(why) => say(&format!("error {why}; the previous level is kept")),
            },
            "go" => {
                let ponder = rest.trim() == "ponder" || a.iter().any(|(k, _)| k == "ponder");
                e.go(ponder, &control);
            }
            // handled by the input thread; nothing runs now
            "stop" | "ponder-hit" => {}
            "quit" => return Ok(()),
            _ => say(&format!("error unknown command {cmd}")),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hub_positions_round_trip_in_both_dialects() {
        let start = "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww";
        assert_eq!(
            parse_hub_position(start, SideLetters::Pydraughts).unwrap(),
            Position::initial()
        );
        let p = parse_fen("W:W18,K3:B14").unwrap();
        for l in [SideLetters::Pydraughts, SideLetters::Literal] {
            assert_eq!(parse_hub_position(&hub_position(&p, l), l).unwrap(), p);
        }
        assert!(parse_hub_position("Wbbb", SideLetters::Literal).is_err());
    }

    #[test]
    fn hub_moves_list_captured_squares() {
        let p = parse_fen("W:W18:B14").unwrap();
        let m = p.moves().as_slice()[0];
        assert_eq!(hub_move(&m), "18x9x14");
        assert!(parse_move(&p, "18x9x14").unwrap().same_move(&m));
        let a = hub_args("pos=Wbbe moves=\"9-13 22-18\" x");
        assert_eq!(a[1], ("moves".into(), "9-13 22-18".into()));
        assert_eq!(a[2], ("x".into(), String::new()));
    }
}
