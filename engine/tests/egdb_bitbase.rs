//! The bitbase builder against the reference builder: every slice of up
//! to 5 pieces, solved by both, gives the same file byte for byte (the
//! same value at every position, the same don't-care positions, the same
//! counts).

use engine::egdb::bitbase;
use engine::egdb::file::encode_slice;
use engine::egdb::scratch::Storage;
use engine::egdb::slice::all_slices;
use engine::egdb::{ensure, BuildMemory, Builder, NoProgress};

/// Builds the slices of up to `pieces` pieces with the reference builder
/// (named: the default up to 6 pieces is the bitbase builder),
/// then solves each with the bitbase builder on the same smaller slices,
/// the moves out of a slice read from the words of the slices it solved
/// before where it can, and compares the two files' bytes.
fn same_files_up_to(pieces: u32) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let by_reference = BuildMemory::UNLIMITED.with_builder(Builder::Reference);
    let mut db = ensure(dir.path(), pieces, &NoProgress, &by_reference).expect("build");
    let mut exit_words = 0;
    for slice in all_slices(pieces) {
        let mut solved = bitbase::solve_slice(slice, &db, &NoProgress, &Storage::Memory, 1 << 30)
            .unwrap_or_else(|e| panic!("{slice}: {e}"));
        // The slices after it read its values as words, as a build's do.
        exit_words += solved.exit_words;
        db.hold_words(solved.words.take().expect("the words"), 1 << 30);
        let image = encode_slice(slice, &solved.values, &solved.counts);
        let reference =
            std::fs::read(dir.path().join(slice.file_name())).expect("the reference file");
        assert!(
            image == reference,
            "{slice}: the bitbase builder's file differs from the reference's"
        );
    }
    assert!(
        exit_words > 0,
        "moves out of a slice were read from the words of the slices built"
    );
    let files = std::fs::read_dir(dir.path())
        .expect("the folder")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "egdb"))
        })
        .count();
    assert_eq!(
        files,
        all_slices(pieces).len(),
        "the reference built every slice and only those"
    );
}

#[test]
fn every_slice_of_up_to_five_pieces_is_identical() {
    same_files_up_to(5);
}
