//! Which slices a game from a given position can enter: so that a user who
//! wants to solve one position with a larger database builds only the
//! slices it can reach (the king-only 7-piece slices of a king ending take
//! minutes; the whole 7-piece set, hours).
//!
//! The answer is an over-approximation by material and lead rank, per
//! side: men are only lost (captured or promoted), kings only come from
//! promotions, and a man's rank only grows, so a side left with `m` of its
//! men leads on at least the `m`-th lowest rank its men stand on now.
//! Every slice a reachable position lies in is listed; some listed slices
//! may be unreachable.

use super::index::{Material, TableKey};
use super::slice::{slices_with, SliceKey};
use crate::board::Position;

/// Highest rank of a man (the next row promotes).
const TOP_RANK: u8 = 6;

/// The slices of exactly `pieces` pieces that a game from one of
/// `positions` (either side to move) may enter, in build order
/// ([`slices_with`]'s).
pub fn reachable_slices(positions: &[Position], pieces: u32) -> Vec<SliceKey> {
    // Many positions share their material and ranks (a store's results).
    let mut sides: Vec<(SideNow, SideNow)> = positions.iter().map(sides_now).collect();
    sides.sort_unstable();
    sides.dedup();
    reachable_from(&sides, pieces)
}

/// The slices of exactly `pieces` pieces that a game from a position of
/// `slice` (either table, either side to move) may enter, in build order:
/// [`reachable_slices`] for the most any of its positions reaches (each
/// side's men other than its leader on the back rank, from which they may
/// reach any rank). With fewer pieces than `slice`, the slices its build
/// may probe (a capture, then the captures of the capture search), far
/// fewer than every smaller slice for a slice of kings: what `egdb build
/// --slice` needs present.
pub fn reachable_from_slice(slice: SliceKey, pieces: u32) -> Vec<SliceKey> {
    let sides: Vec<(SideNow, SideNow)> = slice
        .tables()
        .into_iter()
        .map(|t| (SideNow::widest(t.black), SideNow::widest(t.white)))
        .collect();
    reachable_from(&sides, pieces)
}

/// The slices of exactly `pieces` pieces that a game may enter from the
/// material `sides` (Black's and White's, either side to move).
fn reachable_from(sides: &[(SideNow, SideNow)], pieces: u32) -> Vec<SliceKey> {
    slices_with(pieces)
        .into_iter()
        .filter(|s| {
            s.tables().into_iter().any(|t: TableKey| {
                // Either colour may be the one whose material is `t.black`.
                sides.iter().any(|(black, white)| {
                    (black.may_become(t.black) && white.may_become(t.white))
                        || (white.may_become(t.black) && black.may_become(t.white))
                })
            })
        })
        .collect()
}

/// Black's and White's material in `pos`.
fn sides_now(pos: &Position) -> (SideNow, SideNow) {
    let (b, w, k, _) = pos.parts();
    (
        SideNow::new(ranks(b & !k, |bit| bit / 4), (b & k).count_ones()),
        SideNow::new(ranks(w & !k, |bit| (31 - bit) / 4), (w & k).count_ones()),
    )
}

/// The ranks (own frame) of the men on `men`, lowest first; `rank` maps a
/// bit number to its rank.
fn ranks(men: u32, rank: impl Fn(u32) -> u32) -> Vec<u8> {
    let mut out: Vec<u8> = (0..32)
        .filter(|&bit| men & (1 << bit) != 0)
        .map(|bit| rank(bit) as u8)
        .collect();
    out.sort_unstable();
    out
}

/// One side's material now.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct SideNow {
    /// Ranks of its men, lowest first.
    ranks: Vec<u8>,
    kings: u32,
}

impl SideNow {
    fn new(ranks: Vec<u8>, kings: u32) -> SideNow {
        SideNow { ranks, kings }
    }

    /// The material `m` with its men as far back as its lead allows: the
    /// leader on the lead rank, the others on rank 0 (every position of
    /// the material reaches no more than this one does).
    fn widest(m: Material) -> SideNow {
        let mut ranks = vec![0; m.men as usize];
        if let Some(last) = ranks.last_mut() {
            *last = m.lead;
        }
        SideNow::new(ranks, m.kings as u32)
    }

    /// Whether this side may later have the material `s`.
    fn may_become(&self, s: Material) -> bool {
        let (men, kings) = (s.men as usize, s.kings as u32);
        let lost_men = match self.ranks.len().checked_sub(men) {
            Some(n) => n as u32,
            None => return false,
        };
        if kings > self.kings + lost_men {
            return false;
        }
        men == 0 || (self.ranks[men - 1]..=TOP_RANK).contains(&s.lead)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::moves::MoveList;
    use crate::notation::fen::parse_fen;

    fn slice_of(p: &Position) -> SliceKey {
        SliceKey::of(TableKey::of(&p.black_to_move_view()))
    }

    /// Random games from a few positions: every position of the asked
    /// piece count lies in a listed slice.
    #[test]
    fn every_position_a_game_reaches_lies_in_a_listed_slice() {
        let starts = [
            "B:WK10,K12,K19,K30:BK3,4,11,K17,K29",
            "B:W28,24,21,20,K2:BK27,19,15,11,7",
            "W:W22,K18,K17,14:BK32,K27,21,13",
            "W:W25,21,15,K11,10:BK18,14,12,5",
        ];
        let mut rng = crate::rng::XorShift64::new(0x2545_F491_4F6C_DD1D);
        let mut seen = 0;
        for fen in starts {
            let start = parse_fen(fen).unwrap();
            let n = start.piece_count();
            let listed: Vec<Vec<SliceKey>> =
                (2..n).map(|p| reachable_slices(&[start], p)).collect();
            for _ in 0..400 {
                let mut p = start;
                for _ply in 0..200 {
                    let c = p.piece_count();
                    if (2..n).contains(&c) && p.black() != 0 && p.white() != 0 {
                        assert!(
                            listed[c as usize - 2].contains(&slice_of(&p)),
                            "{fen}: {p:?} in {} not listed",
                            slice_of(&p)
                        );
                        seen += 1;
                    }
                    let mut list = MoveList::new();
                    p.legal_moves(&mut list);
                    if list.is_empty() {
                        break;
                    }
                    let m = list
                        .iter()
                        .nth(rng.below(list.len() as u64) as usize)
                        .unwrap();
                    p = p.play_unchecked(m);
                }
            }
        }
        assert!(seen > 10_000, "only {seen} positions checked");
    }

    /// A slice reaches, at each smaller size, every slice that one of
    /// its positions reaches (here a few positions of 5- and 6-piece
    /// slices), and a slice of kings only slices of kings.
    #[test]
    fn a_slice_reaches_what_its_positions_reach() {
        for fen in [
            "B:W28,24,21,20,K2:BK27,19,15,11,7",
            "W:W22,K18,K17,14:BK32,K27,21,13",
            "B:WK10,K12,K19:BK3,4,11",
        ] {
            let p = parse_fen(fen).unwrap();
            let slice = slice_of(&p);
            for n in 2..p.piece_count() {
                let of_slice = reachable_from_slice(slice, n);
                for s in reachable_slices(&[p], n) {
                    assert!(of_slice.contains(&s), "{fen}: {s} ({n} pieces) not listed");
                }
            }
        }
        let kings = SliceKey::parse("0m5k-0m3k").unwrap();
        let names: Vec<String> = reachable_from_slice(kings, 7)
            .iter()
            .map(|s| s.name())
            .collect();
        assert_eq!(names, ["0m4k-0m3k", "0m5k-0m2k"]);
        assert_eq!(reachable_from_slice(kings, 6).len(), 3);
    }

    #[test]
    fn a_king_ending_reaches_only_king_slices() {
        let p = parse_fen("B:WK3,K4,K12,K29:BK1,K9,K10,K11,K24").unwrap();
        let names: Vec<String> = reachable_slices(&[p], 7).iter().map(|s| s.name()).collect();
        assert_eq!(names, ["0m4k-0m3k", "0m5k-0m2k"]);
    }

    #[test]
    fn men_keep_their_ranks_as_a_floor() {
        // Black's men on 3 and 11 stand on ranks 0 and 2; White's man on
        // 30 on rank 0 of White's frame.
        let p = parse_fen("B:W30:B3,11").unwrap();
        let two_men: Vec<SliceKey> = reachable_slices(&[p], 3)
            .into_iter()
            .filter(|s| s.tables().iter().any(|t| t.black.men == 2))
            .collect();
        assert!(!two_men.is_empty());
        for s in &two_men {
            let t = s.tables().into_iter().find(|t| t.black.men == 2).unwrap();
            assert!(t.black.lead >= 2, "{s}");
        }
        // Black may become 2 men leading on rank 2-6 (5), a man on rank
        // 0-6 and a king (7) or two kings (1); White a man on rank 0-6 (7)
        // or a king (1). Each pair is one slice (the sides differ in size).
        assert_eq!(reachable_slices(&[p], 3).len(), 13 * 8);
    }
}
