//! Slices: the unit of building and of files.
//!
//! A slice is a table ([`TableKey`]) together with its colour-reversed
//! table: Black to move with material `(A, B)` and Black to move with
//! `(B, A)`. Every quiet move that keeps the material and both leads leads
//! from one of the two tables to the other (after the colour reversal that
//! brings Black back to move), so the two are solved together. A slice is
//! named after its canonical table (Black's side not smaller than
//! White's); when both sides are equal the slice holds one table.
//!
//! Every other move goes to a slice built before: captures remove a piece,
//! promotions turn a man into a king (fewer men), and a move of a man past
//! the current lead raises that lead. [`all_slices`] lists slices in an
//! order that respects this: by pieces, then men, then the sum of the
//! leads in decreasing order.

use super::index::{Material, TableKey};
use std::fmt;

/// A slice, named by its canonical table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SliceKey(TableKey);

impl SliceKey {
    /// The slice holding `table`.
    pub fn of(table: TableKey) -> SliceKey {
        if table.is_canonical() {
            SliceKey(table)
        } else {
            SliceKey(table.mirrored())
        }
    }

    /// The canonical table.
    pub fn canonical(&self) -> TableKey {
        self.0
    }

    /// Positions of the slice (all its tables, Black to move).
    pub fn positions(&self) -> u64 {
        self.tables()
            .into_iter()
            .map(|k| super::index::TableIndex::new(k).size())
            .sum()
    }

    /// The tables stored: the canonical one, and the mirrored one unless
    /// both sides are equal.
    pub fn tables(&self) -> Vec<TableKey> {
        if self.0.black == self.0.white {
            vec![self.0]
        } else {
            vec![self.0, self.0.mirrored()]
        }
    }

    /// Which stored table (0 or 1) holds `table`, which must belong to this
    /// slice.
    pub fn table_number(&self, table: TableKey) -> usize {
        if table == self.0 {
            0
        } else {
            debug_assert_eq!(table, self.0.mirrored());
            1
        }
    }

    /// Number of pieces.
    pub fn pieces(&self) -> u32 {
        self.0.pieces()
    }

    /// Number of men.
    pub fn men(&self) -> u32 {
        self.0.black.men as u32 + self.0.white.men as u32
    }

    /// The slice name, e.g. `2m1k@5-1m0k@3`, also the file stem.
    pub fn name(&self) -> String {
        self.0.name()
    }

    /// The file name: `<name>.egdb`.
    pub fn file_name(&self) -> String {
        format!("{}.egdb", self.name())
    }

    /// Parses a slice name (either table's name is accepted).
    pub fn parse(name: &str) -> Option<SliceKey> {
        let name = name.strip_suffix(".egdb").unwrap_or(name);
        let (b, w) = name.split_once('-')?;
        let key = TableKey {
            black: parse_side(b)?,
            white: parse_side(w)?,
        };
        Some(SliceKey::of(key))
    }

    /// Whether building this slice may read `other`: every slice with fewer
    /// pieces (captures, chained through capture searches), with the same
    /// pieces and fewer men (promotions), or with the same pieces and men
    /// and a larger sum of leads (a man passing the lead). Slices of one
    /// level (pieces, men, lead sum) never read each other, so they can be
    /// built in parallel (cluster array jobs).
    pub fn depends_on(&self, other: &SliceKey) -> bool {
        level(other) < level(self)
    }

    /// Whether building this slice reads `other`, exactly: every slice
    /// with fewer pieces (captures), and the slices a quiet move leaves
    /// to (a man passing its side's lead, a promotion), for either
    /// colour. A subset of [`SliceKey::depends_on`]; what `--slice`
    /// requires.
    pub fn reads(&self, other: &SliceKey) -> bool {
        if other.pieces() != self.pieces() {
            return other.pieces() < self.pieces();
        }
        self.tables().into_iter().any(|t| {
            quiet_successor_sides(t.black).into_iter().any(|b2| {
                // After Black's move White is to move; the position is
                // looked up colour-reversed, in table (White, Black').
                SliceKey::of(TableKey {
                    black: t.white,
                    white: b2,
                }) == *other
            })
        })
    }
}

/// The sides a quiet move of `side` can turn it into other than itself:
/// its lead one row further, or (from lead 6) a man crowned, the other
/// men leading from any row.
fn quiet_successor_sides(side: Material) -> Vec<Material> {
    let mut out = Vec::new();
    if side.men == 0 {
        return out;
    }
    if side.lead < 6 {
        out.push(Material {
            lead: side.lead + 1,
            ..side
        });
    } else {
        for lead in 0..=6 {
            let s = Material {
                men: side.men - 1,
                kings: side.kings + 1,
                lead,
            };
            if s.is_valid() {
                out.push(s);
            }
        }
    }
    out
}

fn parse_side(s: &str) -> Option<Material> {
    let (m, rest) = s.split_once('m')?;
    let (k, lead) = match rest.split_once('k') {
        Some((k, "")) => (k, "0"),
        Some((k, l)) => (k, l.strip_prefix('@')?),
        None => return None,
    };
    let side = Material {
        men: m.parse().ok()?,
        kings: k.parse().ok()?,
        lead: lead.parse().ok()?,
    };
    let has_lead = rest.contains('@');
    (side.is_valid() && has_lead == (side.men > 0) && side.men <= 7 && side.kings <= 7)
        .then_some(side)
}

impl fmt::Display for SliceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// The build level: (pieces, men, minus the sum of the leads).
fn level(s: &SliceKey) -> (u32, u32, i32) {
    let t = s.canonical();
    (s.pieces(), s.men(), -((t.black.lead + t.white.lead) as i32))
}

/// Sort key of the build order: dependencies come first.
fn order_key(s: &SliceKey) -> (u32, u32, i32, SliceKey) {
    let t = s.canonical();
    (
        s.pieces(),
        s.men(),
        -((t.black.lead + t.white.lead) as i32),
        *s,
    )
}

/// Every side with `pieces` pieces (at least one).
fn sides_with(pieces: u32) -> Vec<Material> {
    let mut out = Vec::new();
    for men in 0..=pieces.min(12) {
        let kings = pieces - men;
        if men == 0 {
            out.push(Material {
                men: 0,
                kings: kings as u8,
                lead: 0,
            });
        } else {
            for lead in 0..=6u8 {
                let s = Material {
                    men: men as u8,
                    kings: kings as u8,
                    lead,
                };
                if s.is_valid() {
                    out.push(s);
                }
            }
        }
    }
    out
}

/// Every slice with exactly `pieces` pieces, both sides having a piece.
pub fn slices_with(pieces: u32) -> Vec<SliceKey> {
    let mut out = Vec::new();
    for nb in 1..pieces {
        for b in sides_with(nb) {
            for w in sides_with(pieces - nb) {
                let t = TableKey { black: b, white: w };
                if t.is_canonical() {
                    out.push(SliceKey(t));
                }
            }
        }
    }
    out.sort_by_key(order_key);
    out
}

/// Every slice with 2 to `max_pieces` pieces, in build order.
pub fn all_slices(max_pieces: u32) -> Vec<SliceKey> {
    let mut out: Vec<SliceKey> = (2..=max_pieces).flat_map(slices_with).collect();
    out.sort_by_key(order_key);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in all_slices(5) {
            assert_eq!(SliceKey::parse(&s.name()), Some(s));
            assert_eq!(SliceKey::parse(&s.file_name()), Some(s));
            let m = s.canonical().mirrored();
            assert_eq!(SliceKey::parse(&m.name()), Some(s));
        }
        assert_eq!(SliceKey::parse("garbage"), None);
        assert_eq!(SliceKey::parse("9m0k@1-0m1k"), None);
        assert_eq!(SliceKey::parse("0m1k@3-0m1k"), None);
    }
}
