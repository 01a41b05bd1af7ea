//! Endgame databases built to 4 pieces in a temporary folder: known
//! values, an independent solver on up to 3 pieces, minimax cross-checks,
//! full consistency, and refusal of damaged files.

use engine::egdb::file::SliceFile;
use engine::egdb::slice::all_slices;
use engine::egdb::verify::verify_slice;
use engine::egdb::{ensure, BuildMemory, Egdb, EgdbError, NoProgress, SliceKey};
use engine::notation::fen::parse_fen;
use engine::{Color, MoveList, Oracle, Position, Value};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;
use tempfile::TempDir;

const PIECES: u32 = 4;

/// A fresh empty folder under the system temp dir, removed when the
/// returned `TempDir` is dropped.
fn temp_dir(name: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("checkers-egdb-{name}-"))
        .tempdir()
        .unwrap()
}

/// The database built to `PIECES` once per process, shared by the tests.
/// A static is never dropped, so its folder is under Cargo's scratch
/// folder for integration tests (target/tmp, removed by `cargo clean`)
/// rather than the system temp dir.
fn db() -> &'static Egdb {
    static DB: OnceLock<(TempDir, Egdb)> = OnceLock::new();
    &DB.get_or_init(|| {
        let dir = tempfile::Builder::new()
            .prefix("checkers-egdb-built-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap();
        let db = ensure(dir.path(), PIECES, &NoProgress, &BuildMemory::UNLIMITED).expect("build");
        assert_eq!(db.max_pieces(), PIECES);
        // Reopening from the files gives the same database.
        let again = Egdb::open(dir.path()).expect("reopen");
        assert_eq!(again.max_pieces(), PIECES);
        (dir, again)
    })
    .1
}

/// Checks every position of known-positions.tsv with at most `max`
/// pieces; returns how many.
fn check_known(db: &Egdb, max: u32) -> usize {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/known-positions.tsv"
    );
    let text = std::fs::read_to_string(path).expect("known-positions.tsv");
    let mut checked = 0;
    for line in text.lines() {
        if line.starts_with('#') || line.starts_with("pieces") || line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        let pieces: u32 = f[0].parse().unwrap();
        if pieces > max {
            continue;
        }
        let pos = parse_fen(f[1]).unwrap();
        let want = match f[2] {
            "win" => Value::Win,
            "draw" => Value::Draw,
            "loss" => Value::Loss,
            v => panic!("bad value {v}"),
        };
        assert_eq!(db.probe(&pos), Some(want), "{}", f[1]);
        assert_eq!(db.probe(&pos.flipped()), Some(want), "flipped {}", f[1]);
        checked += 1;
    }
    checked
}

#[test]
fn known_positions_get_their_values() {
    let checked = check_known(db(), PIECES);
    assert!(checked >= 6, "only {checked} known positions checked");
}

/// Builds 5 pieces in a temporary folder (about a minute in release):
/// known values and full consistency.
#[test]
#[ignore]
fn five_pieces_known_values_and_consistency() {
    let dir = temp_dir("five");
    let db = ensure(dir.path(), 5, &NoProgress, &BuildMemory::UNLIMITED).expect("build");
    assert!(check_known(&db, 5) >= 12);
    for f in db.slices() {
        let r = verify_slice(&db, f, &|_| {}).unwrap();
        assert_eq!(r.inconsistent, 0, "{:?}", r.examples);
    }
}

/// Known values of up to 6 pieces, in $CHECKERS_EGDB (built there first
/// if missing: tens of minutes).
#[test]
#[ignore]
fn six_pieces_known_values() {
    let dir = engine::egdb::default_dir();
    let db = ensure(&dir, 6, &NoProgress, &BuildMemory::UNLIMITED).expect("build");
    assert!(check_known(&db, 6) >= 18);
}

type Key = (u32, u32, u32, Color);

/// Every placement of `n` pieces with both colours present, both sides to
/// move, enumerated square by square (independent of the database index).
fn enumerate(n: u32, out: &mut Vec<Position>) {
    fn rec(from: u32, left: u32, b: u32, w: u32, k: u32, out: &mut Vec<Position>) {
        if left == 0 {
            if b != 0 && w != 0 {
                for side in [Color::Black, Color::White] {
                    out.push(Position::from_bitboards_unchecked(b, w, k, side));
                }
            }
            return;
        }
        for sq in from..32 {
            let bit = 1u32 << sq;
            let row = sq / 4;
            if row != 7 {
                rec(sq + 1, left - 1, b | bit, w, k, out);
            }
            rec(sq + 1, left - 1, b | bit, w, k | bit, out);
            if row != 0 {
                rec(sq + 1, left - 1, b, w | bit, k, out);
            }
            rec(sq + 1, left - 1, b, w | bit, k | bit, out);
        }
    }
    rec(0, n, 0, 0, 0, out);
}

/// Values of every position with 2-3 pieces by naive fixed-point
/// iteration over forward moves.
fn naive_values() -> HashMap<Key, Value> {
    let mut all = Vec::new();
    for n in 2..=3 {
        enumerate(n, &mut all);
    }
    let mut val: HashMap<Key, Value> = HashMap::new();
    let mut list = MoveList::new();
    loop {
        let mut changed = false;
        for p in &all {
            if val.contains_key(&p.parts()) {
                continue;
            }
            p.legal_moves(&mut list);
            let mut any_loss = false;
            let mut all_win = true;
            for m in list.iter() {
                let s = p.play_unchecked(m);
                let v = if s.pieces(s.side_to_move()) == 0 {
                    Some(Value::Loss)
                } else {
                    val.get(&s.parts()).copied()
                };
                match v {
                    Some(Value::Loss) => any_loss = true,
                    Some(Value::Win) => {}
                    _ => all_win = false,
                }
            }
            let v = if any_loss {
                Some(Value::Win)
            } else if all_win {
                Some(Value::Loss)
            } else {
                None
            };
            if let Some(v) = v {
                val.insert(p.parts(), v);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for p in &all {
        val.entry(p.parts()).or_insert(Value::Draw);
    }
    val
}

#[test]
fn an_independent_solver_agrees_on_up_to_three_pieces() {
    let db = db();
    let naive = naive_values();
    assert_eq!(naive.len(), 399_040);
    for (&(b, w, k, side), &v) in &naive {
        let p = Position::from_bitboards_unchecked(b, w, k, side);
        assert_eq!(db.probe(&p), Some(v), "{p:?}");
    }
}

/// Plain minimax to `depth` plies with database leaves.
fn minimax(db: &Egdb, p: &Position, depth: u32) -> Value {
    if depth == 0 {
        return db.probe(p).expect("leaf in the database");
    }
    let moves = p.moves();
    if moves.is_empty() {
        return Value::Loss;
    }
    let mut best = Value::Loss;
    for m in moves.iter() {
        let s = p.play_unchecked(m);
        let v = if s.pieces(s.side_to_move()) == 0 {
            Value::Win
        } else {
            minimax(db, &s, depth - 1).negate()
        };
        best = best.max(v);
    }
    best
}

#[test]
fn minimax_to_database_leaves_agrees() {
    let db = db();
    let mut all = Vec::new();
    enumerate(4, &mut all);
    let mut rng = engine::rng::XorShift64::default();
    for _ in 0..3000 {
        let p = all[rng.index(all.len())];
        assert_eq!(Some(minimax(db, &p, 3)), db.probe(&p), "{p:?}");
    }
}

#[test]
fn every_stored_value_is_consistent_with_its_successors() {
    let db = db();
    let mut checked = 0;
    for f in db.slices() {
        let r = verify_slice(db, f, &|_| {}).unwrap();
        assert_eq!(r.inconsistent, 0, "{:?}", r.examples);
        checked += r.checked;
    }
    assert!(checked > 1_000_000);
}

/// One slice file of the built database, damaged by `f`, alone in a
/// temporary folder (kept while the returned `TempDir` lives): its path
/// and what opening the folder gives.
fn damaged(
    name: &str,
    f: impl FnOnce(&mut Vec<u8>),
) -> (TempDir, PathBuf, Result<Egdb, EgdbError>) {
    let src = db();
    let s = SliceKey::parse("1m1k@3-0m1k").unwrap();
    let dir = temp_dir(name);
    let mut bytes = std::fs::read(src.dir().join(s.file_name())).unwrap();
    f(&mut bytes);
    let path = dir.path().join(s.file_name());
    std::fs::write(&path, &bytes).unwrap();
    let r = Egdb::open(dir.path());
    (dir, path, r)
}

#[test]
fn damaged_files_are_refused_with_the_file_named() {
    type Damage = Box<dyn FnOnce(&mut Vec<u8>)>;
    let cases: Vec<(&str, Damage)> = vec![
        (
            "truncated",
            Box::new(|b: &mut Vec<u8>| b.truncate(b.len() - 3)),
        ),
        (
            "truncated-header",
            Box::new(|b: &mut Vec<u8>| b.truncate(40)),
        ),
        (
            "flipped",
            Box::new(|b: &mut Vec<u8>| {
                let n = b.len();
                b[n - 2] ^= 0x10
            }),
        ),
        ("flipped-header", Box::new(|b: &mut Vec<u8>| b[50] ^= 1)),
        ("version", Box::new(|b: &mut Vec<u8>| b[8] = 9)),
        ("magic", Box::new(|b: &mut Vec<u8>| b[0] = b'X')),
        ("empty", Box::new(|b: &mut Vec<u8>| b.clear())),
    ];
    for (name, f) in cases {
        let (_dir, path, r) = damaged(name, f);
        let e = r.err().unwrap_or_else(|| panic!("{name}: accepted"));
        let msg = e.to_string();
        assert!(msg.contains(&path.display().to_string()), "{name}: {msg}");
        match name {
            "version" => assert!(matches!(e, EgdbError::WrongVersion { found: 9, .. })),
            "magic" | "empty" => assert!(matches!(e, EgdbError::Foreign { .. })),
            _ => assert!(matches!(e, EgdbError::Corrupted { .. }), "{name}: {e}"),
        }
    }
    // A file holding another slice under this slice's name.
    let src = db();
    let tmp = temp_dir("foreign-slice");
    let dir = tmp.path();
    let a = SliceKey::parse("1m1k@3-0m1k").unwrap();
    let b = SliceKey::parse("0m2k-0m1k").unwrap();
    std::fs::copy(src.dir().join(b.file_name()), dir.join(a.file_name())).unwrap();
    let e = SliceFile::open(&dir.join(a.file_name()), a).err().unwrap();
    assert!(e.to_string().contains("holds slice"), "{e}");
}

#[test]
fn positions_beyond_the_built_pieces_are_not_answered() {
    let db = db();
    let p = parse_fen("W:WK19,K23,K24:B12,K28").unwrap();
    assert_eq!(db.probe(&p), None);
    assert!(all_slices(PIECES).iter().all(|s| db.has(s)));
}

#[test]
fn a_build_sets_older_format_files_aside_and_rebuilds_them() {
    let src = db();
    // Both ways into a build: every slice up to 3 pieces, and one 4-piece
    // slice with what it needs.
    let four = SliceKey::parse("0m2k-0m2k").unwrap();
    for whole in [true, false] {
        let tmp = temp_dir("old-version");
        let dir = tmp.path();
        for s in all_slices(3) {
            std::fs::copy(src.dir().join(s.file_name()), dir.join(s.file_name())).unwrap();
        }
        let old = SliceKey::parse("0m2k-0m1k").unwrap();
        let path = dir.join(old.file_name());
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
        std::fs::write(&path, &bytes).unwrap();
        // Opened as it is, the file is refused with its version...
        let e = Egdb::open(dir).err().expect("old version refused");
        assert!(matches!(e, EgdbError::WrongVersion { found: 1, .. }), "{e}");
        // ... and a build keeps it under another name and replaces it.
        let db = if whole {
            ensure(dir, 3, &NoProgress, &BuildMemory::UNLIMITED).expect("rebuild")
        } else {
            engine::egdb::build::ensure_slice(dir, four, &NoProgress, &BuildMemory::UNLIMITED)
                .expect("rebuild")
        };
        assert_eq!(db.max_pieces(), 3, "whole: {whole}");
        assert!(dir.join(format!("{}.v1", old.file_name())).exists());
        assert_eq!(
            std::fs::read(&path).unwrap(),
            std::fs::read(src.dir().join(old.file_name())).unwrap()
        );
    }
}

#[test]
fn a_slice_builds_from_exactly_the_slices_build_reads_names() {
    // Each 4-piece slice is built alone in a folder holding only the
    // slices `build_reads` names (of fewer pieces, those a game from it
    // may enter; of 4, those `reads` names): the build must not miss any
    // (it would stop with MissingSlice) and must give the same file as
    // the full build.
    let src = db();
    let fewer: Vec<SliceKey> = all_slices(PIECES - 1);
    let four: Vec<SliceKey> = engine::egdb::slice::slices_with(PIECES);
    let mut with_reads = 0;
    let mut fewer_skipped = 0;
    for s in &four {
        let tmp = temp_dir("reads");
        let dir = tmp.path();
        let reads = engine::egdb::build::build_reads(*s);
        for d in &reads {
            assert!(s.depends_on(d), "{s} reads {d} but is not after it");
            std::fs::hard_link(src.dir().join(d.file_name()), dir.join(d.file_name())).unwrap();
        }
        fewer_skipped += fewer.iter().filter(|d| !reads.contains(d)).count();
        with_reads += four.iter().any(|d| s.reads(d)) as usize;
        engine::egdb::build::build_one(dir, *s, &NoProgress, &BuildMemory::UNLIMITED)
            .unwrap_or_else(|e| panic!("{s}: {e}"));
        assert_eq!(
            std::fs::read(dir.join(s.file_name())).unwrap(),
            std::fs::read(src.dir().join(s.file_name())).unwrap(),
            "{s}"
        );
    }
    assert!(
        with_reads > 100,
        "{with_reads} slices read same-size slices"
    );
    assert!(
        fewer_skipped > 1000,
        "{fewer_skipped}: slices of fewer pieces left out of the builds"
    );
}

#[test]
fn files_read_into_memory_answer_as_the_mapped_ones() {
    let mapped = db();
    let loaded = Egdb::open_in_memory(mapped.dir()).expect("load");
    assert_eq!(loaded.max_pieces(), PIECES);
    assert_eq!(loaded.slices().len(), mapped.slices().len());
    let mut all = Vec::new();
    enumerate(PIECES, &mut all);
    let mut wins = 0;
    for p in &all {
        let v = loaded.probe(p);
        assert_eq!(v, mapped.probe(p), "{p:?}");
        wins += (v == Some(Value::Win)) as u32;
    }
    assert!(wins > 0);
    // A damaged file is refused from memory too.
    let (_dir, path, r) = damaged("in-memory", |b| b[200] ^= 0x10);
    assert!(r.is_err());
    let e = Egdb::open_in_memory(path.parent().unwrap())
        .err()
        .expect("refused");
    assert!(e.to_string().contains("1m1k@3-0m1k"), "{e}");
}

#[test]
fn a_piece_limit_hides_the_larger_slices() {
    let mut db = Egdb::open(db().dir()).expect("reopen");
    let quiet_four = parse_fen("B:WK29,K30:BK1,K3").unwrap();
    let capture_four = parse_fen("B:W18,K30:B14,K3").unwrap();
    let three = parse_fen("B:W18:B14,K3").unwrap();
    assert!(!quiet_four.has_capture() && capture_four.has_capture());
    for p in [&quiet_four, &capture_four, &three] {
        assert!(db.probe(p).is_some(), "{p:?}");
    }
    let capture_value = db.probe(&capture_four);
    db.limit_pieces(3);
    assert_eq!(db.max_pieces(), 3);
    assert_eq!(
        db.probe(&quiet_four),
        None,
        "a 4-piece slice past the limit"
    );
    assert_eq!(
        db.probe(&capture_four),
        capture_value,
        "captures into 3 pieces are still resolved"
    );
    assert!(db.probe(&three).is_some());
}

#[test]
fn probing_many_positions_at_once_answers_as_one_at_a_time() {
    let mut db = Egdb::open(db().dir()).expect("reopen");
    let mut all = Vec::new();
    enumerate(PIECES, &mut all);
    // Both sides to move, and positions past the databases.
    let mut ps = vec![
        Position::initial(),
        parse_fen("B:W28,29,K30:B1,K3").unwrap(),
        parse_fen("B:W18,21,K30:B14,K3").unwrap(),
    ];
    ps.extend(all.iter().step_by(7).copied());
    ps.extend(all.iter().step_by(11).map(|p| p.with_side(Color::White)));
    let check = |db: &Egdb| {
        // An odd length, so the last group is partial.
        let ps = &ps[..ps.len() / 2 * 2 - 1];
        let mut out = vec![Some(Value::Draw); ps.len()];
        db.probe_many(ps, &mut out);
        let (mut stored, mut none) = (0, 0);
        for (p, v) in ps.iter().zip(&out) {
            assert_eq!(*v, db.probe(p), "{p:?}");
            stored += (v.is_some() && !p.has_capture()) as u32;
            none += v.is_none() as u32;
        }
        (stored, none)
    };
    let (stored, none) = check(&db);
    assert!(
        stored > 1000 && none >= 2,
        "{stored} stored, {none} unanswered"
    );
    db.limit_pieces(3);
    let (_, none3) = check(&db);
    assert!(none3 > none, "the limit hides the 4-piece slices");
    // A shorter output: only that many positions are probed.
    let mut out = vec![None; 3];
    db.probe_many(&ps, &mut out);
    assert_eq!(out, ps[..3].iter().map(|p| db.probe(p)).collect::<Vec<_>>());
}

#[test]
fn tables_decoded_into_memory_answer_as_the_files_do() {
    let files = db();
    let mut all = Vec::new();
    enumerate(PIECES, &mut all);
    let whites: Vec<Position> = all
        .iter()
        .step_by(5)
        .map(|p| p.with_side(Color::White))
        .collect();
    all.extend(whites);
    let expected: Vec<Option<Value>> = all.iter().map(|p| files.probe(p)).collect();
    let check = |db: &Egdb, what: &str| {
        for (p, v) in all.iter().zip(&expected) {
            assert_eq!(db.probe(p), *v, "{what}: {p:?}");
        }
        let mut out = vec![None; all.len()];
        db.probe_many(&all, &mut out);
        assert!(out == expected, "{what}: probe_many differs");
    };
    // Everything decoded.
    let mut db = Egdb::open(files.dir()).expect("reopen");
    let u = db.unpack(u64::MAX).expect("unpack");
    let tables: usize = db.slices().iter().map(|f| f.tables().len()).sum();
    assert_eq!((u.tables, u.left_packed), (tables, 0));
    let positions: u64 = db
        .slices()
        .iter()
        .flat_map(|f| f.tables())
        .map(|t| t.size())
        .sum();
    assert_eq!(u.positions, positions);
    assert!(
        u.bytes >= positions / 4 && u.bytes < positions / 4 * 11 / 10,
        "{u:?}"
    );
    check(&db, "all decoded");
    // A budget that holds some tables: the rest are read from the files.
    let u = db.unpack(u.bytes / 3).expect("unpack");
    assert!(u.tables > 0 && u.left_packed > 0, "{u:?}");
    check(&db, "a third decoded");
    // Past the piece limit nothing is decoded, and nothing answered.
    db.limit_pieces(3);
    let u = db.unpack(u64::MAX).expect("unpack");
    assert!(u.positions < positions / 10, "{u:?}");
    let four = parse_fen("B:WK29,K30:BK1,K3").unwrap();
    assert_eq!(db.probe(&four), None);
    // Only the tables of chosen slices: exactly theirs are decoded.
    db.limit_pieces(PIECES);
    let chosen: Vec<SliceKey> = db
        .slices()
        .iter()
        .map(|f| f.header().slice)
        .filter(|s| s.pieces() == PIECES)
        .step_by(3)
        .collect();
    let u = db.unpack_slices(&chosen, u64::MAX).expect("unpack");
    let theirs: Vec<u64> = chosen
        .iter()
        .flat_map(|s| s.tables())
        .map(|k| engine::egdb::index::TableIndex::new(k).size())
        .collect();
    assert_eq!(u.tables, theirs.len(), "{u:?}");
    assert_eq!(u.positions, theirs.iter().sum::<u64>(), "{u:?}");
    check(&db, "chosen slices decoded");
    // Nothing decoded: the files answer alone.
    let mut db = Egdb::open(files.dir()).expect("reopen");
    assert_eq!(db.unpack(0).expect("unpack").tables, 0);
    check(&db, "none decoded");
}
