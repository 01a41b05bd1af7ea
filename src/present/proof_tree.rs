//! Showing and exporting proofs: move labels in the vocabulary of
//! Chinook's proof viewer (`W`, `D`, `L`, `D or W`, `L or D`, `leaf`,
//! `not in tree`, `unresolved`), and DOT, JSON and PDN exports.

use engine::notation::fen::to_fen;
use engine::{Color, Move, Oracle, Position, Value};
use proofdb::{LeafSource, ProofEntry, ProofTree, Question, ResultSource};
use solver::proofio::entry_text;
use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt::Write;

/// The label of one move, from the view of the side making it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Label {
    /// Exact value known (leaf with a database value, or a win/loss proof).
    Exact(Value),
    /// At least a draw.
    DrawOrWin,
    /// At most a draw.
    LossOrDraw,
    /// A leaf whose value the viewer cannot read (store, or no database).
    Leaf(LeafSource),
    /// The move leads out of the proof (the proving side chose another).
    NotInTree,
    /// The move leads out of the proof at a node where it must not.
    Unresolved,
}

impl std::fmt::Display for Label {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Label::Exact(Value::Win) => f.write_str("W"),
            Label::Exact(Value::Draw) => f.write_str("D"),
            Label::Exact(Value::Loss) => f.write_str("L"),
            Label::DrawOrWin => f.write_str("D or W"),
            Label::LossOrDraw => f.write_str("L or D"),
            Label::Leaf(s) => write!(f, "leaf ({})", leaf_name(*s)),
            Label::NotInTree => f.write_str("not in tree"),
            Label::Unresolved => f.write_str("unresolved"),
        }
    }
}

fn leaf_name(s: LeafSource) -> &'static str {
    match s {
        LeafSource::Terminal => "terminal",
        LeafSource::Egdb => "egdb",
        LeafSource::Store => "store",
    }
}

/// The side proving `tree`.
pub fn prover(tree: &ProofTree) -> Color {
    if tree.question.prover_moves_first() {
        tree.root.side_to_move()
    } else {
        tree.root.side_to_move().opposite()
    }
}

/// A proof's nodes by position.
pub fn index(tree: &ProofTree) -> HashMap<Position, ProofEntry> {
    tree.nodes.iter().copied().collect()
}

/// What the proof says of a position in it, for `side`: the proving side
/// gets its goal, the opponent the converse.
fn claim_label(q: Question, prover: Color, side: Color) -> Label {
    let win = matches!(q, Question::Win | Question::Loss);
    match (side == prover, win) {
        (true, true) => Label::Exact(Value::Win),
        (true, false) => Label::DrawOrWin,
        (false, true) => Label::Exact(Value::Loss),
        (false, false) => Label::LossOrDraw,
    }
}

/// Labels of every legal move at `pos`, for the side moving there.
pub fn move_labels(
    tree: &ProofTree,
    idx: &HashMap<Position, ProofEntry>,
    pos: &Position,
    oracle: &dyn Oracle,
    store: &dyn ResultSource,
) -> Vec<(Move, Label)> {
    let side = pos.side_to_move();
    let pv = prover(tree);
    let entry = idx.get(pos);
    pos.moves()
        .iter()
        .map(|m| {
            let child = pos.play_unchecked(m);
            let label = match idx.get(&child) {
                None => {
                    if matches!(entry, Some(ProofEntry::Opponent)) {
                        Label::Unresolved
                    } else {
                        Label::NotInTree
                    }
                }
                Some(ProofEntry::Leaf(src)) => {
                    let known = match src {
                        LeafSource::Terminal => Some(Value::Loss),
                        LeafSource::Egdb => oracle.probe(&child),
                        LeafSource::Store => store.lookup(&child).and_then(|o| match o {
                            proofdb::Outcome::Exact(v) => Some(v),
                            _ => None,
                        }),
                    };
                    match known {
                        Some(v) => Label::Exact(v.negate()),
                        None => Label::Leaf(*src),
                    }
                }
                Some(_) => claim_label(tree.question, pv, side),
            };
            (*m, label)
        })
        .collect()
}

/// A text view of a proof: the root, what it proves, and the moves with
/// their labels down to `depth` plies (following moves inside the proof).
pub fn show(
    tree: &ProofTree,
    info: &str,
    depth: usize,
    oracle: &dyn Oracle,
    store: &dyn ResultSource,
) -> String {
    let idx = index(tree);
    let mut out = String::new();
    let _ = writeln!(out, "root      {}", to_fen(&tree.root));
    out.push_str(&tree.root.diagram());
    let _ = writeln!(
        out,
        "proves    {} for {} ({} to move): {}",
        tree.question.name(),
        tree.root.side_to_move(),
        tree.root.side_to_move(),
        tree.question.outcome()
    );
    let _ = writeln!(out, "size      {} nodes", tree.nodes.len());
    if !info.is_empty() {
        let _ = writeln!(out, "source    {info}");
    }
    let mut line = vec![tree.root];
    walk(
        tree,
        &idx,
        &tree.root,
        0,
        depth.max(1),
        oracle,
        store,
        &mut line,
        &mut out,
    );
    out
}

#[allow(clippy::too_many_arguments)]
fn walk(
    tree: &ProofTree,
    idx: &HashMap<Position, ProofEntry>,
    pos: &Position,
    level: usize,
    depth: usize,
    oracle: &dyn Oracle,
    store: &dyn ResultSource,
    line: &mut Vec<Position>,
    out: &mut String,
) {
    let entry = idx.get(pos);
    for (m, label) in move_labels(tree, idx, pos, oracle, store) {
        let chosen = matches!(entry, Some(ProofEntry::Prover(p)) if p.same_move(&m));
        let mark = if chosen { "*" } else { " " };
        let _ = writeln!(out, "{}{mark}{m:<8} {label}", "  ".repeat(level));
        let child = pos.play_unchecked(&m);
        let inside = matches!(
            idx.get(&child),
            Some(ProofEntry::Prover(_) | ProofEntry::Opponent)
        );
        let follow = chosen || matches!(entry, Some(ProofEntry::Opponent));
        if level + 1 < depth && inside && follow {
            if line.contains(&child) {
                let _ = writeln!(out, "{}  (repeats: a draw)", "  ".repeat(level));
                continue;
            }
            line.push(child);
            walk(
                tree,
                idx,
                &child,
                level + 1,
                depth,
                oracle,
                store,
                line,
                out,
            );
            line.pop();
        }
    }
}

/// Children of a proof node inside the proof, with the moves to them.
fn edges(
    pos: &Position,
    e: &ProofEntry,
    idx: &HashMap<Position, ProofEntry>,
) -> Vec<(Move, Position)> {
    match e {
        ProofEntry::Prover(m) => pos
            .moves()
            .iter()
            .find(|x| x.same_move(m))
            .map(|x| (*x, pos.play_unchecked(x)))
            .into_iter()
            .filter(|(_, c)| idx.contains_key(c))
            .collect(),
        ProofEntry::Opponent => pos
            .moves()
            .iter()
            .map(|m| (*m, pos.play_unchecked(m)))
            .filter(|(_, c)| idx.contains_key(c))
            .collect(),
        ProofEntry::Leaf(_) => Vec::new(),
    }
}

/// Breadth-first order of the nodes reachable from the root, at most `max`.
fn bfs(tree: &ProofTree, idx: &HashMap<Position, ProofEntry>, max: usize) -> Vec<Position> {
    let mut seen = HashSet::new();
    let mut order = Vec::new();
    let mut q = VecDeque::new();
    if idx.contains_key(&tree.root) {
        seen.insert(tree.root);
        q.push_back(tree.root);
    }
    while let Some(p) = q.pop_front() {
        if order.len() >= max {
            break;
        }
        order.push(p);
        for (_, c) in edges(&p, &idx[&p], idx) {
            if seen.insert(c) {
                q.push_back(c);
            }
        }
    }
    order
}

/// Graphviz DOT of at most `max` nodes (breadth first from the root).
pub fn to_dot(tree: &ProofTree, max: usize) -> String {
    let idx = index(tree);
    let order = bfs(tree, &idx, max);
    let ids: HashMap<Position, usize> = order.iter().enumerate().map(|(i, p)| (*p, i)).collect();
    let mut out = String::from("digraph proof {\n  node [shape=box, fontname=\"monospace\"];\n");
    let _ = writeln!(
        out,
        "  label=\"{} proof of {}\";",
        tree.question.name(),
        to_fen(&tree.root)
    );
    for p in &order {
        let e = idx[p];
        let shape = match e {
            ProofEntry::Prover(_) => "box",
            ProofEntry::Opponent => "ellipse",
            ProofEntry::Leaf(_) => "plaintext",
        };
        let _ = writeln!(
            out,
            "  n{} [shape={shape}, label=\"{}\\n{}\"];",
            ids[p],
            to_fen(p),
            entry_text(&e)
        );
    }
    for p in &order {
        for (m, c) in edges(p, &idx[p], &idx) {
            if let Some(j) = ids.get(&c) {
                let _ = writeln!(out, "  n{} -> n{} [label=\"{m}\"];", ids[p], j);
            }
        }
    }
    out.push_str("}\n");
    out
}

/// What the proof says of a node for its own side to move: the claim of
/// `tree` as an outcome (every node of a proof holds its claim).
fn node_outcome(tree: &ProofTree, pos: &Position) -> proofdb::Outcome {
    match claim_label(tree.question, prover(tree), pos.side_to_move()) {
        Label::Exact(v) => proofdb::Outcome::Exact(v),
        Label::DrawOrWin => proofdb::Outcome::AtLeastDraw,
        _ => proofdb::Outcome::AtMostDraw,
    }
}

/// `prover`, `opponent` or `leaf`.
fn kind_name(e: &ProofEntry) -> &'static str {
    match e {
        ProofEntry::Prover(_) => "prover",
        ProofEntry::Opponent => "opponent",
        ProofEntry::Leaf(_) => "leaf",
    }
}

/// JSON of at most `max` nodes (breadth first from the root) as a graph:
/// the root with what the proof proves (`fen`, `side_to_move`, `value`,
/// `label`), then `nodes` (each with its `id`, position, `kind`, leaf
/// source, and the value and Chinook label the proof gives it for its
/// side to move) and `edges` (`parent`, `child`, `move`) between exported
/// nodes. Keys as in docs/json.txt.
pub fn to_json(tree: &ProofTree, info: &str, max: usize) -> serde_json::Value {
    let idx = index(tree);
    let order = bfs(tree, &idx, max);
    let ids: HashMap<Position, usize> = order.iter().enumerate().map(|(i, p)| (*p, i)).collect();
    let nodes: Vec<serde_json::Value> = order
        .iter()
        .enumerate()
        .map(|(id, p)| {
            let e = idx[p];
            let o = node_outcome(tree, p);
            serde_json::json!({
                "id": id,
                "fen": to_fen(p),
                "side_to_move": p.side_to_move().name(),
                "kind": kind_name(&e),
                "leaf": match e {
                    ProofEntry::Leaf(s) => Some(leaf_name(s)),
                    _ => None,
                },
                "value": o.name(),
                "label": o.label(),
            })
        })
        .collect();
    let mut edges_out = Vec::new();
    for p in &order {
        for (m, c) in edges(p, &idx[p], &idx) {
            if let Some(&child) = ids.get(&c) {
                edges_out.push(serde_json::json!({
                    "parent": ids[p],
                    "child": child,
                    "move": m.to_string(),
                }));
            }
        }
    }
    let root = node_outcome(tree, &tree.root);
    serde_json::json!({
        "fen": to_fen(&tree.root),
        "side_to_move": tree.root.side_to_move().name(),
        "value": root.name(),
        "label": root.label(),
        "question": tree.question.name(),
        "info": info,
        "proof_size": tree.nodes.len(),
        "exported": nodes.len(),
        "nodes": nodes,
        "edges": edges_out,
    })
}

/// Whether `tree` has a move to write as PDN: not when its root is a leaf
/// (a database or store value, or no legal move). A PDN game without a
/// move stops some readers (pydraughts' PDNReader reads no game after
/// it), so [`to_pdn`]'s callers leave such proofs out.
pub fn pdn_has_moves(tree: &ProofTree) -> bool {
    let idx = index(tree);
    idx.get(&tree.root)
        .is_some_and(|e| !edges(&tree.root, e, &idx).is_empty())
}

/// PDN of the proof as a game with variations: the proving side's moves,
/// every reply of the opponent (the first as the main line, the others as
/// variations), at most `max` moves written; a line stops at a
/// repetition or a leaf.
pub fn to_pdn(tree: &ProofTree, info: &str, max: usize) -> String {
    let idx = index(tree);
    let mut out = String::new();
    let _ = writeln!(out, "[Event \"{} proof\"]", tree.question.name());
    let _ = writeln!(out, "[GameType \"21\"]");
    let _ = writeln!(out, "[SetUp \"1\"]");
    let _ = writeln!(out, "[FEN \"{}\"]", to_fen(&tree.root));
    if !info.is_empty() {
        let _ = writeln!(out, "[Annotator \"{}\"]", info.replace('"', "'"));
    }
    let _ = writeln!(out, "[Result \"*\"]");
    let mut budget = max;
    let mut line = vec![tree.root];
    let mut text = String::new();
    pdn_line(&tree.root, 1, true, &idx, &mut line, &mut budget, &mut text);
    text.push_str(" *");
    // Wrap at 78 columns.
    let mut col = 0;
    for w in text.split_whitespace() {
        if col > 0 && col + w.len() + 1 > 78 {
            out.push('\n');
            col = 0;
        } else if col > 0 {
            out.push(' ');
            col += 1;
        }
        out.push_str(w);
        col += w.len();
    }
    out.push('\n');
    out
}

fn move_number(pos: &Position, number: usize, force: bool) -> String {
    match pos.side_to_move() {
        Color::Black => format!("{number}. "),
        Color::White if force => format!("{number}... "),
        Color::White => String::new(),
    }
}

#[allow(clippy::too_many_arguments)]
fn pdn_line(
    pos: &Position,
    number: usize,
    force: bool,
    idx: &HashMap<Position, ProofEntry>,
    line: &mut Vec<Position>,
    budget: &mut usize,
    out: &mut String,
) {
    let Some(e) = idx.get(pos) else { return };
    let moves = edges(pos, e, idx);
    if moves.is_empty() || *budget == 0 {
        return;
    }
    let next_number = if pos.side_to_move() == Color::White {
        number + 1
    } else {
        number
    };
    let (m0, c0) = moves[0];
    *budget -= 1;
    let _ = write!(out, " {}{m0}", move_number(pos, number, force));
    // Variations: the other replies.
    for &(m, c) in &moves[1..] {
        if *budget == 0 {
            break;
        }
        *budget -= 1;
        let _ = write!(out, " ({}{m}", move_number(pos, number, true));
        if !line.contains(&c) {
            line.push(c);
            pdn_line(&c, next_number, false, idx, line, budget, out);
            line.pop();
        }
        out.push(')');
    }
    if !line.contains(&c0) {
        line.push(c0);
        pdn_line(&c0, next_number, moves.len() > 1, idx, line, budget, out);
        line.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::notation::fen::parse_fen;

    #[test]
    fn json_export_is_a_graph_with_chinooks_labels() {
        let root = parse_fen("B:W14:B10").unwrap();
        let tree = proofdb::testing::win_in_one(root);
        let j = to_json(&tree, "test", 100);
        assert_eq!(
            (j["value"].as_str(), j["label"].as_str()),
            (Some("win"), Some("W"))
        );
        let nodes = j["nodes"].as_array().unwrap();
        assert_eq!(nodes.len(), 2, "{j}");
        assert_eq!(nodes[0]["kind"], "prover");
        assert_eq!(nodes[0]["label"], "W");
        assert_eq!(nodes[1]["kind"], "leaf");
        assert_eq!(nodes[1]["leaf"], "terminal");
        assert_eq!(
            (nodes[1]["value"].as_str(), nodes[1]["label"].as_str()),
            (Some("loss"), Some("L"))
        );
        let edges = j["edges"].as_array().unwrap();
        assert_eq!(edges.len(), 1);
        assert_eq!(
            (edges[0]["parent"].as_u64(), edges[0]["child"].as_u64()),
            (Some(0), Some(1))
        );
        assert_eq!(edges[0]["move"], root.moves().as_slice()[0].to_string());
        // A draw proof labels the prover's nodes "D or W" and the
        // opponent's "L or D".
        let draw = ProofTree {
            question: Question::AtLeastDraw,
            ..tree
        };
        let j = to_json(&draw, "", 100);
        assert_eq!(j["nodes"][0]["label"], "D or W");
        assert_eq!(j["nodes"][1]["label"], "L or D");
    }

    #[test]
    fn a_proof_whose_root_is_a_leaf_has_no_pdn_game() {
        let root = parse_fen("B:W14:B10").unwrap();
        let tree = proofdb::testing::win_in_one(root);
        assert!(pdn_has_moves(&tree));
        assert!(to_pdn(&tree, "", 10).contains(&root.moves().as_slice()[0].to_string()));
        let leaf = ProofTree {
            nodes: vec![(root, ProofEntry::Leaf(LeafSource::Egdb))],
            ..tree
        };
        assert!(!pdn_has_moves(&leaf));
    }
}
