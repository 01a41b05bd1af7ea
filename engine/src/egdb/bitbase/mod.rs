//! The bitbase builder: retrograde analysis of a slice with 32 positions
//! to a word (docs/egdb-build.txt). It gives the same values as
//! [`super::build`], the reference, which checks it.
//!
//! * [`layout`]: contexts (every piece but one) and the set piece's
//!   squares as the bits of a word.
//! * [`solve`]: the forward pass, the levels of word operations, the
//!   values in the file's order.

pub mod layout;
pub mod masks;
pub mod solve;
pub mod words;

pub use solve::{build_memory, solve_slice};
