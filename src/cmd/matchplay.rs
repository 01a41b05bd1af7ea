//! `checkers match`: engine matches over the three-move ballots, each
//! ballot played twice with colours reversed. Player A is this engine
//! (options `--a`); player B is another Hub engine (`--engine-cmd`) or
//! this engine with other options (`--self --b`).

use super::hub::{clock_budget, hub_args, hub_move, hub_position, SideLetters};
use super::play::{parse_move, GameRecord, Outcome};
use crate::oracle::Needs;
use engine::notation::fen::parse_fen;
use engine::search::{Limits, SearchOptions, Searcher};
use engine::{Color, Move, Oracle, Position, Value};
use rayon::prelude::*;
use std::io::{BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Play a match over the ballots: each ballot with both colours;
/// adjudicates with the oracle, three-fold repetition and a move limit
/// (draws) and a material margin (wins); writes PDN; prints W/D/L for A
/// and the Elo difference with its 95% margin.
#[derive(clap::Args)]
pub struct Args {
    /// Opponent: a command that speaks Hub (run by `sh -c`).
    #[arg(long, conflicts_with = "self_play")]
    pub engine_cmd: Option<String>,
    /// Opponent: this engine with the `--b` options.
    #[arg(long = "self")]
    pub self_play: bool,
    /// Options of player A (this engine), `key=value,...` as for bestmove.
    #[arg(long, default_value = "")]
    pub a: String,
    /// Options of player B with --self.
    #[arg(long, default_value = "")]
    pub b: String,
    /// Number of games (default: two per ballot; at most that).
    #[arg(long, value_parser = crate::limits::whole::<usize>(1, u64::MAX, "games"))]
    pub games: Option<usize>,
    /// Ballot set: 156 (deck144 + added12), 144, 174 (all), or a
    /// comma-separated list of ACF numbers.
    #[arg(long, default_value = "156")]
    pub ballots: String,
    /// The ballots table.
    #[arg(long, default_value = "../shared/data/ballots.tsv")]
    pub ballots_file: std::path::PathBuf,
    /// Seconds per move (at most 365 days).
    #[arg(long, value_parser = crate::limits::seconds)]
    pub time: Option<f64>,
    /// Fixed depth per move (1 to 100).
    #[arg(long, value_parser = crate::limits::depth)]
    pub depth: Option<u32>,
    /// Node budget per move.
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Game clock `SECONDS+INCREMENT` for each side (e.g. 60+0.5).
    #[arg(long)]
    pub clock: Option<String>,
    /// Plies after which a game is a draw (1 to 10000).
    #[arg(long, default_value_t = 300, value_parser = crate::limits::whole::<usize>(1, 10_000, "plies"))]
    pub max_plies: usize,
    /// Adjudicate a win when one side leads by this much material
    /// (centi-men, king 130) for 6 plies with no capture pending; 0: off.
    #[arg(long, default_value_t = 300)]
    pub resign_margin: i32,
    /// Write the games here as PDN.
    #[arg(long)]
    pub pdn: Option<std::path::PathBuf>,
    /// Games played at once (at most 1024).
    #[arg(long, default_value_t = 1, value_parser = crate::limits::threads)]
    pub threads: usize,
    /// Transposition table MiB per engine (all the engines playing at
    /// once must fit the machine's memory).
    #[arg(long, default_value_t = 16, value_parser = crate::limits::mebibytes)]
    pub tt_mb: usize,
    /// Endgame databases up to this many pieces (0: none), for the
    /// engines and for adjudication.
    #[arg(long, default_value_t = 0, value_parser = crate::limits::egdb_pieces)]
    pub egdb_pieces: u32,
    /// Seconds an engine of --engine-cmd may take past the time of its
    /// move (past nothing when only --depth or --nodes limit the move),
    /// and to answer `hub` and `init`: an engine silent that long is
    /// killed and loses the game, and the match goes on with a new one.
    #[arg(long, default_value_t = 10.0, value_parser = crate::limits::seconds)]
    pub engine_margin: f64,
}

/// One ballot: ACF number, moves, start position.
#[derive(Clone, Debug)]
pub struct Ballot {
    /// ACF number.
    pub acf: u32,
    /// The three moves.
    pub moves: String,
    /// Position after them.
    pub pos: Position,
}

/// Reads the ballots table and selects a set (`156`, `144`, `174` or a
/// list of ACF numbers).
pub fn read_ballots(path: &std::path::Path, set: &str) -> anyhow::Result<Vec<Ballot>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("cannot read ballots table {}: {e}", path.display()))?;
    let mut all = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.starts_with("acf\t") || line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        anyhow::ensure!(
            f.len() >= 6,
            "{}:{}: expected 6+ columns",
            path.display(),
            i + 1
        );
        let acf: u32 = f[0]
            .parse()
            .map_err(|_| anyhow::anyhow!("{}:{}: bad ACF number", path.display(), i + 1))?;
        let pos = parse_fen(f[5])
            .map_err(|e| anyhow::anyhow!("{}:{}: bad FEN: {e}", path.display(), i + 1))?;
        all.push((
            f[2].to_string(),
            Ballot {
                acf,
                moves: f[1].to_string(),
                pos,
            },
        ));
    }
    let chosen: Vec<Ballot> = match set {
        "174" => all.into_iter().map(|(_, b)| b).collect(),
        "156" => all
            .into_iter()
            .filter(|(d, _)| d == "deck144" || d == "added12")
            .map(|(_, b)| b)
            .collect(),
        "144" => all
            .into_iter()
            .filter(|(d, _)| d == "deck144")
            .map(|(_, b)| b)
            .collect(),
        list => {
            let want: Vec<u32> = list
                .split(',')
                .map(|t| t.trim().parse::<u32>())
                .collect::<Result<_, _>>()
                .map_err(|_| {
                    anyhow::anyhow!("--ballots {list:?}: expected 156, 144, 174 or ACF numbers")
                })?;
            let mut v = Vec::new();
            for w in want {
                let b = all
                    .iter()
                    .find(|(_, b)| b.acf == w)
                    .ok_or_else(|| anyhow::anyhow!("no ballot {w} in {}", path.display()))?;
                v.push(b.1.clone());
            }
            v
        }
    };
    Ok(chosen)
}

/// How a player is limited per move.
#[derive(Clone, Copy, Debug)]
pub enum TimeControl {
    /// Fixed limits per move.
    PerMove(Limits),
    /// A clock: seconds at the start and increment per move.
    Clock(f64, f64),
}

/// Something that chooses moves.
pub trait Player {
    /// Chooses a move in the game's current position (which has one).
    /// `clock` is the seconds left, when playing on a clock.
    fn choose(&mut self, game: &GameRecord, tc: TimeControl, clock: f64) -> anyhow::Result<Move>;
}

/// This engine.
pub struct EnginePlayer<'a> {
    searcher: Searcher,
    oracle: &'a dyn Oracle,
}

impl<'a> EnginePlayer<'a> {
    /// An engine player with these options.
    pub fn new(
        options: SearchOptions,
        tt_mb: usize,
        oracle: &'a dyn Oracle,
        probe_max: u32,
    ) -> Self {
        let mut searcher = Searcher::with_options(tt_mb, options);
        if probe_max > 0 {
            searcher.set_probe_max_pieces(probe_max);
        }
        EnginePlayer { searcher, oracle }
    }
}

impl Player for EnginePlayer<'_> {
    fn choose(&mut self, game: &GameRecord, tc: TimeControl, clock: f64) -> anyhow::Result<Move> {
        let limits = match tc {
            TimeControl::PerMove(l) => l,
            TimeControl::Clock(_, inc) => Limits {
                time: Some(crate::limits::duration(clock_budget(
                    clock - inc,
                    inc,
                    None,
                ))),
                ..Limits::default()
            },
        };
        let r = self
            .searcher
            .search(&game.current(), &limits, self.oracle, game.history());
        r.best_move
            .ok_or_else(|| anyhow::anyhow!("engine found no move in a live position"))
    }
}

/// An engine that broke the match's rules (silent past its time, gone,
/// or playing an illegal move): it loses the game, and the match goes
/// on. `reason` is the game's termination.
#[derive(Debug)]
pub struct Forfeit {
    /// The game's termination (PDN `Termination` tag).
    pub reason: &'static str,
    /// What happened, for the log.
    pub detail: String,
}

impl std::fmt::Display for Forfeit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.detail)
    }
}

impl std::error::Error for Forfeit {}

/// Another engine speaking Hub on a pipe. Its lines are read on a thread
/// of their own, so that an engine that does not answer in time is
/// noticed ([`Forfeit`]) instead of waited for.
pub struct HubPlayer {
    child: Child,
    input: ChildStdin,
    lines: Receiver<String>,
    command: String,
    /// What the engine may take past the time of its move.
    margin: Duration,
}

impl HubPlayer {
    /// Starts `command` (via `sh -c`) and runs the `hub`/`init` handshake,
    /// which must be answered within `margin`.
    pub fn start(command: &str, margin: Duration) -> anyhow::Result<HubPlayer> {
        // A process group of its own, so that the engine is killed with
        // whatever the shell started for it.
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| anyhow::anyhow!("cannot start engine {command:?}: {e}"))?;
        let input = child.stdin.take().expect("piped stdin");
        let output = child.stdout.take().expect("piped stdout");
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut output = BufReader::new(output);
            while let Ok(Some(line)) = crate::limits::read_line(&mut output) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut p = HubPlayer {
            child,
            input,
            lines,
            command: command.to_string(),
            margin,
        };
        p.send("hub")?;
        p.wait_for("wait", Duration::ZERO)?;
        p.send("init")?;
        p.wait_for("ready", Duration::ZERO)?;
        Ok(p)
    }

    fn send(&mut self, line: &str) -> anyhow::Result<()> {
        writeln!(self.input, "{line}")
            .and_then(|_| self.input.flush())
            .map_err(|e| {
                Forfeit {
                    reason: "engine gone",
                    detail: format!("engine {:?} closed its input: {e}", self.command),
                }
                .into()
            })
    }

    /// The first line starting with `word`, within `time` and the margin.
    fn wait_for(&mut self, word: &str, time: Duration) -> anyhow::Result<String> {
        let allowed = time.saturating_add(self.margin);
        let deadline = Instant::now() + allowed;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(l) => {
                    let l = l.trim().to_string();
                    if l.split_whitespace().next() == Some(word) {
                        return Ok(l);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.kill();
                    return Err(Forfeit {
                        reason: "no answer in time",
                        detail: format!(
                            "engine {:?} did not answer `{word}` within {:.1} s: killed",
                            self.command,
                            allowed.as_secs_f64()
                        ),
                    }
                    .into());
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(Forfeit {
                        reason: "engine gone",
                        detail: format!("engine {:?} ended its output", self.command),
                    }
                    .into())
                }
            }
        }
    }
}

impl HubPlayer {
    /// Kills the engine's process group (the shell and what it started).
    fn kill(&mut self) {
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill")
            .args(["-KILL", "--", &group])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for HubPlayer {
    fn drop(&mut self) {
        let _ = self.send("quit");
        // A second to quit, then it is killed.
        for _ in 0..20 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        self.kill();
    }
}

impl Player for HubPlayer {
    fn choose(&mut self, game: &GameRecord, tc: TimeControl, clock: f64) -> anyhow::Result<Move> {
        let moves: Vec<String> = game.moves.iter().map(hub_move).collect();
        self.send(&format!(
            "pos pos={} moves=\"{}\"",
            hub_position(&game.start, SideLetters::Pydraughts),
            moves.join(" ")
        ))?;
        let (level, time) = match tc {
            TimeControl::PerMove(l) => {
                let mut s = String::from("level");
                if let Some(d) = l.depth {
                    s.push_str(&format!(" depth={d}"));
                }
                if let Some(n) = l.nodes {
                    s.push_str(&format!(" nodes={n}"));
                }
                if let Some(t) = l.time {
                    s.push_str(&format!(" move-time={:.3}", t.as_secs_f64()));
                }
                (s, l.time.unwrap_or(Duration::ZERO))
            }
            TimeControl::Clock(_, inc) => (
                format!("level time={:.3} inc={inc}", clock - inc),
                crate::limits::duration(clock),
            ),
        };
        self.send(&level)?;
        self.send("go think")?;
        let done = self.wait_for("done", time)?;
        let rest = done.strip_prefix("done").unwrap_or("");
        let mv = hub_args(rest)
            .into_iter()
            .find(|(k, _)| k == "move")
            .map(|(_, v)| v)
            .ok_or_else(|| Forfeit {
                reason: "no move",
                detail: format!("engine {:?} said {done:?} without a move", self.command),
            })?;
        parse_move(&game.current(), &mv).map_err(|e| {
            Forfeit {
                reason: "illegal move",
                detail: format!(
                    "engine {:?} played {mv:?}, not legal here ({e:?})",
                    self.command
                ),
            }
            .into()
        })
    }
}

/// How a game ended and why.
#[derive(Clone, Debug)]
pub struct GameResult {
    /// The outcome.
    pub outcome: Outcome,
    /// Why (no move, oracle, repetition, move limit, material).
    pub reason: &'static str,
}

/// Settings of a game's referee.
#[derive(Clone, Copy)]
pub struct Referee<'a> {
    /// Draw after this many plies.
    pub max_plies: usize,
    /// Material margin for a win (0: never).
    pub resign_margin: i32,
    /// Exact values for adjudication.
    pub oracle: &'a dyn Oracle,
    /// Probe only positions with at most this many pieces.
    pub probe_max: u32,
}

/// Plays one game from `start` between `black` and `white`.
pub fn play_game(
    start: Position,
    black: &mut dyn Player,
    white: &mut dyn Player,
    tc: TimeControl,
    referee: &Referee,
) -> anyhow::Result<(GameRecord, GameResult)> {
    let mut game = GameRecord::new(start);
    let mut clocks = match tc {
        TimeControl::Clock(t, _) => [t, t],
        TimeControl::PerMove(_) => [0.0, 0.0],
    };
    let mut lead_plies = 0;
    loop {
        let pos = game.current();
        if pos.is_terminal() {
            let r = GameResult {
                outcome: Outcome::win_for(pos.side_to_move().opposite()),
                reason: "no move",
            };
            return Ok((game, r));
        }
        if game.occurrences() >= 3 {
            return Ok((
                game,
                GameResult {
                    outcome: Outcome::Draw,
                    reason: "repetition",
                },
            ));
        }
        if game.moves.len() >= referee.max_plies {
            return Ok((
                game,
                GameResult {
                    outcome: Outcome::Draw,
                    reason: "move limit",
                },
            ));
        }
        if pos.piece_count() <= referee.probe_max {
            if let Some(v) = referee.oracle.probe(&pos) {
                let outcome = match v {
                    Value::Draw => Outcome::Draw,
                    Value::Win => Outcome::win_for(pos.side_to_move()),
                    Value::Loss => Outcome::win_for(pos.side_to_move().opposite()),
                };
                return Ok((
                    game,
                    GameResult {
                        outcome,
                        reason: "oracle",
                    },
                ));
            }
        }
        if referee.resign_margin > 0 && !pos.has_capture() {
            let m = engine::eval::material(&pos);
            if m.abs() >= referee.resign_margin {
                lead_plies += 1;
                if lead_plies >= 6 {
                    let leader = if m > 0 {
                        pos.side_to_move()
                    } else {
                        pos.side_to_move().opposite()
                    };
                    return Ok((
                        game,
                        GameResult {
                            outcome: Outcome::win_for(leader),
                            reason: "material",
                        },
                    ));
                }
            } else {
                lead_plies = 0;
            }
        }
        let side = pos.side_to_move();
        let idx = side as usize;
        if let TimeControl::Clock(_, inc) = tc {
            clocks[idx] += inc;
        }
        let t0 = Instant::now();
        let chosen = match side {
            Color::Black => black.choose(&game, tc, clocks[idx]),
            Color::White => white.choose(&game, tc, clocks[idx]),
        };
        let m = match chosen.map_err(|e| e.downcast::<Forfeit>()) {
            Ok(m) => m,
            Err(Ok(f)) => {
                eprintln!("checkers: {f}: {side} loses the game");
                let r = GameResult {
                    outcome: Outcome::win_for(side.opposite()),
                    reason: f.reason,
                };
                return Ok((game, r));
            }
            Err(Err(e)) => return Err(e),
        };
        if let TimeControl::Clock(..) = tc {
            clocks[idx] -= t0.elapsed().as_secs_f64();
            if clocks[idx] < 0.0 {
                game.push(m);
                return Ok((
                    game,
                    GameResult {
                        outcome: Outcome::win_for(side.opposite()),
                        reason: "time",
                    },
                ));
            }
        }
        game.push(m);
    }
}

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

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.engine_cmd.is_some() || args.self_play,
        "give an opponent: --engine-cmd CMD or --self"
    );
    let opts_a = SearchOptions::parse(&args.a).map_err(|e| anyhow::anyhow!("--a: {e}"))?;
    let opts_b = SearchOptions::parse(&args.b).map_err(|e| anyhow::anyhow!("--b: {e}"))?;
    let margin = crate::limits::duration(args.engine_margin);
    let tc = match &args.clock {
        Some(c) => {
            let (t, i) = c.split_once('+').unwrap_or((c.as_str(), "0"));
            let bad = |why: &str| {
                crate::limits::UsageError(format!("--clock {c:?}: expected SECONDS+INC, {why}"))
            };
            let t: f64 = t.parse().map_err(|_| bad("not numbers"))?;
            let i: f64 = i.parse().map_err(|_| bad("not numbers"))?;
            crate::limits::check_seconds(t).map_err(|e| bad(&format!("SECONDS: {e}")))?;
            if i != 0.0 {
                crate::limits::check_seconds(i).map_err(|e| bad(&format!("INC: {e}")))?;
            }
            TimeControl::Clock(t, i)
        }
        None => TimeControl::PerMove(super::bestmove::limits(args.time, args.depth, args.nodes)?),
    };
    let ballots = read_ballots(&args.ballots_file, &args.ballots)?;
    let mut jobs: Vec<(usize, Ballot, Color)> = Vec::new();
    for b in &ballots {
        for c in [Color::Black, Color::White] {
            jobs.push((jobs.len(), b.clone(), c));
        }
    }
    if let Some(g) = args.games {
        crate::limits::usage(g <= jobs.len(), || {
            format!(
                "--games {g}: --ballots {} gives {} games (each ballot with both colours); \
                 give at most that many",
                args.ballots,
                jobs.len()
            )
        })?;
        jobs.truncate(g);
    }
    // The engines playing at once: A, and B with --self, per game.
    let engines = if args.self_play { 2 } else { 1 } * args.threads.min(jobs.len().max(1));
    crate::limits::fits_memory(
        &format!("--tt-mb {} for {engines} engines at once", args.tt_mb),
        (args.tt_mb as u128 * engines as u128).checked_mul(1 << 20),
    )?;
    let oracle = crate::oracle::open_egdb(args.egdb_pieces, Needs::All)?;
    let oracle: &dyn Oracle = &*oracle;
    let referee = Referee {
        max_plies: args.max_plies,
        resign_margin: args.resign_margin,
        oracle,
        probe_max: if args.egdb_pieces > 0 {
            args.egdb_pieces
        } else {
            0
        },
    };
    let name_b = match &args.engine_cmd {
        Some(c) => c.clone(),
        None => format!("checkers [{}]", args.b),
    };
    let name_a = format!("checkers [{}]", args.a);
    let pool = super::bench::thread_pool(Some(args.threads.max(1)))?;
    let total = jobs.len();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<anyhow::Result<(usize, String, f64, &'static str)>> = pool.install(|| {
        jobs.par_iter()
            .map(|(i, ballot, a_color)| {
                let mut a = EnginePlayer::new(opts_a.clone(), args.tt_mb, oracle, args.egdb_pieces);
                let b: anyhow::Result<Box<dyn Player>> = match &args.engine_cmd {
                    Some(cmd) => HubPlayer::start(cmd, margin).map(|p| Box::new(p) as _),
                    None => Ok(Box::new(EnginePlayer::new(
                        opts_b.clone(),
                        args.tt_mb,
                        oracle,
                        args.egdb_pieces,
                    ))),
                };
                let (game, result) = match b.map_err(|e| e.downcast::<Forfeit>()) {
                    Ok(mut b) => match a_color {
                        Color::Black => play_game(ballot.pos, &mut a, &mut *b, tc, &referee)?,
                        Color::White => play_game(ballot.pos, &mut *b, &mut a, tc, &referee)?,
                    },
                    // B did not start: it loses the game unplayed.
                    Err(Ok(f)) => {
                        eprintln!("checkers: {f}: it loses the game");
                        let r = GameResult {
                            outcome: Outcome::win_for(*a_color),
                            reason: f.reason,
                        };
                        (GameRecord::new(ballot.pos), r)
                    }
                    Err(Err(e)) => return Err(e),
                };
                let a_score = match (result.outcome, a_color) {
                    (Outcome::Draw, _) => 0.5,
                    (Outcome::BlackWins, Color::Black) | (Outcome::WhiteWins, Color::White) => 1.0,
                    _ => 0.0,
                };
                let (bn, wn) = match a_color {
                    Color::Black => (name_a.clone(), name_b.clone()),
                    Color::White => (name_b.clone(), name_a.clone()),
                };
                // The PDN game starts at the initial position and replays the ballot.
                let mut full = GameRecord::new(Position::initial());
                for t in ballot.moves.split_whitespace() {
                    let m = parse_move(&full.current(), t)
                        .map_err(|e| anyhow::anyhow!("ballot {} move {t}: {e:?}", ballot.acf))?;
                    full.push(m);
                }
                anyhow::ensure!(
                    full.current() == ballot.pos,
                    "ballot {} moves and FEN disagree",
                    ballot.acf
                );
                for m in &game.moves {
                    full.push(*m);
                }
                let pdn = full.to_pdn(
                    &[
                        (
                            "Event",
                            format!("checkers match, ballot {} ({})", ballot.acf, ballot.moves),
                        ),
                        ("Round", format!("{}", i + 1)),
                        ("Black", bn),
                        ("White", wn),
                        ("Termination", result.reason.to_string()),
                    ],
                    result.outcome,
                );
                let k = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                eprintln!(
                    "game {k}/{total}: ballot {} A {} -> {} ({}, {} plies)",
                    ballot.acf,
                    a_color.name(),
                    result.outcome.pdn(),
                    result.reason,
                    game.moves.len()
                );
                Ok((*i, pdn, a_score, result.reason))
            })
            .collect()
    });
    let mut games = Vec::new();
    for r in results {
        games.push(r?);
    }
    games.sort_by_key(|g| g.0);
    let (mut w, mut d, mut l) = (0u32, 0u32, 0u32);
    for g in &games {
        match g.2 {
            x if x > 0.75 => w += 1,
            x if x < 0.25 => l += 1,
            _ => d += 1,
        }
    }
    if let Some(path) = &args.pdn {
        let text: String = games.iter().map(|g| g.1.as_str()).collect();
        std::fs::write(path, text)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    }
    let n = w + d + l;
    let (e, m) = elo_with_margin(w, d, l);
    println!("A = {name_a}");
    println!("B = {name_b}");
    println!(
        "A: +{w} ={d} -{l} of {n} games, score {:.1}%, Elo difference {:+.0} +/- {:.0} (95%)",
        100.0 * (w as f64 + 0.5 * d as f64) / n.max(1) as f64,
        e,
        m
    );
    Ok(())
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
    }
}
