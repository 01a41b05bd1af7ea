//! Helpers shared by the proofdb integration tests.
#![allow(dead_code)]

use engine::{Color, Position, Value};
use proofdb::Outcome;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use tempfile::TempDir;

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A fresh empty directory under the system temp dir, removed when the
/// returned `TempDir` is dropped.
pub fn temp_dir(name: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("proofdb-{name}-"))
        .tempdir()
        .unwrap()
}

/// A fresh empty directory named after `name` ([`temp_dir`]) and the path
/// of a store `s.sqlite` in it (not created).
pub fn store_path(name: &str) -> (TempDir, PathBuf) {
    let tmp = temp_dir(name);
    let path = tmp.path().join("s.sqlite");
    (tmp, path)
}

/// The `n`th of 2^20 distinct legal positions: Black men on squares 1-12
/// from the low 12 bits, White men on 21-28 from the next 8, Black to move.
pub fn synthetic(n: u64) -> Position {
    let black = (n & 0xFFF) as u32;
    let white = (((n >> 12) & 0xFF) as u32) << 20;
    Position::from_bitboards_unchecked(black, white, 0, Color::Black)
}

/// An outcome that depends on `n`.
pub fn outcome_for(n: u64) -> Outcome {
    match n % 5 {
        0 => Outcome::Exact(Value::Win),
        1 => Outcome::Exact(Value::Draw),
        2 => Outcome::Exact(Value::Loss),
        3 => Outcome::AtLeastDraw,
        _ => Outcome::AtMostDraw,
    }
}

/// The `n`th synthetic record: [`synthetic`] position, [`outcome_for`]
/// outcome, `n` nodes in a millisecond by `solver` (also its run id), no
/// database, `proof_size`.
pub fn synthetic_record(n: u64, solver: &str, proof_size: u64) -> proofdb::ResultRecord {
    let prov = proofdb::Provenance {
        solver: solver.into(),
        nodes: n,
        millis: 1,
        egdb_pieces: 0,
        run_id: solver.into(),
    };
    proofdb::ResultRecord::new(synthetic(n), outcome_for(n), prov, proof_size)
}

/// The seed of the tests' pseudo-random choices: `$PROOFDB_TEST_SEED`,
/// else a fixed one; printed once, so that a failure names the seed that
/// replays its choices.
pub fn test_seed() -> u64 {
    static SEED: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *SEED.get_or_init(|| {
        let seed = std::env::var("PROOFDB_TEST_SEED")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0x5EED_2026);
        eprintln!("pseudo-random choices from seed {seed} (PROOFDB_TEST_SEED={seed} replays them)");
        seed
    })
}

/// The next pseudo-random number of the sequence [`test_seed`] starts
/// (splitmix64 of the seed and a counter).
pub fn random_u64() -> u64 {
    let k = COUNTER.fetch_add(1, Ordering::Relaxed) as u64;
    let mut x = test_seed().wrapping_add(k.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Stores `o` for `pos` with placeholder trees behind it
/// ([`proofdb::testing::unverified_trees`]), as [`proofdb::Store::put`]
/// would with real ones.
pub fn put(
    store: &proofdb::Store,
    pos: &Position,
    o: Outcome,
    prov: &proofdb::Provenance,
) -> Result<proofdb::PutEffect, proofdb::StoreError> {
    proofdb::testing::put_outcome_unverified(store, pos, o, prov)
}

/// [`put`] of a whole record.
pub fn put_rec(
    store: &proofdb::Store,
    rec: &proofdb::ResultRecord,
) -> Result<proofdb::PutEffect, proofdb::StoreError> {
    proofdb::testing::put_unverified(store, rec)
}

/// Sends `rec` to a writer with placeholder trees behind it.
pub fn send(
    h: &proofdb::WriterHandle,
    rec: proofdb::ResultRecord,
) -> Result<(), proofdb::StoreError> {
    let trees = proofdb::testing::unverified_trees(rec.position, rec.outcome);
    h.put_proof(rec, trees, "test")
}
