//! Test helper: deep searches recurse deeply, so tests run them on a
//! thread with a large stack, as `solver::solve` does.

/// Runs `f` on a thread with a 256 MiB stack and returns what it returns
/// (a panic in it fails the test).
pub fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn_scoped(s, f)
            .unwrap()
            .join()
            .unwrap()
    })
}
