//! `checkers serve` end to end: started on a free port against a store
//! made here, asked over a plain TCP connection.

mod common;

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
    let mut child = Command::new(env!("CARGO_BIN_EXE_checkers"))
        .args(["serve", "--port", "0", "--egdb-pieces", "0"])
        .args(args)
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
    let line = proofdb::testing::line_from_moves(&["9-13", "21-17", "5-9", "25-21"]);
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
