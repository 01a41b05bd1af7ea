//! Every solver and question gets its share of a budget: with both
//! solvers, a value question runs alpha-beta and df-pn on the win
//! question and on the draw question, each to its own node budget, so a
//! solver or question that cannot finish does not starve the others.
//! (Before, df-pn then searched about a thousand nodes.) The time shares
//! themselves are checked without a clock, in `solve::searches`' unit
//! test: a test that measures time passes or fails with the machine's
//! load.

use engine::{NoOracle, Position};
use proofdb::outcome::NoResults;
use proofdb::Question;
use solver::solve::{solve, Runner, SolveOptions, SolverKind};
use solver::{Leaves, Status};

#[test]
fn every_solver_and_question_gets_its_own_node_budget() {
    // The opening position: nothing settles in 20 000 nodes without
    // databases.
    let budget = 20_000;
    let opts = SolveOptions {
        solver: SolverKind::Both,
        question: None,
        time: None,
        max_nodes: budget,
        ..SolveOptions::default()
    };
    let rep = solve(
        Position::initial(),
        Leaves::new(&NoOracle, &NoResults),
        &opts,
    )
    .expect("solve");
    assert_eq!(rep.outcome, None);
    for t in [Question::Win, Question::AtLeastDraw] {
        for who in [Runner::Ab, Runner::Dfpn] {
            let run = rep
                .runs
                .iter()
                .find(|r| r.threshold == t && r.solver == who)
                .unwrap_or_else(|| panic!("no {who} run at threshold {t}"));
            assert_eq!(run.status, Status::Unknown);
            // The whole budget, not the ~1000 nodes of a starved run (the
            // limits are checked every 1024 nodes).
            assert!(
                run.nodes >= budget && run.nodes <= budget + 2048,
                "{who} at threshold {t} searched {} nodes of {budget}",
                run.nodes
            );
        }
    }
    assert_eq!(
        rep.provenance.nodes,
        rep.runs.iter().map(|r| r.nodes).sum::<u64>()
    );
    assert_eq!(rep.provenance.solver, "ab+dfpn");
}
