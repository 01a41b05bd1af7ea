//! `/api/proof?fen=...`: the proof trees stored for a position, as nodes
//! and edges: every node with its entry (the prover's move, the
//! opponent's replies, or a leaf and why), what the proof establishes
//! there and what is known of it; every edge with its move text.

use super::error::ApiError;
use super::position::{Board, TreeSummary};
use super::value::{label, KnownValue};
use super::Browser;
use engine::notation::fen::to_fen;
use engine::notation::movetext::move_to_text;
use engine::Position;
use proofdb::{LeafSource, ProofEntry, ProofTree};
use serde::Serialize;
use std::collections::{HashMap, VecDeque};

/// One position of a proof tree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NodeView {
    /// Its index in [`TreeView::nodes`] (the root is 0).
    pub id: usize,
    /// The position.
    #[serde(flatten)]
    pub board: Board,
    /// `prover` (one move proves), `opponent` (every reply is answered)
    /// or `leaf`.
    pub kind: &'static str,
    /// Why a leaf needs no proof: `terminal`, `egdb` or `store`.
    pub leaf: Option<&'static str>,
    /// Chinook's label of what the proof establishes here, for the side
    /// to move.
    pub proved: Option<&'static str>,
    /// What is known of it now (databases, store).
    pub value: KnownValue,
    /// Whether it has children left out by the node limit.
    pub more: bool,
}

/// A move from one node to another.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EdgeView {
    /// The parent's id.
    pub from: usize,
    /// The child's id.
    pub to: usize,
    /// The move's PDN text.
    #[serde(rename = "move")]
    pub text: String,
}

/// One stored tree, walked breadth first from its root.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TreeView {
    /// The tree's summary.
    #[serde(flatten)]
    pub summary: TreeSummary,
    /// The nodes reached, at most the limit asked for.
    pub nodes: Vec<NodeView>,
    /// The edges between them.
    pub edges: Vec<EdgeView>,
    /// Whether the limit left nodes out.
    pub truncated: bool,
}

/// A tree that holds the position below its root.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ContainingTree {
    /// The tree's id.
    pub id: i64,
    /// Its root.
    pub root: String,
    /// `win`, `draw`, `notwin` or `loss`.
    pub question: &'static str,
}

/// The answer to `/api/proof`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProofView {
    /// The canonical FEN asked for.
    pub fen: String,
    /// The trees rooted at it.
    pub trees: Vec<TreeView>,
    /// Other trees in which it is a node.
    pub containing: Vec<ContainingTree>,
}

fn leaf_name(s: LeafSource) -> &'static str {
    match s {
        LeafSource::Terminal => "terminal",
        LeafSource::Egdb => "egdb",
        LeafSource::Store => "store",
    }
}

impl Browser {
    /// The `/api/proof` answer for `pos`, each tree cut at `limit` nodes.
    pub fn proof(&self, pos: &Position, limit: usize) -> Result<ProofView, ApiError> {
        let mut trees = Vec::new();
        for summary in self.trees_at(pos)? {
            if let Some(tree) = self.store.get_tree_by_id(summary.id)? {
                trees.push(self.tree_view(summary, &tree, limit)?);
            }
        }
        let mut containing = Vec::new();
        let holders = self.store.find_tree_nodes(pos)?;
        if holders
            .iter()
            .any(|(id, _)| !trees.iter().any(|t| t.summary.id == *id))
        {
            for info in self.store.trees()? {
                let inside = holders.iter().any(|(id, _)| *id == info.id);
                if inside && info.root != *pos {
                    containing.push(ContainingTree {
                        id: info.id,
                        root: to_fen(&info.root),
                        question: info.question.name(),
                    });
                }
            }
        }
        Ok(ProofView {
            fen: to_fen(pos),
            trees,
            containing,
        })
    }

    /// `tree` as nodes and edges, breadth first, at most `limit` nodes.
    fn tree_view(
        &self,
        summary: TreeSummary,
        tree: &ProofTree,
        limit: usize,
    ) -> Result<TreeView, ApiError> {
        let entries: HashMap<Position, ProofEntry> = tree.nodes.iter().copied().collect();
        let proved: HashMap<Position, proofdb::Outcome> =
            tree.proved_positions().into_iter().collect();
        let mut ids: HashMap<Position, usize> = HashMap::new();
        let mut nodes: Vec<NodeView> = Vec::new();
        let mut edges = Vec::new();
        let mut truncated = false;
        let mut todo = VecDeque::from([tree.root]);
        ids.insert(tree.root, 0);
        while let Some(p) = todo.pop_front() {
            let id = ids[&p];
            let entry = entries.get(&p).copied();
            let (kind, leaf) = match entry {
                Some(ProofEntry::Prover(_)) => ("prover", None),
                Some(ProofEntry::Opponent) => ("opponent", None),
                Some(ProofEntry::Leaf(s)) => ("leaf", Some(leaf_name(s))),
                None => ("leaf", None),
            };
            let children: Vec<engine::Move> = match entry {
                Some(ProofEntry::Prover(m)) => p
                    .moves()
                    .iter()
                    .filter(|x| x.same_move(&m))
                    .copied()
                    .collect(),
                Some(ProofEntry::Opponent) => p.moves().iter().copied().collect(),
                _ => Vec::new(),
            };
            let mut more = false;
            for m in &children {
                let c = p.play_unchecked(m);
                let child = match ids.get(&c) {
                    Some(&c_id) => c_id,
                    None if ids.len() < limit => {
                        let c_id = ids.len();
                        ids.insert(c, c_id);
                        todo.push_back(c);
                        c_id
                    }
                    None => {
                        more = true;
                        truncated = true;
                        continue;
                    }
                };
                edges.push(EdgeView {
                    from: id,
                    to: child,
                    text: move_to_text(&p, m),
                });
            }
            nodes.push(NodeView {
                id,
                board: Board::of(&p),
                kind,
                leaf,
                proved: proved.get(&p).map(|o| label(*o)),
                value: self.value_of(&p)?.1,
                more,
            });
        }
        Ok(TreeView {
            summary,
            nodes,
            edges,
            truncated,
        })
    }
}
