//! Serves a [`Browser`] over HTTP/1.1, surviving any client.
//!
//! - [`accept`]: one thread takes connections, each onto a thread of its
//!   own up to a bound, refusing the rest with a quick 503; out of file
//!   descriptors it refuses or waits, never panics.
//! - [`conn`]: a connection's thread reads request heads with `httparse`
//!   (size and time limits), refuses request bodies past a small limit
//!   before reading them, and writes answers with a write timeout, so a
//!   slow or stalled client holds no other.
//! - [`queue`]: the thread that called [`Server::run`] answers the
//!   requests in turn with the [`Browser`] (which is not `Sync`), with a
//!   bound on the answer bytes waiting to be sent.
//! - [`head`], [`answer`]: the bytes in and out.
//!
//! The limits are [`HttpLimits`]; docs/serve-api.txt states them.

pub mod accept;
pub mod answer;
pub mod conn;
pub mod head;
pub mod queue;
#[cfg(test)]
mod tests;

use super::Browser;
use std::net::{SocketAddr, TcpListener};
use std::sync::{mpsc, Arc};
use std::time::Duration;
use thiserror::Error;

/// The server could not start.
#[derive(Debug, Error)]
pub enum ServeError {
    /// The address cannot be listened on.
    #[error("cannot listen on {addr}: {reason}")]
    Listen {
        /// The address asked for.
        addr: String,
        /// Why (from the socket layer).
        reason: String,
    },
    /// The thread that takes connections could not start.
    #[error("cannot start the thread that takes connections: {0}")]
    Thread(#[source] std::io::Error),
}

/// What one client may take of the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpLimits {
    /// Connections served at once; more get a 503 and are closed.
    pub max_connections: usize,
    /// How long a connection may sit without a request (before its first
    /// and between keep-alive requests) before it is closed.
    pub idle: Duration,
    /// How long a request's head (and small body) may take to arrive,
    /// from its first byte.
    pub head_time: Duration,
    /// How long an answer may take to be written out; past it the
    /// connection is closed.
    pub write_time: Duration,
    /// Most bytes of a request head (431 past it).
    pub max_head: usize,
    /// Most bytes of a request body read and dropped; a longer
    /// `Content-Length` is refused unread (413).
    pub max_body: u64,
    /// Most bytes of answer bodies held for connections that have not yet
    /// sent them; a reply past it is a 503 (one reply alone always goes).
    pub answer_budget: usize,
}

impl Default for HttpLimits {
    fn default() -> HttpLimits {
        HttpLimits {
            max_connections: 256,
            idle: Duration::from_secs(5),
            head_time: Duration::from_secs(10),
            write_time: Duration::from_secs(30),
            max_head: 64 * 1024,
            max_body: 8 * 1024,
            answer_budget: 64 << 20,
        }
    }
}

/// A listening server, not yet answering.
pub struct Server {
    listener: TcpListener,
    limits: HttpLimits,
}

impl Server {
    /// Listens on `bind:port` (`port` 0: a free port, see
    /// [`Server::addr`]) with the default [`HttpLimits`].
    pub fn bind(bind: &str, port: u16) -> Result<Server, ServeError> {
        let addr = format!("{bind}:{port}");
        TcpListener::bind(addr.as_str())
            .map(|listener| Server {
                listener,
                limits: HttpLimits::default(),
            })
            .map_err(|e| ServeError::Listen {
                addr,
                reason: e.to_string(),
            })
    }

    /// The address it listens on.
    pub fn addr(&self) -> Option<SocketAddr> {
        self.listener.local_addr().ok()
    }

    /// Answers requests with `browser` on this thread until the process
    /// ends; connections are read and written on threads of their own.
    pub fn run(self, browser: &Browser) -> Result<(), ServeError> {
        let (jobs, queue) = mpsc::channel();
        let budget = self.limits.answer_budget;
        let acceptor = accept::Acceptor::new(self.listener, Arc::new(self.limits), jobs);
        std::thread::Builder::new()
            .name("serve-accept".into())
            .spawn(move || acceptor.run())
            .map_err(ServeError::Thread)?;
        queue::answer_all(
            |method, target| browser.handle(method, target),
            queue,
            budget,
        );
        Ok(())
    }
}
