//! PDN game files for American checkers (GameType 21): a reader that
//! replays every game against the rules, and a writer.
//!
//! What the reader accepts is described in `docs/pdn.txt`. In short: tag
//! pairs `[Name "value"]` (with `\"` and `\\` escapes), move numbers
//! `12.` and `12...`, moves in short or long form (see
//! [`super::movetext`]), comments `{...}`, `;` to the end of the line and
//! `%` escape lines, variations `( ... )` (nested; skipped), NAGs (`$12`,
//! `!`, `?!`, ...), results `1-0 0-1 1/2-1/2 *` and `2-0 0-2 1-1 0-0`,
//! and a `[FEN "..."]` tag (with or without `SetUp`) for the start
//! position. A game ends at its result, or where the next game's tags
//! begin, or at the end of the text.
//!
//! A game whose moves do not replay is still returned, with the moves up
//! to the first bad one and a [`GameError`] saying where and why.

use super::fen::{parse_fen, to_fen, FenError};
use super::movetext::{move_to_text, parse_move, MoveTextError};
use crate::board::{Color, Position};
use crate::moves::Move;
use std::borrow::Cow;
use std::path::Path;
use thiserror::Error;

/// Why a text could not be read as PDN at all.
#[derive(Debug, Error)]
pub enum PdnError {
    /// The file could not be read.
    #[error("cannot read {path}: {error}")]
    Io {
        /// The file.
        path: String,
        /// The underlying error.
        error: std::io::Error,
    },
    /// The text holds binary data (a NUL byte).
    #[error("not PDN: binary data (a NUL byte at offset {offset})")]
    Binary {
        /// Byte offset of the first NUL.
        offset: usize,
    },
    /// The text does not start like a PDN game.
    #[error(
        "not PDN: line {line} starts with {found:?}, expected a tag pair, a move number or a move"
    )]
    NotPdn {
        /// Line (1-based) of the offending text.
        line: usize,
        /// The first few characters found there.
        found: String,
    },
    /// The text holds no game.
    #[error("not PDN: no game found (no tag pair and no move)")]
    NoGames,
    /// The file is larger than [`MAX_FILE_BYTES`] (or never ends: a
    /// device, a pipe).
    #[error("{path}: larger than {limit} bytes, the most a PDN file may hold here")]
    TooLarge {
        /// The file.
        path: String,
        /// [`MAX_FILE_BYTES`].
        limit: u64,
    },
    /// One game's text is longer than [`MAX_GAME_BYTES`].
    #[error("game {number} (line {line}) is longer than {limit} bytes, the most a game may take")]
    GameTooLarge {
        /// The game's number in the text.
        number: usize,
        /// Its first line.
        line: usize,
        /// [`MAX_GAME_BYTES`].
        limit: usize,
    },
}

/// Largest PDN file read: 1 GiB, far more than any game collection the
/// project reads (docs/measurements.md). The file is read in pieces, each checked for binary data as
/// it comes, so `/dev/zero` or `/dev/urandom` is refused at once and an
/// endless pipe of text at this size.
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// Longest text of one game (tags, moves, comments): 1 MiB, a thousand
/// times a long annotated game.
pub const MAX_GAME_BYTES: usize = 1 << 20;

/// Why one game does not replay.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum GameError {
    /// The `FEN` tag is not a legal position.
    #[error("line {line}: FEN tag {fen:?}: {cause}")]
    BadFen {
        /// Line of the tag.
        line: usize,
        /// The tag's value.
        fen: String,
        /// Why it is wrong.
        cause: FenError,
    },
    /// The `GameType` tag names another game.
    #[error("line {line}: GameType {value:?} is not American checkers (21)")]
    WrongGameType {
        /// Line of the tag.
        line: usize,
        /// The tag's value.
        value: String,
    },
    /// A move is unreadable or illegal in the position reached.
    #[error("move {number} ({side}): {cause} [line {line}]")]
    BadMove {
        /// Line of the move in the text.
        line: usize,
        /// Move number (as written, or counted from the start).
        number: u32,
        /// The side that was to play it.
        side: Color,
        /// Why it was refused.
        cause: MoveTextError,
    },
    /// The text breaks the PDN syntax (unterminated comment, variation or
    /// tag, stray `)`).
    #[error("line {line}: {what}")]
    Syntax {
        /// Line of the problem.
        line: usize,
        /// What is wrong.
        what: String,
    },
}

/// One game read from a PDN text.
#[derive(Clone, Debug)]
pub struct Game {
    /// 1-based index of the game in the text.
    pub number: usize,
    /// Line (1-based) where the game starts.
    pub line: usize,
    /// Tag pairs in the order written (values unescaped).
    pub tags: Vec<(String, String)>,
    /// Start position: the `FEN` tag's, else the initial position.
    pub start: Position,
    /// The moves that replayed legally, in order (all of them when
    /// [`Game::error`] is `None`).
    pub moves: Vec<Move>,
    /// Position after the last move of [`Game::moves`].
    pub end: Position,
    /// The result token after the moves, else the `Result` tag, if any.
    pub result: Option<String>,
    /// The first problem met, if any; replay stops there.
    pub error: Option<GameError>,
}

impl Game {
    /// The value of the first tag called `name` (case-sensitive).
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether every move replayed and nothing else was wrong.
    pub fn is_legal(&self) -> bool {
        self.error.is_none()
    }

    /// The positions of the game: the start, then the one after each move.
    pub fn positions(&self) -> Vec<Position> {
        let mut out = Vec::with_capacity(self.moves.len() + 1);
        let mut p = self.start;
        out.push(p);
        for m in &self.moves {
            p = p.play_unchecked(m);
            out.push(p);
        }
        out
    }
}

/// Turns file bytes into text: UTF-8 when valid (a leading byte-order
/// mark is dropped), else Latin-1 (older PDN files). Binary data (a NUL
/// byte) is refused.
pub fn decode(bytes: &[u8]) -> Result<Cow<'_, str>, PdnError> {
    if let Some(offset) = bytes.iter().position(|&b| b == 0) {
        return Err(PdnError::Binary { offset });
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    Ok(match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(bytes.iter().map(|&b| b as char).collect()),
    })
}

/// Reads every game of the PDN file at `path` (at most
/// [`MAX_FILE_BYTES`], refused at the first NUL byte as it is read).
pub fn read_file(path: &Path) -> Result<Vec<Game>, PdnError> {
    use std::io::Read;
    let name = || path.display().to_string();
    let io = |error| PdnError::Io {
        path: name(),
        error,
    };
    let mut file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; 1 << 20];
    loop {
        let n = match file.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io(e)),
        };
        if let Some(i) = chunk[..n].iter().position(|&b| b == 0) {
            return Err(PdnError::Binary {
                offset: bytes.len() + i,
            });
        }
        if (bytes.len() + n) as u64 > MAX_FILE_BYTES {
            return Err(PdnError::TooLarge {
                path: name(),
                limit: MAX_FILE_BYTES,
            });
        }
        bytes.extend_from_slice(&chunk[..n]);
    }
    read_games(&decode(&bytes)?)
}

/// Reads and replays every game of a PDN text. Fails only when the text
/// is not PDN at all; problems inside a game are reported in its
/// [`Game::error`].
pub fn read_games(text: &str) -> Result<Vec<Game>, PdnError> {
    let mut r = Reader {
        text,
        bytes: text.as_bytes(),
        at: 0,
        line: 1,
        games: Vec::new(),
        current: None,
        current_at: 0,
        first_token: true,
    };
    r.run()?;
    if r.games.is_empty() {
        return Err(PdnError::NoGames);
    }
    Ok(r.games)
}

/// A game being read.
struct GameBuilder {
    game: Game,
    /// Whether move text (a move, number or result) has started; a tag
    /// after that starts the next game.
    in_moves: bool,
    /// Whether the start position has been fixed from the tags.
    started: bool,
    /// Position reached.
    pos: Position,
    /// Move-number anchor: number `anchor_number` was written when
    /// `anchor_ply` moves had been played with `anchor_side` to move.
    anchor_number: u32,
    anchor_ply: usize,
    anchor_side: Color,
    /// Line of the FEN tag, for its error.
    fen_line: usize,
    gametype_line: usize,
}

impl GameBuilder {
    fn new(number: usize, line: usize) -> GameBuilder {
        let p = Position::initial();
        GameBuilder {
            game: Game {
                number,
                line,
                tags: Vec::new(),
                start: p,
                moves: Vec::new(),
                end: p,
                result: None,
                error: None,
            },
            in_moves: false,
            started: false,
            pos: p,
            anchor_number: 1,
            anchor_ply: 0,
            anchor_side: Color::Black,
            fen_line: line,
            gametype_line: line,
        }
    }

    fn fail(&mut self, e: GameError) {
        if self.game.error.is_none() {
            self.game.error = Some(e);
        }
    }

    /// Fixes the start position from the tags (once).
    fn start(&mut self) {
        if self.started {
            return;
        }
        self.started = true;
        if let Some(gt) = self.game.tag("GameType") {
            let kind = gt.split(',').next().unwrap_or("").trim();
            if kind != "21" {
                let value = gt.to_string();
                self.fail(GameError::WrongGameType {
                    line: self.gametype_line,
                    value,
                });
            }
        }
        if let Some(fen) = self.game.tag("FEN") {
            match parse_fen(fen) {
                Ok(p) => {
                    self.game.start = p;
                    self.pos = p;
                }
                Err(cause) => {
                    let fen = fen.to_string();
                    self.fail(GameError::BadFen {
                        line: self.fen_line,
                        fen,
                        cause,
                    });
                }
            }
        }
        self.anchor_side = self.pos.side_to_move();
        self.game.end = self.pos;
    }

    fn move_number(&self) -> u32 {
        let since = (self.game.moves.len() - self.anchor_ply) as u32;
        let after = match self.anchor_side {
            Color::Black => since / 2,
            Color::White => since.div_ceil(2),
        };
        self.anchor_number.saturating_add(after)
    }

    fn play(&mut self, text: &str, line: usize) {
        self.start();
        if self.game.error.is_some() {
            return;
        }
        match parse_move(&self.pos, text) {
            Ok(m) => {
                self.pos = self.pos.play_unchecked(&m);
                self.game.moves.push(m);
                self.game.end = self.pos;
            }
            Err(cause) => {
                let e = GameError::BadMove {
                    line,
                    number: self.move_number(),
                    side: self.pos.side_to_move(),
                    cause,
                };
                self.fail(e);
            }
        }
    }

    fn finish(mut self) -> Game {
        self.start();
        if self.game.result.is_none() {
            self.game.result = self.game.tag("Result").map(str::to_string);
        }
        self.game
    }
}

/// The results PDN files use for checkers (the last four count points).
const RESULTS: [&str; 8] = ["1-0", "0-1", "1/2-1/2", "*", "2-0", "0-2", "1-1", "0-0"];

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    line: usize,
    games: Vec<Game>,
    current: Option<GameBuilder>,
    /// Byte offset where the current game started.
    current_at: usize,
    /// Whether no significant token has been read yet.
    first_token: bool,
}

impl<'a> Reader<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.at += 1;
        if b == b'\n' {
            self.line += 1;
        }
        Some(b)
    }

    /// The current game, started at the current line if there is none.
    fn game(&mut self) -> &mut GameBuilder {
        if self.current.is_none() {
            let n = self.games.len() + 1;
            self.current = Some(GameBuilder::new(n, self.line));
            self.current_at = self.at;
        }
        self.current.as_mut().expect("just set")
    }

    fn finish_game(&mut self) {
        if let Some(g) = self.current.take() {
            self.games.push(g.finish());
        }
    }

    fn syntax(&mut self, line: usize, what: &str) {
        let what = what.to_string();
        self.game().fail(GameError::Syntax { line, what });
    }

    fn skip_to_eol(&mut self) {
        while let Some(b) = self.peek() {
            if b == b'\n' {
                break;
            }
            self.at += 1;
        }
    }

    /// Skips a `{...}` comment whose `{` is at the cursor. Returns false
    /// when it is not closed.
    fn skip_brace_comment(&mut self) -> bool {
        self.bump();
        while let Some(b) = self.bump() {
            if b == b'}' {
                return true;
            }
        }
        false
    }

    /// Skips white space, comments and escape lines. Reports unterminated
    /// comments on the current game.
    fn skip_space(&mut self) {
        while let Some(b) = self.peek() {
            match b {
                b'\n' | b' ' | b'\t' | b'\r' | 0x0c | 0x0b => {
                    self.bump();
                }
                b';' => self.skip_to_eol(),
                b'%' if self.at == 0 || self.bytes[self.at - 1] == b'\n' => self.skip_to_eol(),
                b'{' => {
                    let line = self.line;
                    if !self.skip_brace_comment() {
                        self.syntax(line, "comment '{' is never closed");
                    }
                }
                _ => break,
            }
        }
    }

    fn run(&mut self) -> Result<(), PdnError> {
        loop {
            if let Some(g) = &self.current {
                if self.at - self.current_at > MAX_GAME_BYTES {
                    return Err(PdnError::GameTooLarge {
                        number: g.game.number,
                        line: g.game.line,
                        limit: MAX_GAME_BYTES,
                    });
                }
            }
            self.skip_space();
            let Some(b) = self.peek() else { break };
            let line = self.line;
            match b {
                b'[' => {
                    if self.current.as_ref().is_some_and(|g| g.in_moves) {
                        self.finish_game();
                    }
                    let start = self.at;
                    self.tag(line);
                    if std::mem::take(&mut self.first_token)
                        && self
                            .current
                            .as_ref()
                            .is_some_and(|g| g.game.error.is_some())
                    {
                        // A text whose first tag pair is malformed (an INI
                        // or TOML file, say) is not PDN.
                        let found: String = self.text[start..].chars().take(20).collect();
                        return Err(PdnError::NotPdn { line, found });
                    }
                }
                b'(' => {
                    self.first_token = false;
                    self.game().in_moves = true;
                    self.skip_variation(line);
                }
                b')' => {
                    self.bump();
                    self.syntax(line, "')' without a variation to close");
                }
                b'$' => {
                    self.bump();
                    while self.peek().is_some_and(|b| b.is_ascii_digit()) {
                        self.bump();
                    }
                }
                _ => {
                    let start = self.at;
                    while let Some(b) = self.peek() {
                        if b.is_ascii_whitespace() || b"[]{}();$".contains(&b) {
                            break;
                        }
                        self.at += 1;
                    }
                    if self.at == start {
                        // A lone '}' or ']' outside any construct.
                        self.bump();
                        self.check_first(start)?;
                        let what = format!("unexpected {:?}", b as char);
                        self.syntax(line, &what);
                        continue;
                    }
                    let word = &self.text[start..self.at];
                    self.check_first(start)?;
                    self.word(word, line);
                }
            }
        }
        self.finish_game();
        Ok(())
    }

    /// Refuses a text whose first token cannot begin PDN move text.
    fn check_first(&mut self, start: usize) -> Result<(), PdnError> {
        if !self.first_token {
            return Ok(());
        }
        self.first_token = false;
        let word_end = self.bytes[start..]
            .iter()
            .position(|b| b.is_ascii_whitespace())
            .map_or(self.bytes.len(), |n| start + n);
        let word = &self.text[start..word_end];
        let looks_like_pdn = word.starts_with(|c: char| c.is_ascii_digit() || c == '*');
        if looks_like_pdn {
            return Ok(());
        }
        let found: String = word.chars().take(20).collect();
        Err(PdnError::NotPdn {
            line: self.line,
            found,
        })
    }

    /// Reads a tag pair whose `[` is at the cursor.
    fn tag(&mut self, line: usize) {
        self.bump();
        while self.peek().is_some_and(|b| b == b' ' || b == b'\t') {
            self.bump();
        }
        let name_start = self.at;
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            self.bump();
        }
        let name = self.text[name_start..self.at].to_string();
        while self.peek().is_some_and(|b| b == b' ' || b == b'\t') {
            self.bump();
        }
        if name.is_empty() || self.peek() != Some(b'"') {
            self.syntax(line, "malformed tag pair, expected [Name \"value\"]");
            self.skip_tag_rest();
            return;
        }
        self.bump();
        let mut value = String::new();
        let mut seg = self.at;
        let mut closed = false;
        while let Some(b) = self.peek() {
            match b {
                b'"' => {
                    value.push_str(&self.text[seg..self.at]);
                    self.bump();
                    closed = true;
                    break;
                }
                b'\\' if matches!(self.bytes.get(self.at + 1), Some(b'"') | Some(b'\\')) => {
                    value.push_str(&self.text[seg..self.at]);
                    self.bump();
                    seg = self.at;
                    self.bump();
                }
                b'\n' => break,
                _ => {
                    self.bump();
                }
            }
        }
        if !closed {
            self.syntax(line, &format!("tag {name}: value is not closed by '\"'"));
            self.skip_tag_rest();
            return;
        }
        while self.peek().is_some_and(|b| b == b' ' || b == b'\t') {
            self.bump();
        }
        if self.peek() == Some(b']') {
            self.bump();
        } else {
            self.syntax(line, &format!("tag {name}: missing ']'"));
            self.skip_tag_rest();
        }
        let g = self.game();
        if name == "FEN" {
            g.fen_line = line;
        }
        if name == "GameType" {
            g.gametype_line = line;
        }
        g.game.tags.push((name, value));
    }

    /// After a malformed tag: skips to its `]` or the end of the line.
    fn skip_tag_rest(&mut self) {
        while let Some(b) = self.peek() {
            if b == b'\n' {
                break;
            }
            self.bump();
            if b == b']' {
                break;
            }
        }
    }

    /// Skips a variation whose `(` is at the cursor, with nested
    /// variations and comments inside.
    fn skip_variation(&mut self, line: usize) {
        let mut depth = 0usize;
        while let Some(b) = self.peek() {
            match b {
                b'(' => {
                    depth += 1;
                    self.bump();
                }
                b')' => {
                    depth -= 1;
                    self.bump();
                    if depth == 0 {
                        return;
                    }
                }
                b'{' => {
                    if !self.skip_brace_comment() {
                        break;
                    }
                }
                b';' => self.skip_to_eol(),
                _ => {
                    self.bump();
                }
            }
        }
        self.syntax(line, "variation '(' is never closed");
    }

    /// Handles a word of move text: move number, result, NAG or move.
    fn word(&mut self, word: &str, line: usize) {
        // A move number, perhaps glued to its move: `12.`, `12...`, `12.9-13`.
        let digits = word.bytes().take_while(u8::is_ascii_digit).count();
        let mut rest = word;
        if digits > 0 && word.as_bytes().get(digits) == Some(&b'.') {
            let number: u32 = word[..digits].parse().unwrap_or(u32::MAX);
            let g = self.game();
            g.start();
            g.in_moves = true;
            if g.game.error.is_none() {
                g.anchor_number = number;
                g.anchor_ply = g.game.moves.len();
                g.anchor_side = g.pos.side_to_move();
            }
            rest = word[digits..].trim_start_matches('.');
        } else if word.bytes().all(|b| b == b'.') {
            // `...` written apart from its number.
            return;
        }
        if rest.is_empty() {
            return;
        }
        if RESULTS.contains(&rest) {
            let g = self.game();
            g.in_moves = true;
            g.game.result = Some(rest.to_string());
            self.finish_game();
            return;
        }
        if rest.bytes().all(|b| b == b'!' || b == b'?') {
            return; // a NAG written as punctuation
        }
        let g = self.game();
        g.in_moves = true;
        g.play(rest, line);
    }
}

/// Escapes a tag value: `\` and `"` get a backslash.
fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Longest line the writer produces.
const LINE_WIDTH: usize = 80;

/// Writes one game in standard PDN: the tags as given (values escaped),
/// with `GameType "21"` added when missing, `Result` set to `result`,
/// `SetUp "1"` and the canonical `FEN` of `start` when it is not the
/// initial position (any `FEN`/`SetUp` given is replaced); then numbered
/// move text (long form only where the short form would be ambiguous),
/// lines at most 80 columns, and the result. Ends with a newline.
///
/// `moves` must be legal in sequence from `start`.
pub fn write_game(
    tags: &[(String, String)],
    start: &Position,
    moves: &[Move],
    result: &str,
) -> String {
    let mut out = String::new();
    let mut wrote_result = false;
    for (name, value) in tags {
        match name.as_str() {
            "FEN" | "SetUp" => continue,
            "Result" => {
                if wrote_result {
                    continue;
                }
                wrote_result = true;
                out.push_str(&format!("[Result \"{}\"]\n", escape(result)));
            }
            _ => out.push_str(&format!("[{name} \"{}\"]\n", escape(value))),
        }
    }
    if !wrote_result {
        out.push_str(&format!("[Result \"{}\"]\n", escape(result)));
    }
    if !tags.iter().any(|(n, _)| n == "GameType") {
        out.push_str("[GameType \"21\"]\n");
    }
    if *start != Position::initial() {
        out.push_str("[SetUp \"1\"]\n");
        out.push_str(&format!("[FEN \"{}\"]\n", to_fen(start)));
    }
    let mut line = String::new();
    let mut push_unit = |out: &mut String, unit: &str| {
        if !line.is_empty() && line.len() + 1 + unit.len() > LINE_WIDTH {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(unit);
    };
    let mut pos = *start;
    let mut number = 1u32;
    for (i, m) in moves.iter().enumerate() {
        let text = move_to_text(&pos, m);
        let unit = match pos.side_to_move() {
            Color::Black => format!("{number}. {text}"),
            Color::White if i == 0 => format!("{number}... {text}"),
            Color::White => text,
        };
        if pos.side_to_move() == Color::White {
            number += 1;
        }
        push_unit(&mut out, &unit);
        pos = pos.play_unchecked(m);
    }
    push_unit(&mut out, result);
    out.push_str(&line);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(g: &Game) -> Vec<(&str, &str)> {
        g.tags
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect()
    }

    #[test]
    fn reads_tags_comments_variations_and_nags() {
        let text = r#"
; a file comment
[Event "Test \"one\""]
[Result "1-0"]
{ a comment
over lines } 1. 11-15 $1 23-19! 2.8-11 (2. 9-14 (2. 10-14) 22-17) 22-17?!
2... 9-13 ; tail
1-0

[Event "two"]
[FEN "W:W21:B1"]
1... 21-17 2. 1-6 *
"#;
        let games = read_games(text).unwrap();
        assert_eq!(games.len(), 2);
        let g = &games[0];
        assert!(g.error.is_none(), "{:?}", g.error);
        assert_eq!(tags(g), [("Event", "Test \"one\""), ("Result", "1-0")]);
        assert_eq!(g.moves.len(), 5);
        assert_eq!(g.result.as_deref(), Some("1-0"));
        let g = &games[1];
        assert!(g.error.is_none(), "{:?}", g.error);
        assert_eq!(g.moves.len(), 2);
        assert_eq!(to_fen(&g.end), "W:W17:B6");
        assert_eq!(g.result.as_deref(), Some("*"));
    }

    #[test]
    fn reports_the_first_bad_move() {
        let text = "[Event \"x\"]\n1. 11-15 23-19 2. 8-11 22-17\n3. 9-13 22-17 *\n";
        let huge = read_games("4294967295. 9-13 22-18 1-5 *").unwrap();
        assert!(huge[0].error.is_some());
        let games = read_games(text).unwrap();
        let e = games[0].error.as_ref().unwrap();
        let legal = crate::notation::movetext::legal_move_texts(&games[0].end).join(" ");
        assert_eq!(
            e.to_string(),
            format!("move 3 (White): 22-17 is not legal here; legal: {legal} [line 3]")
        );
        assert_eq!(games[0].moves.len(), 5);
    }

    #[test]
    fn not_pdn() {
        assert!(matches!(read_games(""), Err(PdnError::NoGames)));
        assert!(matches!(
            read_games("hello world"),
            Err(PdnError::NotPdn { .. })
        ));
        assert!(matches!(
            decode(b"ab\0cd"),
            Err(PdnError::Binary { offset: 2 })
        ));
        assert!(matches!(
            read_games("[workspace]\nmembers = []"),
            Err(PdnError::NotPdn { line: 1, .. })
        ));
        let g = read_games("[Event \"x\"]\n[Event \"x\" 1. 9-13").unwrap();
        assert!(matches!(g[0].error, Some(GameError::Syntax { .. })));
        let g = read_games("[Event \"x\"]\n{ open").unwrap();
        assert!(matches!(g[0].error, Some(GameError::Syntax { .. })));
        let g = read_games("[GameType \"20\"]\n1. 32-28 *").unwrap();
        assert!(matches!(g[0].error, Some(GameError::WrongGameType { .. })));
        let g = read_games("[FEN \"B:W1:B2\"]\n1. 2-6 *").unwrap();
        assert!(matches!(g[0].error, Some(GameError::BadFen { .. })));
    }

    #[test]
    fn a_byte_order_mark_is_dropped() {
        let g = read_games(&decode(b"\xEF\xBB\xBF[Event \"x\"]\n1. 9-13 *").unwrap()).unwrap();
        assert_eq!(g.len(), 1);
        assert!(g[0].is_legal(), "{:?}", g[0].error);
        assert_eq!(g[0].tag("Event"), Some("x"));
    }

    #[test]
    fn endless_or_huge_input_is_refused_not_held() {
        // A device that never ends: refused at its first NUL byte.
        if Path::new("/dev/zero").exists() {
            assert!(matches!(
                read_file(Path::new("/dev/zero")),
                Err(PdnError::Binary { offset: 0 })
            ));
        }
        let long = format!(
            "[Event \"x\"]\n{{{}}}\n1. 9-13 *",
            "a".repeat(MAX_GAME_BYTES)
        );
        assert!(matches!(
            read_games(&long),
            Err(PdnError::GameTooLarge { number: 1, .. })
        ));
    }

    #[test]
    fn write_then_read() {
        let start = parse_fen("W:W21,22,K30:B1,2,K11").unwrap();
        let mut moves = Vec::new();
        let mut p = start;
        for _ in 0..40 {
            let l = p.moves();
            if l.is_empty() {
                break;
            }
            let m = l.as_slice()[moves.len() % l.len()];
            moves.push(m);
            p = p.play_unchecked(&m);
        }
        let tags = vec![
            ("Event".to_string(), "a \"quoted\" name".to_string()),
            ("Result".to_string(), "?".to_string()),
        ];
        let text = write_game(&tags, &start, &moves, "*");
        assert!(text.lines().all(|l| l.len() <= LINE_WIDTH), "{text}");
        assert!(text.contains("[FEN \"W:W21,22,K30:B1,2,K11\"]"), "{text}");
        let games = read_games(&text).unwrap();
        assert_eq!(games.len(), 1);
        let g = &games[0];
        assert!(g.error.is_none(), "{:?}\n{text}", g.error);
        assert_eq!(g.start, start);
        assert_eq!(g.moves, moves);
        assert_eq!(g.tag("Event"), Some("a \"quoted\" name"));
        assert_eq!(g.result.as_deref(), Some("*"));
    }
}
