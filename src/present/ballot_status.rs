//! Ballot status rows ([`ballots::report::BallotStatus`]) as a text
//! table (values coloured for a terminal), Markdown, an SVG plot of the
//! frontier ply per ballot, the one-line summary, and what to run next
//! for each open walk; `write_report` writes the report's three files.

use ballots::report::{is_barred, to_json_lines, BallotStatus};
use ballots::score::{advantage_text, is_decisive, men_text};
use ballots::show::NEXT_STEP_NOTE;
use proofdb::Outcome;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

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
const LEFT: [usize; 4] = [1, 2, VALUE_COLUMN, 8];

fn cells(s: &BallotStatus) -> [String; 12] {
    [
        s.number.to_string(),
        s.moves.clone(),
        name_cell(s),
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

/// The name column: the opening's name, and `barred` for a barred
/// ballot (a decisive line or a win proved there is what it is barred
/// for).
fn name_cell(s: &BallotStatus) -> String {
    match (is_barred(s), s.name.is_empty()) {
        (false, _) => s.name.clone(),
        (true, true) => "(barred)".to_string(),
        (true, false) => format!("{} (barred)", s.name),
    }
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
    let flagged_barred = rows
        .iter()
        .filter(|r| r.decisive.is_some() && is_barred(r))
        .count();
    let flagged_repaired = rows
        .iter()
        .filter(|r| r.decisive.is_some() && !is_barred(r) && r.repairs > 0)
        .count();
    let barred = match (flagged_barred, flagged_repaired) {
        (0, 0) => String::new(),
        (b, 0) => format!(" ({b} of them barred ballots)"),
        (0, r) => format!(" ({r} of them still decisive after a repair)"),
        (b, r) => format!(" ({b} of them barred ballots, {r} still decisive after a repair)"),
    };
    format!(
        "{} ballots: {} with a main line, {} with a frontier (mean frontier ply {}, earliest {}); \
         {} frontiers where the engine's score is level, {} lines decisive by the engine{barred}",
        rows.len(),
        lines,
        fronts.len(),
        mean,
        fronts.iter().min().map_or("-".into(), |m| m.to_string()),
        level,
        flagged
    )
}

/// The ANSI colour of a value for its side to move: green a win, red a
/// loss, cyan a draw, yellow a bound.
fn ansi_colour(v: Outcome) -> &'static str {
    match v {
        Outcome::Exact(engine::Value::Win) => "\x1b[32m",
        Outcome::Exact(engine::Value::Loss) => "\x1b[31m",
        Outcome::Exact(engine::Value::Draw) => "\x1b[36m",
        Outcome::AtLeastDraw | Outcome::AtMostDraw => "\x1b[33m",
    }
}

/// Index of the `value` column.
const VALUE_COLUMN: usize = 6;

/// A plain text table with aligned columns, the value coloured when
/// `colour` is set (for a terminal).
pub fn to_text(rows: &[BallotStatus], colour: bool) -> String {
    let all: Vec<[String; 12]> = rows.iter().map(cells).collect();
    let mut w = HEADER.map(|h| h.len());
    for r in &all {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let mut out = String::new();
    let line = |cells: &[String], value: Option<Outcome>| {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            let pad = w[i] - c.chars().count();
            let cell = match value {
                Some(v) if colour && i == VALUE_COLUMN => {
                    format!("{}{c}\x1b[0m", ansi_colour(v))
                }
                _ => c.clone(),
            };
            if LEFT.contains(&i) {
                s.push_str(&cell);
                s.push_str(&" ".repeat(pad));
            } else {
                s.push_str(&" ".repeat(pad));
                s.push_str(&cell);
            }
            s.push_str("  ");
        }
        s.trim_end().to_string() + "\n"
    };
    out.push_str(&line(&HEADER.map(String::from), None));
    for (r, row) in all.iter().zip(rows) {
        out.push_str(&line(r, row.value));
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

/// [`to_markdown`] followed by where each open walk stands and what to
/// run next ([`next_text`]).
pub fn to_markdown_with_next(rows: &[BallotStatus], store: &Path, egdb_pieces: u32) -> String {
    let mut out = to_markdown(rows);
    let next = next_text(rows, store, egdb_pieces);
    if !next.is_empty() {
        out.push_str("\n## Open positions and what to run next\n\n```\n");
        out.push_str(&next);
        out.push_str("```\n");
    }
    out
}

/// Where each ballot's walk stands and what to run next, one paragraph
/// per ballot with an open ply: the frontier and open positions by FEN
/// and the commands that attack the open one.
pub fn next_text(rows: &[BallotStatus], store: &Path, egdb_pieces: u32) -> String {
    let mut out = String::new();
    for r in rows {
        let Some(o) = &r.open else { continue };
        let front = match (&r.frontier_ply, &r.frontier_fen, &r.value, &r.to_move) {
            (Some(p), Some(f), Some(v), Some(m)) => {
                format!("frontier ply {p} ({v}, {m} to move) {f}")
            }
            _ => "no ply proved".to_string(),
        };
        let tried = o.budget_millis.map_or("not tried yet".to_string(), |ms| {
            format!("resisted {}", human_time(ms))
        });
        let [rerun, solve] = o.commands(r.number, store, r.egdb_pieces.unwrap_or(egdb_pieces));
        let _ = write!(
            out,
            "ballot {}: {front}\n  open ply {} ({} pieces): {} ({tried})\n  {}\n  next: {rerun}\n    or: {solve}\n",
            r.number,
            o.ply,
            o.pieces,
            o.asks(),
            o.valued.fen,
        );
    }
    if !out.is_empty() {
        let _ = writeln!(out, "({NEXT_STEP_NOTE})");
    }
    out
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The game's result a frontier value says, from Black's point of view
/// (the side to move at the frontier may be either).
fn black_view(r: &BallotStatus) -> Option<Outcome> {
    let v = r.value?;
    Some(match r.to_move.as_deref() {
        Some("White") => v.negate(),
        _ => v,
    })
}

/// The bar colour of a frontier value (Black's view) and its legend.
const VALUE_COLOURS: [(&str, &str); 4] = [
    ("#4a7fd0", "draw"),
    ("#303030", "Black wins"),
    ("#e8a33d", "White wins"),
    ("#9bb8e0", "bound only"),
];

fn svg_colour(v: Option<Outcome>) -> &'static str {
    match v {
        Some(Outcome::Exact(engine::Value::Draw)) | None => VALUE_COLOURS[0].0,
        Some(Outcome::Exact(engine::Value::Win)) => VALUE_COLOURS[1].0,
        Some(Outcome::Exact(engine::Value::Loss)) => VALUE_COLOURS[2].0,
        Some(_) => VALUE_COLOURS[3].0,
    }
}

/// An SVG plot: one column per ballot of `rows` (as wide as a few
/// ballots need, narrower for a whole deck), a grey bar for its main line
/// (ply 0 at the top), a bar from the frontier to the line's end (the
/// proved part) coloured by the value proved there (blue a draw, black a
/// Black win, orange a White win), a dot at the frontier. Lower dots are
/// worse: the goal is to push frontiers up towards ply 3.
pub fn to_svg(rows: &[BallotStatus]) -> String {
    let n = rows.len().max(1);
    let max_ply = rows
        .iter()
        .filter_map(|r| r.last_ply)
        .max()
        .unwrap_or(10)
        .max(10);
    // Columns 8 to 40 pixels wide, so that a few ballots still make a
    // readable plot and a deck of 174 fits a page.
    let col = (640.0 / n as f64).clamp(8.0, 40.0);
    let (left, top, bottom, right) = (48.0, 56.0, 40.0, 16.0);
    let plot_w = (col * n as f64).max(520.0);
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
        r#"<text x="{left}" y="16" font-size="13">Frontier ply per ballot (grey: main line, coloured: proved part, dot: frontier)</text>"#
    );
    let mut lx = left;
    for (fill, name) in VALUE_COLOURS {
        let _ = writeln!(
            s,
            r#"<rect x="{lx:.1}" y="26" width="10" height="10" fill="{fill}"/><text x="{:.1}" y="35">{name}</text>"#,
            lx + 14.0
        );
        lx += 24.0 + 6.5 * name.len() as f64;
    }
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
            "ballot {} ({}){}: line to ply {}, frontier {}{}",
            r.number,
            r.moves,
            if r.name.is_empty() {
                String::new()
            } else {
                format!(" {}", r.name)
            },
            opt(&r.last_ply),
            opt(&r.frontier_ply),
            black_view(r).map_or(String::new(), |v| format!(" ({v} for Black)"))
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
                    r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{}"/><circle cx="{:.1}" cy="{:.1}" r="2.5" fill="#c03020"/>"##,
                    x + 1.0,
                    y(f),
                    col - 2.0,
                    y(last) - y(f),
                    svg_colour(black_view(r)),
                    x + col / 2.0,
                    y(f)
                );
            }
        }
        let _ = writeln!(s, "</g>");
        if n <= 40 || r.number % 10 == 0 || i == 0 || i + 1 == rows.len() {
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

/// Writes `ballots.md`, `ballots.jsonl` and `frontier.svg` into `dir`
/// (created if missing); returns the files written. The suggested
/// commands name `store` and databases of `egdb_pieces` pieces unless a
/// line's results say which.
pub fn write_report(
    dir: &Path,
    rows: &[BallotStatus],
    store: &Path,
    egdb_pieces: u32,
) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let files = [
        (
            dir.join("ballots.md"),
            to_markdown_with_next(rows, store, egdb_pieces),
        ),
        (
            dir.join("ballots.jsonl"),
            to_json_lines(rows, store, egdb_pieces),
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

#[cfg(test)]
mod tests;
