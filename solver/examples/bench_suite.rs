//! Writes the solver benchmark suite (solver/tests/data/bench.tsv) from
//! ../shared/data/games/acf-archive.pdn: `cargo run -p solver --example
//! bench_suite`. solver/tests/bench_suite.rs checks the file.

use engine::notation::fen::to_fen;
use engine::notation::pdn::read_file;
use std::path::Path;

/// Piece counts in the suite, and positions per count.
const COUNTS: [u32; 4] = [8, 10, 12, 14];
const PER_COUNT: usize = 5;

/// For each piece count, the first position with exactly that many
/// pieces and no capture for the side to move, in every 97th game of the
/// archive, until five are found per count.
fn main() {
    let games = read_file(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/games/acf-archive.pdn"
    )))
    .unwrap();
    let mut out = String::from(
        "# Solver benchmark suite: quiet positions (no capture for the side to move)\n\
         # from the endings of master games, five each of 8, 10, 12 and 14 pieces.\n\
         # Source: ../shared/data/games/acf-archive.pdn (ACF archive, MIT; see its LICENSE).\n\
         # Built by solver/examples/bench_suite.rs.\n\
         # fen<TAB>pieces<TAB>source\n",
    );
    for n in COUNTS {
        let mut found = 0;
        for g in games.iter().step_by(97) {
            if found == PER_COUNT {
                break;
            }
            if !g.is_legal() {
                continue;
            }
            let ps = g.positions();
            if let Some((k, p)) = ps
                .iter()
                .enumerate()
                .find(|(_, p)| p.piece_count() == n && !p.is_terminal() && !p.has_capture())
            {
                out.push_str(&format!(
                    "{}\t{n}\tacf-archive.pdn game {} ply {k}\n",
                    to_fen(p),
                    g.number
                ));
                found += 1;
            }
        }
        assert_eq!(found, PER_COUNT, "{n} pieces");
    }
    std::fs::write(
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bench.tsv"),
        out,
    )
    .unwrap();
}
