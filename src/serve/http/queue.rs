//! The requests that connections hand to the one thread that holds the
//! [`crate::serve::Browser`] (it is not `Sync`: its `Arc<dyn Oracle>` is neither `Send`
//! nor `Sync`), and the bound on the answers' bytes that wait to be sent.

use crate::serve::error::ApiError;
use crate::serve::Reply;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::Arc;

/// One request for the routes, and where its answer goes.
pub struct Job {
    /// The method.
    pub method: String,
    /// The request target (path and query).
    pub target: String,
    /// The connection waiting for the answer.
    pub answer_to: SyncSender<HeldReply>,
}

/// A route's reply on its way to a connection; its body counts against
/// the budget of [`answer_all`] until this is dropped (sent or not).
pub struct HeldReply {
    /// The reply.
    pub reply: Reply,
    _held: Held,
}

/// Bytes of answer bodies counted as held until dropped.
struct Held {
    count: Arc<AtomicUsize>,
    bytes: usize,
}

impl Drop for Held {
    fn drop(&mut self) {
        self.count.fetch_sub(self.bytes, Ordering::SeqCst);
    }
}

/// Answers each job in turn with `handle` (the routes: method, target)
/// until every sender is gone.
/// While the bodies of answers not yet sent (slow or stalled readers)
/// hold more than `budget` bytes, a new reply that would go past it is
/// replaced by a short 503; a reply alone is always sent, so one answer
/// larger than the budget still goes out when nothing else waits.
pub fn answer_all(handle: impl Fn(&str, &str) -> Reply, jobs: Receiver<Job>, budget: usize) {
    let count = Arc::new(AtomicUsize::new(0));
    for job in jobs {
        let reply = handle(&job.method, &job.target);
        let answer = hold(&count, reply, budget);
        // A connection that went away no longer waits: its answer drops.
        let _ = job.answer_to.send(answer);
    }
}

/// `reply` counted against `budget`, or the 503 that replaces it.
fn hold(count: &Arc<AtomicUsize>, reply: Reply, budget: usize) -> HeldReply {
    let bytes = reply.body.len();
    let before = count.fetch_add(bytes, Ordering::SeqCst);
    if before > 0 && before + bytes > budget {
        count.fetch_sub(bytes, Ordering::SeqCst);
        let busy = Reply::error(&ApiError::Busy(format!(
            "{before} bytes of answers wait for slow readers"
        )));
        let bytes = busy.body.len();
        count.fetch_add(bytes, Ordering::SeqCst);
        return HeldReply {
            reply: busy,
            _held: Held {
                count: Arc::clone(count),
                bytes,
            },
        };
    }
    HeldReply {
        reply,
        _held: Held {
            count: Arc::clone(count),
            bytes,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(n: usize) -> Reply {
        Reply {
            status: 200,
            content_type: "text/plain",
            body: "x".repeat(n),
        }
    }

    #[test]
    fn answers_past_the_budget_are_503_until_sent() {
        let count = Arc::new(AtomicUsize::new(0));
        let big = hold(&count, reply(1000), 100);
        assert_eq!(big.reply.status, 200, "one answer alone always goes");
        let small = hold(&count, reply(10), 100);
        assert_eq!(small.reply.status, 503);
        drop(small);
        assert_eq!(count.load(Ordering::SeqCst), 1000);
        drop(big);
        assert_eq!(count.load(Ordering::SeqCst), 0);
        let a = hold(&count, reply(60), 100);
        let b = hold(&count, reply(40), 100);
        assert_eq!((a.reply.status, b.reply.status), (200, 200));
    }
}
