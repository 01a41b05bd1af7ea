//! Issue 28: one move-text parser. `play` reads typed moves with the
//! same rules, and the same error, as `pdn check` reads a game file.

mod common;

use common::{run_without_databases, temp_dir, Ran};

const FEN: &str = "B:W6,15,30:B1";

fn run(args: &[&str], stdin: Option<&[u8]>) -> Ran {
    run_without_databases("move-text", args, stdin)
}

/// The message of the one parser for `1x6x19` in [`FEN`] (6 is a
/// captured square, not a landing square).
const REFUSAL: &str = "1x6x19 is not legal here; legal: 1x19";

#[test]
fn play_refuses_a_capture_path_through_a_captured_square_as_pdn_check_does() {
    let r = run(&["play", "--fen", FEN], Some(b"1x6x19\nquit\n"));
    assert_eq!(r.code, Some(0), "{r:?}");
    assert!(r.stdout.contains(REFUSAL), "{}", r.stdout);
    assert!(!r.stdout.contains("engine plays"), "{}", r.stdout);

    let dir = temp_dir("move-text-pdn");
    let pdn = dir.path().join("g.pdn");
    std::fs::write(
        &pdn,
        format!("[SetUp \"1\"]\n[FEN \"{FEN}\"]\n1. 1x6x19 *\n"),
    )
    .unwrap();
    let r = run(&["pdn", "check", pdn.to_str().unwrap()], None);
    assert!(
        r.stdout.contains(REFUSAL) || r.stderr.contains(REFUSAL),
        "{r:?}"
    );
}

#[test]
fn play_accepts_the_landing_squares_and_the_short_form() {
    for text in ["1x10x19", "1x19"] {
        let input = format!("{text}\nquit\n");
        let r = run(&["play", "--fen", FEN], Some(input.as_bytes()));
        assert_eq!(r.code, Some(0), "{r:?}");
        assert!(!r.stdout.contains("not legal"), "{text}: {}", r.stdout);
        assert!(r.stdout.contains("1. 1x19"), "{text}: {}", r.stdout);
    }
}
