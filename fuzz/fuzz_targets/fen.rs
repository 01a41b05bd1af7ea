//! FEN parser: never panics; what it accepts is a valid position whose
//! canonical FEN reads back to the same position.
#![no_main]

use engine::notation::fen::{parse_fen, to_fen};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(pos) = parse_fen(text) {
        assert!(pos.validity_check().is_ok(), "{text:?}");
        let canonical = to_fen(&pos);
        assert_eq!(parse_fen(&canonical).as_ref(), Ok(&pos), "{text:?}");
    }
});
