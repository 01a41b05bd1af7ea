//! PDN game files.
