//! Proof trees in the store: kept whole (one `trees` row, one `tree_nodes`
//! row per position), at most one tree per root and question.

use crate::codec::{decode_entry, decode_pos, decode_question, encode_entry, pos_key, stm_code};
use crate::error::Result;
use crate::proof::{ProofEntry, ProofTree, Question};
use crate::store::Store;
use engine::notation::fen::to_fen;
use engine::{Move, Position};
use rusqlite::{params, OptionalExtension};

/// Identifier of a stored proof tree (the `trees.id` column).
pub type TreeId = i64;

/// A stored tree's summary row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeInfo {
    /// Its identifier.
    pub id: TreeId,
    /// The proved position.
    pub root: Position,
    /// What it proves.
    pub question: Question,
    /// Number of positions in it.
    pub node_count: u64,
    /// When it was stored (Unix seconds).
    pub created: i64,
    /// The run that stored it.
    pub run_id: String,
}

/// Finds the legal move of `pos` equal to `m` (restoring its path count),
/// or `None` when `m` is not legal there.
fn legal_twin(pos: &Position, m: &Move) -> Option<Move> {
    pos.moves().iter().find(|x| x.same_move(m)).copied()
}

impl Store {
    /// Stores `tree` whole, replacing any tree with the same root and
    /// question, in one transaction. Every node's position must be unique
    /// in the tree. Returns the new tree's id.
    pub fn put_tree(&self, tree: &ProofTree, run_id: &str) -> Result<TreeId> {
        self.put_tree_dated(tree, run_id, crate::codec::unix_now())
    }

    /// [`Store::put_tree`] with the creation date given (Unix seconds).
    pub fn put_tree_dated(&self, tree: &ProofTree, run_id: &str, now: i64) -> Result<TreeId> {
        self.write_tx(|tx| self.insert_tree(tx, tree, run_id, now))
    }

    /// Writes `tree` inside the caller's transaction `tx` (see
    /// [`Store::put_tree`]).
    pub(crate) fn insert_tree(
        &self,
        tx: &rusqlite::Connection,
        tree: &ProofTree,
        run_id: &str,
        now: i64,
    ) -> Result<TreeId> {
        let sq = |e| self.sq(e);
        tx.execute(
            "DELETE FROM trees WHERE root_pos = ?1 AND root_stm = ?2 AND question = ?3",
            params![
                &pos_key(&tree.root)[..],
                stm_code(&tree.root),
                tree.question.name()
            ],
        )
        .map_err(sq)?;
        tx.execute(
            "INSERT INTO trees (root_pos, root_stm, question, node_count, created, run_id) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                &pos_key(&tree.root)[..],
                stm_code(&tree.root),
                tree.question.name(),
                tree.nodes.len() as i64,
                now,
                run_id
            ],
        )
        .map_err(sq)?;
        let id = tx.last_insert_rowid();
        let mut ins = tx
            .prepare_cached(
                "INSERT INTO tree_nodes (tree_id, pos, stm, kind, from_sq, to_sq, captured, leaf) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )
            .map_err(sq)?;
        for (pos, entry) in &tree.nodes {
            let (kind, from, to, cap, leaf) = encode_entry(entry);
            ins.execute(params![
                id,
                &pos_key(pos)[..],
                stm_code(pos),
                kind,
                from,
                to,
                cap,
                leaf
            ])
            .map_err(|e| match e {
                rusqlite::Error::SqliteFailure(f, _)
                    if f.code == rusqlite::ErrorCode::ConstraintViolation =>
                {
                    crate::error::StoreError::Invalid {
                        path: self.path().to_path_buf(),
                        detail: format!("proof tree lists {} twice", to_fen(pos)),
                    }
                }
                e => self.sq(e),
            })?;
        }
        Ok(id)
    }

    /// The summaries of all stored trees, by id.
    pub fn trees(&self) -> Result<Vec<TreeInfo>> {
        self.tree_infos(None)
    }

    fn tree_infos(&self, only: Option<TreeId>) -> Result<Vec<TreeInfo>> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare(
                "SELECT id, root_pos, root_stm, question, node_count, created, run_id \
                 FROM trees WHERE ?1 IS NULL OR id = ?1 ORDER BY id",
            )
            .map_err(|e| self.sq(e))?;
        let rows = stmt
            .query_map([only], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, Vec<u8>>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, i64>(4)?,
                    r.get::<_, i64>(5)?,
                    r.get::<_, String>(6)?,
                ))
            })
            .map_err(|e| self.sq(e))?;
        let mut out = Vec::new();
        for row in rows {
            let (id, key, stm, q, n, created, run_id) = row.map_err(|e| self.sq(e))?;
            out.push(TreeInfo {
                id,
                root: decode_pos(&key, stm)
                    .map_err(|d| self.corrupt(format!("tree {id} root: {d}")))?,
                question: decode_question(&q)
                    .map_err(|d| self.corrupt(format!("tree {id}: {d}")))?,
                node_count: n as u64,
                created,
                run_id,
            });
        }
        Ok(out)
    }

    /// The tree proving `question` at `root`, loaded whole, if stored.
    /// Prover moves are checked against the rules (a move that is not
    /// legal in its position is reported as corruption).
    pub fn get_tree(&self, root: &Position, question: Question) -> Result<Option<ProofTree>> {
        let id: Option<i64> = self
            .conn()
            .query_row(
                "SELECT id FROM trees WHERE root_pos = ?1 AND root_stm = ?2 AND question = ?3",
                params![&pos_key(root)[..], stm_code(root), question.name()],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.sq(e))?;
        match id {
            None => Ok(None),
            Some(id) => self.get_tree_by_id(id),
        }
    }

    /// The tree with identifier `id`, loaded whole, if stored.
    pub fn get_tree_by_id(&self, id: TreeId) -> Result<Option<ProofTree>> {
        let Some(info) = self.trees_where(id)? else {
            return Ok(None);
        };
        let conn = self.conn();
        let mut stmt = conn
            .prepare(
                "SELECT pos, stm, kind, from_sq, to_sq, captured, leaf FROM tree_nodes \
                 WHERE tree_id = ?1 ORDER BY pos, stm",
            )
            .map_err(|e| self.sq(e))?;
        let mut rows = stmt.query([id]).map_err(|e| self.sq(e))?;
        let mut nodes = Vec::with_capacity(info.node_count as usize);
        while let Some(r) = rows.next().map_err(|e| self.sq(e))? {
            let node =
                (|| -> rusqlite::Result<std::result::Result<(Position, ProofEntry), String>> {
                    let key: Vec<u8> = r.get(0)?;
                    let pos = match decode_pos(&key, r.get(1)?) {
                        Ok(p) => p,
                        Err(e) => return Ok(Err(e)),
                    };
                    let kind: String = r.get(2)?;
                    let leaf: Option<String> = r.get(6)?;
                    let entry =
                        match decode_entry(&kind, r.get(3)?, r.get(4)?, r.get(5)?, leaf.as_deref())
                        {
                            Ok(e) => e,
                            Err(e) => return Ok(Err(e)),
                        };
                    Ok(Ok((pos, entry)))
                })()
                .map_err(|e| self.sq(e))?
                .map_err(|d| self.corrupt(format!("tree {id} node: {d}")))?;
            let node = match node {
                (pos, ProofEntry::Prover(m)) => match legal_twin(&pos, &m) {
                    Some(m) => (pos, ProofEntry::Prover(m)),
                    None => {
                        return Err(self.corrupt(format!(
                            "tree {id}: move {m} is not legal in {}",
                            to_fen(&pos)
                        )))
                    }
                },
                n => n,
            };
            nodes.push(node);
        }
        Ok(Some(ProofTree {
            root: info.root,
            question: info.question,
            nodes,
        }))
    }

    /// The summary of the tree proving `question` at `root`, if stored.
    pub fn tree_info(&self, root: &Position, question: Question) -> Result<Option<TreeInfo>> {
        let id: Option<i64> = self
            .conn()
            .query_row(
                "SELECT id FROM trees WHERE root_pos = ?1 AND root_stm = ?2 AND question = ?3",
                params![&pos_key(root)[..], stm_code(root), question.name()],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.sq(e))?;
        match id {
            None => Ok(None),
            Some(id) => self.trees_where(id),
        }
    }

    fn trees_where(&self, id: TreeId) -> Result<Option<TreeInfo>> {
        Ok(self.tree_infos(Some(id))?.into_iter().next())
    }

    /// Every stored tree node at `pos`: the tree's id and the entry.
    pub fn find_tree_nodes(&self, pos: &Position) -> Result<Vec<(TreeId, ProofEntry)>> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare_cached(
                "SELECT tree_id, kind, from_sq, to_sq, captured, leaf FROM tree_nodes \
                 WHERE pos = ?1 AND stm = ?2 ORDER BY tree_id",
            )
            .map_err(|e| self.sq(e))?;
        let mut rows = stmt
            .query(params![&pos_key(pos)[..], stm_code(pos)])
            .map_err(|e| self.sq(e))?;
        let mut out = Vec::new();
        while let Some(r) = rows.next().map_err(|e| self.sq(e))? {
            let id: i64 = r.get(0).map_err(|e| self.sq(e))?;
            let kind: String = r.get(1).map_err(|e| self.sq(e))?;
            let leaf: Option<String> = r.get(5).map_err(|e| self.sq(e))?;
            let entry = decode_entry(
                &kind,
                r.get(2).map_err(|e| self.sq(e))?,
                r.get(3).map_err(|e| self.sq(e))?,
                r.get(4).map_err(|e| self.sq(e))?,
                leaf.as_deref(),
            )
            .map_err(|d| self.corrupt(format!("tree {id} node: {d}")))?;
            let entry = match entry {
                ProofEntry::Prover(m) => {
                    ProofEntry::Prover(legal_twin(pos, &m).ok_or_else(|| {
                        self.corrupt(format!(
                            "tree {id}: move {m} is not legal in {}",
                            to_fen(pos)
                        ))
                    })?)
                }
                e => e,
            };
            out.push((id, entry));
        }
        Ok(out)
    }
}
