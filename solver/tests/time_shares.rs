//! With a time limit, `solve` shares the time: the win question of a
//! value question gets half of it and the draw question the rest; with
//! both solvers, alpha-beta half of a question's time and df-pn the rest.
//! Before, a solver or question that could not finish starved the others
//! (df-pn then searched about a thousand nodes).

use engine::{NoOracle, Position, Value};
use proofdb::outcome::NoResults;
use solver::solve::{solve, Ask, SolveOptions, SolverKind};
use solver::{Leaves, Status};
use std::time::Duration;

#[test]
fn every_solver_and_question_gets_its_share_of_the_time() {
    // The opening position: nothing settles in a second without databases.
    let opts = SolveOptions {
        solver: SolverKind::Both,
        ask: Ask::Value,
        time: Some(Duration::from_millis(1200)),
        max_nodes: u64::MAX,
        ..SolveOptions::default()
    };
    let rep = solve(
        Position::initial(),
        Leaves::new(&NoOracle, &NoResults),
        &opts,
    )
    .expect("solve");
    assert_eq!(rep.outcome, None);
    for t in [Value::Win, Value::Draw] {
        for who in ["ab", "dfpn"] {
            let run = rep
                .runs
                .iter()
                .find(|r| r.threshold == t && r.solver == who)
                .unwrap_or_else(|| panic!("no {who} run at threshold {t}"));
            assert_eq!(run.status, Status::Unknown);
            // About 300 ms each; well above the ~1000 nodes of a starved run.
            assert!(
                run.nodes > 20_000,
                "{who} at threshold {t} searched only {} nodes in {} ms",
                run.nodes,
                run.millis
            );
        }
    }
}
