//! `egdb probe` and `egdb stats`.

use super::DirArg;
use anyhow::Context;
use engine::egdb::index::MAX_PIECES;
use engine::egdb::probe::Source;
use engine::egdb::slice::all_slices;
use engine::egdb::Egdb;
use engine::notation::fen::parse_fen;

#[derive(clap::Args)]
pub(super) struct ProbeArgs {
    /// Position as PDN FEN, e.g. "W:WK19,K23:B12,K28".
    pub(super) fen: String,
    #[command(flatten)]
    pub(super) dir: DirArg,
    /// One JSON object: fen, side_to_move, value (for the side to move:
    /// win, draw or loss), source (egdb, capture-search, trivial) and
    /// moves, each with its text, the FEN it leads to, and value (what the
    /// move is worth to the side that plays it; null outside the
    /// databases).
    #[arg(long)]
    pub(super) json: bool,
}

#[derive(clap::Args)]
pub(super) struct StatsArgs {
    /// Only slices with at most this many pieces (2 to 8).
    #[arg(long, value_parser = crate::limits::slice_pieces)]
    pub(super) pieces: Option<u32>,
    #[command(flatten)]
    pub(super) dir: DirArg,
    /// JSON output (one object).
    #[arg(long)]
    pub(super) json: bool,
}

pub(super) fn probe(a: ProbeArgs) -> anyhow::Result<()> {
    let dir = a.dir.get();
    let pos = parse_fen(&a.fen).with_context(|| format!("bad FEN {:?}", a.fen))?;
    let db = Egdb::open(&dir)?;
    let n = pos.piece_count();
    let Some((v, src)) = db.probe_with_source(&pos) else {
        anyhow::bail!(
            "{} has {n} pieces; the databases in {} cover positions up to {} pieces \
             (build more with `checkers egdb build --pieces {n}`)",
            a.fen,
            dir.display(),
            db.max_pieces()
        );
    };
    let moves: Vec<_> = db
        .move_values(&pos)
        .into_iter()
        .map(|(m, mv)| {
            let text = engine::notation::movetext::move_to_text(&pos, &m);
            (
                text,
                engine::notation::fen::to_fen(&pos.play_unchecked(&m)),
                mv,
            )
        })
        .collect();
    if a.json {
        let moves: Vec<serde_json::Value> = moves
            .iter()
            .map(|(text, fen, mv)| {
                serde_json::json!({
                    "move": text,
                    "fen": fen,
                    "value": mv.map(|(v, _)| v.negate().name()),
                    "move_value": mv.map(|(v, _)| v.name()),
                })
            })
            .collect();
        let doc = serde_json::json!({
            "fen": engine::notation::fen::to_fen(&pos),
            "side_to_move": pos.side_to_move().name(),
            "value": v.name(),
            "source": src.name(),
            "moves": moves,
        });
        return crate::cli::emit(&format!("{doc}\n"));
    }
    let from = match src {
        Source::Stored => "from the database",
        Source::CaptureSearch => "by a capture search at probe time",
        Source::Trivial => "a side has no piece",
    };
    let mut out = format!("{v} ({from})\n");
    for (text, fen, mv) in &moves {
        let worth = mv.map_or("not in the databases", |(v, _)| v.name());
        out += &format!("  {text:<10} {worth:<5} -> {fen}\n");
    }
    crate::cli::emit(&out)
}

#[derive(Default, Clone, Copy)]
pub(super) struct Tally {
    slices: u64,
    placements: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    bytes: u64,
}

impl Tally {
    fn add(&mut self, o: &Tally) {
        self.slices += o.slices;
        self.placements += o.placements;
        self.wins += o.wins;
        self.draws += o.draws;
        self.losses += o.losses;
        self.bytes += o.bytes;
    }
    fn json(&self, name: &str) -> serde_json::Value {
        serde_json::json!({
            "name": name,
            "slices": self.slices,
            "positions_without_side": self.placements,
            "positions_with_side": 2 * self.placements,
            "stored_black_to_move": self.placements,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "bytes": self.bytes,
            "positions_per_byte": 2.0 * self.placements as f64 / self.bytes.max(1) as f64,
        })
    }
    fn line(&self, name: &str) -> String {
        format!(
            "{name:<22} {:>14} {:>14} {:>13} {:>13} {:>13} {:>12} {:>8.1}",
            self.placements,
            2 * self.placements,
            self.wins,
            self.draws,
            self.losses,
            self.bytes,
            2.0 * self.placements as f64 / self.bytes.max(1) as f64
        )
    }
}

pub(super) fn stats(a: StatsArgs) -> anyhow::Result<()> {
    let dir = a.dir.get();
    let db = Egdb::open(&dir)?;
    let max = a.pieces.unwrap_or(MAX_PIECES);
    let mut per_slice = Vec::new();
    let mut per_count = vec![Tally::default(); MAX_PIECES as usize + 1];
    for s in all_slices(max) {
        let Some(f) = db.slice_file(&s) else { continue };
        let h = f.header();
        let mut t = Tally {
            slices: 1,
            bytes: f.file_len(),
            ..Tally::default()
        };
        for i in 0..h.tables {
            t.placements += h.sizes[i];
            t.wins += h.counts[i].wins;
            t.draws += h.counts[i].draws;
            t.losses += h.counts[i].losses;
        }
        per_count[s.pieces() as usize].add(&t);
        per_slice.push((s, t));
    }
    let mut total = Tally::default();
    for t in &per_count {
        total.add(t);
    }
    if a.json {
        let out = serde_json::json!({
            "dir": dir.display().to_string(),
            "max_pieces": db.max_pieces(),
            "note": "wins/draws/losses count the stored positions (Black to move); \
                     each also stands for its colour-reversed position with White to move",
            "slices": per_slice.iter().map(|(s, t)| t.json(&s.name())).collect::<Vec<_>>(),
            "pieces": per_count.iter().enumerate().filter(|(_, t)| t.slices > 0)
                .map(|(n, t)| t.json(&n.to_string())).collect::<Vec<_>>(),
            "total": total.json("total"),
        });
        println!("{out}");
        return Ok(());
    }
    println!(
        "{}: complete up to {} pieces. positions: stored (Black to move) = placements \
         without side to move; with side: twice that (each stored position also stands \
         for its colour-reversed position with White to move); wins/draws/losses for the \
         side to move over the stored positions; side/B: positions with side per byte.",
        dir.display(),
        db.max_pieces()
    );
    let head = format!(
        "{:<22} {:>14} {:>14} {:>13} {:>13} {:>13} {:>12} {:>8}",
        "slice", "positions", "with side", "wins", "draws", "losses", "bytes", "side/B"
    );
    println!("{head}");
    for (s, t) in &per_slice {
        println!("{}", t.line(&s.name()));
    }
    println!("\n{head}");
    for (n, t) in per_count.iter().enumerate() {
        if t.slices > 0 {
            println!("{}", t.line(&format!("{n} pieces ({} slices)", t.slices)));
        }
    }
    println!("{}", total.line("total"));
    Ok(())
}
