//! `checkers serve` end to end: started on a free port against a store
//! made here, asked over a plain TCP connection.

mod common;

use ballots::tables::BallotTables;
use engine::notation::fen::to_fen;
use engine::{Position, Value};
use proofdb::{Outcome, Provenance, Store};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `checkers serve`, killed when dropped (also when a test
/// fails).
struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `checkers serve --port 0 ARGS` in `dir` without databases and
/// reads the address it prints.
fn serve(dir: &Path, args: &[&str]) -> Server {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_checkers"));
    cmd.args(["serve", "--port", "0", "--egdb-pieces", "0"])
        .args(args);
    start(cmd, dir)
}

/// As [`serve`], with at most `nofile` open file descriptors (`ulimit -n`
/// in a shell that then becomes the server).
fn serve_limited(dir: &Path, nofile: u32, args: &[&str]) -> Server {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!("ulimit -n {nofile} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_checkers"))
        .args(["serve", "--port", "0", "--egdb-pieces", "0"])
        .args(args);
    start(cmd, dir)
}

/// Runs `cmd` in `dir` and reads the address it prints.
fn start(mut cmd: Command, dir: &Path) -> Server {
    let mut child = cmd
        .current_dir(dir)
        .env_remove("CHECKERS_STORE")
        .env_remove("CHECKERS_DATA")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|s| s.split('/').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    Server { child, addr }
}

impl Server {
    /// Whether the server is still running (not ended, by a panic or
    /// otherwise).
    fn alive(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }
}

/// Sends `raw` on a new connection and reads what comes back until the
/// server closes it, an error or 10 s (what was read by then).
fn exchange(addr: &str, raw: &[u8]) -> String {
    let Ok(mut s) = TcpStream::connect(addr) else {
        return String::new();
    };
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.set_write_timeout(Some(Duration::from_secs(10))).unwrap();
    if s.write_all(raw).is_err() {
        return String::new();
    }
    let mut reply = Vec::new();
    let mut buf = [0u8; 4096];
    while let Ok(n @ 1..) = s.read(&mut buf) {
        reply.extend_from_slice(&buf[..n]);
    }
    String::from_utf8_lossy(&reply).into_owned()
}

/// `GET path` over HTTP/1.0: the status code, or `None` when no whole
/// answer came within `timeout`.
fn try_get(addr: &str, path: &str, timeout: Duration) -> Option<u16> {
    let mut s = TcpStream::connect_timeout(&addr.parse().unwrap(), timeout).ok()?;
    s.set_read_timeout(Some(timeout)).ok()?;
    s.set_write_timeout(Some(timeout)).ok()?;
    write!(s, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").ok()?;
    let mut reply = String::new();
    s.read_to_string(&mut reply).ok()?;
    let (head, body) = reply.split_once("\r\n\r\n")?;
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Length: "))?
        .parse()
        .ok()?;
    (body.len() == length).then_some(())?;
    head.split(' ').nth(1)?.parse().ok()
}

/// `GET path` over HTTP/1.0: the status code and the body as JSON.
fn get(addr: &str, path: &str) -> (u16, serde_json::Value) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(s, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    let (head, body) = reply.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    assert!(head.contains("application/json"), "{head}");
    (status, serde_json::from_str(body).unwrap())
}

/// A store with ballot 1's main line to ply 4, ply 4 a (test) draw.
fn store(dir: &Path) -> Position {
    let store = Store::open(dir.join("s.sqlite")).unwrap();
    let line = ballots::testing::line_from_moves(&["9-13", "21-17", "5-9", "25-21"]);
    store.set_main_line(1, &line).unwrap();
    let prov = Provenance {
        solver: "dfpn".into(),
        ..Provenance::default()
    };
    let ply4 = &line[4].position;
    proofdb::testing::put_outcome_unverified(&store, ply4, Outcome::Exact(Value::Draw), &prov)
        .unwrap();
    line[3].position
}

#[test]
fn positions_and_ballots_over_http() {
    let tmp = common::temp_dir("cli-serve");
    let ply3 = store(tmp.path());
    let server = serve(tmp.path(), &["--store", "s.sqlite"]);
    let fen = to_fen(&ply3);
    let (status, j) = get(
        &server.addr,
        &format!("/api/position?fen={}", fen.replace(':', "%3A")),
    );
    assert_eq!(status, 200, "{j}");
    assert_eq!(j["fen"], fen);
    assert_eq!(j["value"]["source"], "open");
    let m = j["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"] == "25-21")
        .unwrap();
    assert_eq!(m["label"], "D");
    assert_eq!(m["value"]["source"], "store");

    let (status, j) = get(&server.addr, "/api/ballots");
    assert_eq!(status, 200);
    assert_eq!(j["ballots"][0]["number"], 1);
    assert_eq!(j["ballots"][0]["frontier_ply"], 4);
    assert_eq!(j["ballots"][0]["label"], "D");

    let (status, j) = get(&server.addr, "/api/ballot/1");
    assert_eq!(status, 200);
    assert_eq!(j["plies"][4]["value"]["label"], "D");
}

#[test]
fn a_bad_fen_is_a_400_naming_it() {
    let tmp = common::temp_dir("cli-serve-bad");
    store(tmp.path());
    let server = serve(tmp.path(), &["--store", "s.sqlite"]);
    let (status, j) = get(&server.addr, "/api/position?fen=B%3AW21-32%3AB1-40");
    assert_eq!(status, 400);
    let e = j["error"].as_str().unwrap();
    assert!(e.contains("bad FEN \"B:W21-32:B1-40\""), "{e}");
    let (status, _) = get(&server.addr, "/api/ballot/2");
    assert_eq!(status, 404);
}

#[test]
fn a_missing_or_foreign_store_stops_it_at_start() {
    let tmp = common::temp_dir("cli-serve-none");
    let dir = tmp.path();
    std::fs::write(dir.join("junk.sqlite"), "not a database").unwrap();
    for (store, says) in [
        ("none.sqlite", "no proof store at none.sqlite"),
        ("junk.sqlite", "junk.sqlite: not a proof store"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_checkers"))
            .args([
                "serve",
                "--port",
                "0",
                "--egdb-pieces",
                "0",
                "--store",
                store,
            ])
            .current_dir(dir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{store}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{err}");
    }
}

/// Issue 52, 1: a request announcing a 100 GB body is refused before it
/// is read (the server used to allocate it and abort).
#[test]
fn a_huge_request_body_is_refused_unread() {
    let tmp = common::temp_dir("cli-serve-body");
    store(tmp.path());
    let mut server = serve(tmp.path(), &["--store", "s.sqlite"]);
    let reply = exchange(
        &server.addr,
        b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000000\r\n\r\n",
    );
    assert!(reply.starts_with("HTTP/1.1 413 "), "{reply:?}");
    assert!(server.alive(), "the server ended");
    let (status, _) = get(&server.addr, "/api/ballots");
    assert_eq!(status, 200);
    // A small body is read and passed over, as before.
    let reply = exchange(
        &server.addr,
        b"POST /api/ballots HTTP/1.0\r\nContent-Length: 3\r\n\r\nabc",
    );
    assert!(reply.starts_with("HTTP/1.0 405 "), "{reply:?}");
}

/// Issue 52, 2: a client that sends requests and never reads the answers
/// holds no other client: 20 others are each answered within a second
/// (they waited until it closed).
#[test]
fn a_client_that_never_reads_holds_no_other() {
    let tmp = common::temp_dir("cli-serve-hog");
    store(tmp.path());
    let mut server = serve(tmp.path(), &["--store", "s.sqlite"]);
    // 2,000 pipelined requests for the page: 29 MB of answers, far more
    // than the sockets' buffers hold.
    let mut hog = TcpStream::connect(&server.addr).unwrap();
    hog.set_write_timeout(Some(Duration::from_secs(5))).unwrap();
    let _ = hog.write_all("GET / HTTP/1.1\r\nHost: x\r\n\r\n".repeat(2000).as_bytes());
    std::thread::sleep(Duration::from_millis(500));
    let clients: Vec<_> = (0..20)
        .map(|_| {
            let addr = server.addr.clone();
            std::thread::spawn(move || {
                let t = std::time::Instant::now();
                let status = try_get(&addr, "/api/ballots", Duration::from_secs(10));
                (status, t.elapsed())
            })
        })
        .collect();
    for c in clients {
        let (status, took) = c.join().unwrap();
        assert_eq!(status, Some(200), "after {took:?}");
        assert!(took < Duration::from_secs(1), "answered after {took:?}");
    }
    assert!(server.alive(), "the server ended");
    drop(hog);
}

/// Issue 52, 3: 1,000 idle connections under `ulimit -n 256` run the
/// server out of descriptors; it refuses or waits, never ends, and
/// answers again once the idle ones are closed (the server closes them
/// after a few idle seconds).
#[test]
fn running_out_of_descriptors_is_waited_out() {
    let tmp = common::temp_dir("cli-serve-fds");
    store(tmp.path());
    let mut server = serve_limited(tmp.path(), 256, &["--store", "s.sqlite"]);
    let addr: std::net::SocketAddr = server.addr.parse().unwrap();
    let mut idle = Vec::new();
    for i in 0..1000 {
        if let Ok(s) = TcpStream::connect_timeout(&addr, Duration::from_secs(1)) {
            idle.push(s);
        }
        if i % 50 == 0 && !server.alive() {
            break;
        }
    }
    assert!(
        server.alive(),
        "the server ended with {} connections",
        idle.len()
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        match try_get(&server.addr, "/api/ballots", Duration::from_secs(5)) {
            Some(200) => break,
            other => {
                assert!(server.alive(), "the server ended");
                assert!(
                    std::time::Instant::now() < deadline,
                    "not answered again: {other:?}"
                );
                std::thread::sleep(Duration::from_millis(200));
            }
        }
    }
    assert!(server.alive(), "the server ended");
    drop(idle);
    assert_eq!(
        try_get(&server.addr, "/", Duration::from_secs(10)),
        Some(200)
    );
}
