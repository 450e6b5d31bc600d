//! `#[serde(with = "crate::offline::index::raw_bytes")]` for a field of bytes (`Vec<u8>`, `Box<[u8]>`): written as
//! a byte string, which `postcard` lays out exactly as a sequence of `u8` (a length, then the bytes), so files saved
//! before still read. Read in one copy instead of one visitor call per byte: the 32 MB of packed notes and posting
//! lists of a 100,000-note vault were a third of loading its saved index.

use serde::de::{Deserializer, SeqAccess, Visitor};
use serde::ser::Serializer;

pub(crate) fn serialize<S: Serializer>(
    bytes: &impl AsRef<[u8]>,
    out: S,
) -> Result<S::Ok, S::Error> {
    out.serialize_bytes(bytes.as_ref())
}

pub(crate) fn deserialize<'de, D, T>(input: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: From<Vec<u8>>,
{
    struct Bytes;
    impl<'de> Visitor<'de> for Bytes {
        type Value = Vec<u8>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("bytes")
        }

        fn visit_bytes<E>(self, bytes: &[u8]) -> Result<Vec<u8>, E> {
            Ok(bytes.to_vec())
        }

        fn visit_byte_buf<E>(self, bytes: Vec<u8>) -> Result<Vec<u8>, E> {
            Ok(bytes)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
            let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
            while let Some(byte) = seq.next_element()? {
                bytes.push(byte);
            }
            Ok(bytes)
        }
    }
    input.deserialize_byte_buf(Bytes).map(T::from)
}

/// `#[serde(with = "crate::offline::index::raw_bytes::pieces")]` for a large field of bytes: written as a sequence
/// of byte strings of at most [`PIECE`] bytes, and read piece by piece onto the end of one buffer. Read whole, the
/// 12 MB of posting lists of a 100,000-note vault were held twice while the saved index loaded: once where the file
/// was read into and once where they were copied to.
pub(crate) mod pieces {
    use serde::de::{DeserializeSeed, Deserializer, SeqAccess, Visitor};
    use serde::ser::{Serialize, Serializer};

    /// The largest piece: what the saved index's reader takes in one read (`saved::format`).
    pub(crate) const PIECE: usize = 256 * 1024;

    struct Piece<'a>(&'a [u8]);

    impl Serialize for Piece<'_> {
        fn serialize<S: Serializer>(&self, out: S) -> Result<S::Ok, S::Error> {
            out.serialize_bytes(self.0)
        }
    }

    pub(crate) fn serialize<S: Serializer>(
        bytes: &impl AsRef<[u8]>,
        out: S,
    ) -> Result<S::Ok, S::Error> {
        out.collect_seq(bytes.as_ref().chunks(PIECE).map(Piece))
    }

    pub(crate) fn deserialize<'de, D, T>(input: D) -> Result<T, D::Error>
    where
        D: Deserializer<'de>,
        T: From<Vec<u8>>,
    {
        struct Pieces;
        impl<'de> Visitor<'de> for Pieces {
            type Value = Vec<u8>;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a sequence of byte strings")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
                let mut bytes = Vec::new();
                while seq.next_element_seed(OntoTheEnd(&mut bytes))?.is_some() {}
                Ok(bytes)
            }
        }
        input.deserialize_seq(Pieces).map(T::from)
    }

    /// Reads one piece onto the end of a buffer.
    struct OntoTheEnd<'a>(&'a mut Vec<u8>);

    impl<'de> DeserializeSeed<'de> for OntoTheEnd<'_> {
        type Value = ();

        fn deserialize<D: Deserializer<'de>>(self, input: D) -> Result<(), D::Error> {
            input.deserialize_byte_buf(self)
        }
    }

    impl<'de> Visitor<'de> for OntoTheEnd<'_> {
        type Value = ();

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("bytes")
        }

        fn visit_bytes<E>(self, bytes: &[u8]) -> Result<(), E> {
            self.0.extend_from_slice(bytes);
            Ok(())
        }
    }
}
