//! Another engine speaking Hub on a pipe, as a [`Player`]. Its lines are
//! read on a thread of their own, so that an engine that does not answer
//! in time is noticed (a [`Forfeit`]) instead of waited for.

use super::hub::{hub_args, hub_move, hub_position, parse_hub_move, SideLetters};
use super::record::GameRecord;
use super::referee::{Choice, Forfeit, PlayError, Player, TimeControl};
use std::io::{BufReader, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Another engine speaking Hub on a pipe.
pub struct HubPlayer {
    child: Child,
    input: ChildStdin,
    lines: Receiver<String>,
    command: String,
    /// What the engine may take past the time of its move.
    margin: Duration,
    /// How the engine reads `pos=` boards.
    board: SideLetters,
}

impl HubPlayer {
    /// Starts `command` (via `sh -c`) and runs the `hub`/`init` handshake,
    /// which must be answered within `margin`. Positions are sent as
    /// `board` says the engine reads them (pydraughts' dialect, or
    /// square for square, asking the engine for that reading with
    /// `set-param name=side-letters value=literal`).
    pub fn start(
        command: &str,
        margin: Duration,
        board: SideLetters,
    ) -> Result<HubPlayer, PlayError> {
        // A process group of its own, so that the engine is killed with
        // whatever the shell started for it.
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|source| PlayError::Start {
                command: command.to_string(),
                source,
            })?;
        let input = child.stdin.take().expect("piped stdin");
        let output = child.stdout.take().expect("piped stdout");
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut output = BufReader::new(output);
            while let Ok(Some(line)) = super::read_line(&mut output) {
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
            board,
        };
        p.send("hub")?;
        p.wait_for("wait", Duration::ZERO)?;
        if board == SideLetters::Literal {
            // Engines with this parameter (this program's `hub`) read the
            // pydraughts dialect by default; others ignore it or say
            // `error`, which no answer waited for starts with.
            p.send("set-param name=side-letters value=literal")?;
        }
        p.send("init")?;
        p.wait_for("ready", Duration::ZERO)?;
        Ok(p)
    }

    fn send(&mut self, line: &str) -> Result<(), Forfeit> {
        writeln!(self.input, "{line}")
            .and_then(|_| self.input.flush())
            .map_err(|e| Forfeit {
                reason: "engine gone",
                detail: format!("engine {:?} closed its input: {e}", self.command),
            })
    }

    /// The first line starting with `word`, within `time` and the margin.
    fn wait_for(&mut self, word: &str, time: Duration) -> Result<String, Forfeit> {
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
                    });
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(Forfeit {
                        reason: "engine gone",
                        detail: format!("engine {:?} ended its output", self.command),
                    })
                }
            }
        }
    }

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

    /// The `level` command for a move and the time the move may take.
    fn level(tc: TimeControl, clock: f64) -> (String, Duration) {
        match tc {
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
                super::duration_of_secs(clock),
            ),
        }
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
    fn choose(&mut self, game: &GameRecord, tc: TimeControl, clock: f64) -> Choice {
        let moves: Vec<String> = game.moves.iter().map(hub_move).collect();
        self.send(&format!(
            "pos pos={} moves=\"{}\"",
            hub_position(&game.start, self.board),
            moves.join(" ")
        ))?;
        let (level, time) = HubPlayer::level(tc, clock);
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
        let m = parse_hub_move(&game.current(), &mv).map_err(|e| Forfeit {
            reason: "illegal move",
            detail: format!(
                "engine {:?} played {mv:?}, not legal here ({e})",
                self.command
            ),
        })?;
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::play::referee::{play_game, EnginePlayer, Referee};
    use crate::play::GameOutcome;
    use crate::search::{Limits, SearchOptions};
    use crate::{NoOracle, Position};

    #[test]
    fn an_engine_that_cannot_start_the_handshake_forfeits() {
        let e = HubPlayer::start(
            "exit 0",
            Duration::from_millis(500),
            SideLetters::Pydraughts,
        )
        .err();
        assert!(
            matches!(e, Some(PlayError::Forfeit(ref f)) if f.reason == "engine gone"),
            "{e:?}"
        );
    }

    #[test]
    fn a_scripted_hub_engine_plays_and_an_illegal_reply_forfeits() {
        // Answers the handshake, then plays 22-18 (illegal for Black).
        let script = "read a; echo wait; read a; echo ready; \
                      while read a; do case \"$a\" in go*) echo done move=22-18;; esac; done";
        let mut b =
            HubPlayer::start(script, Duration::from_secs(5), SideLetters::Pydraughts).unwrap();
        let mut a = EnginePlayer::new(SearchOptions::default(), 1, &NoOracle, 0);
        let referee = Referee::rules_only(10, 0);
        let tc = TimeControl::PerMove(Limits {
            depth: Some(1),
            ..Limits::default()
        });
        let (g, end) = play_game(Position::initial(), &mut b, &mut a, tc, &referee).unwrap();
        assert_eq!(g.moves.len(), 0);
        assert_eq!(end.outcome, GameOutcome::WhiteWins);
        assert_eq!(end.reason, "illegal move");
        let detail = end.forfeit.unwrap().1;
        assert!(detail.contains("not legal here"), "{detail}");
    }

    /// The board of a game that starts from a set-up position reaches the
    /// engine in the dialect asked for: an engine that reads boards square
    /// for square gets the literal board. The scripted engine answers a
    /// legal move only when it received the literal board of the start.
    #[test]
    fn positions_are_sent_in_the_engines_dialect() {
        let start = crate::notation::fen::parse_fen("W:W22,K30:B5").unwrap();
        for (letters, expected) in [
            (
                SideLetters::Literal,
                hub_position(&start, SideLetters::Literal),
            ),
            (
                SideLetters::Pydraughts,
                hub_position(&start, SideLetters::Pydraughts),
            ),
        ] {
            assert_ne!(
                hub_position(&start, SideLetters::Literal),
                hub_position(&start, SideLetters::Pydraughts)
            );
            let script = format!(
                "read a; echo wait; read a; echo ready; ok=no; \
                 while read a; do case \"$a\" in \"pos pos={expected} \"*) ok=yes;; \
                 go*) if [ $ok = yes ]; then echo done move=22-18; else echo done move=30-26; fi;; \
                 esac; done"
            );
            let mut b = HubPlayer::start(&script, Duration::from_secs(5), letters).unwrap();
            let record = GameRecord::new(start);
            let tc = TimeControl::PerMove(Limits {
                depth: Some(1),
                ..Limits::default()
            });
            let mv = b.choose(&record, tc, 0.0).unwrap();
            assert_eq!(hub_move(&mv), "22-18", "{letters:?}");
        }
    }
}
