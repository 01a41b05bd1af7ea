//! A stored main line as text, ply by ply ([`ballots::show::LineState`]),
//! for `ballots show`.

use ballots::score::men_text;
use ballots::show::{LineState, PlyState, NEXT_STEP_NOTE};
use std::path::Path;

fn value_text(p: &PlyState) -> String {
    p.stored.map_or("-".to_string(), |o| {
        format!("{o} ({})", p.valued.side_to_move)
    })
}

/// The main line `l` as text: a header with the plies by origin, the
/// verdict and the end, then one row per ply: ply, move, origin, pieces,
/// score (men, White's view), stored value (side to move), proof size,
/// the job's last attempt, FEN; then the open question with the commands
/// that attack it (`store`, and databases of `egdb_pieces` pieces unless
/// the line's results say which).
pub fn state_text(l: &LineState, store: &Path, egdb_pieces: u32) -> String {
    let s = &l.summary;
    let last = l.plies.last().expect("a stored line has a ply");
    let mut out = format!(
        "ballot {} ({}): {} plies: {} published, {} archive, {} engine, {} repair\n{}\nend: ply {}, {} pieces, stored value {}\n",
        l.number,
        l.moves,
        s.last_ply,
        s.origins[0],
        s.origins[1],
        s.origins[2],
        s.origins[3],
        l.verdict,
        last.step.ply,
        last.pieces,
        value_text(last),
    );
    out += &format!(
        "{:>4}  {:<8}  {:<9}  {:>6}  {:>10}  {:<16}  {:>10}  {:<24}  fen\n",
        "ply", "move", "origin", "pieces", "score", "value", "proof", "job"
    );
    for p in &l.plies {
        let job = p.job.as_ref().map_or("-".to_string(), |j| {
            format!(
                "{} {} ms {} nodes",
                j.status, j.effort.millis, j.effort.nodes
            )
        });
        out += &format!(
            "{:>4}  {:<8}  {:<9}  {:>6}  {:>10}  {:<16}  {:>10}  {:<24}  {}\n",
            p.step.ply,
            p.step.move_text,
            p.step.origin,
            p.pieces,
            p.step.score.map_or("-".to_string(), men_text),
            value_text(p),
            p.proof_size.map_or("-".to_string(), |n| n.to_string()),
            job,
            p.valued.fen
        );
    }
    out += &format!(
        "frontier: {}\n",
        l.frontier_ply
            .map_or("no ply proved".to_string(), |f| format!("ply {f}"))
    );
    match &l.open {
        None => out += "open: none: the ballot's position is proved\n",
        Some(o) => {
            let tried = o
                .budget_millis
                .map_or("the job has not tried it yet".to_string(), |ms| {
                    format!("it resisted a budget of {} ms", ms)
                });
            out += &format!(
                "open: ply {} ({} pieces, {} to move): {}; {tried}\n  {}\n",
                o.ply,
                o.pieces,
                o.valued.side_to_move,
                o.asks(),
                o.valued.fen
            );
            let [rerun, solve] = o.commands(l.number, store, l.egdb_pieces.unwrap_or(egdb_pieces));
            out += &format!("next: {rerun}\n  or: {solve}\n  ({NEXT_STEP_NOTE})\n");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ballots::deck::Deck;
    use ballots::show::line_state;
    use ballots::tables::{BallotTables, JobStatus};
    use proofdb::testing::put_outcome_unverified;
    use proofdb::{Outcome, Provenance, Store};

    /// The open question is named where the walk stands, and a line whose
    /// ballot position is proved says nothing is open.
    #[test]
    fn the_open_ply_and_its_question_are_shown() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("s.sqlite")).unwrap();
        let line =
            ballots::testing::line_from_moves(&["9-13", "21-17", "5-9", "25-21", "11-15", "29-25"]);
        store.set_main_line(1, &line).unwrap();
        let deck = Deck::builtin();
        let ballot = deck.get(1).unwrap();
        let prov = Provenance::default();
        let draw = Outcome::Exact(engine::Value::Draw);
        for ply in [5, 6] {
            put_outcome_unverified(&store, &line[ply].position, draw, &prov).unwrap();
        }
        put_outcome_unverified(&store, &line[4].position, Outcome::AtLeastDraw, &prov).unwrap();
        let record = ballots::testing::job_record(
            1,
            4,
            Some(Outcome::AtLeastDraw),
            4500,
            JobStatus::Partial,
        );
        store.put_job_record(&record).unwrap();
        let l = line_state(&store, ballot).unwrap().unwrap();
        let text = state_text(&l, Path::new("s.sqlite"), 5);
        assert!(
            text.contains("\nopen: ply 4 (24 pieces, Black to move): does Black win?"),
            "{text}"
        );
        assert!(text.contains("\nfrontier: ply 5\n"), "{text}");
        for ply in [3, 4] {
            put_outcome_unverified(&store, &line[ply].position, draw, &prov).unwrap();
        }
        let l = line_state(&store, ballot).unwrap().unwrap();
        let text = state_text(&l, Path::new("s.sqlite"), 6);
        assert!(
            text.contains("\nopen: none: the ballot's position is proved\n"),
            "{text}"
        );
    }
}
