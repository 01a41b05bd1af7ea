//! `checkers match`: engine matches over the three-move ballots, each
//! ballot played twice with colours reversed. Player A is this engine
//! (options `--a`); player B is another Hub engine (`--engine-cmd`) or
//! this engine with other options (`--self --b`).

//!
//! The players, the referee, the game record, the schedule of the games
//! and the Elo estimate are `engine::play`; the ballots are read by
//! `ballots::deck`.

use crate::oracle::Needs;
use ballots::deck::{Ballot, Deck, Selection};
use engine::notation::movetext::parse_move;
use engine::play::elo::Tally;
use engine::play::hub_player::HubPlayer;
use engine::play::referee::{
    play_game, EnginePlayer, GameEnd, PlayError, Player, Referee, TimeControl,
};
use engine::play::schedule::{pairings, play_all, ScheduleError};
use engine::play::timing::MoveTimes;
use engine::play::{GameOutcome, GameRecord};
use engine::search::{SearchOptions, Searcher};
use engine::{Color, Oracle, Position};
use player::ProvedPlayer;
use solver::proved::ProvedOracle;

/// How an engine of `--engine-cmd` reads Hub boards.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineBoard {
    /// pydraughts' dialect: the board turned 180 degrees, colours swapped.
    Pydraughts,
    /// Square for square.
    Literal,
}

impl EngineBoard {
    /// The side-letter reading it stands for.
    pub fn letters(self) -> engine::play::hub::SideLetters {
        match self {
            EngineBoard::Pydraughts => engine::play::hub::SideLetters::Pydraughts,
            EngineBoard::Literal => engine::play::hub::SideLetters::Literal,
        }
    }
}

/// Play a match over the ballots: each ballot with both colours;
/// adjudicates with the oracle, three-fold repetition and a move limit
/// (draws) and a material margin (wins); writes PDN; prints W/D/L for A,
/// the Elo difference with its 95% margin, and each player's mean time
/// per move.
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
    /// These ballots (ACF numbers, any of 1-174: `--ballot 156` is
    /// ballot 156 alone). Without it: --deck.
    #[arg(long = "ballot", value_name = "N", num_args = 1.., conflicts_with_all = ["deck", "ballots"])]
    pub ballot: Vec<u32>,
    /// A whole deck: 156 (deck144 + added12, the default), 144, all
    /// (174), barred.
    #[arg(long, value_name = "DECK", conflicts_with = "ballots")]
    pub deck: Option<Selection>,
    /// The older spelling of both: a deck name (156, 144, 174, barred)
    /// or a comma-separated list of ACF numbers (a number that is also a
    /// deck name means the deck: use --ballot for ballot 144, 156 or 174).
    #[arg(long)]
    pub ballots: Option<String>,
    /// The ballots table (default: as for `ballots list`: --data,
    /// $CHECKERS_DATA, ../shared/data, beside the checkout, built in).
    #[arg(long)]
    pub ballots_file: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub limits: crate::cli::MoveLimitArgs,
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
    /// How the engine of --engine-cmd reads Hub `pos=` boards: pydraughts
    /// (the board turned and the colours swapped, as pydraughts sends it
    /// and this program's `hub` reads it by default) or literal (square for
    /// square, `B` for Black to move; the engine is sent `set-param
    /// name=side-letters value=literal` first, which this program's `hub`,
    /// now and at commit 35e9425, takes; docs/hub-protocol.txt).
    #[arg(long, value_enum, default_value = "pydraughts")]
    pub engine_board: EngineBoard,
    /// Player A plays with this proof store (read-only): proved positions
    /// are exact leaves, a proved root plays a move that keeps its value.
    /// Player B (with --self) plays without it.
    #[arg(long, value_name = "FILE")]
    pub store: Option<std::path::PathBuf>,
    /// Player A's opening book (player B with --self plays without one).
    #[command(flatten)]
    pub book: crate::cli::BookArg,
}

/// One game of the match: its number, the ballot, and A's colour.
type Job<'d> = (usize, &'d Ballot, Color);

/// What the match keeps of a played game.
struct Played {
    /// The game as PDN.
    pdn: String,
    /// A's score (1, 0.5 or 0).
    score: f64,
    /// The time A and B took over their moves.
    times: [MoveTimes; 2],
}

/// The time control of the options: `--clock`, else per-move limits.
fn time_control(args: &Args) -> anyhow::Result<TimeControl> {
    let Some(c) = &args.clock else {
        return Ok(TimeControl::PerMove(args.limits.limits()?));
    };
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
    Ok(TimeControl::Clock(t, i))
}

/// The ballots of `--ballot`, `--deck` or `--ballots` (by default the
/// 156 deck), read from `--ballots-file`.
fn chosen_ballots(deck: &Deck, args: &Args) -> anyhow::Result<Vec<Ballot>> {
    if !args.ballot.is_empty() {
        return args
            .ballot
            .iter()
            .map(|&n| {
                deck.get(n)
                    .cloned()
                    .ok_or_else(|| anyhow::anyhow!("no ballot {n} in {}", deck.source()))
            })
            .collect();
    }
    let Some(spec) = &args.ballots else {
        let selection = args.deck.unwrap_or(Selection::Deck156);
        return Ok(deck.select(selection).into_iter().cloned().collect());
    };
    let chosen = deck.choose(spec).map_err(|e| match e {
        ballots::deck::ChoiceError::Spec(s) => {
            anyhow::anyhow!("--ballots {s:?}: expected 156, 144, 174 or ACF numbers")
        }
        ballots::deck::ChoiceError::NoBallot(n) => {
            anyhow::anyhow!("no ballot {n} in {}", deck.source())
        }
    })?;
    Ok(chosen.into_iter().cloned().collect())
}

/// Everything the games of a match share.
struct Match<'a> {
    args: &'a Args,
    opts_a: SearchOptions,
    opts_b: SearchOptions,
    tc: TimeControl,
    referee: Referee<'a>,
    oracle: &'a dyn Oracle,
    /// Player A's store and oracle, with --store.
    proved: Option<(&'a proofdb::Store, ProvedOracle<'a>)>,
    /// Player A's opening book.
    book: Option<&'a engine::play::book::Book>,
    name_a: String,
    name_b: String,
    total: usize,
    done: std::sync::atomic::AtomicUsize,
    /// Whether the engine of --engine-cmd started (answered `hub` and
    /// `init`) in at least one game.
    answered: std::sync::atomic::AtomicBool,
    /// Why it did not, the last time.
    silent: std::sync::Mutex<Option<String>>,
}

impl Match<'_> {
    /// Player B: another Hub engine, or this one with the `--b` options.
    fn player_b(&self) -> Result<Box<dyn Player + '_>, PlayError> {
        let a = self.args;
        Ok(match &a.engine_cmd {
            Some(cmd) => Box::new(HubPlayer::start(
                cmd,
                crate::limits::duration(a.engine_margin),
                a.engine_board.letters(),
            )?),
            None => Box::new(EnginePlayer::new(
                self.opts_b.clone(),
                a.tt_mb,
                self.oracle,
                a.egdb_pieces,
            )),
        })
    }

    /// Plays one game and logs it.
    fn play(&self, (i, ballot, a_color): Job) -> anyhow::Result<Played> {
        let args = self.args;
        let mut a: Box<dyn Player + '_> = match &self.proved {
            Some((store, oracle)) => Box::new(
                ProvedPlayer::new(
                    Searcher::try_with_options(args.tt_mb, self.opts_a.clone())?,
                    oracle,
                    store,
                )
                .with_book(self.book),
            ),
            None => Box::new(
                EnginePlayer::new(
                    self.opts_a.clone(),
                    args.tt_mb,
                    self.oracle,
                    args.egdb_pieces,
                )
                .with_book(self.book),
            ),
        };
        let (game, end) = match self.player_b() {
            Ok(mut b) => {
                self.answered
                    .store(true, std::sync::atomic::Ordering::Relaxed);
                match a_color {
                    Color::Black => {
                        play_game(ballot.position, &mut *a, &mut *b, self.tc, &self.referee)?
                    }
                    Color::White => {
                        play_game(ballot.position, &mut *b, &mut *a, self.tc, &self.referee)?
                    }
                }
            }
            // B did not start: it loses the game unplayed.
            Err(PlayError::Forfeit(f)) => {
                eprintln!("checkers: {f}: it loses the game");
                *self.silent.lock().unwrap_or_else(|e| e.into_inner()) = Some(f.to_string());
                let end = GameEnd {
                    outcome: GameOutcome::win_for(a_color),
                    reason: f.reason,
                    forfeit: None,
                    times: [MoveTimes::default(); 2],
                };
                (GameRecord::new(ballot.position), end)
            }
            Err(e) => return Err(e.into()),
        };
        if let Some((side, detail)) = &end.forfeit {
            eprintln!("checkers: {detail}: {side} loses the game");
        }
        let pdn = self.pdn(i, ballot, a_color, &game, &end)?;
        let k = self.done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        eprintln!(
            "game {k}/{}: ballot {} A {} -> {} ({}, {} plies)",
            self.total,
            ballot.number,
            a_color.name(),
            end.outcome.pdn(),
            end.reason,
            game.moves.len()
        );
        Ok(Played {
            pdn,
            score: end.outcome.score_for(a_color),
            times: [
                end.times[a_color as usize],
                end.times[a_color.opposite() as usize],
            ],
        })
    }

    /// The game as PDN from the initial position: the ballot's three
    /// moves, then the game's.
    fn pdn(
        &self,
        i: usize,
        ballot: &Ballot,
        a_color: Color,
        game: &GameRecord,
        end: &GameEnd,
    ) -> anyhow::Result<String> {
        let mut full = GameRecord::new(Position::initial());
        for t in &ballot.moves {
            let m = parse_move(&full.current(), t)
                .map_err(|e| anyhow::anyhow!("ballot {} move {t}: {e}", ballot.number))?;
            full.push(m);
        }
        anyhow::ensure!(
            full.current() == ballot.position,
            "ballot {} moves and FEN disagree",
            ballot.number
        );
        for m in &game.moves {
            full.push(*m);
        }
        let (bn, wn) = match a_color {
            Color::Black => (self.name_a.clone(), self.name_b.clone()),
            Color::White => (self.name_b.clone(), self.name_a.clone()),
        };
        let event = format!(
            "checkers match, ballot {} ({})",
            ballot.number,
            ballot.moves_text()
        );
        Ok(full.to_pdn(
            &[
                ("Event", event),
                ("Round", format!("{}", i + 1)),
                ("Black", bn),
                ("White", wn),
                ("Termination", end.reason.to_string()),
            ],
            end.outcome,
        ))
    }
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.engine_cmd.is_some() || args.self_play,
        "give an opponent: --engine-cmd CMD or --self"
    );
    let opts_a = SearchOptions::parse(&args.a).map_err(|e| anyhow::anyhow!("--a: {e}"))?;
    let opts_b = SearchOptions::parse(&args.b).map_err(|e| anyhow::anyhow!("--b: {e}"))?;
    let tc = time_control(&args)?;
    let deck = Deck::locate(args.ballots_file.as_deref())?;
    let ballots = chosen_ballots(&deck, &args)?;
    let jobs = pairings(ballots.len(), args.games).map_err(|e| match e {
        ScheduleError::TooMany {
            asked, available, ..
        } => anyhow::Error::new(crate::limits::UsageError(format!(
            "--games {asked}: {} ballot(s) give {available} games (each ballot with both \
                 colours); give at most that many",
            ballots.len()
        ))),
        e => e.into(),
    })?;
    // The engines playing at once: A, and B with --self, per game.
    let engines = if args.self_play { 2 } else { 1 } * args.threads.min(jobs.len().max(1));
    crate::limits::fits_memory(
        &format!("--tt-mb {} for {engines} engines at once", args.tt_mb),
        (args.tt_mb as u128 * engines as u128).checked_mul(1 << 20),
    )?;
    let oracle = crate::oracle::open_egdb(args.egdb_pieces, Needs::All)?;
    let oracle: &dyn Oracle = &*oracle;
    let book = args.book.open()?;
    let proved = args
        .store
        .as_deref()
        .map(crate::oracle::open_proved)
        .transpose()?;
    let m = Match {
        args: &args,
        opts_a,
        opts_b,
        tc,
        referee: Referee {
            max_plies: args.max_plies,
            resign_margin: args.resign_margin,
            oracle,
            probe_max: args.egdb_pieces,
        },
        oracle,
        proved: proved.as_ref().map(|p| {
            (
                &p.store,
                ProvedOracle::new(oracle, args.egdb_pieces, &p.results),
            )
        }),
        book: book.as_ref(),
        name_a: match &args.store {
            Some(f) => format!("checkers [{}] store {}", args.a, f.display()),
            None => format!("checkers [{}]", args.a),
        },
        name_b: match &args.engine_cmd {
            Some(c) => c.clone(),
            None => format!("checkers [{}]", args.b),
        },
        total: jobs.len(),
        done: std::sync::atomic::AtomicUsize::new(0),
        answered: std::sync::atomic::AtomicBool::new(false),
        silent: std::sync::Mutex::new(None),
    };
    let results = play_all(&jobs, args.threads, |p| {
        m.play((p.number, &ballots[p.opening], p.a_color))
    })?;
    let games = results.into_iter().collect::<anyhow::Result<Vec<_>>>()?;
    // An engine that never once started is misconfigured: its forfeits
    // are no result. (One that started and then failed loses those games.)
    if let Some(cmd) = &args.engine_cmd {
        if !games.is_empty() && !m.answered.load(std::sync::atomic::Ordering::Relaxed) {
            let why = m
                .silent
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take()
                .unwrap_or_default();
            anyhow::bail!(
                "engine {cmd:?} never answered in {} game(s) ({why}): no match was played; \
                 check --engine-cmd",
                games.len()
            );
        }
    }
    let mut tally = Tally::default();
    let mut times = [MoveTimes::default(); 2];
    for g in &games {
        tally.add(g.score);
        times[0].merge(&g.times[0]);
        times[1].merge(&g.times[1]);
    }
    if let Some(path) = &args.pdn {
        let text: String = games.iter().map(|g| g.pdn.as_str()).collect();
        std::fs::write(path, text)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    }
    println!("A = {}", m.name_a);
    println!("B = {}", m.name_b);
    println!("A: {}", tally.summary());
    println!("A time per move: {}", times[0].summary());
    println!("B time per move: {}", times[1].summary());
    Ok(())
}
