//! Helpers shared by the command-line integration tests.

use tempfile::TempDir;

/// A fresh empty folder under the system temp dir named
/// `checkers-{name}-…`, removed when the returned `TempDir` is dropped
/// (also when the test fails).
pub fn temp_dir(name: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("checkers-{name}-"))
        .tempdir()
        .unwrap()
}
