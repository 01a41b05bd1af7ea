//! Row checksums ("seals"): each row of `results`, `trees` and
//! `tree_nodes` carries a 64-bit checksum over its key and every column
//! of its content, written with the row and checked when it is read, so
//! that a changed bit in the file (or a row written by anything but this
//! crate) is caught instead of being served as a fact.
//!
//! A seal is [`engine::egdb::file::Checksum`] (the databases' and
//! checkpoints' hash) over the fields in a fixed order, each as a
//! little-endian `u64` or a length-prefixed byte string, after a tag
//! naming the table. Any single changed field, or any single changed word
//! of one, changes the seal. It is not a signature: it guards against
//! damage and foreign writers, not against someone who computes seals.

use engine::egdb::file::Checksum;

/// Builds one seal from fields given in order.
#[derive(Default)]
pub struct Seal {
    bytes: Vec<u8>,
}

impl Seal {
    /// A seal for a row of `table`.
    pub fn new(table: &str) -> Seal {
        let mut s = Seal {
            bytes: Vec::with_capacity(96),
        };
        s.text(table);
        s
    }

    /// Adds an integer field.
    pub fn int(&mut self, v: i64) -> &mut Seal {
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Adds an optional integer field (`None` differs from every value).
    pub fn opt_int(&mut self, v: Option<i64>) -> &mut Seal {
        match v {
            Some(v) => self.int(1).int(v),
            None => self.int(0),
        }
    }

    /// Adds a byte-string field.
    pub fn blob(&mut self, b: &[u8]) -> &mut Seal {
        self.int(b.len() as i64);
        self.bytes.extend_from_slice(b);
        let pad = (8 - b.len() % 8) % 8;
        self.bytes.extend(std::iter::repeat_n(0u8, pad));
        self
    }

    /// Adds a text field.
    pub fn text(&mut self, s: &str) -> &mut Seal {
        self.blob(s.as_bytes())
    }

    /// The seal, as stored in an `INTEGER` column.
    pub fn finish(&self) -> i64 {
        let mut c = Checksum::default();
        c.update(&self.bytes);
        c.finish() as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_and_its_place_count() {
        let base = Seal::new("t").int(1).text("ab").opt_int(None).finish();
        assert_ne!(
            base,
            Seal::new("u").int(1).text("ab").opt_int(None).finish()
        );
        assert_ne!(
            base,
            Seal::new("t").int(2).text("ab").opt_int(None).finish()
        );
        assert_ne!(
            base,
            Seal::new("t").int(1).text("ac").opt_int(None).finish()
        );
        assert_ne!(
            base,
            Seal::new("t").int(1).text("ab").opt_int(Some(0)).finish()
        );
        // Field boundaries are part of the seal: "a"+"b" is not "ab"+"".
        assert_ne!(
            Seal::new("t").text("a").text("b").finish(),
            Seal::new("t").text("ab").text("").finish()
        );
        assert_eq!(
            base,
            Seal::new("t").int(1).text("ab").opt_int(None).finish()
        );
    }

    #[test]
    fn any_single_bit_of_a_field_changes_the_seal() {
        let key = [7u8; 12];
        let base = Seal::new("results").blob(&key).int(5).finish();
        for byte in 0..12 {
            for bit in 0..8 {
                let mut k = key;
                k[byte] ^= 1 << bit;
                assert_ne!(base, Seal::new("results").blob(&k).int(5).finish());
            }
        }
    }
}
