//! Why a request could not be answered, and the HTTP status that says so.

use thiserror::Error;

/// A request the browser cannot answer.
#[derive(Debug, Error)]
pub enum ApiError {
    /// A query parameter the route needs is missing.
    #[error("missing query parameter {0:?}")]
    MissingParam(&'static str),
    /// A query parameter is not what it should be.
    #[error("query parameter {name:?}: {problem}")]
    BadParam {
        /// The parameter.
        name: &'static str,
        /// What is wrong with it.
        problem: String,
    },
    /// The FEN cannot be read.
    #[error("bad FEN {fen:?}: {source}")]
    BadFen {
        /// The text given.
        fen: String,
        /// Why it was refused.
        source: engine::notation::fen::FenError,
    },
    /// The ballot number is not a number.
    #[error("bad ballot number {0:?}: expected a number from 1 to 174")]
    BadBallot(String),
    /// No such ballot in the deck.
    #[error("no ballot {number} in {deck}")]
    UnknownBallot {
        /// The number asked for.
        number: u32,
        /// Where the deck was read.
        deck: String,
    },
    /// The ballot has no main line in the store.
    #[error("ballot {number}: no main line stored in {store}")]
    NoMainLine {
        /// The ballot.
        number: u32,
        /// The store file.
        store: String,
    },
    /// No such page or API route.
    #[error("no such page: {0}")]
    NotFound(String),
    /// Only GET (and HEAD) are served.
    #[error("method {0} not allowed: the browser only reads")]
    Method(String),
    /// A request body longer than the server passes over (the API takes
    /// none); refused before it is read.
    #[error("a request body of {length} bytes is refused: the API takes no body (at most {limit} bytes are passed over)")]
    BodyTooLarge {
        /// The `Content-Length` sent.
        length: String,
        /// The most the server reads.
        limit: u64,
    },
    /// A request body sent with a transfer coding (its length is not
    /// known before it is read).
    #[error("a request body sent as Transfer-Encoding {0:?} is refused: the API takes no body")]
    EncodedBody(String),
    /// A request head longer than the server reads.
    #[error("the request head is longer than {0} bytes")]
    HeadTooLarge(usize),
    /// More header fields than the server reads.
    #[error("the request has more than {0} header fields")]
    TooManyHeaders(usize),
    /// The server is at its limit (connections, or answers not yet sent).
    #[error("the server is busy ({0}); try again")]
    Busy(String),
    /// The store could not be read.
    #[error(transparent)]
    Store(#[from] proofdb::StoreError),
    /// An answer could not be written as JSON.
    #[error("writing the answer as JSON: {0}")]
    Json(#[from] serde_json::Error),
}

impl ApiError {
    /// The HTTP status for this error: 400 for bad input, 404 for what
    /// does not exist, 405 for a method other than GET, 413 for a request
    /// body, 431 for a request head too long, 500 for a store that cannot
    /// be read, 503 for a server at its limit.
    pub fn status(&self) -> u16 {
        match self {
            ApiError::MissingParam(_)
            | ApiError::BadParam { .. }
            | ApiError::BadFen { .. }
            | ApiError::BadBallot(_) => 400,
            ApiError::UnknownBallot { .. }
            | ApiError::NoMainLine { .. }
            | ApiError::NotFound(_) => 404,
            ApiError::Method(_) => 405,
            ApiError::BodyTooLarge { .. } | ApiError::EncodedBody(_) => 413,
            ApiError::HeadTooLarge(_) | ApiError::TooManyHeaders(_) => 431,
            ApiError::Busy(_) => 503,
            ApiError::Store(_) | ApiError::Json(_) => 500,
        }
    }

    /// The JSON body: `{"error": message, "status": code}`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({ "error": self.to_string(), "status": self.status() })
    }
}
