//! Checking a whole proof store: every result row's seal and backing,
//! every proof tree's seals, and (on request) every proof verified again
//! from the rules and the databases of the size it recorded, and every
//! database value probed again.
//!
//! This is what `checkers db check [--proofs]` and `checkers proof verify
//! --store` run; the databases are handed in by size, so that each proof
//! is checked with exactly the databases it was verified with.
//!
//! A proof may stand on results stored before it (its store leaves). For
//! win and loss proofs those must not stand, through other stored proofs,
//! on the first one again: each proof verifies on its own, but a circle
//! of them proves nothing. The check follows the store leaves of every
//! win and loss tree and reports such a circle. (Draw proofs may close on
//! themselves: a circle of "at least a draw" claims is sound.)

use crate::verify::verify;
use engine::notation::fen::to_fen;
use engine::{Oracle, Position};
use proofdb::{LeafSource, Outcome, ProofEntry, ResultCache, Store, StoreError, Trust};
use std::collections::{BTreeSet, HashMap};

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

/// The databases of each size a check needs.
pub trait OracleBySize {
    /// The databases up to `pieces` pieces (0: none).
    fn up_to(&self, pieces: u32) -> Result<&dyn Oracle, String>;
}

/// The database sizes (pieces) that the store's proofs and database
/// values recorded: what a check with proofs must open.
pub fn sizes_needed(store: &Store) -> Result<BTreeSet<u32>, StoreError> {
    let mut sizes: BTreeSet<u32> = store.trees()?.iter().map(|t| t.egdb_pieces).collect();
    store.for_each_row(|r, _| -> Result<(), StoreError> {
        if r.provenance.solver.split('+').any(|s| s == "egdb") {
            sizes.insert(r.provenance.egdb_pieces);
        }
        Ok(())
    })?;
    Ok(sizes)
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
    // Win and loss trees: root -> the positions of their store leaves.
    let mut decisive: HashMap<Position, Vec<Position>> = HashMap::new();
    let total = trees.len() as u64;
    for (i, info) in trees.iter().enumerate() {
        out.trees += 1;
        let subject = format!(
            "tree {} ({} of {})",
            info.id,
            info.question.name(),
            to_fen(&info.root)
        );
        match store.get_tree_by_id(info.id) {
            Err(e @ StoreError::Corrupt { .. }) => out.problems.push(Problem {
                subject,
                detail: e.to_string(),
            }),
            Err(e) => return Err(e),
            Ok(None) => {}
            Ok(Some(tree)) => {
                if !tree.question.allows_cycles() {
                    let leaves = tree
                        .nodes
                        .iter()
                        .filter(|(_, e)| *e == ProofEntry::Leaf(LeafSource::Store))
                        .map(|(p, _)| *p);
                    decisive.entry(tree.root).or_default().extend(leaves);
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
        progress(i as u64 + 1, total);
    }
    if let Some(circle) = decisive_circle(&decisive) {
        out.problems.push(Problem {
            subject: to_fen(&circle[0]),
            detail: format!(
                "win and loss proofs stand on each other's stored results in a circle of {}: {}",
                circle.len(),
                circle.iter().map(to_fen).collect::<Vec<_>>().join(" -> ")
            ),
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

/// A circle in the graph from each decisive proof's root to the roots of
/// the decisive proofs its store leaves stand on, if there is one.
fn decisive_circle(edges: &HashMap<Position, Vec<Position>>) -> Option<Vec<Position>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    let mut mark: HashMap<Position, Mark> = HashMap::new();
    for &start in edges.keys() {
        if mark.contains_key(&start) {
            continue;
        }
        // Depth-first, with the path kept to name the circle.
        let mut path: Vec<(Position, usize)> = vec![(start, 0)];
        mark.insert(start, Mark::Open);
        while let Some((node, next)) = path.last_mut() {
            let children = edges.get(node).map(Vec::as_slice).unwrap_or(&[]);
            match children.get(*next) {
                None => {
                    mark.insert(*node, Mark::Done);
                    path.pop();
                }
                Some(&child) => {
                    *next += 1;
                    if !edges.contains_key(&child) {
                        continue;
                    }
                    match mark.get(&child) {
                        Some(Mark::Open) => {
                            let from = path.iter().position(|(p, _)| *p == child).unwrap_or(0);
                            return Some(path[from..].iter().map(|(p, _)| *p).collect());
                        }
                        Some(Mark::Done) => {}
                        None => {
                            mark.insert(child, Mark::Open);
                            path.push((child, 0));
                        }
                    }
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::notation::fen::parse_fen;

    #[test]
    fn circles_of_decisive_proofs_are_found() {
        let p = |f: &str| parse_fen(f).unwrap();
        let (a, b, c) = (p("W:WK1:BK32"), p("W:WK2:BK32"), p("W:WK3:BK32"));
        let mut edges = HashMap::new();
        edges.insert(a, vec![b]);
        edges.insert(b, vec![c]);
        edges.insert(c, vec![]);
        assert_eq!(decisive_circle(&edges), None);
        edges.insert(c, vec![a]);
        let circle = decisive_circle(&edges).unwrap();
        assert_eq!(circle.len(), 3);
        edges.insert(c, vec![c]);
        assert_eq!(decisive_circle(&edges).map(|c| c.len()), Some(1));
    }
}
