//! The bytes of an answer: the status line and header fields before a
//! [`Reply`]'s body, and the short answers the server gives on its own
//! (a malformed request, a refused one).

use crate::serve::error::ApiError;
use crate::serve::Reply;
use std::time::{SystemTime, UNIX_EPOCH};

/// The `Server` field sent with every answer.
const SERVER: &str = "checkers serve";

/// How the connection goes on after an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Then {
    /// Open for the next request (`Connection: keep-alive` said to an
    /// HTTP/1.0 client, which asked for it).
    KeepOpen,
    /// Closed after this answer (`Connection: close` said to an HTTP/1.1
    /// client).
    Close,
}

/// The status line and header fields for `reply` (its body follows,
/// `Content-Length` bytes, unless the request was HEAD), in HTTP/1.`version`.
pub fn head(version: u8, reply: &Reply, then: Then) -> Vec<u8> {
    head_for(
        version,
        reply.status,
        Some(reply.content_type),
        reply.body.len(),
        then,
    )
}

/// The whole answer to a malformed request: 400, no body, closed.
pub fn malformed() -> Vec<u8> {
    head_for(1, 400, None, 0, Then::Close)
}

/// The whole answer for a refused request (`e`'s status and JSON), in
/// HTTP/1.1, closed.
pub fn refusal(e: &ApiError) -> Vec<u8> {
    let reply = Reply::error(e);
    let mut bytes = head(1, &reply, Then::Close);
    bytes.extend_from_slice(reply.body.as_bytes());
    bytes
}

fn head_for(
    version: u8,
    status: u16,
    content_type: Option<&str>,
    length: usize,
    then: Then,
) -> Vec<u8> {
    let mut h = format!(
        "HTTP/1.{version} {status} {}\r\nServer: {SERVER}\r\nDate: {}\r\n",
        reason(status),
        http_date(SystemTime::now())
    );
    if let Some(t) = content_type {
        h += &format!("Content-Type: {t}\r\n");
    }
    h += &format!("Content-Length: {length}\r\n");
    match (then, version) {
        (Then::Close, 1..) => h += "Connection: close\r\n",
        (Then::KeepOpen, 0) => h += "Connection: keep-alive\r\n",
        _ => {}
    }
    h += "\r\n";
    h.into_bytes()
}

/// The reason phrase for a status the server sends.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        413 => "Content Too Large",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Unknown",
    }
}

/// `t` as an HTTP date (`Tue, 01 Dec 2026 21:11:13 GMT`, RFC 9110's
/// IMF-fixdate).
pub fn http_date(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    let (h, m, s) = (secs / 3600 % 24, secs / 60 % 60, secs % 60);
    let (year, month, day) = proofdb::codec::civil_from_days(days);
    const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    format!(
        "{}, {day:02} {} {year} {h:02}:{m:02}:{s:02} GMT",
        WEEKDAYS[days.rem_euclid(7) as usize],
        MONTHS[(month - 1) as usize]
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn dates_as_http_writes_them() {
        let at = |s| http_date(UNIX_EPOCH + Duration::from_secs(s));
        assert_eq!(at(0), "Thu, 01 Jan 1970 00:00:00 GMT");
        assert_eq!(at(951_782_400), "Tue, 29 Feb 2000 00:00:00 GMT");
        assert_eq!(at(1_796_159_473), "Tue, 01 Dec 2026 21:11:13 GMT");
    }

    #[test]
    fn heads_say_length_and_connection() {
        let reply = Reply {
            status: 404,
            content_type: "application/json",
            body: "{}\n".into(),
        };
        let h = String::from_utf8(head(1, &reply, Then::Close)).unwrap();
        assert!(h.starts_with("HTTP/1.1 404 Not Found\r\n"), "{h}");
        assert!(
            h.contains("\r\nContent-Length: 3\r\nConnection: close\r\n\r\n"),
            "{h}"
        );
        let h = String::from_utf8(head(0, &reply, Then::Close)).unwrap();
        assert!(
            h.starts_with("HTTP/1.0 404 ") && !h.contains("Connection"),
            "{h}"
        );
        let h = String::from_utf8(malformed()).unwrap();
        assert!(h.starts_with("HTTP/1.1 400 Bad Request\r\n"), "{h}");
        assert!(
            h.ends_with("Content-Length: 0\r\nConnection: close\r\n\r\n"),
            "{h}"
        );
    }
}
