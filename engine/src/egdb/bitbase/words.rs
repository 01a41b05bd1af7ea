//! The values of slices this process has just built, kept as the bitbase
//! builder's words (per context and side to move, the win and loss words
//! of its layout, every place and capture positions included), so that a
//! slice built after them reads the values of its moves into them a
//! whole word at a time instead of probing each position's file
//! (docs/egdb-build.txt, "Exits as words").
//!
//! They are a cache of what the files hold: a slice's values do not
//! depend on where it was built, and a slice not held is probed as
//! before.

use super::layout::Layout;
use crate::egdb::slice::SliceKey;
use std::collections::VecDeque;
use std::sync::Arc;

/// One slice's values as words.
pub struct SliceWords {
    /// The layout the words are in.
    pub layout: Layout,
    /// Per side to move (0 Black, 1 White), per context: the positions won
    /// by the side to move.
    pub win: [Vec<u32>; 2],
    /// The same for the positions lost.
    pub loss: [Vec<u32>; 2],
}

impl std::fmt::Debug for SliceWords {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "SliceWords({}, {} bytes)",
            self.layout.slice(),
            self.bytes()
        )
    }
}

impl SliceWords {
    /// Bytes the words of a layout of `contexts` contexts take: a win and
    /// a loss word per context and side to move.
    pub fn bytes_for(contexts: u64) -> u64 {
        contexts * 4 * std::mem::size_of::<u32>() as u64
    }

    /// Bytes the words take.
    pub fn bytes(&self) -> u64 {
        SliceWords::bytes_for(self.win[0].len() as u64)
    }
}

/// The slices held, newest last, within a byte budget.
#[derive(Default)]
pub struct HeldWords {
    held: VecDeque<Arc<SliceWords>>,
    bytes: u64,
}

/// Most bytes held when a build's memory limit does not say less.
pub const HELD_BYTES: u64 = 2 << 30;

impl HeldWords {
    /// Holds `words`, dropping the oldest slices until what is held fits
    /// in `budget` bytes (a slice larger than the budget is not held).
    pub fn hold(&mut self, words: SliceWords, budget: u64) {
        let size = words.bytes();
        if size > budget {
            return;
        }
        let slice = words.layout.slice();
        self.drop_slice(slice);
        while self.bytes + size > budget {
            match self.held.pop_front() {
                Some(old) => self.bytes -= old.bytes(),
                None => break,
            }
        }
        self.bytes += size;
        self.held.push_back(Arc::new(words));
    }

    /// Stops holding `slice`.
    fn drop_slice(&mut self, slice: SliceKey) {
        if let Some(i) = self.held.iter().position(|w| w.layout.slice() == slice) {
            if let Some(old) = self.held.remove(i) {
                self.bytes -= old.bytes();
            }
        }
    }

    /// The slices held, oldest first.
    pub fn slices(&self) -> impl Iterator<Item = &SliceWords> {
        self.held.iter().map(|w| w.as_ref())
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}
