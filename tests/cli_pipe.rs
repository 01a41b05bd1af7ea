//! A reader that closes the pipe early (`checkers ... | head`) ends the
//! program quietly, without a panic message.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    // 1491 lines: far more than a pipe buffer holds.
    let mut child = Command::new(env!("CARGO_BIN_EXE_checkers"))
        .args(["egdb", "slices", "--pieces", "7"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run checkers");
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("one line");
    assert!(first.contains("slices of 7 pieces"), "{first}");
    // The reader is dropped here: the pipe is closed.
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("stderr");
    let status = child.wait().expect("wait");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(status.code(), Some(141), "{status:?}: {err}");
}
