//! The server on a real socket with small limits and a stand-in for the
//! routes: timeouts, the connection bound, keep-alive and HEAD.

use super::accept::Acceptor;
use super::queue;
use super::HttpLimits;
use crate::serve::Reply;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// A server on a free port answering every request with its method and
/// target as the body; its address.
fn start(limits: HttpLimits) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let (jobs, q) = mpsc::channel();
    let budget = limits.answer_budget;
    let acceptor = Acceptor::new(listener, Arc::new(limits), jobs);
    std::thread::spawn(move || acceptor.run());
    std::thread::spawn(move || {
        queue::answer_all(
            |method, target| Reply {
                status: 200,
                content_type: "text/plain",
                body: format!("{method} {target}"),
            },
            q,
            budget,
        )
    });
    addr
}

fn short() -> HttpLimits {
    HttpLimits {
        idle: Duration::from_millis(300),
        head_time: Duration::from_millis(300),
        ..HttpLimits::default()
    }
}

/// A connection with a 10 s read timeout (the tests' bound on a hang).
fn connect(addr: &str) -> TcpStream {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s
}

/// Everything read until the server closes (panics on a timeout).
fn read_all(s: &mut TcpStream) -> String {
    let mut out = String::new();
    s.read_to_string(&mut out).expect("the server closes");
    out
}

#[test]
fn an_idle_connection_is_closed() {
    let addr = start(short());
    let mut s = connect(&addr);
    let t = Instant::now();
    assert_eq!(read_all(&mut s), "");
    assert!(
        t.elapsed() >= Duration::from_millis(250),
        "{:?}",
        t.elapsed()
    );
}

#[test]
fn a_head_sent_too_slowly_is_closed() {
    let addr = start(short());
    let mut s = connect(&addr);
    s.write_all(b"GET / HTTP/1.1\r\n").unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let _ = s.write_all(b"Host: x\r\n");
    assert_eq!(read_all(&mut s), "");
}

#[test]
fn pipelined_requests_are_answered_in_order_and_head_has_no_body() {
    let addr = start(short());
    let mut s = connect(&addr);
    s.write_all(
        b"GET /a HTTP/1.1\r\n\r\nHEAD /b HTTP/1.1\r\n\r\nGET /c HTTP/1.1\r\nConnection: close\r\n\r\n",
    )
    .unwrap();
    let all = read_all(&mut s);
    let bodies: Vec<&str> = all.split("HTTP/1.1 200 OK\r\n").skip(1).collect();
    assert_eq!(bodies.len(), 3, "{all}");
    assert!(bodies[0].ends_with("\r\n\r\nGET /a"), "{all}");
    assert!(bodies[1].contains("Content-Length: 7\r\n"), "{all}");
    assert!(bodies[1].ends_with("\r\n\r\n"), "{all}");
    assert!(
        bodies[2].ends_with("Connection: close\r\n\r\nGET /c"),
        "{all}"
    );
}

#[test]
fn an_http_1_0_answer_closes_unless_kept_alive() {
    let addr = start(short());
    let mut s = connect(&addr);
    s.write_all(b"GET /x HTTP/1.0\r\n\r\n").unwrap();
    let all = read_all(&mut s);
    assert!(
        all.starts_with("HTTP/1.0 200 OK\r\n") && all.ends_with("GET /x"),
        "{all}"
    );
    let mut s = connect(&addr);
    s.write_all(b"GET /y HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /z HTTP/1.0\r\n\r\n")
        .unwrap();
    let all = read_all(&mut s);
    assert!(all.contains("Connection: keep-alive\r\n"), "{all}");
    assert!(all.ends_with("GET /z"), "{all}");
}

#[test]
fn past_the_connection_bound_a_503() {
    let addr = start(HttpLimits {
        max_connections: 2,
        idle: Duration::from_secs(10),
        ..HttpLimits::default()
    });
    // Two held connections, each seen by the server (answered once).
    let held: Vec<TcpStream> = (0..2)
        .map(|_| {
            let mut s = connect(&addr);
            s.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
            let mut buf = [0u8; 64];
            assert!(s.read(&mut buf).unwrap() > 0);
            s
        })
        .collect();
    let mut third = connect(&addr);
    let all = read_all(&mut third);
    assert!(
        all.starts_with("HTTP/1.1 503 Service Unavailable\r\n"),
        "{all}"
    );
    assert!(all.contains("2 connections open"), "{all}");
    drop(held);
    // Their threads end with them: the server takes new ones again.
    let t = Instant::now();
    loop {
        // While the held connections' threads end, a new one may still be
        // refused, and its request (sent before the refusal was read) can
        // make the close a reset: both mean "not yet".
        let mut s = connect(&addr);
        let _ = s.write_all(b"GET /again HTTP/1.0\r\n\r\n");
        let mut all = String::new();
        let read = s.read_to_string(&mut all);
        if read.is_ok() && all.ends_with("GET /again") {
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(10), "{read:?} {all}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_long_head_is_431() {
    let addr = start(HttpLimits {
        max_head: 1024,
        ..short()
    });
    let mut s = connect(&addr);
    let raw = format!("GET /{} HTTP/1.1\r\n\r\n", "x".repeat(2000));
    s.write_all(raw.as_bytes()).unwrap();
    let all = read_all(&mut s);
    assert!(all.starts_with("HTTP/1.1 431 "), "{all}");
    assert!(all.contains("longer than 1024 bytes"), "{all}");
}
