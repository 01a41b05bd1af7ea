use engine::perft::{perft, Counting};
use engine::Position;
#[test]
fn start() {
    let p = Position::initial();
    let expect = [1u64, 7, 49, 302, 1469, 7361, 36768, 179740, 845931, 3963680];
    for (d, &e) in expect.iter().enumerate() {
        assert_eq!(perft(&p, d as u32, Counting::EveryPath), e, "depth {d}");
    }
}
