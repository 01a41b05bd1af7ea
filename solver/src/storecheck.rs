//! Checking a whole proof store: every result row's seal and backing,
//! every proof tree's seals, and (on request) every proof verified again
//! from the rules and the databases of the size it recorded, and every
//! database value probed again.
//!
//! This is what `checkers db check [--proofs]` and `checkers proof verify
//! --store` run; the databases are handed in by size, so that each proof
//! is checked with exactly the databases it was verified with.
//!
//! A proof may stand on results stored before it (its store leaves): on
//! a proved row, or on a position inside another stored proof. For win
//! and loss proofs those must be grounded: each proves its leaves' values
//! by other proofs that are grounded in turn, down to proofs whose leaves
//! are terminal or database positions. Each proof verifies on its own,
//! but a circle of them proves nothing; the check reports every win or
//! loss proof that is not grounded. (Draw proofs may stand on each other:
//! a circle of "at least a draw" claims is sound, a repetition being a
//! draw.)

use crate::verify::verify;
use engine::notation::fen::to_fen;
use engine::{Oracle, Position};
use proofdb::{LeafSource, Outcome, ProofEntry, ResultCache, Store, StoreError, Trust};
use std::collections::{BTreeMap, HashMap};
use thiserror::Error;

/// One problem found, with what it concerns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// A result row's position (FEN), or `tree N` with its root.
    pub subject: String,
    /// What is wrong.
    pub detail: String,
}

/// What a store check found.
#[derive(Clone, Debug, Default)]
pub struct StoreCheck {
    /// Result rows read.
    pub results: u64,
    /// Of which proved (sealed, unchanged, backed).
    pub proved: u64,
    /// Proof trees read.
    pub trees: u64,
    /// Proofs verified again (with `proofs`).
    pub verified: u64,
    /// Database values probed again (with `proofs`).
    pub probed: u64,
    /// Everything that is wrong, in the order found.
    pub problems: Vec<Problem>,
}

impl StoreCheck {
    /// Whether nothing is wrong.
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Why an [`OracleBySize`] has no databases of a size.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum OracleBySizeError {
    /// The databases of this many pieces were not opened.
    #[error("databases of {0} pieces were not opened")]
    NotOpened(u32),
}

/// The databases of each size a check needs.
pub trait OracleBySize {
    /// The databases up to `pieces` pieces (0: none).
    fn up_to(&self, pieces: u32) -> Result<&dyn Oracle, OracleBySizeError>;
}

/// The database sizes (pieces) that the store's proofs and database
/// values recorded, what a check with proofs must open, and per size the
/// positions whose checks probe it: the roots of the trees verified with
/// it and the database values recorded with it. Every probe of a check
/// is of a position a game from one of them may reach, so the slices
/// those games may enter are all a check needs of that size.
pub fn roots_by_size(store: &Store) -> Result<BTreeMap<u32, Vec<Position>>, StoreError> {
    let mut roots: BTreeMap<u32, Vec<Position>> = BTreeMap::new();
    for t in store.trees()? {
        roots.entry(t.egdb_pieces).or_default().push(t.root);
    }
    store.for_each_row(|r, _| -> Result<(), StoreError> {
        if r.provenance.solver.split('+').any(|s| s == "egdb") {
            roots
                .entry(r.provenance.egdb_pieces)
                .or_default()
                .push(r.position);
        }
        Ok(())
    })?;
    Ok(roots)
}

/// Checks `store`. Rows that are not proved and trees whose seals fail
/// are problems; with `dbs`, every tree is also verified with the
/// databases of its recorded size and the store's proved results as its
/// store leaves, and every database value is probed again.
/// `progress(done, total)` is called after each tree.
pub fn check_store(
    store: &Store,
    dbs: Option<&dyn OracleBySize>,
    mut progress: impl FnMut(u64, u64),
) -> Result<StoreCheck, StoreError> {
    let mut out = StoreCheck::default();
    let mut egdb_rows: Vec<(Position, Outcome, u32)> = Vec::new();
    store.for_each_row(|r, t| -> Result<(), StoreError> {
        out.results += 1;
        if t == Trust::Proved {
            out.proved += 1;
            if r.provenance.solver.split('+').any(|s| s == "egdb") {
                egdb_rows.push((r.position, r.outcome, r.provenance.egdb_pieces));
            }
        } else {
            out.problems.push(Problem {
                subject: to_fen(&r.position),
                detail: format!("result {} ignored: {t}", r.outcome),
            });
        }
        Ok(())
    })?;
    let results = ResultCache::load(store)?;
    let trees = store.trees()?;
    // Win and loss trees: (root, the positions of their store leaves,
    // every position they prove).
    let mut decisive: Vec<Decisive> = Vec::new();
    let total = trees.len() as u64;
    let mut done = 0u64;
    let mut seen = std::collections::HashSet::new();
    store.for_each_tree(
        |_| true,
        |info, tree| {
            out.trees += 1;
            done += 1;
            seen.insert(info.id);
            let subject = format!(
                "tree {} ({} of {})",
                info.id,
                info.question.name(),
                to_fen(&info.root)
            );
            match tree {
                Err(e @ StoreError::Corrupt { .. }) => out.problems.push(Problem {
                    subject,
                    detail: e.to_string(),
                }),
                Err(e) => return Err(e),
                Ok(tree) => {
                    if !tree.question.allows_cycles() {
                        decisive.push(Decisive {
                            root: tree.root,
                            store_leaves: tree
                                .nodes
                                .iter()
                                .filter(|(_, e)| *e == ProofEntry::Leaf(LeafSource::Store))
                                .map(|(p, _)| *p)
                                .collect(),
                            proves: tree
                                .proved_positions()
                                .into_iter()
                                .map(|(p, _)| p)
                                .collect(),
                        });
                    }
                    if let Some(dbs) = dbs {
                        let detail = match dbs.up_to(info.egdb_pieces) {
                            Err(e) => Some(format!(
                                "databases of {} pieces unavailable: {e}",
                                info.egdb_pieces
                            )),
                            Ok(oracle) => match verify(&tree, oracle, &results) {
                                Ok(_) => {
                                    out.verified += 1;
                                    None
                                }
                                Err(e) => Some(format!(
                                    "rejected with databases of {} pieces: {e}",
                                    info.egdb_pieces
                                )),
                            },
                        };
                        if let Some(detail) = detail {
                            out.problems.push(Problem { subject, detail });
                        }
                    }
                }
            }
            progress(done, total);
            Ok(())
        },
    )?;
    // A tree without a node row is not seen by the scan above.
    for info in trees.iter().filter(|i| !seen.contains(&i.id)) {
        out.trees += 1;
        out.problems.push(Problem {
            subject: format!("tree {} of {}", info.id, to_fen(&info.root)),
            detail: "a proof tree without nodes".into(),
        });
    }
    let databases: std::collections::HashSet<Position> =
        egdb_rows.iter().map(|(p, _, _)| *p).collect();
    for i in ungrounded(&decisive, &databases) {
        out.problems.push(Problem {
            subject: to_fen(&decisive[i].root),
            detail: "its win or loss proof stands, through other stored proofs, on itself \
                     (a circle of stored results proves nothing)"
                .into(),
        });
    }
    if let Some(dbs) = dbs {
        for (pos, outcome, pieces) in egdb_rows {
            let got = dbs.up_to(pieces).map(|o| o.probe(&pos));
            match got {
                Ok(Some(v)) if Outcome::Exact(v) == outcome => out.probed += 1,
                other => out.problems.push(Problem {
                    subject: to_fen(&pos),
                    detail: match other {
                        Ok(Some(v)) => format!(
                            "database value {outcome} stored, the databases of {pieces} pieces say {v}"
                        ),
                        Ok(None) => format!(
                            "database value {outcome} stored, the databases of {pieces} pieces do not know it"
                        ),
                        Err(e) => format!("databases of {pieces} pieces unavailable: {e}"),
                    },
                }),
            }
        }
    }
    Ok(out)
}

/// A win or loss proof in the store: what it stands on and what it proves.
struct Decisive {
    root: Position,
    store_leaves: Vec<Position>,
    proves: Vec<Position>,
}

/// The proofs of `trees` that are not grounded: a proof is grounded when
/// each of its store leaves is a database value or is proved by another
/// grounded proof (least fixed point, found by repeated passes).
fn ungrounded(trees: &[Decisive], databases: &std::collections::HashSet<Position>) -> Vec<usize> {
    let mut owners: HashMap<Position, Vec<usize>> = HashMap::new();
    for (i, t) in trees.iter().enumerate() {
        for p in &t.proves {
            owners.entry(*p).or_default().push(i);
        }
    }
    let mut grounded = vec![false; trees.len()];
    loop {
        let mut changed = false;
        for (i, t) in trees.iter().enumerate() {
            if grounded[i] {
                continue;
            }
            let ok = t.store_leaves.iter().all(|leaf| {
                databases.contains(leaf)
                    || owners
                        .get(leaf)
                        .is_some_and(|o| o.iter().any(|&j| j != i && grounded[j]))
            });
            if ok {
                grounded[i] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    (0..trees.len()).filter(|&i| !grounded[i]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::notation::fen::parse_fen;

    #[test]
    fn proofs_standing_on_each_other_in_a_circle_are_not_grounded() {
        let p = |f: &str| parse_fen(f).unwrap();
        let (a, b, c, d) = (
            p("W:WK1:BK32"),
            p("W:WK2:BK32"),
            p("W:WK3:BK32"),
            p("W:WK4:BK32"),
        );
        let t = |root, leaves: Vec<Position>| Decisive {
            root,
            store_leaves: leaves.clone(),
            proves: [vec![root], leaves].concat(),
        };
        let none = std::collections::HashSet::new();
        // a stands on b, b on c, c on nothing: all grounded.
        let mut trees = vec![t(a, vec![b]), t(b, vec![c]), t(c, vec![])];
        assert!(ungrounded(&trees, &none).is_empty());
        // c now stands on a: a circle, none grounded.
        trees[2] = t(c, vec![a]);
        assert_eq!(ungrounded(&trees, &none), vec![0, 1, 2]);
        // unless a database value grounds one of them.
        let db: std::collections::HashSet<_> = [a].into_iter().collect();
        assert!(ungrounded(&trees, &db).is_empty());
        // A proof whose leaf only it proves stands on itself.
        let trees = vec![t(d, vec![b])];
        assert_eq!(ungrounded(&trees, &none), vec![0]);
        // A second, grounded proof of the same position is enough.
        let trees = vec![t(a, vec![b]), t(b, vec![a]), t(b, vec![])];
        assert!(ungrounded(&trees, &none).is_empty());
    }
}
