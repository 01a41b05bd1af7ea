//! The proof browser: one HTML page and a JSON API over a proof store and
//! the endgame databases, read-only. Routes map to [`Reply`]s here,
//! without a socket, so tests call them directly; [`http`] serves them.
//! The API is documented in `docs/serve-api.txt`.
//!
//! - `/`: the page (`page.html`: plain JavaScript, inline SVG, no
//!   network access needed).
//! - `/api/ballots`: the store's ballots with their frontier.
//! - `/api/ballot/N`: ballot `N`'s main line, ply by ply.
//! - `/api/position?fen=F`: a position's value and every move's.
//! - `/api/proof?fen=F[&limit=N]`: the proof trees stored for it.

pub mod ballot;
pub mod error;
pub mod http;
pub mod position;
pub mod proof;
pub mod query;
pub mod value;

use ballots::deck::Deck;
use engine::Oracle;
use error::ApiError;
use proofdb::{ResultCache, Store};
use query::Target;
use std::sync::Arc;

/// The page, embedded in the binary.
pub const PAGE: &str = include_str!("page.html");

/// Most proof-tree nodes one `/api/proof` answer holds.
pub const MAX_PROOF_NODES: usize = 20_000;

/// Proof-tree nodes an `/api/proof` answer holds without `limit`.
pub const DEFAULT_PROOF_NODES: usize = 500;

/// What the browser reads: the store, the databases, the ballot deck.
pub struct Browser {
    /// The proof store, open read-only.
    pub store: Store,
    /// Every outcome the store proves, loaded at start: its result rows
    /// and each position its proof trees reach.
    pub proved: ResultCache,
    /// The endgame databases (up to `egdb_pieces` pieces).
    pub oracle: Arc<dyn Oracle>,
    /// Pieces up to which `oracle` is asked (0: never).
    pub egdb_pieces: u32,
    /// The ballots: numbers, moves and names.
    pub deck: Deck,
}

/// An HTTP answer, before it is sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// The `Content-Type`.
    pub content_type: &'static str,
    /// The body.
    pub body: String,
}

impl Reply {
    /// A 200 JSON reply.
    fn json(value: &impl serde::Serialize) -> Reply {
        match serde_json::to_string_pretty(value) {
            Ok(body) => Reply {
                status: 200,
                content_type: "application/json; charset=utf-8",
                body: body + "\n",
            },
            Err(e) => Reply::error(&ApiError::Json(e)),
        }
    }

    /// The JSON error reply for `e`.
    pub fn error(e: &ApiError) -> Reply {
        Reply {
            status: e.status(),
            content_type: "application/json; charset=utf-8",
            body: e.to_json().to_string() + "\n",
        }
    }
}

impl Browser {
    /// Answers `method url` (`url`: path and query, as the request line
    /// gives it). Never panics on what the request holds: bad input is
    /// a 4xx reply naming the problem.
    pub fn handle(&self, method: &str, url: &str) -> Reply {
        if method != "GET" && method != "HEAD" {
            return Reply::error(&ApiError::Method(method.to_string()));
        }
        let target = Target::parse(url);
        match self.route(&target) {
            Ok(reply) => reply,
            Err(e) => Reply::error(&e),
        }
    }

    fn route(&self, t: &Target) -> Result<Reply, ApiError> {
        let path = t.path.as_str();
        match path {
            "/" | "/index.html" => Ok(Reply {
                status: 200,
                content_type: "text/html; charset=utf-8",
                body: PAGE.to_string(),
            }),
            "/api/ballots" => Ok(Reply::json(&self.ballot_list()?)),
            "/api/position" => {
                let pos = position::read_fen(t.require("fen")?)?;
                Ok(Reply::json(&self.position(&pos)?))
            }
            "/api/proof" => {
                let pos = position::read_fen(t.require("fen")?)?;
                let limit = t.count("limit", DEFAULT_PROOF_NODES, MAX_PROOF_NODES)?;
                Ok(Reply::json(&self.proof(&pos, limit)?))
            }
            _ => match path.strip_prefix("/api/ballot/") {
                Some(n) => Ok(Reply::json(&self.ballot_line(n)?)),
                None => Err(ApiError::NotFound(path.to_string())),
            },
        }
    }
}

#[cfg(test)]
mod tests;
