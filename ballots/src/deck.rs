//! The deck of ACF three-move ballots, read from `ballots.tsv`.
//!
//! The file (see its `#` header) has one tab-separated row per ballot:
//! `acf moves deck ctd name fen also_reached_by white_replies`. Every row
//! is checked as it is read: the three moves are replayed from the start
//! and must reach the FEN, every other move order listed must reach the
//! same position, and the count of White replies must match the rules.
//! Errors name the file and line.
//!
//! Where the file comes from ([`Deck::locate`]): `--ballots-file`, else
//! `$CHECKERS_DATA/ballots.tsv`, else `../shared/data/ballots.tsv` from the
//! current directory, else the same path from the executable's repository
//! (the folders above the executable), else the copy built into this crate
//! (`ballots/data/ballots.tsv`).

use engine::notation::fen::{parse_fen, to_fen};
use engine::notation::movetext::parse_move;
use engine::{Move, Position};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use thiserror::Error;

/// The copy of `ballots.tsv` built into the crate.
pub const BUILTIN_TSV: &str = include_str!("../data/ballots.tsv");

/// Number of ACF ballots.
pub const BALLOT_COUNT: usize = 174;

/// Why a deck could not be read.
#[derive(Debug, Error)]
pub enum DeckError {
    /// A row is malformed or disagrees with the rules.
    #[error("{file}:{line}: {detail}")]
    Line {
        /// The file.
        file: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        detail: String,
    },
    /// The file as a whole is wrong (count, duplicates).
    #[error("{file}: {detail}")]
    File {
        /// The file.
        file: String,
        /// What is wrong.
        detail: String,
    },
    /// The file could not be read.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// `CHECKERS_DATA` is set but holds no `ballots.tsv`.
    #[error("CHECKERS_DATA={dir}: no ballots.tsv there")]
    DataDir {
        /// The directory.
        dir: String,
    },
}

/// A deck name that is none of `all`, `156`, `144`, `barred`.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("unknown deck {0:?} (all, 156, 144, barred)")]
pub struct UnknownDeck(pub String);

/// Moves given as text that cannot be played.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum MovesError {
    /// A move that is not legal (or not a move) in its position.
    #[error("move {text:?} in {fen}: {reason}")]
    Move {
        /// The move as given.
        text: String,
        /// The position it was given in.
        fen: String,
        /// Why it cannot be played.
        reason: engine::notation::movetext::MoveTextError,
    },
    /// Not the three moves of a ballot.
    #[error("{0} moves given, a ballot has 3")]
    NotThree(usize),
}

/// Why a row of `ballots.tsv` is refused (with the file and line, a
/// [`DeckError::Line`]).
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum RowError {
    /// Not the eight fields.
    #[error("{0} tab-separated fields, expected 8 (acf moves deck ctd name fen also_reached_by white_replies)")]
    Fields(usize),
    /// The ACF number.
    #[error("ballot number {0:?} is not 1-174")]
    Number(String),
    /// A move list that is not three moves.
    #[error("{0:?} is not three moves")]
    NotThreeMoves(String),
    /// The deck field.
    #[error("deck {0:?} is not deck144, added12 or barred")]
    Deck(String),
    /// The computer-tough flag.
    #[error("ctd flag {0:?} is not 0 or 1")]
    Ctd(String),
    /// The FEN field.
    #[error("fen {fen:?}: {reason}")]
    Fen {
        /// The field.
        fen: String,
        /// Why it is no position.
        reason: engine::notation::fen::FenError,
    },
    /// The three moves (or another order) cannot be played.
    #[error("ballot {number}{}: {reason}", if *.other { ", other order" } else { "" })]
    Moves {
        /// The ballot.
        number: u32,
        /// Whether it is one of the other move orders.
        other: bool,
        /// Why.
        reason: MovesError,
    },
    /// The moves (or another order) reach another position than the
    /// row's FEN.
    #[error("ballot {number}: {}{moves} reaches {reached}, not {}", if *.other { "other order " } else { "" }, .listed.as_ref().map_or("the ballot's position".to_string(), |f| format!("the listed fen {f}")))]
    Reaches {
        /// The ballot.
        number: u32,
        /// Whether they are one of the other move orders.
        other: bool,
        /// The three moves.
        moves: String,
        /// The position they reach.
        reached: String,
        /// The row's FEN, for the ballot's own three moves.
        listed: Option<String>,
    },
    /// The count of White's replies.
    #[error("white_replies {0:?} is not a number")]
    RepliesField(String),
    /// The count disagrees with the rules.
    #[error("ballot {number}: white_replies says {listed}, the position has {legal}")]
    Replies {
        /// The ballot.
        number: u32,
        /// The row's count.
        listed: u32,
        /// Legal moves in the position.
        legal: u32,
    },
}

/// Why a spec of ballots ([`Deck::choose`]) names none.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum ChoiceError {
    /// Neither a selection nor a list of numbers.
    #[error("{0:?}: expected all, 156, 144, barred or ACF numbers")]
    Spec(String),
    /// A number that is no ballot of the deck.
    #[error("no ballot {0}")]
    NoBallot(u32),
}

/// Which deck a ballot belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeckKind {
    /// The long-standing 144-ballot tournament deck.
    Deck144,
    /// The 12 ballots added in the 2000s.
    Added12,
    /// The 18 ballots barred as believed lost.
    Barred,
}

impl DeckKind {
    /// `deck144`, `added12` or `barred`.
    pub const fn name(self) -> &'static str {
        match self {
            DeckKind::Deck144 => "deck144",
            DeckKind::Added12 => "added12",
            DeckKind::Barred => "barred",
        }
    }

    /// Parses [`DeckKind::name`].
    pub fn from_name(s: &str) -> Option<DeckKind> {
        match s {
            "deck144" => Some(DeckKind::Deck144),
            "added12" => Some(DeckKind::Added12),
            "barred" => Some(DeckKind::Barred),
            _ => None,
        }
    }
}

/// A choice of ballots.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Selection {
    /// All 174.
    #[default]
    All,
    /// The 156 in current use (`deck144` + `added12`).
    Deck156,
    /// The 144 of the old deck.
    Deck144,
    /// The 18 barred.
    Barred,
}

impl Selection {
    /// Whether `kind` belongs to this selection.
    pub fn contains(self, kind: DeckKind) -> bool {
        match self {
            Selection::All => true,
            Selection::Deck156 => kind != DeckKind::Barred,
            Selection::Deck144 => kind == DeckKind::Deck144,
            Selection::Barred => kind == DeckKind::Barred,
        }
    }

    /// `all`, `156`, `144` or `barred`.
    pub const fn name(self) -> &'static str {
        match self {
            Selection::All => "all",
            Selection::Deck156 => "156",
            Selection::Deck144 => "144",
            Selection::Barred => "barred",
        }
    }
}

impl FromStr for Selection {
    type Err = UnknownDeck;
    fn from_str(s: &str) -> Result<Selection, UnknownDeck> {
        match s {
            "all" | "174" => Ok(Selection::All),
            "156" => Ok(Selection::Deck156),
            "144" | "deck144" => Ok(Selection::Deck144),
            "barred" | "18" => Ok(Selection::Barred),
            _ => Err(UnknownDeck(s.to_string())),
        }
    }
}

impl fmt::Display for Selection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One ballot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ballot {
    /// ACF number, 1-174.
    pub number: u32,
    /// The three moves (`9-13`, `22-18`, `6-9`).
    pub moves: [String; 3],
    /// Its deck.
    pub deck: DeckKind,
    /// In the 50-ballot computer-tough deck.
    pub ctd: bool,
    /// Opening name, or empty.
    pub name: String,
    /// The position after the three moves (White to move).
    pub position: Position,
    /// Other three-move orders reaching the same position.
    pub also_reached_by: Vec<[String; 3]>,
    /// Number of legal White moves in the position.
    pub white_replies: u32,
}

impl Ballot {
    /// The three moves joined by spaces.
    pub fn moves_text(&self) -> String {
        self.moves.join(" ")
    }

    /// The position's FEN.
    pub fn fen(&self) -> String {
        to_fen(&self.position)
    }

    /// The store's row for this ballot.
    pub fn to_row(&self) -> crate::tables::BallotRow {
        crate::tables::BallotRow {
            number: self.number,
            moves: self.moves_text(),
            deck: self.deck.name().into(),
            ctd: self.ctd,
            name: self.name.clone(),
            fen: self.fen(),
        }
    }
}

/// Where a deck was read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeckSource {
    /// A file.
    File(PathBuf),
    /// The copy built into the program.
    Builtin,
}

impl fmt::Display for DeckSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeckSource::File(p) => write!(f, "{}", p.display()),
            DeckSource::Builtin => f.write_str("built-in ballots.tsv"),
        }
    }
}

/// All ballots, with lookup by number and by position.
#[derive(Clone, Debug)]
pub struct Deck {
    ballots: Vec<Ballot>,
    by_pos: HashMap<Position, usize>,
    source: DeckSource,
}

/// Plays one move given as PDN text (`9-13`, `13x22`, `27x18x11`) in
/// `pos`, read by the project's one move-text parser
/// ([`engine::notation::movetext::parse_move`]); the error names the move
/// and the position.
pub fn play_move_text(pos: &Position, text: &str) -> Result<(Move, Position), MovesError> {
    let m = parse_move(pos, text).map_err(|reason| MovesError::Move {
        text: text.trim().to_string(),
        fen: to_fen(pos),
        reason,
    })?;
    Ok((m, pos.play_unchecked(&m)))
}

/// Replays `moves` from the start position.
pub fn replay<S: AsRef<str>>(moves: &[S]) -> Result<Position, MovesError> {
    let mut pos = Position::initial();
    for m in moves {
        pos = play_move_text(&pos, m.as_ref())?.1;
    }
    Ok(pos)
}

fn three(text: &str) -> Result<[String; 3], RowError> {
    let v: Vec<&str> = text.split_whitespace().collect();
    match v.as_slice() {
        [a, b, c] => Ok([a.to_string(), b.to_string(), c.to_string()]),
        _ => Err(RowError::NotThreeMoves(text.to_string())),
    }
}

fn parse_row(fields: &[&str]) -> Result<Ballot, RowError> {
    if fields.len() != 8 {
        return Err(RowError::Fields(fields.len()));
    }
    let number: u32 = fields[0]
        .trim()
        .parse()
        .ok()
        .filter(|n| (1..=BALLOT_COUNT as u32).contains(n))
        .ok_or_else(|| RowError::Number(fields[0].to_string()))?;
    let moves = three(fields[1])?;
    let deck = DeckKind::from_name(fields[2].trim())
        .ok_or_else(|| RowError::Deck(fields[2].to_string()))?;
    let ctd = match fields[3].trim() {
        "0" => false,
        "1" => true,
        s => return Err(RowError::Ctd(s.to_string())),
    };
    let position = parse_fen(fields[5]).map_err(|reason| RowError::Fen {
        fen: fields[5].to_string(),
        reason,
    })?;
    // The ballot's moves (`listed`: the row's FEN) or another order must
    // reach the row's position.
    let reaches = |order: &[String; 3], listed: Option<&str>| {
        let other = listed.is_none();
        let p = replay(order).map_err(|reason| RowError::Moves {
            number,
            other,
            reason,
        })?;
        if p == position {
            return Ok(());
        }
        Err(RowError::Reaches {
            number,
            other,
            moves: order.join(" "),
            reached: to_fen(&p),
            listed: listed.map(str::to_string),
        })
    };
    reaches(&moves, Some(fields[5]))?;
    let mut also_reached_by = Vec::new();
    for order in fields[6]
        .split([',', ';'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        let order = three(order)?;
        reaches(&order, None)?;
        also_reached_by.push(order);
    }
    let white_replies: u32 = fields[7]
        .trim()
        .parse()
        .map_err(|_| RowError::RepliesField(fields[7].to_string()))?;
    let legal = position.moves().len() as u32;
    if legal != white_replies {
        return Err(RowError::Replies {
            number,
            listed: white_replies,
            legal,
        });
    }
    Ok(Ballot {
        number,
        moves,
        deck,
        ctd,
        name: fields[4].trim().to_string(),
        position,
        also_reached_by,
        white_replies,
    })
}

impl Deck {
    /// Reads a deck from the text of a `ballots.tsv`; `file` names it in
    /// errors. Requires all 174 ballots, each once, at distinct positions.
    pub fn parse(text: &str, source: DeckSource) -> Result<Deck, DeckError> {
        let file = source.to_string();
        let mut ballots: Vec<Ballot> = Vec::with_capacity(BALLOT_COUNT);
        let mut header_seen = false;
        let mut lines_of: HashMap<u32, usize> = HashMap::new();
        let mut by_pos = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            let lineno = i + 1;
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            if !header_seen {
                header_seen = true;
                if line.starts_with("acf\t") {
                    continue;
                }
            }
            let fields: Vec<&str> = line.split('\t').collect();
            let err = |detail: String| DeckError::Line {
                file: file.clone(),
                line: lineno,
                detail,
            };
            let b = parse_row(&fields).map_err(|e| err(e.to_string()))?;
            if let Some(prev) = lines_of.insert(b.number, lineno) {
                return Err(err(format!(
                    "ballot {} listed again (first on line {prev})",
                    b.number
                )));
            }
            if let Some(&other) = by_pos.get(&b.position) {
                let o: &Ballot = &ballots[other];
                return Err(err(format!(
                    "ballot {} has the same position as ballot {}",
                    b.number, o.number
                )));
            }
            by_pos.insert(b.position, ballots.len());
            ballots.push(b);
        }
        if ballots.len() != BALLOT_COUNT {
            return Err(DeckError::File {
                file,
                detail: format!("{} ballots, expected {BALLOT_COUNT}", ballots.len()),
            });
        }
        ballots.sort_by_key(|b| b.number);
        let by_pos = ballots
            .iter()
            .enumerate()
            .map(|(i, b)| (b.position, i))
            .collect();
        Ok(Deck {
            ballots,
            by_pos,
            source,
        })
    }

    /// The deck built into the program.
    pub fn builtin() -> Deck {
        Deck::parse(BUILTIN_TSV, DeckSource::Builtin)
            .expect("the built-in ballots.tsv is checked by the crate's tests")
    }

    /// Reads the deck from `path`.
    pub fn load(path: &Path) -> Result<Deck, DeckError> {
        let text = std::fs::read_to_string(path).map_err(|e| DeckError::Io {
            file: path.display().to_string(),
            source: e,
        })?;
        Deck::parse(&text, DeckSource::File(path.to_path_buf()))
    }

    /// Finds and reads the deck: `explicit` if given, else
    /// `$CHECKERS_DATA/ballots.tsv`, else `../shared/data/ballots.tsv`
    /// from the current directory, else from each folder above the
    /// executable, else the built-in copy.
    pub fn locate(explicit: Option<&Path>) -> Result<Deck, DeckError> {
        if let Some(p) = explicit {
            return Deck::load(p);
        }
        if let Some(dir) = std::env::var_os("CHECKERS_DATA").filter(|d| !d.is_empty()) {
            let p = Path::new(&dir).join("ballots.tsv");
            if !p.is_file() {
                return Err(DeckError::DataDir {
                    dir: Path::new(&dir).display().to_string(),
                });
            }
            return Deck::load(&p);
        }
        match crate::sources::find_data_file("ballots.tsv") {
            Some(p) => Deck::load(&p),
            None => Ok(Deck::builtin()),
        }
    }

    /// Where the deck was read from.
    pub fn source(&self) -> &DeckSource {
        &self.source
    }

    /// All ballots, by number.
    pub fn ballots(&self) -> &[Ballot] {
        &self.ballots
    }

    /// The ballots of `selection`, by number.
    pub fn select(&self, selection: Selection) -> Vec<&Ballot> {
        self.ballots
            .iter()
            .filter(|b| selection.contains(b.deck))
            .collect()
    }

    /// Ballot number `n`.
    pub fn get(&self, n: u32) -> Option<&Ballot> {
        self.ballots.iter().find(|b| b.number == n)
    }

    /// The ballot whose position is `pos` (reached by any move order).
    pub fn by_position(&self, pos: &Position) -> Option<&Ballot> {
        self.by_pos.get(pos).map(|&i| &self.ballots[i])
    }

    /// The ballots a spec names: a selection (`all` or `174`, `156`,
    /// `144`, `barred`; see [`Selection`]) or a comma-separated list of
    /// ACF numbers, in the order given.
    pub fn choose(&self, spec: &str) -> Result<Vec<&Ballot>, ChoiceError> {
        if let Ok(sel) = spec.parse::<Selection>() {
            return Ok(self.select(sel));
        }
        spec.split(',')
            .map(|t| {
                let n = t
                    .trim()
                    .parse::<u32>()
                    .map_err(|_| ChoiceError::Spec(spec.to_string()))?;
                self.get(n).ok_or(ChoiceError::NoBallot(n))
            })
            .collect()
    }

    /// The ballot reached by three moves given as text, `Ok(None)` when
    /// they are legal but reach no ballot (a start that loses a man).
    pub fn by_moves<S: AsRef<str>>(&self, moves: &[S]) -> Result<Option<&Ballot>, MovesError> {
        if moves.len() != 3 {
            return Err(MovesError::NotThree(moves.len()));
        }
        Ok(self.by_position(&replay(moves)?))
    }
}
