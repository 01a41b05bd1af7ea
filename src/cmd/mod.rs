//! One module per subcommand: a clap `Args` struct and a `run` function.

pub mod ballots;
pub mod bench;
pub mod bestmove;
pub mod book;
pub mod db;
pub mod egdb;
pub mod hub;
pub mod matchplay;
pub mod pdn;
pub mod perft;
pub mod play;
pub mod proof;
pub mod serve;
pub mod show;
pub mod solve;
pub mod train;
pub mod tune;
