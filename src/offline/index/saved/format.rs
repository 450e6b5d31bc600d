//! How the saved index is laid out and read: `postcard`, read from the file a piece at a time ([`Reading`]) so that
//! loading never holds the whole file beside what it decodes (43 MB at 100,000 notes, a third of the bridge's peak),
//! and byte fields read in one copy (`crate::offline::index::raw_bytes`).

use std::io::Read;

use postcard::de_flavors::Flavor;
use serde::de::DeserializeOwned;

/// A reader or writer that keeps a CRC-32 of the bytes passing through it: the saved index ends with the checksum
/// of everything before it.
pub(super) struct Checked<T> {
    inner: T,
    crc: crc32fast::Hasher,
}

impl<T> Checked<T> {
    pub(super) fn new(inner: T) -> Self {
        Checked {
            inner,
            crc: crc32fast::Hasher::new(),
        }
    }
}

impl<W: std::io::Write> Checked<W> {
    /// Writes the checksum of what was written, then flushes.
    pub(super) fn finish(mut self) -> std::io::Result<()> {
        let sum = self.crc.clone().finalize();
        self.inner.write_all(&sum.to_le_bytes())?;
        self.inner.flush()
    }
}

impl<R: Read> Checked<R> {
    /// Reads the checksum that follows what was read, and compares.
    pub(super) fn verify(&mut self) -> Result<(), String> {
        let mut saved = [0u8; 4];
        self.inner
            .read_exact(&mut saved)
            .map_err(|error| format!("no checksum: {error}"))?;
        if u32::from_le_bytes(saved) != self.crc.clone().finalize() {
            return Err("its checksum does not match: the file changed after it was saved".into());
        }
        Ok(())
    }
}

impl<W: std::io::Write> std::io::Write for Checked<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let written = self.inner.write(bytes)?;
        self.crc.update(&bytes[..written]);
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<R: Read> Read for Checked<R> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let read = self.inner.read(buffer)?;
        self.crc.update(&buffer[..read]);
        Ok(read)
    }
}

/// How much of the file is read at once: a piece of a large byte field (`raw_bytes::pieces`) fits.
const CHUNK: usize = crate::offline::index::raw_bytes::pieces::PIECE;

/// Decodes a `T` from `reader`, which holds `size` bytes: the whole of them, nothing more.
#[cfg(test)]
pub(super) fn decode<T: DeserializeOwned>(reader: impl Read, size: u64) -> Result<T, String> {
    decode_after::<(), T>(reader, size, |()| true)
        .map(|decoded| decoded.expect("every header is wanted").1)
}

/// Decodes from `reader`, which holds `size` bytes, an `H` and then a `T`: the whole of them, nothing more. `wanted`
/// judges the `H` before anything after it is read: `Ok(None)` when it turns it away (an index saved by another
/// version is not decoded whole only to be dropped).
pub(super) fn decode_after<H: DeserializeOwned, T: DeserializeOwned>(
    reader: impl Read,
    size: u64,
    wanted: impl FnOnce(&H) -> bool,
) -> Result<Option<(H, T)>, String> {
    let mut deserializer = postcard::Deserializer::from_flavor(Reading {
        reader,
        unread: size,
        buffer: vec![0; CHUNK.min(size as usize)],
        start: 0,
        end: 0,
        trouble: None,
    });
    let decoded = match H::deserialize(&mut deserializer) {
        Ok(header) if !wanted(&header) => return Ok(None),
        Ok(header) => T::deserialize(&mut deserializer).map(|value| (header, value)),
        Err(error) => Err(error),
    };
    let reading = deserializer.finalize().map_err(|error| error.to_string())?;
    if let Some(trouble) = reading.trouble {
        return Err(trouble);
    }
    let decoded = decoded.map_err(|error| error.to_string())?;
    if reading.unread > 0 || reading.start < reading.end {
        return Err("bytes left after the index".into());
    }
    Ok(Some(decoded))
}

/// A `postcard` source that reads its input as it goes. Every field of the saved index is owned, so only
/// `try_take_n_temp` (bytes copied out at once) is ever asked for; borrowing (`try_take_n`) is refused.
struct Reading<R> {
    reader: R,
    /// Bytes of the file not read into `buffer` yet: a length field larger than what is left is damage, not a
    /// reason to allocate it.
    unread: u64,
    buffer: Vec<u8>,
    /// What `buffer[start..end]` holds is read and not yet taken.
    start: usize,
    end: usize,
    /// Why reading stopped, when the file could not be read (postcard's error has no room for it).
    trouble: Option<String>,
}

impl<R: Read> Reading<R> {
    /// Makes `wanted` bytes ready at `start`.
    fn fill(&mut self, wanted: usize) -> postcard::Result<()> {
        let ready = self.end - self.start;
        if ready >= wanted {
            return Ok(());
        }
        if (wanted - ready) as u64 > self.unread {
            return Err(postcard::Error::DeserializeUnexpectedEnd);
        }
        self.buffer.copy_within(self.start..self.end, 0);
        (self.start, self.end) = (0, ready);
        if self.buffer.len() < wanted {
            self.buffer.resize(wanted, 0);
        }
        let room = self.buffer.len().min(self.end + self.unread as usize);
        while self.end < wanted {
            match self.reader.read(&mut self.buffer[self.end..room]) {
                Ok(0) => {
                    self.trouble = Some("the file ended early".into());
                    return Err(postcard::Error::DeserializeUnexpectedEnd);
                }
                Ok(read) => {
                    self.end += read;
                    self.unread -= read as u64;
                }
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(error) => {
                    self.trouble = Some(error.to_string());
                    return Err(postcard::Error::DeserializeUnexpectedEnd);
                }
            }
        }
        Ok(())
    }
}

impl<'de, R: Read + 'de> Flavor<'de> for Reading<R> {
    type Remainder = Self;
    type Source = ();

    fn pop(&mut self) -> postcard::Result<u8> {
        if self.start == self.end {
            self.fill(1)?;
        }
        let byte = self.buffer[self.start];
        self.start += 1;
        Ok(byte)
    }

    fn size_hint(&self) -> Option<usize> {
        usize::try_from(self.unread)
            .ok()?
            .checked_add(self.end - self.start)
    }

    fn try_take_n(&mut self, _: usize) -> postcard::Result<&'de [u8]> {
        Err(postcard::Error::DeserializeUnexpectedEnd)
    }

    fn try_take_n_temp<'a>(&'a mut self, wanted: usize) -> postcard::Result<&'a [u8]>
    where
        'de: 'a,
    {
        self.fill(wanted)?;
        let taken = &self.buffer[self.start..self.start + wanted];
        self.start += wanted;
        Ok(taken)
    }

    fn finalize(self) -> postcard::Result<Self> {
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offline::index::raw_bytes;

    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    struct Sample {
        name: String,
        #[serde(with = "raw_bytes")]
        bytes: Vec<u8>,
        numbers: Vec<u64>,
    }

    fn sample() -> Sample {
        Sample {
            name: "é".repeat(1000),
            bytes: (0..=255).cycle().take(CHUNK * 3 + 7).collect(),
            numbers: (0..10_000).map(|n| n * 1_000_003).collect(),
        }
    }

    /// Hands out at most 1,000 bytes per read, as a pipe or a slow disk may.
    struct Trickle<'a>(&'a [u8]);

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let n = out.len().min(self.0.len()).min(1000);
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn reads_in_pieces_what_postcard_wrote_whole_and_as_a_sequence_of_bytes_before() {
        let written = postcard::to_allocvec(&sample()).unwrap();
        let read: Sample = decode(Trickle(&written), written.len() as u64).unwrap();
        assert_eq!(read, sample());
        // Written before `raw_bytes`: the same layout.
        #[derive(serde::Serialize)]
        struct Before {
            name: String,
            bytes: Vec<u8>,
            numbers: Vec<u64>,
        }
        let before = postcard::to_allocvec(&Before {
            name: sample().name,
            bytes: sample().bytes,
            numbers: sample().numbers,
        })
        .unwrap();
        assert_eq!(before, written);
    }

    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    struct InPieces {
        #[serde(with = "raw_bytes::pieces")]
        bytes: Vec<u8>,
        after: u32,
    }

    #[test]
    fn a_field_in_pieces_reads_back_whole_and_is_written_in_pieces_no_larger_than_a_read() {
        for size in [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, CHUNK * 3 + 7] {
            let value = InPieces {
                bytes: (0..size).map(|n| (n * 7 % 251) as u8).collect(),
                after: 77,
            };
            let written = postcard::to_allocvec(&value).unwrap();
            let read: InPieces = decode(Trickle(&written), written.len() as u64).unwrap();
            assert_eq!(read, value, "{size} bytes");
            // Laid out as a sequence of byte strings, every one but the last of exactly a read's size.
            let pieces: Vec<Vec<u8>> = postcard::from_bytes::<(Vec<Vec<u8>>, u32)>(&written)
                .unwrap()
                .0;
            assert_eq!(pieces.len(), size.div_ceil(CHUNK), "{size} bytes");
            assert!(
                pieces
                    .iter()
                    .rev()
                    .skip(1)
                    .all(|piece| piece.len() == CHUNK)
            );
            assert_eq!(pieces.concat(), value.bytes);
        }
        // A piece that claims more than the file holds is refused.
        let mut written = postcard::to_allocvec(&InPieces {
            bytes: vec![1; 10],
            after: 0,
        })
        .unwrap();
        written[1] = 0x7f;
        assert!(decode::<InPieces>(Trickle(&written), written.len() as u64).is_err());
    }

    #[test]
    fn a_header_turned_away_stops_the_reading_there() {
        let mut written = postcard::to_allocvec(&(7u32, sample())).unwrap();
        // What follows the header is not read: damage there is not seen.
        written.truncate(20);
        let size = written.len() as u64;
        let turned: Result<Option<(u32, Sample)>, String> =
            decode_after(Trickle(&written), size, |format: &u32| *format == 8);
        assert_eq!(turned, Ok(None));
        let wanted: Result<Option<(u32, Sample)>, String> =
            decode_after(Trickle(&written), size, |format: &u32| *format == 7);
        assert!(
            wanted.is_err(),
            "the rest is read when the header is wanted"
        );
        let whole = postcard::to_allocvec(&(7u32, sample())).unwrap();
        let read = decode_after(Trickle(&whole), whole.len() as u64, |format: &u32| {
            *format == 7
        });
        assert_eq!(read, Ok(Some((7, sample()))));
    }

    #[test]
    fn a_short_damaged_or_longer_file_is_an_error() {
        let written = postcard::to_allocvec(&sample()).unwrap();
        let short = &written[..written.len() - 1];
        assert!(decode::<Sample>(Trickle(short), short.len() as u64).is_err());
        assert!(decode::<Sample>(Trickle(short), written.len() as u64).is_err());
        let mut longer = written.clone();
        longer.push(0);
        assert!(decode::<Sample>(Trickle(&longer), longer.len() as u64).is_err());
        // A length field that claims more than the file holds is refused before anything is allocated for it.
        let huge = [0xff, 0xff, 0xff, 0xff, 0x0f];
        assert!(decode::<Sample>(Trickle(&huge), huge.len() as u64).is_err());
    }
}
