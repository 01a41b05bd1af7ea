//! A corrupt, foreign, truncated, newer or missing store file is refused
//! with an error that names the file and the problem; nothing panics.

mod common;

use common::{store_path, synthetic, temp_dir};
use proofdb::{Outcome, Provenance, Store, StoreError};
use std::path::{Path, PathBuf};
use tempfile::TempDir;

fn filled(path: &Path, n: u64) {
    let w = proofdb::Writer::open(path, proofdb::WriterOptions::default()).unwrap();
    let h = w.handle();
    for i in 0..n {
        let rec = proofdb::ResultRecord::new(
            synthetic(i),
            Outcome::AtLeastDraw,
            Provenance::default(),
            0,
        );
        common::send(&h, rec).unwrap();
    }
    assert_eq!(w.finish().unwrap().new, n);
}

/// A fresh folder named after `name` holding a store `s.sqlite` of `n`
/// results ([`filled`]), and the store's path.
fn filled_store(name: &str, n: u64) -> (TempDir, PathBuf) {
    let (tmp, p) = store_path(name);
    filled(&p, n);
    (tmp, p)
}

/// The error of `$open`, asserted to match `$refusal`.
macro_rules! refused {
    ($open:expr, $refusal:pat) => {{
        let e = $open.unwrap_err();
        assert!(matches!(e, $refusal), "{e}");
        e
    }};
}

fn names_file(e: &StoreError, path: &Path) {
    let msg = e.to_string();
    assert!(msg.contains(&path.display().to_string()), "{msg}");
}

#[test]
fn non_sqlite_file_is_refused() {
    let tmp = temp_dir("bad");
    let dir = tmp.path();
    let p = dir.join("notes.txt");
    std::fs::write(
        &p,
        "these are not the proofs you are looking for\n".repeat(50),
    )
    .unwrap();
    let e = refused!(Store::open(&p), StoreError::NotSqlite { .. });
    names_file(&e, &p);
    assert!(e.to_string().contains("not a proof store"));
    // Unchanged on disk.
    assert!(std::fs::read_to_string(&p).unwrap().starts_with("these"));
    let tiny = dir.join("tiny");
    std::fs::write(&tiny, b"SQLite").unwrap();
    refused!(Store::open(&tiny), StoreError::NotSqlite { .. });
    refused!(Store::open(dir), StoreError::NotSqlite { .. });
}

#[test]
fn foreign_sqlite_file_is_refused() {
    let tmp = temp_dir("foreign");
    let dir = tmp.path();
    let p = dir.join("other.sqlite");
    {
        let c = rusqlite::Connection::open(&p).unwrap();
        c.execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
            .unwrap();
    }
    let e = refused!(Store::open(&p), StoreError::Foreign { found: 0, .. });
    names_file(&e, &p);
    let q = dir.join("other2.sqlite");
    {
        let c = rusqlite::Connection::open(&q).unwrap();
        c.execute_batch("PRAGMA application_id = 1234; CREATE TABLE t (x);")
            .unwrap();
    }
    refused!(
        Store::open_readonly(&q),
        StoreError::Foreign { found: 1234, .. }
    );
}

#[test]
fn truncated_file_is_refused() {
    let (_tmp, p) = filled_store("trunc", 3000);
    let len = std::fs::metadata(&p).unwrap().len();
    assert!(len > 8192, "{len}");
    let f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
    f.set_len(len / 2).unwrap();
    drop(f);
    let e = refused!(Store::open(&p), StoreError::Truncated { .. });
    names_file(&e, &p);
    assert!(Store::open_readonly(&p).is_err());
    // Cut inside a page too.
    let f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
    f.set_len(len / 2 - 100).unwrap();
    refused!(Store::open(&p), StoreError::Truncated { .. });
}

#[test]
fn corrupt_pages_are_found() {
    let (tmp, p) = filled_store("corrupt", 3000);
    let dir = tmp.path();
    let mut bytes = std::fs::read(&p).unwrap();
    let page = u16::from_be_bytes([bytes[16], bytes[17]]) as usize;
    // Scribble over every page after the second (table b-tree pages).
    for pg in 2..bytes.len() / page {
        for b in &mut bytes[pg * page..pg * page + 64] {
            *b = 0xA5;
        }
    }
    std::fs::write(&p, &bytes).unwrap();
    let err = match Store::open(&p) {
        Err(e) => e,
        Ok(s) => s.integrity_check().unwrap_err(),
    };
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");
    names_file(&err, &p);

    // A damaged schema page (page 1 after the header) is refused on open.
    let q = dir.join("q.sqlite");
    filled(&q, 10);
    let mut bytes = std::fs::read(&q).unwrap();
    for b in &mut bytes[100..400] {
        *b = 0xFF;
    }
    std::fs::write(&q, &bytes).unwrap();
    let e = refused!(
        Store::open(&q),
        StoreError::Corrupt { .. } | StoreError::NotSqlite { .. }
    );
    names_file(&e, &q);
}

#[test]
fn newer_schema_and_missing_files_are_refused() {
    let (tmp, p) = filled_store("newer", 1);
    let dir = tmp.path();
    {
        let c = rusqlite::Connection::open(&p).unwrap();
        c.execute_batch("PRAGMA user_version = 99;").unwrap();
    }
    refused!(Store::open(&p), StoreError::TooNew { found: 99, .. });
    let missing = dir.join("missing.sqlite");
    let e = Store::open_readonly(&missing).unwrap_err();
    names_file(&e, &missing);
    assert!(!missing.exists());
}
