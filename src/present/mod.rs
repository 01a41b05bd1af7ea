//! Rendering: what the libraries return (proof trees, ballot status
//! rows, main lines) as text tables, Markdown, SVG, DOT, PDN and
//! terminal colours, for the commands and the server. The libraries
//! return data and render nothing.

pub mod ballot_line;
pub mod ballot_status;
pub mod proof_tree;
