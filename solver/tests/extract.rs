//! Proof extraction after df-pn: from df-pn's own table alone, and with
//! an alpha-beta prover asked about the positions the table does not
//! settle plainly (results that relied on a repetition of the path).
//! Both trees must pass the independent verifier; the combined one is the
//! one `solve` tries first, and it must not be larger in total.

use engine::notation::fen::parse_fen;
use engine::{Move, MoveList, NoOracle, Position};
use proofdb::outcome::NoResults;
use proofdb::{ProofTree, Question};
use solver::clock::Instant;
use solver::dfpn::{Dfpn, DfpnConfig};
use solver::prover::{AbConfig, AlphaBeta};
use solver::question::proved_question;
use solver::tree::{extract, DfpnThenAb, ExtractError, Known, ProofQuery, ProofSearch};
use solver::verify::verify;
use solver::{CallLimits, Leaves};
use solver::{Res, Status};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
mod stack;

use stack::on_big_stack;

/// King endings without databases, with the questions df-pn settles
/// quickly there; their proofs loop (a draw held by shuttling kings).
const CASES: [(&str, Question); 3] = [
    ("W:WK18:BK29,K30", Question::Win),
    ("W:WK22,K23,K24:BK31,K32", Question::Win),
    ("W:WK22,K23,K24:BK31,K32", Question::AtLeastDraw),
];

/// The root of `fen`, a df-pn search (a million nodes, no databases)
/// after it asked the question at threshold `t`, and the question it
/// settled (`None` when it did not).
fn settle(fen: &str, t: Question) -> (Position, Dfpn<'static>, Option<Question>) {
    let root = parse_fen(fen).unwrap();
    let mut df = Dfpn::new(
        Leaves::new(&NoOracle, &NoResults),
        DfpnConfig {
            limits: CallLimits::nodes(1_000_000),
            ..DfpnConfig::default()
        },
    );
    let status = df.prove(root, t, &[]).res.status;
    (root, df, proved_question(t, status))
}

/// [`settle`], asserting that the search settled the question.
fn settled(fen: &str, t: Question) -> (Position, Dfpn<'static>, Question) {
    let (root, df, q) = settle(fen, t);
    (root, df, q.expect("df-pn settles the question"))
}

/// Proves `fen` at threshold `t` with df-pn, then extracts its proof with
/// df-pn alone and with df-pn then alpha-beta (`ab_nodes` per call), both
/// until `deadline`.
fn trees(
    fen: &str,
    t: Question,
    ab_nodes: u64,
    deadline: Option<Instant>,
) -> Option<(
    Result<ProofTree, ExtractError>,
    Result<ProofTree, ExtractError>,
)> {
    let (root, mut df, q) = settle(fen, t);
    let q = q?;
    let leaves = Leaves::new(&NoOracle, &NoResults);
    let alone = extract(
        &mut df,
        leaves,
        root,
        q,
        CallLimits::nodes(1_000_000).until(deadline),
    );
    let mut ab = AlphaBeta::new(
        leaves,
        AbConfig {
            limits: CallLimits::nodes(ab_nodes),
            ..AbConfig::default()
        },
    );
    let mut both = DfpnThenAb {
        dfpn: &mut df,
        ab: &mut ab,
    };
    let combined = extract(
        &mut both,
        leaves,
        root,
        q,
        CallLimits::nodes(1_000_000).until(deadline),
    );
    Some((alone, combined))
}

/// Every entry of `tree` is reached from its root, once: subtrees kept
/// from branches that failed (sealed, reusable) are not handed out.
fn assert_all_reached(tree: &ProofTree) {
    assert_eq!(
        tree.reached().len(),
        tree.nodes.len(),
        "entries not reached from the root, or listed twice"
    );
}

/// `tree`, extracted for `fen` at threshold `t`, passes the verifier
/// (without databases or stored results) and has every entry reached from
/// its root ([`assert_all_reached`]).
fn assert_sound(tree: &ProofTree, fen: &str, t: Question) {
    verify(tree, &NoOracle, &NoResults).unwrap_or_else(|e| panic!("{fen} t={t}: {e}"));
    assert_all_reached(tree);
}

#[test]
fn combined_extraction_is_verified_and_not_larger() {
    on_big_stack(|| {
        let (mut alone_total, mut combined_total) = (0, 0);
        for (fen, t) in CASES {
            let (alone, combined) =
                trees(fen, t, 1_000_000, None).expect("df-pn settles the question");
            let alone = alone.expect("df-pn extracts its own proof");
            let combined = combined.expect("the combined extraction succeeds");
            for tree in [&alone, &combined] {
                assert_sound(tree, fen, t);
            }
            eprintln!(
                "{fen} t={t}: df-pn alone {} nodes, combined {}",
                alone.nodes.len(),
                combined.nodes.len()
            );
            alone_total += alone.nodes.len();
            combined_total += combined.nodes.len();
        }
        assert!(
            combined_total <= alone_total,
            "combined {combined_total} nodes, df-pn alone {alone_total}"
        );
    });
}

/// With an alpha-beta budget too small to prove anything, the combined
/// extraction still succeeds (df-pn answers each position alpha-beta
/// leaves open) with a tree the verifier accepts.
#[test]
fn a_starved_alpha_beta_never_yields_a_bad_tree() {
    on_big_stack(|| {
        for (fen, t) in CASES {
            let (alone, combined) = trees(fen, t, 1, None).expect("df-pn settles the question");
            let alone = alone.expect("df-pn extracts its own proof");
            assert!(verify(&alone, &NoOracle, &NoResults).is_ok());
            let tree = combined.expect("df-pn answers what alpha-beta leaves open");
            assert_sound(&tree, fen, t);
        }
    });
}

/// A deadline already passed stops an extraction that visits more than
/// a thousand positions (the clock is read every 1,024) with
/// `OutOfTime`, instead of letting it run on from the table. (First
/// Position, a win proof of some 1,700 positions without databases: a
/// win proof has no loops, so its size does not depend on how loops are
/// closed.)
#[test]
fn extraction_stops_at_its_deadline() {
    on_big_stack(|| {
        let (fen, t) = ("W:WK19,K23:B12,K28", Question::Win);
        let (alone, _) = trees(fen, t, 1_000_000, None).expect("df-pn settles the question");
        let full = alone.expect("df-pn extracts its own proof").nodes.len();
        assert!(
            full > 1_024,
            "{fen}: a tree of {full} positions is too small for this test"
        );
        let (alone, _) =
            trees(fen, t, 1_000_000, Some(Instant::now())).expect("df-pn settles the question");
        match alone {
            Err(ExtractError::OutOfTime(n)) => assert!(n < full, "{n} positions"),
            other => panic!("expected OutOfTime, got {:?}", other.map(|t| t.nodes.len())),
        }
    });
}

/// A stop flag already set (SIGTERM to a run) stops an extraction that
/// visits more than a thousand positions with `Stopped`, as the
/// deadline does, and the same extraction without the flag completes.
/// (A run killed by Slurm's time limit has 30 s to commit and exit; an
/// extraction of a 5-million-position tree that ignored the flag took
/// 20 s of them.)
#[test]
fn extraction_stops_when_its_stop_flag_is_set() {
    on_big_stack(|| {
        let (fen, t) = ("W:WK19,K23:B12,K28", Question::Win);
        let (root, mut df, q) = settled(fen, t);
        let leaves = Leaves::new(&NoOracle, &NoResults);
        let stopped = CallLimits {
            stop: Some(Arc::new(AtomicBool::new(true))),
            ..CallLimits::nodes(1_000_000)
        };
        match extract(&mut df, leaves, root, q, stopped) {
            Err(ExtractError::Stopped(n)) => assert!(n < 1_024, "{n} positions"),
            other => panic!("expected Stopped, got {:?}", other.map(|t| t.nodes.len())),
        }
        let running = CallLimits {
            stop: Some(Arc::new(AtomicBool::new(false))),
            ..CallLimits::nodes(1_000_000)
        };
        let tree = extract(&mut df, leaves, root, q, running).expect("the proof without a stop");
        assert!(tree.nodes.len() > 1_024, "{} positions", tree.nodes.len());
    });
}

/// Extraction walks the results df-pn settled through a repetition of
/// its path ([`Dfpn::looped`]) instead of searching each such position
/// again: from df-pn's table alone, extracting every case costs fewer
/// nodes than the search that settled it (searching them again cost 146
/// times the search for the lone king's draw and 58,000 times for the
/// three kings' draw), and the trees pass the verifier.
#[test]
fn extraction_walks_the_results_that_relied_on_a_repetition() {
    on_big_stack(|| {
        for (fen, t) in CASES {
            let (root, mut df, q) = settled(fen, t);
            let searched = df.nodes();
            let leaves = Leaves::new(&NoOracle, &NoResults);
            let tree = extract(&mut df, leaves, root, q, CallLimits::nodes(1_000_000))
                .unwrap_or_else(|e| panic!("{fen} t={t}: {e}"));
            assert_sound(&tree, fen, t);
            let extracting = df.nodes() - searched;
            eprintln!(
                "{fen} t={t}: search {searched} nodes, extraction {extracting}, proof {}",
                tree.nodes.len()
            );
            assert!(
                extracting < searched,
                "{fen} t={t}: extraction searched {extracting} nodes, the search {searched}"
            );
        }
    });
}

/// A search that is wrong until it is first asked to search: before,
/// `known` answers with `stale` and `hint` with nothing unless
/// `orders`; once asked to search, it answers with the df-pn search
/// underneath.
struct UntilSearched<'a> {
    inner: Dfpn<'a>,
    stale: Box<dyn Fn(&Position) -> Known>,
    orders: bool,
    searched: bool,
}

impl<'a> UntilSearched<'a> {
    fn new(inner: Dfpn<'a>, stale: impl Fn(&Position) -> Known + 'static, orders: bool) -> Self {
        UntilSearched {
            inner,
            stale: Box::new(stale),
            orders,
            searched: false,
        }
    }
}

impl ProofSearch for UntilSearched<'_> {
    fn known(&self, pos: &Position, t: Question) -> Option<Known> {
        if self.searched {
            self.inner.known(pos, t)
        } else {
            Some((self.stale)(pos))
        }
    }
    fn status(&mut self, q: ProofQuery<'_>) -> Res {
        self.searched = true;
        self.inner.status(q)
    }
    fn hint(&self, pos: &Position, t: Question) -> Option<Move> {
        if self.searched || self.orders {
            self.inner.hint(pos, t)
        } else {
            None
        }
    }
}

/// A move whose hint fails when walked from the extraction path is still
/// searched there: with every hint of the root stale, the extractor
/// reaches the proof only by searching the root's moves, and the tree it
/// returns passes the verifier.
#[test]
fn a_move_whose_hint_fails_is_searched() {
    on_big_stack(|| {
        let (fen, t) = ("W:WK22,K23,K24:BK31,K32", Question::AtLeastDraw);
        let (root, inner, q) = settled(fen, t);
        assert_eq!(
            solver::question::prover_of(q, root.side_to_move()),
            root.side_to_move(),
            "{fen}: the root must be the prover's for this test"
        );
        let mut list = MoveList::new();
        root.legal_moves(&mut list);
        let root_children: Vec<Position> = list.iter().map(|m| root.play_unchecked(m)).collect();
        // Every move of the root hinted to prove, every position further
        // down claimed settled against its mover: walking a hint fails.
        let stale_known = move |p: &Position| {
            if root_children.contains(p) {
                Known::Hint(Status::Failure)
            } else {
                Known::Plain(Status::Success)
            }
        };
        let mut stale = UntilSearched::new(inner, stale_known, true);
        let leaves = Leaves::new(&NoOracle, &NoResults);
        let tree = extract(&mut stale, leaves, root, q, CallLimits::nodes(1_000_000))
            .unwrap_or_else(|e| panic!("{fen} t={t}: {e}"));
        assert!(stale.searched);
        assert_sound(&tree, fen, t);
    });
}

/// A round that visits positions past its cap (four times the tree's
/// limit) gives way to the next round, which searches, instead of ending
/// the extraction: First Position's win (about 1,700 positions) comes out
/// under a limit of 5,000 though the first round's walk, with no move
/// order and every hint wrong, wanders past its 20,000 visits (before,
/// that ended the extraction with `TooLarge`), and passes the verifier.
#[test]
fn a_round_that_wanders_gives_way_to_the_next() {
    on_big_stack(|| {
        let (fen, t) = ("W:WK19,K23:B12,K28", Question::Win);
        let (root, inner, q) = settled(fen, t);
        // Every position hinted lost for its mover, no move order: the
        // first round's walk wanders through the game, a branch failing
        // only where it meets the path or a dead end.
        let mut wandering = UntilSearched::new(inner, |_| Known::Hint(Status::Failure), false);
        let leaves = Leaves::new(&NoOracle, &NoResults);
        let tree = extract(&mut wandering, leaves, root, q, CallLimits::nodes(5_000))
            .unwrap_or_else(|e| panic!("{fen} t={t}: {e}"));
        assert!(wandering.searched, "the first round cannot prove it alone");
        assert_sound(&tree, fen, t);
    });
}
