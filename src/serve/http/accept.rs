//! The listening socket's loop: each connection gets a thread of its own
//! ([`super::conn`]) up to [`HttpLimits::max_connections`]; past that, or
//! when no thread can start, it gets a quick 503 and is closed. When the
//! process is out of file descriptors (`accept` fails with EMFILE or
//! ENFILE) a descriptor kept in reserve is let go to take one waiting
//! connection and refuse it the same way; when even that fails, the loop
//! waits a moment and tries again, until idle connections time out and
//! free theirs. Nothing here panics or ends the loop.

use super::answer;
use super::conn;
use super::queue::Job;
use super::HttpLimits;
use crate::serve::error::ApiError;
use std::fs::File;
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::time::Duration;

/// How long the loop waits when it can take no connection at all.
const PAUSE: Duration = Duration::from_millis(20);

/// Stack of a connection's thread: it parses heads and copies bytes.
const STACK: usize = 256 * 1024;

/// How long a refusal may take to write (a few hundred bytes on a new
/// socket: at once, unless the client is gone).
const REFUSAL_WRITE: Duration = Duration::from_millis(200);

/// The loop and what it hands each connection.
pub struct Acceptor {
    listener: TcpListener,
    limits: Arc<HttpLimits>,
    jobs: Sender<Job>,
    /// Connections with a thread now.
    open: Arc<AtomicUsize>,
    /// A descriptor held to be let go when there is no other.
    reserve: Option<File>,
}

/// One connection counted in [`Acceptor::open`] until dropped.
struct Counted(Arc<AtomicUsize>);

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Acceptor {
    /// The loop for `listener`, handing requests to `jobs`.
    pub fn new(listener: TcpListener, limits: Arc<HttpLimits>, jobs: Sender<Job>) -> Acceptor {
        Acceptor {
            listener,
            limits,
            jobs,
            open: Arc::new(AtomicUsize::new(0)),
            reserve: spare_descriptor(),
        }
    }

    /// Takes connections for as long as the process runs.
    pub fn run(mut self) {
        loop {
            match self.listener.accept() {
                Ok((stream, _)) => self.admit(stream),
                Err(_) => {
                    if !self.refuse_one() {
                        std::thread::sleep(PAUSE);
                    }
                }
            }
        }
    }

    /// Starts `stream`'s thread, or refuses it when at the limit.
    fn admit(&self, stream: TcpStream) {
        if self.open.load(Ordering::SeqCst) >= self.limits.max_connections {
            refuse(
                stream,
                &format!("{} connections open", self.limits.max_connections),
            );
            return;
        }
        self.open.fetch_add(1, Ordering::SeqCst);
        let counted = Counted(Arc::clone(&self.open));
        let limits = Arc::clone(&self.limits);
        let jobs = self.jobs.clone();
        // If no thread starts, the closure drops: the socket closes and
        // the count goes down.
        let _ = std::thread::Builder::new()
            .name("serve-conn".into())
            .stack_size(STACK)
            .spawn(move || {
                let _counted = counted;
                conn::serve(stream, &limits, &jobs);
            });
    }

    /// After a failed `accept` (out of descriptors, or a connection gone
    /// before it was taken): lets the reserve descriptor go, takes one
    /// waiting connection and refuses it, then takes the reserve back.
    /// False if no connection was taken.
    fn refuse_one(&mut self) -> bool {
        let Some(spare) = self.reserve.take() else {
            self.reserve = spare_descriptor();
            return false;
        };
        drop(spare);
        let taken = match self.listener.accept() {
            Ok((stream, _)) => {
                refuse(stream, "out of file descriptors");
                true
            }
            Err(_) => false,
        };
        self.reserve = spare_descriptor();
        taken
    }
}

/// A descriptor to hold in reserve (none where `/dev/null` cannot be
/// opened: then the loop only waits).
fn spare_descriptor() -> Option<File> {
    File::open("/dev/null").ok()
}

/// Sends a 503 saying `why` and closes `stream`. What the client has
/// already sent is read and dropped first (without waiting for more), so
/// that the close does not reset the connection before the client reads
/// the answer.
fn refuse(mut stream: TcpStream, why: &str) {
    let _ = stream.set_write_timeout(Some(REFUSAL_WRITE));
    let _ = stream.write_all(&answer::refusal(&ApiError::Busy(why.to_string())));
    let _ = stream.shutdown(std::net::Shutdown::Write);
    if stream.set_nonblocking(true).is_ok() {
        let mut sink = [0u8; 4096];
        for _ in 0..16 {
            match std::io::Read::read(&mut stream, &mut sink) {
                Ok(n) if n > 0 => continue,
                _ => break,
            }
        }
    }
}
