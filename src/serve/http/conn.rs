//! One client connection, on its own thread: reads request heads (within
//! the head size limit and the idle and head timeouts), passes over small
//! bodies and refuses larger ones unread, hands each request to the
//! routes' thread and writes the answer within the write timeout. A
//! client that is slow, silent or never reads holds only this thread.

use super::answer::{self, Then};
use super::head::{self, BadHead, Head, Parsed};
use super::queue::Job;
use super::HttpLimits;
use crate::serve::error::ApiError;
use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::mpsc::{self, Sender};
use std::time::{Duration, Instant};

/// Bytes read from the socket at a time.
const CHUNK: usize = 16 * 1024;

/// Most bytes of a refused request read and dropped before the socket
/// closes, so that the client sees the refusal rather than a reset.
const DRAIN: usize = 256 * 1024;

/// Most time spent reading and dropping them.
const DRAIN_TIME: Duration = Duration::from_secs(2);

/// Serves `stream` until the client closes it, falls idle, breaks the
/// protocol or stops reading.
pub fn serve(stream: TcpStream, limits: &HttpLimits, jobs: &Sender<Job>) {
    let _ = stream.set_nodelay(true);
    let mut conn = Conn {
        stream,
        buf: Vec::new(),
        limits,
    };
    while let Some(head) = conn.next_head() {
        // A client that waits for `100 Continue` is answered at once
        // instead (no route reads a body) and the connection then closed,
        // so a body it sends after all is never read as a request.
        let answer_now = head.expect_continue && head.body > 0;
        if !answer_now && !conn.pass_body(&head) {
            return;
        }
        let (answer_to, answer) = mpsc::sync_channel(1);
        let job = Job {
            method: head.method.clone(),
            target: head.target.clone(),
            answer_to,
        };
        if jobs.send(job).is_err() {
            return;
        }
        let Ok(answer) = answer.recv() else {
            return;
        };
        let then = if head.keep_alive && !answer_now {
            Then::KeepOpen
        } else {
            Then::Close
        };
        let reply = &answer.reply;
        let body = if head.method == "HEAD" {
            &[][..]
        } else {
            reply.body.as_bytes()
        };
        if !conn.send(&[&answer::head(head.version, reply, then), body]) || then == Then::Close {
            let _ = conn.stream.shutdown(Shutdown::Both);
            return;
        }
    }
}

struct Conn<'a> {
    stream: TcpStream,
    /// Bytes read and not yet used (the start of the next request).
    buf: Vec<u8>,
    limits: &'a HttpLimits,
}

impl Conn<'_> {
    /// The next request's head, or `None` once the connection is done
    /// (closed, idle past the idle timeout, slow past the head timeout,
    /// or refused, the refusal sent).
    fn next_head(&mut self) -> Option<Head> {
        // The head timeout runs from its first byte; before that the
        // connection is idle.
        let mut deadline = None;
        loop {
            if !self.buf.is_empty() {
                match head::parse(&self.buf, self.limits.max_body) {
                    Parsed::Complete(_, used) if used > self.limits.max_head => {
                        let e = ApiError::HeadTooLarge(self.limits.max_head);
                        return self.refuse(BadHead::Refused(e));
                    }
                    Parsed::Complete(head, used) => {
                        self.buf.drain(..used);
                        return Some(head);
                    }
                    Parsed::Bad(refusal) => return self.refuse(refusal),
                    Parsed::Partial if self.buf.len() >= self.limits.max_head => {
                        let e = ApiError::HeadTooLarge(self.limits.max_head);
                        return self.refuse(BadHead::Refused(e));
                    }
                    Parsed::Partial => {}
                }
                deadline.get_or_insert_with(|| Instant::now() + self.limits.head_time);
            }
            let wait = match deadline {
                None => self.limits.idle,
                Some(d) => d.checked_duration_since(Instant::now())?,
            };
            if !self.read_more(wait) {
                return None;
            }
        }
    }

    /// Reads what comes within `wait` onto the buffer; false at the end
    /// of the stream, an error or the timeout.
    fn read_more(&mut self, wait: Duration) -> bool {
        if wait.is_zero() || self.stream.set_read_timeout(Some(wait)).is_err() {
            return false;
        }
        let mut chunk = [0u8; CHUNK];
        loop {
            match self.stream.read(&mut chunk) {
                Ok(0) => return false,
                Ok(n) => {
                    self.buf.extend_from_slice(&chunk[..n]);
                    return true;
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(_) => return false,
            }
        }
    }

    /// Reads and drops the request's body (at most the body limit, as
    /// [`head::parse`] checked); false if it does not come within the
    /// head timeout.
    fn pass_body(&mut self, head: &Head) -> bool {
        let mut left = head.body as usize;
        if left == 0 {
            return true;
        }
        let taken = left.min(self.buf.len());
        self.buf.drain(..taken);
        left -= taken;
        let deadline = Instant::now() + self.limits.head_time;
        while left > 0 {
            let Some(wait) = deadline.checked_duration_since(Instant::now()) else {
                return false;
            };
            if !self.read_more(wait) {
                return false;
            }
            let taken = left.min(self.buf.len());
            self.buf.drain(..taken);
            left -= taken;
        }
        true
    }

    /// Writes `parts` in order within the write timeout; false if the
    /// client did not take them in time or went away.
    fn send(&mut self, parts: &[&[u8]]) -> bool {
        let deadline = Instant::now() + self.limits.write_time;
        for part in parts {
            let mut rest = *part;
            while !rest.is_empty() {
                let Some(wait) = deadline.checked_duration_since(Instant::now()) else {
                    return false;
                };
                if wait.is_zero() || self.stream.set_write_timeout(Some(wait)).is_err() {
                    return false;
                }
                let end = rest.len().min(CHUNK * 4);
                match self.stream.write(&rest[..end]) {
                    Ok(0) => return false,
                    Ok(n) => rest = &rest[n..],
                    Err(e) if e.kind() == ErrorKind::Interrupted => {}
                    Err(_) => return false,
                }
            }
        }
        true
    }

    /// Sends the answer for `refusal`, then reads and drops a little of
    /// what the client still sends (at most [`DRAIN`] bytes for
    /// [`DRAIN_TIME`], so that it sees the answer, not a reset) and closes. Always `None`: the connection is done.
    fn refuse(&mut self, refusal: BadHead) -> Option<Head> {
        let bytes = match refusal {
            BadHead::Malformed => answer::malformed(),
            BadHead::Refused(e) => answer::refusal(&e),
        };
        if self.send(&[&bytes]) {
            let _ = self.stream.shutdown(Shutdown::Write);
            let deadline = Instant::now() + DRAIN_TIME;
            let mut drained = 0;
            self.buf.clear();
            while let Some(wait) = deadline.checked_duration_since(Instant::now()) {
                if drained >= DRAIN || !self.read_more(wait) {
                    break;
                }
                drained += self.buf.len();
                self.buf.clear();
            }
        }
        None
    }
}
