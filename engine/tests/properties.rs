//! Property tests of the rules core and the notation: FEN round trips,
//! random playouts (invariants, piece counts, incremental hashing), colour
//! symmetry, move text round trips, and "no panic" on arbitrary text for
//! the three parsers.

use engine::hash::{hash, update};
use engine::notation::fen::{parse_fen, to_fen};
use engine::notation::movetext::{
    move_path, move_paths, move_to_long_text, move_to_text, parse_move,
};
use engine::notation::pdn::{read_games, write_game};
use engine::perft::{perft, Counting};
use engine::{Color, Move, Position};
use proptest::prelude::*;

/// Builds a legal position from one cell code per square: 0-5 empty,
/// 6 black man, 7 white man, 8 black king, 9 white king. Men on their
/// crowning row become kings; pieces past the twelfth of a side are
/// dropped.
fn position_from_cells(cells: &[u8], white_to_move: bool) -> Position {
    let (mut black, mut white, mut kings) = (0u32, 0u32, 0u32);
    for (i, &c) in cells.iter().enumerate().take(32) {
        let bit = 1u32 << i;
        let (is_black, is_king) = match c {
            6 => (true, false),
            7 => (false, false),
            8 => (true, true),
            9 => (false, true),
            _ => continue,
        };
        let crowns = if is_black { 0xF000_0000 } else { 0x0000_000F };
        let count = if is_black { black } else { white }.count_ones();
        if count == 12 {
            continue;
        }
        if is_black {
            black |= bit;
        } else {
            white |= bit;
        }
        if is_king || bit & crowns != 0 {
            kings |= bit;
        }
    }
    let side = if white_to_move {
        Color::White
    } else {
        Color::Black
    };
    Position::from_bitboards_unchecked(black, white, kings, side)
}

fn any_position() -> impl Strategy<Value = Position> {
    (prop::collection::vec(0u8..10, 32), any::<bool>())
        .prop_map(|(cells, w)| position_from_cells(&cells, w))
}

/// Sparser positions (more kings room, longer capture chains).
fn sparse_position() -> impl Strategy<Value = Position> {
    (prop::collection::vec(0u8..20, 32), any::<bool>()).prop_map(|(cells, w)| {
        let cells: Vec<u8> = cells.iter().map(|&c| if c >= 10 { 0 } else { c }).collect();
        position_from_cells(&cells, w)
    })
}

fn flip_square(i: u8) -> u8 {
    31 - i
}

/// A comparable key of a move with its path count.
fn key(m: &Move) -> (u8, u8, u32, u32) {
    (m.from().index(), m.to().index(), m.captured(), m.paths())
}

fn flipped_key(m: &Move) -> (u8, u8, u32, u32) {
    (
        flip_square(m.from().index()),
        flip_square(m.to().index()),
        m.captured().reverse_bits(),
        m.paths(),
    )
}

/// Checks every property of one move played in `pos`.
fn check_step(pos: &Position, m: &Move, h: u64) -> Result<(Position, u64), TestCaseError> {
    let next = pos.play_unchecked(m);
    prop_assert!(next.validity_check().is_ok(), "{:?} after {m}", next);
    prop_assert_eq!(next.side_to_move(), pos.side_to_move().opposite());
    let us = pos.side_to_move();
    let them = us.opposite();
    prop_assert_eq!(m.captured() & !pos.pieces(them), 0);
    prop_assert_eq!(
        next.pieces(us).count_ones(),
        pos.pieces(us).count_ones(),
        "mover lost a piece"
    );
    prop_assert_eq!(
        next.pieces(them).count_ones(),
        pos.pieces(them).count_ones() - m.captured().count_ones()
    );
    let h2 = update(pos, h, m);
    prop_assert_eq!(h2, hash(&next), "hash after {} in {}", m, to_fen(pos));
    Ok((next, h2))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn the_black_to_move_view_is_the_position_or_its_flip(pos in any_position()) {
        let expected = if pos.side_to_move() == Color::White { pos.flipped() } else { pos };
        prop_assert_eq!(pos.black_to_move_view(), expected);
    }

    #[test]
    fn the_branch_free_capture_test_agrees(pos in sparse_position(), dense in any_position()) {
        for p in [pos, dense] {
            let black = p.with_side(Color::Black);
            prop_assert_eq!(black.black_has_capture_flat(), black.has_capture(), "{:?}", black);
        }
    }

    #[test]
    fn fen_round_trip(pos in any_position()) {
        prop_assert!(pos.validity_check().is_ok());
        let text = to_fen(&pos);
        prop_assert_eq!(parse_fen(&text).unwrap(), pos);
        prop_assert_eq!(to_fen(&parse_fen(&text).unwrap()), text);
    }

    #[test]
    fn random_playouts_keep_invariants(start in any_position(), choices in prop::collection::vec(any::<u16>(), 1..120)) {
        let mut pos = start;
        let mut h = hash(&pos);
        for c in choices {
            let moves = pos.moves();
            if moves.is_empty() {
                prop_assert!(pos.is_terminal());
                break;
            }
            let m = moves.as_slice()[c as usize % moves.len()];
            (pos, h) = check_step(&pos, &m, h)?;
        }
    }

    #[test]
    fn playouts_from_the_start(choices in prop::collection::vec(any::<u16>(), 1..150)) {
        let mut pos = Position::initial();
        let mut h = hash(&pos);
        for c in choices {
            let moves = pos.moves();
            if moves.is_empty() {
                break;
            }
            let m = moves.as_slice()[c as usize % moves.len()];
            (pos, h) = check_step(&pos, &m, h)?;
        }
    }

    #[test]
    fn move_counting_agrees_with_the_generator(pos in sparse_position(), dense in any_position()) {
        // The bulk counter at perft's last ply never builds a list for men's
        // captures; it must agree with the generator in both conventions.
        for p in [pos, dense] {
            let moves = p.moves();
            prop_assert_eq!(p.count_moves(true), moves.len() as u64, "distinct, {:?}", p);
            prop_assert_eq!(p.count_moves(false), moves.path_count(), "every path, {:?}", p);
        }
    }

    #[test]
    fn colour_symmetry(pos in sparse_position()) {
        let f = pos.flipped();
        prop_assert!(f.validity_check().is_ok());
        let mut a: Vec<_> = pos.moves().iter().map(flipped_key).collect();
        let mut b: Vec<_> = f.moves().iter().map(key).collect();
        a.sort();
        b.sort();
        prop_assert_eq!(a, b);
        for counting in [Counting::EveryPath, Counting::Distinct] {
            prop_assert_eq!(perft(&pos, 3, counting), perft(&f, 3, counting));
        }
    }

    #[test]
    fn move_text_round_trip(pos in sparse_position()) {
        round_trip(&pos)?;
    }

    #[test]
    fn move_text_round_trip_dense(pos in any_position()) {
        round_trip(&pos)?;
    }

    #[test]
    fn pdn_write_read_round_trip(start in sparse_position(), choices in prop::collection::vec(any::<u16>(), 0..60)) {
        let mut pos = start;
        let mut moves = Vec::new();
        for c in choices {
            let l = pos.moves();
            if l.is_empty() {
                break;
            }
            let m = l.as_slice()[c as usize % l.len()];
            moves.push(m);
            pos = pos.play_unchecked(&m);
        }
        let tags = vec![("Event".to_string(), "random \\ \"playout\"".to_string())];
        let text = write_game(&tags, &start, &moves, "*");
        let games = read_games(&text).unwrap();
        prop_assert_eq!(games.len(), 1);
        let g = &games[0];
        prop_assert!(g.error.is_none(), "{:?}\n{}", g.error, text);
        prop_assert_eq!(g.start, start);
        prop_assert_eq!(&g.moves, &moves);
        prop_assert_eq!(g.end, pos);
        prop_assert_eq!(g.tag("Event"), Some("random \\ \"playout\""));
    }

    #[test]
    fn fen_parser_never_panics(text in "\\PC{0,60}") {
        let _ = parse_fen(&text);
    }

    #[test]
    fn fen_parser_never_panics_on_fen_like_text(text in "[BWKbwk0-9:,. -]{0,60}") {
        if let Ok(p) = parse_fen(&text) {
            prop_assert!(p.validity_check().is_ok());
        }
    }

    #[test]
    fn move_parser_never_panics(text in "[0-9xX !?-]{0,40}|\\PC{0,20}") {
        for fen in ["B:W21-32:B1-12", "B:W6,7,14,15,23:BK11", "W:WK30,K3:B5,6,14,15,22,23"] {
            let pos = parse_fen(fen).unwrap();
            if let Ok(m) = parse_move(&pos, &text) {
                prop_assert!(pos.play(&m).is_some());
            }
        }
    }

    #[test]
    fn pdn_reader_never_panics(text in "[\\[\\]{}();\"0-9xX. \\n$!?/*%:,A-Za-z-]{0,300}|\\PC{0,100}") {
        if let Ok(games) = read_games(&text) {
            for g in games {
                let mut p = g.start;
                for m in &g.moves {
                    p = p.play(m).expect("replayed moves are legal");
                }
                prop_assert_eq!(p, g.end);
            }
        }
    }
}

fn round_trip(pos: &Position) -> Result<(), TestCaseError> {
    for m in pos.moves().iter() {
        let text = move_to_text(pos, m);
        for written in [&text, &move_to_long_text(pos, m)] {
            prop_assert_eq!(
                parse_move(pos, written).ok(),
                Some(*m),
                "{} in {}",
                written,
                to_fen(pos)
            );
        }
        let paths = move_paths(pos, m);
        prop_assert_eq!(paths.len() as u32, m.paths(), "{} in {}", text, to_fen(pos));
        prop_assert_eq!(&move_path(pos, m), &paths[0]);
        for p in &paths {
            prop_assert_eq!(p.first(), Some(&m.from()));
            prop_assert_eq!(p.last(), Some(&m.to()));
            prop_assert_eq!(p.len() as u32, m.captured().count_ones().max(1) + 1);
            let t: Vec<String> = p.iter().map(|s| s.to_string()).collect();
            let sep = if m.is_capture() { "x" } else { "-" };
            prop_assert_eq!(parse_move(pos, &t.join(sep)).ok(), Some(*m));
        }
    }
    Ok(())
}

#[test]
fn king_circling_four_men_has_two_paths() {
    // The White king on 11 takes 7, 6, 14, 15 (via 2, 9, 18) or the same
    // four the other way round (via 18, 9, 2), back to 11 both times.
    let pos = parse_fen("W:WK11:B6,7,14,15").unwrap();
    let moves = pos.moves();
    assert_eq!(moves.len(), 1, "{moves:?}");
    let m = moves.as_slice()[0];
    assert_eq!((m.from().number(), m.to().number()), (11, 11));
    assert_eq!(m.captured().count_ones(), 4);
    assert_eq!(m.paths(), 2);
    assert_eq!(perft(&pos, 1, Counting::EveryPath), 2);
    assert_eq!(perft(&pos, 1, Counting::Distinct), 1);
    let paths: Vec<String> = move_paths(&pos, &m)
        .iter()
        .map(|p| {
            p.iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join("x")
        })
        .collect();
    assert_eq!(paths.len(), 2);
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(sorted, ["11x18x9x2x11", "11x2x9x18x11"]);
    for p in &paths {
        assert_eq!(parse_move(&pos, p).unwrap(), m, "{p}");
    }
    assert_eq!(move_to_text(&pos, &m), "11x11");
    assert_eq!(parse_move(&pos, "11x11").unwrap(), m);
}
