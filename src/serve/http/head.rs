//! A request head (request line and header fields) read with `httparse`
//! into what the connection needs: the method and target for the routes,
//! the version, whether the connection stays open, and the body's length,
//! refused past [`super::HttpLimits::max_body`] before a byte of it is
//! read (the API takes no body).

use crate::serve::error::ApiError;

/// Most header fields a request may carry (a browser sends about 15).
pub const MAX_HEADERS: usize = 64;

/// What the head asks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Head {
    /// The method (`GET`).
    pub method: String,
    /// The request target as sent (path and query).
    pub target: String,
    /// The minor version: 0 for HTTP/1.0, 1 for HTTP/1.1.
    pub version: u8,
    /// Whether the client keeps the connection for another request
    /// (HTTP/1.1 unless `Connection: close`; HTTP/1.0 only with
    /// `Connection: keep-alive`).
    pub keep_alive: bool,
    /// The body's length in bytes (`Content-Length`, 0 without).
    pub body: u64,
    /// Whether the client waits for `100 Continue` before the body.
    pub expect_continue: bool,
}

/// Why a head is refused: the status and, but for a plain 400, the
/// error that names the problem in the answer's JSON.
#[derive(Debug)]
pub enum BadHead {
    /// Not HTTP/1.x as `httparse` reads it: 400 with an empty body (as
    /// the server always answered malformed requests).
    Malformed,
    /// Well formed but not served: the error names why.
    Refused(ApiError),
}

/// The head read so far.
#[derive(Debug)]
pub enum Parsed {
    /// A whole head, and how many bytes of the buffer it took.
    Complete(Head, usize),
    /// Not all of it yet.
    Partial,
    /// It cannot be served.
    Bad(BadHead),
}

/// Reads the head at the start of `buf`; bodies longer than `max_body`
/// are refused (413).
pub fn parse(buf: &[u8], max_body: u64) -> Parsed {
    let mut fields = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut fields);
    let used = match req.parse(buf) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => return Parsed::Partial,
        Err(httparse::Error::TooManyHeaders) => {
            return Parsed::Bad(BadHead::Refused(ApiError::TooManyHeaders(MAX_HEADERS)))
        }
        Err(_) => return Parsed::Bad(BadHead::Malformed),
    };
    let (Some(method), Some(target), Some(version)) = (req.method, req.path, req.version) else {
        return Parsed::Bad(BadHead::Malformed);
    };
    let mut head = Head {
        method: method.to_string(),
        target: target.to_string(),
        version,
        keep_alive: version >= 1,
        body: 0,
        expect_continue: false,
    };
    let mut length: Option<u64> = None;
    for field in req.headers.iter() {
        let value = String::from_utf8_lossy(field.value);
        let value = value.trim();
        let name = field.name;
        if name.eq_ignore_ascii_case("content-length") {
            match read_length(value, length) {
                Ok(n) => length = Some(n),
                Err(r) => return Parsed::Bad(r),
            }
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            return Parsed::Bad(BadHead::Refused(ApiError::EncodedBody(value.to_string())));
        } else if name.eq_ignore_ascii_case("connection") {
            for token in value.split(',').map(str::trim) {
                if token.eq_ignore_ascii_case("close") {
                    head.keep_alive = false;
                } else if token.eq_ignore_ascii_case("keep-alive") && version == 0 {
                    head.keep_alive = true;
                }
            }
        } else if name.eq_ignore_ascii_case("expect") && value.eq_ignore_ascii_case("100-continue")
        {
            head.expect_continue = true;
        }
    }
    head.body = length.unwrap_or(0);
    if head.body > max_body {
        return Parsed::Bad(BadHead::Refused(ApiError::BodyTooLarge {
            length: value_text(length),
            limit: max_body,
        }));
    }
    Parsed::Complete(head, used)
}

/// A `Content-Length` value: digits only, the same as an earlier one.
/// Past `u64` it is still a length, too large for any limit.
fn read_length(value: &str, earlier: Option<u64>) -> Result<u64, BadHead> {
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(BadHead::Malformed);
    }
    let n = value.parse::<u64>().unwrap_or(u64::MAX);
    match earlier {
        Some(m) if m != n => Err(BadHead::Malformed),
        _ => Ok(n),
    }
}

/// A length for a message (`u64::MAX` stands for "more than that").
fn value_text(length: Option<u64>) -> String {
    match length {
        Some(u64::MAX) => format!("more than {}", u64::MAX - 1),
        Some(n) => n.to_string(),
        None => "0".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn complete(raw: &str) -> (Head, usize) {
        match parse(raw.as_bytes(), 8192) {
            Parsed::Complete(h, n) => (h, n),
            other => panic!("{raw:?}: {other:?}"),
        }
    }

    fn refused(raw: &str) -> BadHead {
        match parse(raw.as_bytes(), 8192) {
            Parsed::Bad(r) => r,
            other => panic!("{raw:?}: {other:?}"),
        }
    }

    #[test]
    fn a_get_and_its_connection() {
        let raw = "GET /api/ballot/1?x=1 HTTP/1.1\r\nHost: x\r\n\r\nGET /";
        let (h, used) = complete(raw);
        assert_eq!(used, raw.len() - "GET /".len());
        assert_eq!(
            (h.method.as_str(), h.target.as_str()),
            ("GET", "/api/ballot/1?x=1")
        );
        assert!(h.keep_alive && h.version == 1 && h.body == 0);
        assert!(
            !complete("GET / HTTP/1.1\r\nConnection: Close\r\n\r\n")
                .0
                .keep_alive
        );
        assert!(!complete("GET / HTTP/1.0\r\n\r\n").0.keep_alive);
        assert!(
            complete("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                .0
                .keep_alive
        );
    }

    #[test]
    fn a_partial_head_waits() {
        assert!(matches!(parse(b"GET / HTTP/1.1\r\nHo", 0), Parsed::Partial));
    }

    #[test]
    fn bodies_past_the_limit_are_refused() {
        let (h, _) = complete("POST / HTTP/1.1\r\nContent-Length: 8192\r\n\r\n");
        assert_eq!(h.body, 8192);
        for length in ["8193", "99999999999", "999999999999999999999999999"] {
            let raw = format!("GET / HTTP/1.1\r\nContent-Length: {length}\r\n\r\n");
            let r = refused(&raw);
            assert!(
                matches!(&r, BadHead::Refused(e) if e.status() == 413),
                "{length}: {r:?}"
            );
        }
        let r = refused("GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n");
        assert!(
            matches!(&r, BadHead::Refused(e) if e.status() == 413),
            "{r:?}"
        );
    }

    #[test]
    fn malformed_heads_are_400() {
        for raw in [
            "garbage\r\n\r\n",
            "GET\r\n\r\n",
            "GET / FOO/1.1\r\n\r\n",
            "GET / HTTP/1.1\r\nBad header line\r\n\r\n",
            "GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
            "GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        ] {
            assert!(matches!(refused(raw), BadHead::Malformed), "{raw:?}");
        }
        let many = format!(
            "GET / HTTP/1.1\r\n{}\r\n",
            "A: b\r\n".repeat(MAX_HEADERS + 1)
        );
        assert!(matches!(refused(&many), BadHead::Refused(e) if e.status() == 431));
    }
}
