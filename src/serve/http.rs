//! Serves a [`Browser`] over HTTP/1.1 with `tiny_http`: one thread takes
//! requests from the listening socket in turn and sends each route's
//! [`super::Reply`] (the databases' [`engine::Oracle`] is shared, not
//! sent between threads; one reader is plenty for a browser).

use super::Browser;
use std::net::SocketAddr;
use thiserror::Error;

/// The server could not start.
#[derive(Debug, Error)]
#[error("cannot listen on {addr}: {reason}")]
pub struct ListenError {
    /// The address asked for.
    pub addr: String,
    /// Why (from the socket layer).
    pub reason: String,
}

/// A listening server, not yet answering.
pub struct Server {
    inner: tiny_http::Server,
}

impl Server {
    /// Listens on `bind:port` (`port` 0: a free port, see
    /// [`Server::addr`]).
    pub fn bind(bind: &str, port: u16) -> Result<Server, ListenError> {
        let addr = format!("{bind}:{port}");
        tiny_http::Server::http(addr.as_str())
            .map(|inner| Server { inner })
            .map_err(|e| ListenError {
                addr,
                reason: e.to_string(),
            })
    }

    /// The address it listens on.
    pub fn addr(&self) -> Option<SocketAddr> {
        self.inner.server_addr().to_ip()
    }

    /// Answers requests with `browser` until the process ends. A reply
    /// that cannot be sent (the client went away) is dropped.
    pub fn run(&self, browser: &Browser) {
        while let Ok(request) = self.inner.recv() {
            let reply = browser.handle(request.method().as_str(), request.url());
            let mut response =
                tiny_http::Response::from_string(reply.body).with_status_code(reply.status);
            let content_type =
                tiny_http::Header::from_bytes(&b"Content-Type"[..], reply.content_type.as_bytes());
            if let Ok(h) = content_type {
                response = response.with_header(h);
            }
            let _ = request.respond(response);
        }
    }
}
