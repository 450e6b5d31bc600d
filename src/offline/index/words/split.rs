//! A note's text split into its distinct canonical words, on the reading threads of a build: most of a build's time
//! in the word index is here, so ASCII is read eight bytes at a time and each word is hashed once, for the note's
//! own table and for the index's ([`super::Added`]).

use hashbrown::HashTable;

use crate::offline::js::canonical_alphanumeric;

use super::LONG_WORD;

/// A note's distinct words, ready to add: joined by NUL (which is not alphanumeric, so never inside a word), each with
/// where it starts there, how many times it occurs and its [`word_hash`].
#[derive(Debug, Default, Clone)]
pub(crate) struct NoteWords {
    pub(super) joined: String,
    pub(super) starts: Vec<u32>,
    pub(super) counts: Vec<u32>,
    pub(super) hashes: Vec<u64>,
    pub(super) has_long: bool,
}

impl NoteWords {
    /// Each word with how many times it occurs and its hash, in the order they first occur.
    pub(super) fn each(&self) -> impl Iterator<Item = (&str, u32, u64)> {
        (0..self.starts.len()).map(|number| {
            let from = self.starts[number] as usize;
            let to = self
                .starts
                .get(number + 1)
                .map_or(self.joined.len(), |&next| next as usize - 1);
            (
                &self.joined[from..to],
                self.counts[number],
                self.hashes[number],
            )
        })
    }
}

/// FNV-1a: words are short and not chosen by an attacker who could profit from collisions (a vault's own text), and
/// hashing them is much of the cost of adding a note. (Eight bytes at a time was slower on these short words: 40 ms
/// against 33.7 for a test set.)
pub(super) fn word_hash(word: &[u8]) -> u64 {
    word.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A run longer than [`LONG_WORD`] characters (at most four bytes each).
pub(super) fn is_long(word: &str) -> bool {
    word.len() > LONG_WORD && word.chars().nth(LONG_WORD).is_some()
}

/// Splits a text into its distinct canonical words, in the order they first occur.
pub(crate) fn words_of(text: &str) -> NoteWords {
    let mut split = Split {
        // Sized for a note of prose (a distinct word per dozen bytes or so), so that they are seldom grown.
        joined: Vec::with_capacity(text.len() / 2),
        table: HashTable::with_capacity(text.len() / 12),
        out: NoteWords {
            starts: Vec::with_capacity(text.len() / 12),
            counts: Vec::with_capacity(text.len() / 12),
            hashes: Vec::with_capacity(text.len() / 12),
            ..NoteWords::default()
        },
        open: None,
    };
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if let Some(chunk) = bytes.get(at..at + 8) {
            let chunk = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
            let (run, ascii) = ascii_run(chunk);
            if run > 0 {
                split.extend(&upper_ascii(chunk).to_le_bytes()[..run]);
            }
            at += run;
            if run < ascii {
                // An ASCII byte that is not a letter or digit.
                split.close();
                at += 1;
            }
            if run < 8 && run == ascii {
                at = split.character(text, at);
            }
            continue;
        }
        at = split.character(text, at);
    }
    split.close();
    split.finish()
}

/// The words of one note as they are found: the words kept so far joined by NUL and the word being read after them
/// (where it starts: `open`), and a table of the kept words' numbers by hash.
struct Split {
    joined: Vec<u8>,
    table: HashTable<u32>,
    out: NoteWords,
    open: Option<usize>,
}

impl Split {
    /// Appends canonical bytes to the word being read (starting one, after a NUL when a word is kept before it).
    fn extend(&mut self, bytes: &[u8]) {
        if self.open.is_none() {
            if !self.joined.is_empty() {
                self.joined.push(0);
            }
            self.open = Some(self.joined.len());
        }
        self.joined.extend_from_slice(bytes);
    }

    /// Reads the character at byte `at` of `text` (one at a time: not ASCII, or near the end), and gives where the
    /// next one starts.
    fn character(&mut self, text: &str, at: usize) -> usize {
        let c = text[at..].chars().next().expect("a character starts here");
        match canonical_alphanumeric(c) {
            Some(folded) => self.extend(folded.encode_utf8(&mut [0; 4]).as_bytes()),
            None => self.close(),
        }
        at + c.len_utf8()
    }

    /// Ends the word being read: counted again when the note had it already, kept otherwise.
    fn close(&mut self) {
        let Some(start) = self.open.take() else {
            return;
        };
        let Split {
            joined, table, out, ..
        } = self;
        let starts = &mut out.starts;
        let word = &joined[start..];
        // What a word that is not kept leaves: the words before it, without the NUL after them.
        let before = start.saturating_sub(1);
        if word.len() > LONG_WORD && std::str::from_utf8(word).is_ok_and(is_long) {
            out.has_long = true;
            joined.truncate(before);
            return;
        }
        let hash = word_hash(word);
        let found = table.find(hash, |&number| {
            let from = starts[number as usize] as usize;
            let to = starts
                .get(number as usize + 1)
                .map_or(before, |&next| next as usize - 1);
            joined[from..to] == *word
        });
        if let Some(&number) = found {
            out.counts[number as usize] += 1;
            joined.truncate(before);
            return;
        }
        let number = u32::try_from(starts.len()).expect("a note of fewer than 4 billion words");
        let hashes = &out.hashes;
        table.insert_unique(hash, number, |&number| hashes[number as usize]);
        starts.push(u32::try_from(start).expect("a note under 4 GB"));
        out.counts.push(1);
        out.hashes.push(hash);
    }

    /// The words joined by NUL.
    fn finish(self) -> NoteWords {
        let mut out = self.out;
        // Every byte came from an ASCII letter or digit or a whole character's encoding, or is a NUL between words
        // (checked with SIMD: std's check was 2% of a build).
        assert!(
            simdutf8::basic::from_utf8(&self.joined).is_ok(),
            "words are whole characters"
        );
        // SAFETY: just checked to be UTF-8.
        out.joined = unsafe { String::from_utf8_unchecked(self.joined) };
        out
    }
}

const HIGH: u64 = 0x8080_8080_8080_8080;

/// `byte` in every byte of a word.
const fn each(byte: u8) -> u64 {
    byte as u64 * 0x0101_0101_0101_0101
}

/// The high bit of each byte of `chunk` (all under 0x80) that lies in `low..=high`. Byte by byte: `x + 0x80 - low`
/// reaches 0x80 when `x >= low`, `x + 0x7f - high` when `x > high`, and neither carries into the next byte.
const fn in_range(chunk: u64, low: u8, high: u8) -> u64 {
    let at_least = chunk.wrapping_add(each(0x80 - low));
    let above = chunk.wrapping_add(each(0x7f - high));
    at_least & !above & HIGH
}

/// Of eight bytes read as little-endian: how many from the first are ASCII letters or digits, and how many from the
/// first are ASCII. A byte of 0x80 or more may carry into the bytes after it, which neither count reaches.
fn ascii_run(chunk: u64) -> (usize, usize) {
    let not_ascii = chunk & HIGH;
    let alphanumeric = in_range(chunk | each(0x20), b'a', b'z') | in_range(chunk, b'0', b'9');
    let run = ((!alphanumeric & HIGH) | not_ascii).trailing_zeros() as usize / 8;
    let ascii = not_ascii.trailing_zeros() as usize / 8;
    (run, ascii)
}

/// The ASCII lower-case letters of `chunk` made upper case (bytes past a byte of 0x80 or more are not to be read).
fn upper_ascii(chunk: u64) -> u64 {
    chunk & !(in_range(chunk, b'a', b'z') >> 2)
}

#[cfg(test)]
mod tests {
    use super::{ascii_run, upper_ascii, words_of};

    fn chunk(bytes: &[u8; 8]) -> u64 {
        u64::from_le_bytes(*bytes)
    }

    #[test]
    fn eight_bytes_are_classed_as_one_at_a_time_would_be() {
        // Every byte value at every place, among letters, digits and the bytes next to their ranges.
        let fillers = *b"a9Z0@[`{";
        for place in 0..8 {
            for value in 0..=255u8 {
                for filler in fillers {
                    let mut bytes = [filler; 8];
                    bytes[place] = value;
                    let ascii = bytes.iter().position(|b| !b.is_ascii()).unwrap_or(8);
                    let run = bytes[..ascii]
                        .iter()
                        .position(|b| !b.is_ascii_alphanumeric())
                        .unwrap_or(ascii);
                    assert_eq!(ascii_run(chunk(&bytes)), (run, ascii), "{bytes:?}");
                    let upper = upper_ascii(chunk(&bytes)).to_le_bytes();
                    assert_eq!(
                        upper[..ascii],
                        bytes.to_ascii_uppercase()[..ascii],
                        "{bytes:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn words_across_eight_byte_edges_and_characters_are_whole() {
        let long = "q".repeat(49);
        let text = format!(
            "alpha-betagamma déjà vu, ÀBC1 x\nalphaALPHA {long} alpha 12345678901234567 é {long}"
        );
        let words = words_of(&text);
        let got: Vec<&str> = words.joined.split('\0').collect();
        assert_eq!(
            got,
            [
                "ALPHA",
                "BETAGAMMA",
                "DÉJÀ",
                "VU",
                "ÀBC1",
                "X",
                "ALPHAALPHA",
                "12345678901234567",
                "É"
            ]
        );
        assert_eq!(words.counts, [2, 1, 1, 1, 1, 1, 1, 1, 1]);
        assert_eq!(words.hashes.len(), words.counts.len());
        assert!(words.has_long);
    }
}
