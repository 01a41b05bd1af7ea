//! Proof trees in the store: kept whole (one `trees` row, one `tree_nodes`
//! row per position), at most one tree per root and question.
//!
//! Every node row carries its seal, and the tree row a seal over its own
//! columns and its nodes' seals in key order ([`crate::seal`]); a tree is
//! checked against both when it is loaded, and a node when it is found
//! by position. The tree row records the database size the proof was
//! verified with, so that it can be verified again the same way.

use crate::codec::{
    decode_entry, decode_pos, decode_question, encode_entry, pos_key, stm_code, DecodeError,
};
use crate::error::Result;
use crate::proof::{ProofEntry, ProofTree, Question};
use crate::seal::Seal;
use crate::store::Store;
use engine::notation::fen::to_fen;
use engine::{Move, Position};
use rusqlite::{params, Connection, OptionalExtension};
use thiserror::Error;

/// The seal of a `tree_nodes` row, from its columns.
#[allow(clippy::too_many_arguments)]
pub fn node_seal(
    tree_id: i64,
    key: &[u8],
    stm: i64,
    kind: &str,
    from: Option<i64>,
    to: Option<i64>,
    captured: Option<i64>,
    leaf: Option<&str>,
) -> i64 {
    let mut s = Seal::new("tree_nodes");
    s.int(tree_id)
        .blob(key)
        .int(stm)
        .text(kind)
        .opt_int(from)
        .opt_int(to)
        .opt_int(captured);
    match leaf {
        Some(l) => s.int(1).text(l),
        None => s.int(0),
    };
    s.finish()
}

/// The columns of a `trees` row that its seal covers, besides its nodes.
struct TreeRow<'a> {
    id: i64,
    root_key: &'a [u8],
    root_stm: i64,
    question: &'a str,
    node_count: i64,
    created: i64,
    run_id: &'a str,
    egdb_pieces: i64,
}

/// The seal of a `trees` row, given its nodes' seals in key order.
fn tree_seal(t: &TreeRow<'_>, node_seals: impl Iterator<Item = i64>) -> i64 {
    let mut s = Seal::new("trees");
    s.int(t.id)
        .blob(t.root_key)
        .int(t.root_stm)
        .text(t.question)
        .int(t.node_count)
        .int(t.created)
        .text(t.run_id)
        .int(t.egdb_pieces);
    for n in node_seals {
        s.int(n);
    }
    s.finish()
}

/// Seals tree `id` and its nodes as they are stored (migration to schema
/// 3: trees written before seals existed).
pub(crate) fn seal_tree(conn: &Connection, id: i64) -> rusqlite::Result<()> {
    let mut nodes = Vec::new();
    {
        let mut stmt = conn.prepare(
            "SELECT pos, stm, kind, from_sq, to_sq, captured, leaf FROM tree_nodes \
             WHERE tree_id = ?1 ORDER BY pos, stm",
        )?;
        let mut rows = stmt.query([id])?;
        while let Some(r) = rows.next()? {
            let key: Vec<u8> = r.get(0)?;
            let stm: i64 = r.get(1)?;
            let kind: String = r.get(2)?;
            let leaf: Option<String> = r.get(6)?;
            let seal = node_seal(
                id,
                &key,
                stm,
                &kind,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                leaf.as_deref(),
            );
            nodes.push((key, stm, seal));
        }
    }
    let mut up = conn.prepare(
        "UPDATE tree_nodes SET checksum = ?4 WHERE tree_id = ?1 AND pos = ?2 AND stm = ?3",
    )?;
    for (key, stm, seal) in &nodes {
        up.execute(params![id, key, stm, seal])?;
    }
    let (root_key, root_stm, question, node_count, created, run_id, egdb_pieces): (
        Vec<u8>,
        i64,
        String,
        i64,
        i64,
        String,
        i64,
    ) = conn.query_row(
        "SELECT root_pos, root_stm, question, node_count, created, run_id, egdb_pieces \
         FROM trees WHERE id = ?1",
        [id],
        |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
            ))
        },
    )?;
    let row = TreeRow {
        id,
        root_key: &root_key,
        root_stm,
        question: &question,
        node_count,
        created,
        run_id: &run_id,
        egdb_pieces,
    };
    let seal = tree_seal(&row, nodes.iter().map(|n| n.2));
    conn.execute(
        "UPDATE trees SET checksum = ?2 WHERE id = ?1",
        params![id, seal],
    )?;
    Ok(())
}

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
    /// The largest endgame databases (pieces) the proof was verified
    /// with; its `egdb` leaves need them (0: none).
    pub egdb_pieces: u32,
    /// The tree row's seal as stored (`None`: not sealed).
    checksum: Option<i64>,
}

/// Finds the legal move of `pos` equal to `m` (restoring its path count),
/// or `None` when `m` is not legal there.
fn legal_twin(pos: &Position, m: &Move) -> Option<Move> {
    pos.moves().iter().find(|x| x.same_move(m)).copied()
}

impl Store {
    /// Stores a proved result and the proof trees behind it in a single
    /// transaction, so a kill leaves both or neither. The trees record the
    /// result's database size. The result is folded in like
    /// [`Store::put_record`]; one that contradicts the stored outcome is
    /// refused with [`StoreError::Contradiction`], one that the trees (with
    /// those stored before) do not prove with [`StoreError::Unproved`],
    /// and then nothing is written.
    pub fn put_proof(
        &self,
        result: &crate::results::ResultRecord,
        trees: &[ProofTree],
        run_id: &str,
    ) -> Result<crate::results::PutEffect> {
        self.write_tx(|tx| {
            let a = crate::trees::apply_proof(tx, self.path(), result, trees, run_id)?;
            self.applied(result, a)
        })
    }

    /// Stores `tree` whole, verified with the databases up to
    /// `egdb_pieces` pieces, replacing any tree with the same root and
    /// question, in one transaction. Every node's position must be unique
    /// in the tree. Returns the new tree's id.
    pub fn put_tree(&self, tree: &ProofTree, run_id: &str, egdb_pieces: u32) -> Result<TreeId> {
        self.put_tree_dated(tree, run_id, egdb_pieces, crate::codec::unix_now())
    }

    /// [`Store::put_tree`] with the creation date given (Unix seconds).
    pub fn put_tree_dated(
        &self,
        tree: &ProofTree,
        run_id: &str,
        egdb_pieces: u32,
        now: i64,
    ) -> Result<TreeId> {
        self.write_tx(|tx| self.insert_tree(tx, tree, run_id, egdb_pieces, now))
    }

    /// Writes `tree` inside the caller's transaction `tx` (see
    /// [`Store::put_tree`]).
    pub(crate) fn insert_tree(
        &self,
        tx: &rusqlite::Connection,
        tree: &ProofTree,
        run_id: &str,
        egdb_pieces: u32,
        now: i64,
    ) -> Result<TreeId> {
        insert_tree_on(tx, self.path(), tree, run_id, egdb_pieces, now)
    }

    /// The summaries of all stored trees, by id.
    pub fn trees(&self) -> Result<Vec<TreeInfo>> {
        self.tree_infos(None)
    }

    fn tree_infos(&self, only: Option<TreeId>) -> Result<Vec<TreeInfo>> {
        let conn = self.conn();
        // Two statements: `?1 IS NULL OR id = ?1` would scan the whole
        // table for one tree (a merge of 100,000 trees took 40 minutes).
        const COLUMNS: &str = "SELECT id, root_pos, root_stm, question, node_count, created, \
                               run_id, egdb_pieces, checksum FROM trees";
        let sql = match only {
            Some(_) => format!("{COLUMNS} WHERE id = ?1"),
            None => format!("{COLUMNS} WHERE ?1 IS NULL ORDER BY id"),
        };
        let mut stmt = conn.prepare_cached(&sql).map_err(|e| self.sq(e))?;
        let rows = stmt
            .query_map([only], |r| {
                Ok((
                    (
                        r.get::<_, i64>(0)?,
                        r.get::<_, Vec<u8>>(1)?,
                        r.get::<_, i64>(2)?,
                        r.get::<_, String>(3)?,
                        r.get::<_, i64>(4)?,
                        r.get::<_, i64>(5)?,
                        r.get::<_, String>(6)?,
                    ),
                    r.get::<_, i64>(7)?,
                    r.get::<_, Option<i64>>(8)?,
                ))
            })
            .map_err(|e| self.sq(e))?;
        let mut out = Vec::new();
        for row in rows {
            let ((id, key, stm, q, n, created, run_id), egdb, checksum) =
                row.map_err(|e| self.sq(e))?;
            out.push(TreeInfo {
                id,
                root: decode_pos(&key, stm)
                    .map_err(|d| self.corrupt(format!("tree {id} root: {d}")))?,
                question: decode_question(&q)
                    .map_err(|d| self.corrupt(format!("tree {id}: {d}")))?,
                node_count: n as u64,
                created,
                run_id,
                egdb_pieces: u32::try_from(egdb).unwrap_or(u32::MAX),
                checksum,
            });
        }
        Ok(out)
    }

    /// The tree proving `question` at `root`, loaded whole, if stored.
    /// Prover moves are checked against the rules (a move that is not
    /// legal in its position is reported as corruption).
    pub fn get_tree(&self, root: &Position, question: Question) -> Result<Option<ProofTree>> {
        match self.tree_id(root, question)? {
            None => Ok(None),
            Some(id) => self.get_tree_by_id(id),
        }
    }

    /// The identifier of the tree proving `question` at `root`, if stored.
    fn tree_id(&self, root: &Position, question: Question) -> Result<Option<TreeId>> {
        self.conn()
            .query_row(
                "SELECT id FROM trees WHERE root_pos = ?1 AND root_stm = ?2 AND question = ?3",
                params![&pos_key(root)[..], stm_code(root), question.name()],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.sq(e))
    }

    /// The tree with identifier `id`, loaded whole, if stored.
    pub fn get_tree_by_id(&self, id: TreeId) -> Result<Option<ProofTree>> {
        let Some(info) = self.trees_where(id)? else {
            return Ok(None);
        };
        let conn = self.conn();
        let mut stmt = conn
            .prepare_cached(
                "SELECT pos, stm, kind, from_sq, to_sq, captured, leaf, checksum FROM tree_nodes \
                 WHERE tree_id = ?1 ORDER BY pos, stm",
            )
            .map_err(|e| self.sq(e))?;
        let mut rows = stmt.query([id]).map_err(|e| self.sq(e))?;
        let mut acc = TreeAcc::new(&info);
        while let Some(r) = rows.next().map_err(|e| self.sq(e))? {
            acc.push(self, r)?;
        }
        acc.finish(self, &info).map(Some)
    }

    /// Calls `f` on every stored tree, loaded whole and checked as
    /// [`Store::get_tree_by_id`] does, in one scan of the nodes (a store
    /// of 100,000 small trees loads in a second, not minutes): with the
    /// tree, or the error that makes it damaged. Trees `wanted` refuses
    /// are not built.
    pub fn for_each_tree(
        &self,
        mut wanted: impl FnMut(&TreeInfo) -> bool,
        mut f: impl FnMut(&TreeInfo, Result<ProofTree>) -> Result<()>,
    ) -> Result<()> {
        let infos: std::collections::HashMap<TreeId, TreeInfo> =
            self.trees()?.into_iter().map(|t| (t.id, t)).collect();
        let conn = self.reader();
        let mut stmt = conn
            .prepare(
                "SELECT pos, stm, kind, from_sq, to_sq, captured, leaf, checksum, tree_id \
                 FROM tree_nodes ORDER BY tree_id, pos, stm",
            )
            .map_err(|e| self.sq(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.sq(e))?;
        // The tree being read: its nodes so far, or the error that damaged
        // it (its other rows are skipped); `None` for a tree not wanted.
        let mut current: Option<(TreeId, Option<Result<TreeAcc>>)> = None;
        let finish = |cur: Option<(TreeId, Option<Result<TreeAcc>>)>,
                      f: &mut dyn FnMut(&TreeInfo, Result<ProofTree>) -> Result<()>|
         -> Result<()> {
            if let Some((id, Some(acc))) = cur {
                if let Some(info) = infos.get(&id) {
                    f(info, acc.and_then(|a| a.finish(self, info)))?;
                }
            }
            Ok(())
        };
        while let Some(r) = rows.next().map_err(|e| self.sq(e))? {
            let id: TreeId = r.get(8).map_err(|e| self.sq(e))?;
            if current.as_ref().map(|c| c.0) != Some(id) {
                finish(current.take(), &mut f)?;
                let acc = infos
                    .get(&id)
                    .filter(|i| wanted(i))
                    .map(|i| Ok(TreeAcc::new(i)));
                current = Some((id, acc));
            }
            if let Some((_, Some(acc @ Ok(_)))) = current.as_mut() {
                if let Ok(a) = acc.as_mut() {
                    if let Err(e) = a.push(self, r) {
                        *acc = Err(e);
                    }
                }
            }
        }
        finish(current.take(), &mut f)
    }

    /// The summary of the tree proving `question` at `root`, if stored.
    pub fn tree_info(&self, root: &Position, question: Question) -> Result<Option<TreeInfo>> {
        match self.tree_id(root, question)? {
            None => Ok(None),
            Some(id) => self.trees_where(id),
        }
    }

    /// The summary of the tree with identifier `id`, if stored.
    pub fn tree_summary(&self, id: TreeId) -> Result<Option<TreeInfo>> {
        self.trees_where(id)
    }

    fn trees_where(&self, id: TreeId) -> Result<Option<TreeInfo>> {
        Ok(self.tree_infos(Some(id))?.into_iter().next())
    }

    /// Calls `f` on every stored proof tree that backs its root's proved
    /// result (`proved` holds the store's proved results, as
    /// [`Store::for_each_result`] gives them), loaded whole in one scan; a
    /// damaged tree is skipped.
    pub fn for_each_proved_tree(
        &self,
        proved: &std::collections::HashMap<Position, crate::Outcome>,
        mut f: impl FnMut(&ProofTree),
    ) -> Result<()> {
        let backs = |info: &TreeInfo| {
            proved
                .get(&info.root)
                .is_some_and(|o| o.intersect(info.question.outcome()) == Ok(*o))
        };
        self.for_each_tree(backs, |_, tree| {
            if let Ok(t) = tree {
                f(&t);
            }
            Ok(())
        })
    }

    /// Whether a tree proving `question` at `root` agrees with what the
    /// store holds there: the proved result and the other trees' claims.
    pub fn tree_fits(&self, root: &Position, question: Question) -> Result<bool> {
        let mut known = question.outcome();
        if let Some(rec) = self.get_record(root)? {
            match known.intersect(rec.outcome) {
                Ok(k) => known = k,
                Err(_) => return Ok(false),
            }
        }
        let others = crate::results::tree_questions(&self.conn(), root).map_err(|e| self.sq(e))?;
        for q in others {
            match known.intersect(q.outcome()) {
                Ok(k) => known = k,
                Err(_) => return Ok(false),
            }
        }
        Ok(true)
    }

    /// Every stored tree node at `pos`: the tree's id and the entry.
    pub fn find_tree_nodes(&self, pos: &Position) -> Result<Vec<(TreeId, ProofEntry)>> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare_cached(
                "SELECT tree_id, kind, from_sq, to_sq, captured, leaf, checksum FROM tree_nodes \
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
            let (from, to, cap): (Option<i64>, Option<i64>, Option<i64>) = (
                r.get(2).map_err(|e| self.sq(e))?,
                r.get(3).map_err(|e| self.sq(e))?,
                r.get(4).map_err(|e| self.sq(e))?,
            );
            let stored: Option<i64> = r.get(6).map_err(|e| self.sq(e))?;
            let key = pos_key(pos);
            let seal = node_seal(
                id,
                &key,
                stm_code(pos),
                &kind,
                from,
                to,
                cap,
                leaf.as_deref(),
            );
            if stored != Some(seal) {
                return Err(self.corrupt(format!(
                    "tree {id}: node {} has a checksum mismatch (the row was changed)",
                    to_fen(pos)
                )));
            }
            let entry = decode_entry(&kind, from, to, cap, leaf.as_deref())
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

/// Writes `tree` (sealed, with its database size) inside the caller's
/// transaction on `tx`, replacing the tree of the same root and question;
/// `path` names the store in errors.
pub(crate) fn insert_tree_on(
    tx: &Connection,
    path: &std::path::Path,
    tree: &ProofTree,
    run_id: &str,
    egdb_pieces: u32,
    now: i64,
) -> Result<TreeId> {
    let sq = |e| crate::error::StoreError::sqlite(path, e);
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
        "INSERT INTO trees (root_pos, root_stm, question, node_count, created, run_id, egdb_pieces) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            &pos_key(&tree.root)[..],
            stm_code(&tree.root),
            tree.question.name(),
            tree.nodes.len() as i64,
            now,
            run_id,
            egdb_pieces as i64
        ],
    )
    .map_err(sq)?;
    let id = tx.last_insert_rowid();
    let mut ins = tx
        .prepare_cached(
            "INSERT INTO tree_nodes (tree_id, pos, stm, kind, from_sq, to_sq, captured, leaf, checksum) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )
        .map_err(sq)?;
    let mut seals = Vec::with_capacity(tree.nodes.len());
    for (pos, entry) in &tree.nodes {
        let (kind, from, to, cap, leaf) = encode_entry(entry);
        let key = pos_key(pos);
        let seal = node_seal(id, &key, stm_code(pos), kind, from, to, cap, leaf);
        seals.push((key, stm_code(pos), seal));
        ins.execute(params![
            id,
            &key[..],
            stm_code(pos),
            kind,
            from,
            to,
            cap,
            leaf,
            seal
        ])
        .map_err(|e| match e {
            rusqlite::Error::SqliteFailure(f, _)
                if f.code == rusqlite::ErrorCode::ConstraintViolation =>
            {
                crate::error::StoreError::Invalid {
                    path: path.to_path_buf(),
                    detail: format!("proof tree lists {} twice", to_fen(pos)),
                }
            }
            e => crate::error::StoreError::sqlite(path, e),
        })?;
    }
    seals.sort_unstable();
    let root_key = pos_key(&tree.root);
    let row = TreeRow {
        id,
        root_key: &root_key,
        root_stm: stm_code(&tree.root),
        question: tree.question.name(),
        node_count: tree.nodes.len() as i64,
        created: now,
        run_id,
        egdb_pieces: egdb_pieces as i64,
    };
    let seal = tree_seal(&row, seals.iter().map(|s| s.2));
    tx.execute(
        "UPDATE trees SET checksum = ?2 WHERE id = ?1",
        params![id, seal],
    )
    .map_err(sq)?;
    Ok(id)
}

/// Folds `rec` in with the trees that prove it, inside the caller's
/// transaction on `tx`: a result that contradicts the stored proved one is
/// refused before any tree is written (so that a contradicting tree never
/// sits beside the result it contradicts); otherwise the trees are
/// written, then the result is applied as [`crate::results::apply`] does.
/// The caller rolls back when the answer is not [`Applied::Done`].
pub(crate) fn apply_proof(
    tx: &Connection,
    path: &std::path::Path,
    rec: &crate::results::ResultRecord,
    trees: &[ProofTree],
    run_id: &str,
) -> Result<crate::results::Applied> {
    use crate::results::{self, Applied};
    let sq = |e| crate::error::StoreError::sqlite(path, e);
    if let Some(stored) = results::select(tx, &rec.position).map_err(sq)? {
        if let Err(c) = stored.outcome.intersect(rec.outcome) {
            return Ok(Applied::Refused(c));
        }
    }
    for t in trees {
        insert_tree_on(
            tx,
            path,
            t,
            run_id,
            rec.provenance.egdb_pieces,
            rec.proved_at,
        )?;
    }
    results::apply(tx, rec).map_err(sq)
}

/// What is wrong with one node row of a tree, as [`TreeAcc::push`] finds
/// it (the store reports it as corruption of the tree).
#[derive(Debug, Error)]
enum NodeRowError {
    /// The row's seal does not match its columns.
    #[error("node {node} of {of}: checksum mismatch (the row was changed)")]
    Seal {
        /// The node's number in the order the rows are read, from 1.
        node: usize,
        /// The tree's node count.
        of: u64,
    },
    /// A column does not decode.
    #[error(transparent)]
    Decode(#[from] DecodeError),
}

/// A node row read: its position and entry, or what is wrong with it.
type NodeRow = std::result::Result<(Position, ProofEntry), NodeRowError>;

/// One tree's nodes as they are read, with their seals.
struct TreeAcc {
    id: TreeId,
    node_count: u64,
    nodes: Vec<(Position, ProofEntry)>,
    seals: Vec<i64>,
}

impl TreeAcc {
    fn new(info: &TreeInfo) -> TreeAcc {
        let cap = info.node_count.min(1 << 20) as usize;
        TreeAcc {
            id: info.id,
            node_count: info.node_count,
            nodes: Vec::with_capacity(cap),
            seals: Vec::with_capacity(cap),
        }
    }

    /// Reads one node row (`pos, stm, kind, from_sq, to_sq, captured,
    /// leaf, checksum`), checking its seal and its move.
    fn push(&mut self, store: &Store, r: &rusqlite::Row<'_>) -> Result<()> {
        let id = self.id;
        let node = (|| -> rusqlite::Result<NodeRow> {
            let key: Vec<u8> = r.get(0)?;
            let stm: i64 = r.get(1)?;
            let kind: String = r.get(2)?;
            let leaf: Option<String> = r.get(6)?;
            let stored: Option<i64> = r.get(7)?;
            let (from, to, cap): (Option<i64>, Option<i64>, Option<i64>) =
                (r.get(3)?, r.get(4)?, r.get(5)?);
            let seal = node_seal(id, &key, stm, &kind, from, to, cap, leaf.as_deref());
            if stored != Some(seal) {
                return Ok(Err(NodeRowError::Seal {
                    node: self.seals.len() + 1,
                    of: self.node_count,
                }));
            }
            self.seals.push(seal);
            let pos = match decode_pos(&key, stm) {
                Ok(p) => p,
                Err(e) => return Ok(Err(e.into())),
            };
            match decode_entry(&kind, from, to, cap, leaf.as_deref()) {
                Ok(e) => Ok(Ok((pos, e))),
                Err(e) => Ok(Err(e.into())),
            }
        })()
        .map_err(|e| store.sq(e))?
        .map_err(|d| store.corrupt(format!("tree {id} node: {d}")))?;
        let node = match node {
            (pos, ProofEntry::Prover(m)) => match legal_twin(&pos, &m) {
                Some(m) => (pos, ProofEntry::Prover(m)),
                None => {
                    return Err(store.corrupt(format!(
                        "tree {id}: move {m} is not legal in {}",
                        to_fen(&pos)
                    )))
                }
            },
            n => n,
        };
        self.nodes.push(node);
        Ok(())
    }

    /// The tree, once its row's seal over its nodes holds.
    fn finish(self, store: &Store, info: &TreeInfo) -> Result<ProofTree> {
        let root_key = pos_key(&info.root);
        let row = TreeRow {
            id: info.id,
            root_key: &root_key,
            root_stm: stm_code(&info.root),
            question: info.question.name(),
            node_count: self.nodes.len() as i64,
            created: info.created,
            run_id: &info.run_id,
            egdb_pieces: info.egdb_pieces as i64,
        };
        if self.nodes.len() as u64 != info.node_count
            || info.checksum != Some(tree_seal(&row, self.seals.into_iter()))
        {
            return Err(store.corrupt(format!(
                "tree {}: checksum mismatch (its row or its set of {} nodes was changed)",
                info.id,
                self.nodes.len()
            )));
        }
        Ok(ProofTree {
            root: info.root,
            question: info.question,
            nodes: self.nodes,
        })
    }
}
