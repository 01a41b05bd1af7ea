//! Perft regression data: every `tests/data/*.perft` file, each citing its
//! source in its `#` header. Entries above [`LIGHT_LIMIT`] nodes run only
//! with `--ignored` (scripts/heavy-tests.sh).

use engine::notation::fen::parse_fen;
use engine::perft::{perft_parallel, Counting};

const LIGHT_LIMIT: u64 = 100_000_000;

struct Entry {
    file: String,
    line: usize,
    fen: String,
    depth: u32,
    every_path: u64,
    distinct: Option<u64>,
}

fn entries() -> Vec<Entry> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("tests/data exists")
        .map(|e| e.expect("readable dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "perft"))
        .collect();
    files.sort();
    assert!(files.len() >= 2, "perft data files missing");
    let mut out = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("readable perft file");
        assert!(
            text.starts_with('#'),
            "{} must cite its source",
            path.display()
        );
        for (i, line) in text.lines().enumerate() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 4, "{}:{}: four fields", path.display(), i + 1);
            out.push(Entry {
                file: path.file_name().unwrap().to_string_lossy().into_owned(),
                line: i + 1,
                fen: f[0].to_string(),
                depth: f[1].parse().expect("depth"),
                every_path: f[2].parse().expect("node count"),
                distinct: f[3].parse().ok(),
            });
        }
    }
    out
}

fn check(heavy: bool) -> usize {
    let mut checked = 0;
    for e in entries() {
        if (e.every_path > LIGHT_LIMIT) != heavy {
            continue;
        }
        let pos = parse_fen(&e.fen).expect("valid FEN in perft data");
        let got = perft_parallel(&pos, e.depth, Counting::EveryPath);
        assert_eq!(
            got, e.every_path,
            "{}:{} {} depth {}",
            e.file, e.line, e.fen, e.depth
        );
        if let Some(d) = e.distinct {
            let got = perft_parallel(&pos, e.depth, Counting::Distinct);
            assert_eq!(
                got, d,
                "{}:{} distinct {} depth {}",
                e.file, e.line, e.fen, e.depth
            );
        }
        checked += 1;
    }
    checked
}

#[test]
fn light_perft_entries() {
    assert!(check(false) >= 50);
}

#[test]
#[ignore = "heavy: depths 12-14 from the start (scripts/heavy-tests.sh)"]
fn heavy_perft_entries() {
    assert!(check(true) >= 3);
}
