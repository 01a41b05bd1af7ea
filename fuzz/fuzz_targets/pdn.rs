//! PDN reader on arbitrary bytes: never panics; every game it returns
//! replays legally from its start to its end position.
#![no_main]

use engine::notation::pdn::{decode, read_games};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = decode(data) else {
        return;
    };
    if let Ok(games) = read_games(&text) {
        for g in &games {
            let mut p = g.start;
            for m in &g.moves {
                p = p.play(m).expect("replayed moves are legal");
            }
            assert_eq!(p, g.end);
        }
    }
});
