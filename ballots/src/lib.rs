//! ballots: see the workspace README.

#![deny(missing_docs)]
