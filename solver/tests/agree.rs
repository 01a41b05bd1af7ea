//! Both solvers against a brute-force exhaustive reference on small king
//! endings (where repetitions, and so the graph-history interaction, are
//! everywhere), and against each other.
//!
//! Each sampled check runs in the default suite on a sparser sample (a
//! few seconds to a minute each) and in full behind `#[ignore]`
//! (`*_full`, run by scripts/heavy-tests.sh): the same assertions, the
//! same positions kinds, more of them.

mod common;

use common::{RefOracle, Reference};
use engine::{NoOracle, Oracle, Position, Value};
use proofdb::outcome::NoResults;
use proofdb::Question;
use solver::dfpn::{Dfpn, DfpnConfig, TrustStats};
use solver::prover::{AbConfig, AlphaBeta};
use solver::solve::{solve, SolveOptions, SolverKind};
use solver::{CallLimits, Leaves, Status};

fn expected(v: Value, t: Question) -> Status {
    if t.reached_by(v) {
        Status::Success
    } else {
        Status::Failure
    }
}

/// How a run over a sample searches.
#[derive(Clone, Copy)]
struct Run {
    /// Node budget per solver and question.
    budget: u64,
    /// Whether every win and loss must settle.
    decisive_must_settle: bool,
    /// Whether df-pn builds on trusted results ([`DfpnConfig::trust`]).
    trust: bool,
}

/// Runs both solvers over `sample` with one table each (so results found
/// for earlier roots are reused for later ones, under other paths), at
/// both thresholds, and checks every settled answer. Returns the number
/// of (solver, position, threshold) runs that settled, of runs, and
/// df-pn's checks of trusted results.
fn check_all(
    reference: &Reference,
    sample: &[Position],
    oracle: &dyn Oracle,
    run: Run,
) -> (usize, usize, TrustStats) {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn_scoped(s, || check_all_here(reference, sample, oracle, run))
            .unwrap()
            .join()
            .unwrap()
    })
}

fn check_all_here(
    reference: &Reference,
    sample: &[Position],
    oracle: &dyn Oracle,
    run: Run,
) -> (usize, usize, TrustStats) {
    let Run {
        budget,
        decisive_must_settle,
        trust,
    } = run;
    let leaves = Leaves::new(oracle, &NoResults);
    let mut ab = AlphaBeta::new(
        leaves,
        AbConfig {
            limits: CallLimits::nodes(budget),
            ..AbConfig::default()
        },
    );
    let mut df = Dfpn::new(
        leaves,
        DfpnConfig {
            limits: CallLimits::nodes(budget),
            trust,
            ..DfpnConfig::default()
        },
    );
    let (mut settled, mut total) = (0, 0);
    let mut unsettled = std::collections::BTreeMap::new();
    for p in sample {
        let v = reference.values[p];
        for t in [Question::Win, Question::AtLeastDraw] {
            let want = expected(v, t);
            let a = ab.prove(*p, t, None, &[]).res;
            let d = df.prove(*p, t, &[]).res;
            for (who, r) in [("ab", a), ("dfpn", d)] {
                total += 1;
                assert!(r.is_plain(), "{who}: root result must be plain: {r:?}");
                if r.status == Status::Unknown {
                    let n = unsettled
                        .entry((who, t == Question::Win, v))
                        .or_insert(0usize);
                    *n += 1;
                    if *n <= 2 {
                        eprintln!(
                            "unsettled: {who} t={t} value {v}: {}",
                            engine::notation::fen::to_fen(p)
                        );
                    }
                }
                if r.status != Status::Unknown {
                    settled += 1;
                    assert_eq!(
                        r.status,
                        want,
                        "{who} wrong on {} (value {v}) at threshold {t}",
                        engine::notation::fen::to_fen(p)
                    );
                }
            }
        }
    }
    eprintln!("unsettled (solver, win threshold, value): {unsettled:?}");
    if decisive_must_settle {
        for ((who, _, v), n) in &unsettled {
            assert_eq!(
                *v,
                Value::Draw,
                "{who} left {n} decisive positions unsettled"
            );
        }
    }
    (settled, total, df.trust_stats())
}

fn sample(reference: &Reference, step: usize, pieces: u32) -> Vec<Position> {
    reference
        .order
        .iter()
        .filter(|p| p.piece_count() == pieces)
        .step_by(step)
        .copied()
        .collect()
}

/// One king against two: every `step`-th position.
fn one_king_against_two_kings(step: usize) {
    let r = Reference::solve(&["W:WK18:BK29,K30", "B:WK18:BK29,K30"]);
    let s = sample(&r, 1, 3);
    assert!(s.len() > 10_000, "{} positions", s.len());
    let s: Vec<Position> = s.into_iter().step_by(step).collect();
    let run = Run {
        budget: 200_000,
        decisive_must_settle: true,
        trust: false,
    };
    let (settled, total, _) = check_all(&r, &s, &NoOracle, run);
    let draws_in_sample = s.iter().filter(|p| r.values[*p] == Value::Draw).count();
    // Wins and losses always settle; draws need a closed set of positions
    // proved without databases, which is what the budget limits.
    assert!(
        total - settled <= 2 * 2 * draws_in_sample && settled * 10 >= total * 9,
        "{settled} of {total} runs settled"
    );
    let draws = s.iter().filter(|p| r.values[*p] == Value::Draw).count();
    let wins = s.iter().filter(|p| r.values[*p] == Value::Win).count();
    assert!(
        draws > 0 && wins > 0,
        "the sample mixes values: {draws} draws, {wins} wins"
    );
}

#[test]
fn one_king_against_two_kings_sampled() {
    one_king_against_two_kings(29);
}

#[test]
#[ignore = "heavy: scripts/heavy-tests.sh"]
fn one_king_against_two_kings_every_seventh_position_full() {
    one_king_against_two_kings(7);
}

/// Two kings each, one position in `step` (4,999 in full), searched with one table per
/// solver: many draws by repetition and long wins, the graph-history
/// interaction's natural habitat. Every answer must be right and every
/// decisive position must settle; draws need a closed set proved without
/// databases and may stay open, but a quarter of the runs settle.
/// Returns df-pn's checks of trusted results.
fn two_kings_each(trust: bool, step: usize) -> TrustStats {
    let r = Reference::solve(&["W:WK14,K15:BK22,K23", "B:WK14,K15:BK22,K23"]);
    let s = sample(&r, step, 4);
    let run = Run {
        budget: 300_000,
        decisive_must_settle: true,
        trust,
    };
    let (settled, total, stats) = check_all(&r, &s, &NoOracle, run);
    eprintln!("2K v 2K, trust {trust}: {settled} of {total} runs settled; {stats:?}");
    assert!(
        settled * 4 >= total,
        "a quarter of the runs settle: {settled} of {total}"
    );
    stats
}

#[test]
fn two_kings_each_sampled_with_shared_tables() {
    two_kings_each(false, 19_997);
}

#[test]
#[ignore = "heavy: scripts/heavy-tests.sh"]
fn two_kings_each_sampled_with_shared_tables_full() {
    two_kings_each(false, 4999);
}

/// df-pn building on results that relied on a repetition: the sample
/// must also make the checks both confirm and reopen trusted results (so
/// that both ways out of a check are exercised).
fn trusted_results(step: usize) {
    let stats = two_kings_each(true, step);
    assert!(stats.held > 0 && stats.held < stats.checks, "{stats:?}");
    assert!(stats.confirmed > 0 && stats.reopened > 0, "{stats:?}");
}

#[test]
fn trusted_results_never_give_a_wrong_answer() {
    trusted_results(9_997);
}

#[test]
#[ignore = "heavy: scripts/heavy-tests.sh"]
fn trusted_results_never_give_a_wrong_answer_full() {
    trusted_results(4999);
}

#[test]
fn kings_and_men_with_a_reference_oracle_below() {
    kings_and_men(7_547);
}

#[test]
#[ignore = "heavy: scripts/heavy-tests.sh"]
fn kings_and_men_with_a_reference_oracle_below_full() {
    kings_and_men(1511);
}

/// Two kings against king and man, one 4-piece position in `step`.
fn kings_and_men(step: usize) {
    // 2 kings v king and man: the oracle answers 3-piece positions, the
    // solvers search the 4-piece ones.
    let r = Reference::solve(&[
        "W:WK19,K23:B12,K28",
        "B:WK19,K23:B12,K28",
        "W:WK26,K27:B21,K25",
    ]);
    let oracle = RefOracle {
        reference: &r,
        max_pieces: 3,
    };
    let s = sample(&r, step, 4);
    let run = Run {
        budget: 300_000,
        decisive_must_settle: false,
        trust: false,
    };
    let (settled, total, _) = check_all(&r, &s, &oracle, run);
    eprintln!("2K v K+M: {settled} of {total} runs settled");
    assert!(
        settled * 2 >= total,
        "most runs settle: {settled} of {total}"
    );
}

/// Positions built to trigger the graph-history interaction: king-only
/// positions where a lone king can shuttle (a loop, a draw on the path)
/// while other lines reach the same positions with a different value, so
/// a repetition result stored as a plain one would poison later lookups.
/// Every answer must match the reference; every settled question comes
/// with an extracted proof that the independent verifier accepted.
#[test]
fn ghi_positions_solve_to_the_reference_value_with_verified_proofs() {
    let fens = [
        "W:WK18:BK29,K30",
        "B:WK18:BK29,K30",
        "W:WK1:BK5,K32",
        "B:WK28:BK1,K5",
        "W:WK32,K28:BK1,K5",
        "B:WK32,K28:BK1,K5",
        "W:WK22,K23:BK1,K5",
        "B:WK9,K27:BK4,K29",
        "W:WK14,K15:BK22,K23",
        "B:WK14,K15:BK22,K23",
    ];
    let r = Reference::solve(&fens);
    let mut settled = 0;
    for f in fens {
        let p = engine::notation::fen::parse_fen(f).unwrap();
        for kind in [SolverKind::Ab, SolverKind::Dfpn] {
            let opts = SolveOptions {
                solver: kind,
                question: None,
                max_nodes: 100_000,
                ..SolveOptions::default()
            };
            let rep = solve(p, Leaves::new(&NoOracle, &NoResults), &opts).expect("solve");
            let want = r.values[&p];
            eprintln!("{kind:?} {f}: {:?} (value {want})", rep.outcome);
            if let Some(o) = rep.outcome {
                settled += 1;
                let (lo, hi) = o.range();
                assert!(
                    lo <= want && want <= hi,
                    "{kind:?} on {f}: {o} but value {want}"
                );
                assert!(
                    !rep.proofs.is_empty(),
                    "{kind:?} on {f}: a result comes with proofs"
                );
            }
            for vp in &rep.proofs {
                assert!(vp.report.nodes > 0);
            }
        }
    }
    assert!(settled >= 8, "{settled} of 20 settled");
}
