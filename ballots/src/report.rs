//! Where the ballot jobs stand, from the store's main-line and job-record
//! tables: one row per ballot, as a text table, Markdown, JSON, and an SVG
//! plot of frontier ply per ballot.
//!
//! The *frontier* of a ballot is the earliest ply of its main line whose
//! position has an exact value in the store's results table (a one-sided
//! bound does not count). Its time, nodes and proof size come from the job
//! record of that ply, else from the stored result's provenance.
//!
//! Each row also shows the engine's score of the frontier position (as
//! the line stored it, White's point of view, in men) and where the line
//! turns decisive, if it does ([`crate::score`]), so a reader can tell a
//! frontier on a level line from one on a line that already lost a man.

use crate::deck::Ballot;
use crate::score::{advantage_text, decisive_from, is_decisive, men_text, Decisive};
use proofdb::{Outcome, Store, StoreError};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One ballot's state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BallotStatus {
    /// ACF number.
    pub number: u32,
    /// The three moves.
    pub moves: String,
    /// Opening name, or empty.
    pub name: String,
    /// `deck144`, `added12` or `barred`.
    pub deck: String,
    /// Plies stored in its main line (0 when none).
    pub line_plies: u32,
    /// The last ply of the main line.
    pub last_ply: Option<u32>,
    /// Earliest proved ply.
    pub frontier_ply: Option<u32>,
    /// Pieces on the board at the frontier.
    pub frontier_pieces: Option<u32>,
    /// The value proved at the frontier (side to move there).
    pub value: Option<Outcome>,
    /// Side to move at the frontier (`Black`/`White`).
    pub to_move: Option<String>,
    /// Time spent proving the frontier (ms).
    pub millis: Option<u64>,
    /// Nodes searched proving the frontier.
    pub nodes: Option<u64>,
    /// Proof size at the frontier.
    pub proof_size: Option<u64>,
    /// Plies of the main line with an exact value stored.
    pub proved_plies: u32,
    /// Job records of the ballot.
    pub job_records: u32,
    /// Total time over all its job records (ms).
    pub job_millis: u64,
    /// The engine's score of the frontier position as the line stored it
    /// (centi-men, White's view; `None` for an unscored line).
    pub frontier_score: Option<i32>,
    /// The first ply whose stored score says a side is lost.
    pub decisive: Option<Decisive>,
}

/// The status of each of `ballots`, in the order given.
pub fn status(store: &Store, ballots: &[&Ballot]) -> Result<Vec<BallotStatus>, StoreError> {
    ballots.iter().map(|b| ballot_status(store, b)).collect()
}

fn ballot_status(store: &Store, b: &Ballot) -> Result<BallotStatus, StoreError> {
    let line = store.main_line(b.number)?;
    let jobs = store.job_records(b.number)?;
    let mut st = BallotStatus {
        number: b.number,
        moves: b.moves_text(),
        name: b.name.clone(),
        deck: b.deck.name().to_string(),
        line_plies: line.len() as u32,
        last_ply: line.last().map(|p| p.ply),
        frontier_ply: None,
        frontier_pieces: None,
        value: None,
        to_move: None,
        millis: None,
        nodes: None,
        proof_size: None,
        proved_plies: 0,
        job_records: jobs.len() as u32,
        job_millis: jobs.iter().map(|j| j.millis).sum(),
        frontier_score: None,
        decisive: decisive_from(line.iter().map(|p| (p.ply, p.score))),
    };
    for ply in &line {
        let Some(rec) = store.get_record(&ply.position)? else {
            continue;
        };
        if !matches!(rec.outcome, Outcome::Exact(_)) {
            continue;
        }
        st.proved_plies += 1;
        if st.frontier_ply.is_some() {
            continue;
        }
        st.frontier_ply = Some(ply.ply);
        st.frontier_score = ply.score;
        st.frontier_pieces = Some(ply.position.piece_count());
        st.value = Some(rec.outcome);
        st.to_move = Some(ply.position.side_to_move().name().to_string());
        match jobs.iter().find(|j| j.ply == ply.ply) {
            Some(j) => {
                st.millis = Some(j.millis);
                st.nodes = Some(j.nodes);
                st.proof_size = Some(j.proof_size);
            }
            None => {
                st.millis = Some(rec.provenance.millis);
                st.nodes = Some(rec.provenance.nodes);
                st.proof_size = Some(rec.proof_size);
            }
        }
    }
    Ok(st)
}

fn opt<T: ToString>(v: &Option<T>) -> String {
    v.as_ref().map_or_else(|| "-".to_string(), T::to_string)
}

/// Milliseconds as `850 ms`, `12.3 s`, `4.5 min`, `2.1 h`.
pub fn human_time(ms: u64) -> String {
    let s = ms as f64 / 1000.0;
    if ms < 1000 {
        format!("{ms} ms")
    } else if s < 120.0 {
        format!("{s:.1} s")
    } else if s < 7200.0 {
        format!("{:.1} min", s / 60.0)
    } else {
        format!("{:.1} h", s / 3600.0)
    }
}

const HEADER: [&str; 12] = [
    "ballot", "moves", "name", "line", "frontier", "pieces", "value", "score", "decisive", "time",
    "nodes", "proof",
];

/// Columns written left-aligned in the text table.
const LEFT: [usize; 4] = [1, 2, 6, 8];

fn cells(s: &BallotStatus) -> [String; 12] {
    [
        s.number.to_string(),
        s.moves.clone(),
        s.name.clone(),
        s.last_ply.map_or("-".into(), |p| p.to_string()),
        opt(&s.frontier_ply),
        opt(&s.frontier_pieces),
        match (&s.value, &s.to_move) {
            (Some(v), Some(m)) => format!("{v} ({m})"),
            _ => "-".into(),
        },
        s.frontier_score.map_or("-".into(), men_text),
        s.decisive.map_or("-".into(), |d| {
            format!("ply {}: {}", d.ply, advantage_text(d.score))
        }),
        s.millis.map_or("-".into(), human_time),
        opt(&s.nodes),
        opt(&s.proof_size),
    ]
}

/// One-line summary: ballots with a line, with a frontier, mean frontier,
/// frontiers where the engine's score is level (less than a man either
/// way), lines flagged decisive.
pub fn summary(rows: &[BallotStatus]) -> String {
    let lines = rows.iter().filter(|r| r.line_plies > 0).count();
    let fronts: Vec<u32> = rows.iter().filter_map(|r| r.frontier_ply).collect();
    let mean = if fronts.is_empty() {
        "-".to_string()
    } else {
        format!(
            "{:.1}",
            fronts.iter().sum::<u32>() as f64 / fronts.len() as f64
        )
    };
    let level = rows
        .iter()
        .filter(|r| r.frontier_ply.is_some() && r.frontier_score.is_some_and(|s| !is_decisive(s)))
        .count();
    let flagged = rows.iter().filter(|r| r.decisive.is_some()).count();
    format!(
        "{} ballots: {} with a main line, {} with a frontier (mean frontier ply {}, earliest {}); \
         {} frontiers where the engine's score is level, {} lines decisive by the engine",
        rows.len(),
        lines,
        fronts.len(),
        mean,
        fronts.iter().min().map_or("-".into(), |m| m.to_string()),
        level,
        flagged
    )
}

/// A plain text table with aligned columns.
pub fn to_text(rows: &[BallotStatus]) -> String {
    let all: Vec<[String; 12]> = rows.iter().map(cells).collect();
    let mut w = HEADER.map(|h| h.len());
    for r in &all {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let mut out = String::new();
    let line = |cells: &[String]| {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            let pad = w[i] - c.chars().count();
            if LEFT.contains(&i) {
                s.push_str(c);
                s.push_str(&" ".repeat(pad));
            } else {
                s.push_str(&" ".repeat(pad));
                s.push_str(c);
            }
            s.push_str("  ");
        }
        s.trim_end().to_string() + "\n"
    };
    out.push_str(&line(&HEADER.map(String::from)));
    for r in &all {
        out.push_str(&line(r));
    }
    out.push_str(&summary(rows));
    out.push('\n');
    out
}

/// A Markdown table (pipes in names escaped).
pub fn to_markdown(rows: &[BallotStatus]) -> String {
    let mut out = String::from("# Ballot frontiers\n\n");
    out.push_str(&summary(rows));
    out.push_str(
        "\n\nThe frontier is the earliest ply of the ballot's main line whose position has an \
         exact value in the proof store; `line` is the main line's last ply, `value` is for the \
         side to move at the frontier; `score` is the engine's score of the frontier position \
         (men, White's point of view, at the depth the line was built with); `decisive` is the \
         first ply where that score is a man or more for one side.\n\n",
    );
    out.push_str(&format!("| {} |\n", HEADER.join(" | ")));
    out.push_str(&format!("|{}\n", "---|".repeat(HEADER.len())));
    for r in rows {
        let c = cells(r).map(|c| c.replace('|', "\\|"));
        out.push_str(&format!("| {} |\n", c.join(" | ")));
    }
    out
}

/// The rows as a JSON value: `{"summary": ..., "ballots": [...]}`.
pub fn to_json(rows: &[BallotStatus]) -> serde_json::Value {
    let ballots: Vec<serde_json::Value> = rows
        .iter()
        .map(|s| {
            serde_json::json!({
                "number": s.number,
                "moves": s.moves,
                "name": s.name,
                "deck": s.deck,
                "line_plies": s.line_plies,
                "last_ply": s.last_ply,
                "frontier_ply": s.frontier_ply,
                "frontier_pieces": s.frontier_pieces,
                "value": s.value.map(|v| v.name()),
                "to_move": s.to_move,
                "millis": s.millis,
                "nodes": s.nodes,
                "proof_size": s.proof_size,
                "proved_plies": s.proved_plies,
                "job_records": s.job_records,
                "job_millis": s.job_millis,
                "frontier_score": s.frontier_score,
                "decisive_ply": s.decisive.map(|d| d.ply),
                "decisive_score": s.decisive.map(|d| d.score),
            })
        })
        .collect();
    serde_json::json!({ "summary": summary(rows), "ballots": ballots })
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// An SVG plot: one column per ballot, a grey bar for its main line (ply
/// 0 at the top), a blue bar from the frontier to the line's end (the
/// proved part), a dot at the frontier. Lower dots are worse: the goal is
/// to push frontiers up towards ply 3.
pub fn to_svg(rows: &[BallotStatus]) -> String {
    let n = rows.len().max(1);
    let max_ply = rows
        .iter()
        .filter_map(|r| r.last_ply)
        .max()
        .unwrap_or(10)
        .max(10);
    let col = 8.0f64;
    let (left, top, bottom, right) = (48.0, 40.0, 40.0, 16.0);
    let plot_w = col * n as f64;
    let plot_h = 360.0f64;
    let width = left + plot_w + right;
    let height = top + plot_h + bottom;
    let y = |ply: u32| top + plot_h * ply as f64 / max_ply as f64;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif" font-size="10">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{left}" y="16" font-size="13">Frontier ply per ballot (grey: main line, blue: proved part, dot: frontier)</text>"#
    );
    // Horizontal grid every 10 plies.
    let mut p = 0;
    while p <= max_ply {
        let yy = y(p);
        let _ = writeln!(
            s,
            r##"<line x1="{left}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{p}</text>"##,
            left + plot_w,
            left - 4.0,
            yy + 3.0
        );
        p += 10;
    }
    let _ = writeln!(
        s,
        r#"<text x="12" y="{:.1}" transform="rotate(-90 12 {:.1})" text-anchor="middle">ply</text>"#,
        top + plot_h / 2.0,
        top + plot_h / 2.0
    );
    for (i, r) in rows.iter().enumerate() {
        let x = left + col * i as f64;
        let title = format!(
            "ballot {} ({}){}: line to ply {}, frontier {}",
            r.number,
            r.moves,
            if r.name.is_empty() {
                String::new()
            } else {
                format!(" {}", r.name)
            },
            opt(&r.last_ply),
            opt(&r.frontier_ply)
        );
        let _ = write!(s, "<g><title>{}</title>", xml_escape(&title));
        if let Some(last) = r.last_ply {
            let _ = write!(
                s,
                r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="#ccc"/>"##,
                x + 1.0,
                y(0),
                col - 2.0,
                y(last) - y(0)
            );
            if let Some(f) = r.frontier_ply {
                let _ = write!(
                    s,
                    r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="#4a7fd0"/><circle cx="{:.1}" cy="{:.1}" r="2.5" fill="#c03020"/>"##,
                    x + 1.0,
                    y(f),
                    col - 2.0,
                    y(last) - y(f),
                    x + col / 2.0,
                    y(f)
                );
            }
        }
        let _ = writeln!(s, "</g>");
        if r.number % 10 == 0 || i == 0 || i + 1 == rows.len() {
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                x + col / 2.0,
                top + plot_h + 14.0,
                r.number
            );
        }
    }
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">ballot (ACF number)</text>"#,
        left + plot_w / 2.0,
        height - 8.0
    );
    s.push_str("</svg>\n");
    s
}

/// Writes `ballots.md`, `ballots.json` and `frontier.svg` into `dir`
/// (created if missing); returns the files written.
pub fn write_report(dir: &Path, rows: &[BallotStatus]) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let files = [
        (dir.join("ballots.md"), to_markdown(rows)),
        (
            dir.join("ballots.json"),
            serde_json::to_string_pretty(&to_json(rows)).unwrap_or_default() + "\n",
        ),
        (dir.join("frontier.svg"), to_svg(rows)),
    ];
    let mut out = Vec::new();
    for (path, text) in files {
        std::fs::write(&path, text)?;
        out.push(path);
    }
    Ok(out)
}
