//! Move text parser against the initial position and a few fixed ones
//! (captures, kings, a king with two paths and ambiguous short forms):
//! never panics; an accepted move is legal and its written form reads
//! back to it.
#![no_main]

use engine::notation::fen::parse_fen;
use engine::notation::movetext::{move_to_long_text, move_to_text, parse_move};
use libfuzzer_sys::fuzz_target;

const POSITIONS: [&str; 5] = [
    "B:W21-32:B1-12",
    "B:W6,7,14,15,23:BK11",
    "W:WK18:B6,7,14,15,22",
    "W:WK11:B6,7,14,15",
    "W:W18,19,22,23,K30:B9,10,14,15,K27",
];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for fen in POSITIONS {
        let pos = parse_fen(fen).expect("fixed positions are legal");
        if let Ok(m) = parse_move(&pos, text) {
            assert!(pos.play(&m).is_some(), "{text:?} in {fen}");
            assert_eq!(parse_move(&pos, &move_to_text(&pos, &m)), Ok(m));
            assert_eq!(parse_move(&pos, &move_to_long_text(&pos, &m)), Ok(m));
        }
    }
});
