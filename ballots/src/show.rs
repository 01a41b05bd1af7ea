//! One stored main line as text: where its plies came from, the engine's
//! score of each position, the value the store holds for it, and whether
//! the line is flagged decisive ([`crate::score`]).

use crate::deck::Ballot;
use crate::score::{decisive_from, men_text};
use proofdb::{LinePlyRow, Origin, Outcome, Store, StoreError};

/// The summary of a line: plies by origin and the flag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineSummary {
    /// Last ply.
    pub last_ply: u32,
    /// Plies of each origin: published, archive, engine.
    pub origins: [u32; 3],
    /// How many plies carry a score.
    pub scored: u32,
    /// Where the line turns decisive.
    pub decisive: Option<crate::score::Decisive>,
}

/// Sums up `rows` (a stored line).
pub fn summarize(rows: &[LinePlyRow]) -> LineSummary {
    let count = |o: Origin| rows.iter().filter(|p| p.origin == o).count() as u32;
    LineSummary {
        last_ply: rows.last().map_or(0, |p| p.ply),
        origins: [
            count(Origin::Published),
            count(Origin::Archive),
            count(Origin::Engine),
        ],
        scored: rows.iter().filter(|p| p.score.is_some()).count() as u32,
        decisive: decisive_from(rows.iter().map(|p| (p.ply, p.score))),
    }
}

/// The verdict line of a summary: `decisive from ply N: ...`, `level
/// throughout`, or `not scored`.
pub fn verdict(s: &LineSummary) -> String {
    match (s.decisive, s.scored) {
        (Some(d), _) => d.to_string(),
        (None, 0) => "not scored (stored before lines had scores)".to_string(),
        (None, _) => "level throughout (no score of a man or more for a side)".to_string(),
    }
}

/// The main line of `ballot` as text (`None` when the store has none): a
/// header with the plies by origin, the verdict and the end, then one
/// row per ply: ply, move, origin, pieces, score (men, White's view),
/// stored value (side to move).
pub fn line_text(store: &Store, ballot: &Ballot) -> Result<Option<String>, StoreError> {
    let rows = store.main_line(ballot.number)?;
    if rows.is_empty() {
        return Ok(None);
    }
    let values: Vec<Option<Outcome>> = rows
        .iter()
        .map(|p| store.get_record(&p.position).map(|r| r.map(|r| r.outcome)))
        .collect::<Result<_, _>>()?;
    let s = summarize(&rows);
    let last = rows.last().expect("rows is not empty");
    let value_text = |v: &Option<Outcome>, p: &LinePlyRow| {
        v.map_or("-".to_string(), |o| {
            format!("{o} ({})", p.position.side_to_move().name())
        })
    };
    let mut out = format!(
        "ballot {} ({}): {} plies: {} published, {} archive, {} engine\n{}\nend: ply {}, {} pieces, stored value {}\n",
        ballot.number,
        ballot.moves_text(),
        s.last_ply,
        s.origins[0],
        s.origins[1],
        s.origins[2],
        verdict(&s),
        last.ply,
        last.position.piece_count(),
        value_text(values.last().expect("one value per row"), last),
    );
    out += &format!(
        "{:>4}  {:<8}  {:<9}  {:>6}  {:>10}  value\n",
        "ply", "move", "origin", "pieces", "score"
    );
    for (p, v) in rows.iter().zip(&values) {
        let row = format!(
            "{:>4}  {:<8}  {:<9}  {:>6}  {:>10}  {}",
            p.ply,
            p.move_text,
            p.origin.name(),
            p.position.piece_count(),
            p.score.map_or("-".to_string(), men_text),
            value_text(v, p)
        );
        out += row.trim_end();
        out.push('\n');
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Position;

    fn row(ply: u32, origin: Origin, score: Option<i32>) -> LinePlyRow {
        LinePlyRow {
            ply,
            position: Position::initial(),
            move_text: String::new(),
            origin,
            score,
        }
    }

    #[test]
    fn a_line_a_man_down_is_flagged() {
        let rows = [
            row(1, Origin::Published, Some(0)),
            row(2, Origin::Archive, Some(40)),
            row(3, Origin::Engine, Some(130)),
            row(4, Origin::Engine, Some(20_000)),
        ];
        let s = summarize(&rows);
        assert_eq!(s.origins, [1, 1, 2]);
        assert_eq!(verdict(&s), "decisive from ply 3: White +1.30 men");
        let level = summarize(&rows[..2]);
        assert!(verdict(&level).starts_with("level throughout"));
        let old = summarize(&[row(1, Origin::Published, None)]);
        assert!(verdict(&old).starts_with("not scored"));
    }
}
