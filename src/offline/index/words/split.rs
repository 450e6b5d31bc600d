//! A note's text split into its distinct canonical words, on the reading threads of a build: most of a build's time
//! in the word index is here, so ASCII is read eight bytes at a time and each word is hashed once, for the note's
//! own table and for the index's ([`super::Added`]).

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

/// A word's hash: a folded multiply (the 128-bit product's halves, xored) of at most eight bytes at a time, the way
/// wyhash reads short keys. Words are short and come from the vault's own text, not from someone who would profit
/// from collisions; FNV-1a, one multiply per byte, was an eighth of each reading thread's time at 100,000 notes.
pub(super) fn word_hash(word: &[u8]) -> u64 {
    const SEED: u64 = 0x243f_6a88_85a3_08d3;
    const MIX: u64 = 0x9e37_79b9_7f4a_7c15;
    let length = word.len();
    if length <= 8 {
        // Two reads that together cover the word (overlapping when it is shorter than eight bytes), at most 32 bits
        // each; the length, above those bits, tells apart the words they could be.
        let (low, high) = match length {
            4.. => (read_u32(word, 0), read_u32(word, length - 4)),
            1.. => (
                u64::from(word[0]) << 16
                    | u64::from(word[length / 2]) << 8
                    | u64::from(word[length - 1]),
                0,
            ),
            0 => (0, 0),
        };
        return folded_multiply(low ^ SEED, high ^ MIX ^ (length as u64) << 32);
    }
    let mut hash = folded_multiply(SEED ^ length as u64, MIX);
    let mut rest = word;
    while rest.len() > 8 {
        hash = folded_multiply(read_u64(rest, 0) ^ hash, MIX);
        rest = &rest[8..];
    }
    // The last eight bytes, overlapping those already read when the length is not a multiple of eight.
    folded_multiply(read_u64(word, length - 8) ^ hash, MIX ^ SEED)
}

/// `a == b` for two words, read the way [`word_hash`] reads them: up to sixteen bytes in at most two overlapping reads
/// each, without a call to `memcmp` (a word found again in its note, 300 times a note of 2.4 KB, was compared so).
fn same_word(a: &[u8], b: &[u8]) -> bool {
    let length = a.len();
    if length != b.len() {
        return false;
    }
    match length {
        0 => true,
        1..4 => a[0] == b[0] && a[length / 2] == b[length / 2] && a[length - 1] == b[length - 1],
        4..8 => {
            read_u32(a, 0) == read_u32(b, 0) && read_u32(a, length - 4) == read_u32(b, length - 4)
        }
        8..=16 => {
            read_u64(a, 0) == read_u64(b, 0) && read_u64(a, length - 8) == read_u64(b, length - 8)
        }
        _ => a == b,
    }
}

fn folded_multiply(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    (product as u64) ^ (product >> 64) as u64
}

fn read_u32(bytes: &[u8], at: usize) -> u64 {
    u64::from(u32::from_le_bytes(
        bytes[at..at + 4].try_into().expect("four bytes"),
    ))
}

fn read_u64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("eight bytes"))
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
        table: NoteTable::with_capacity(text.len() / 12),
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
                split.extend_run(upper_ascii(chunk).to_le_bytes(), run);
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
    table: NoteTable,
    out: NoteWords,
    open: Option<usize>,
}

impl Split {
    /// Appends canonical bytes to the word being read (starting one, after a NUL when a word is kept before it).
    fn extend(&mut self, bytes: &[u8]) {
        self.open_word();
        self.joined.extend_from_slice(bytes);
    }

    /// [`Split::extend`] with the first `run` bytes of `bytes`: all eight are copied (one store, where a copy of
    /// `run` bytes was a call to `memcpy`, 3% of a build's instructions) and the rest cut off again.
    fn extend_run(&mut self, bytes: [u8; 8], run: usize) {
        self.open_word();
        let length = self.joined.len() + run;
        self.joined.extend_from_slice(&bytes);
        self.joined.truncate(length);
    }

    /// Starts a word unless one is being read (after a NUL when a word is kept before it).
    fn open_word(&mut self) {
        if self.open.is_none() {
            if !self.joined.is_empty() {
                self.joined.push(0);
            }
            self.open = Some(self.joined.len());
        }
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
        let hashes = &out.hashes;
        let found = table.find(hash, |number| {
            let from = starts[number] as usize;
            let to = starts
                .get(number + 1)
                .map_or(before, |&next| next as usize - 1);
            hashes[number] == hash && same_word(&joined[from..to], word)
        });
        let slot = match found {
            Ok(number) => {
                out.counts[number] += 1;
                joined.truncate(before);
                return;
            }
            Err(slot) => slot,
        };
        let number = u32::try_from(starts.len()).expect("a note of fewer than 4 billion words");
        starts.push(u32::try_from(start).expect("a note under 4 GB"));
        out.counts.push(1);
        out.hashes.push(hash);
        table.insert(slot, number, &out.hashes);
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

/// A note's words by hash, as their numbers: open addressing with linear probing over a power-of-two number of slots,
/// at most half of them used. A note has a few hundred words, found again most of the time; a general table's probe
/// was most of each word's cost.
struct NoteTable {
    /// The number of the word in each slot, plus one; 0 for an empty slot.
    slots: Vec<u32>,
    used: usize,
}

impl NoteTable {
    fn with_capacity(words: usize) -> NoteTable {
        NoteTable {
            slots: vec![0; (words * 2).next_power_of_two().max(16)],
            used: 0,
        }
    }

    /// The number of the word with this hash that `same` accepts, or the empty slot where it would go.
    fn find(&self, hash: u64, same: impl Fn(usize) -> bool) -> Result<usize, usize> {
        let mask = self.slots.len() - 1;
        let mut at = slot_of(hash, mask);
        loop {
            match self.slots[at] {
                0 => return Err(at),
                held if same(held as usize - 1) => return Ok(held as usize - 1),
                _ => at = (at + 1) & mask,
            }
        }
    }

    /// Puts `number` in `slot` (an empty one `find` gave); `hashes` holds every number's hash, this one's too.
    fn insert(&mut self, slot: usize, number: u32, hashes: &[u64]) {
        self.slots[slot] = number + 1;
        self.used += 1;
        if self.used * 2 > self.slots.len() {
            self.grow(hashes);
        }
    }

    /// Doubles the slots and puts every number back.
    fn grow(&mut self, hashes: &[u64]) {
        let doubled = vec![0; self.slots.len() * 2];
        let old = std::mem::replace(&mut self.slots, doubled);
        let mask = self.slots.len() - 1;
        for held in old.into_iter().filter(|&held| held != 0) {
            let mut at = slot_of(hashes[held as usize - 1], mask);
            while self.slots[at] != 0 {
                at = (at + 1) & mask;
            }
            self.slots[at] = held;
        }
    }
}

/// Where a word's probe starts: its hash's upper half, within the slots.
fn slot_of(hash: u64, mask: usize) -> usize {
    (hash >> 32) as usize & mask
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
    use super::{ascii_run, same_word, upper_ascii, word_hash, words_of};

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

    #[test]
    fn word_hashes_differ_and_spread() {
        // Every word of up to three characters over an alphabet, and longer ones around the eight-byte reads.
        let alphabet: Vec<char> = "AEZ09ÉÀ".chars().collect();
        let mut words: Vec<String> = vec![String::new()];
        for _ in 0..3 {
            let longer: Vec<String> = words
                .iter()
                .flat_map(|word| alphabet.iter().map(move |c| format!("{word}{c}")))
                .collect();
            words.extend(longer);
        }
        for length in 4..=24 {
            for number in 0..400u32 {
                words.push(format!("{number:0>length$}"));
                words.push(format!("{:A<length$}", number));
            }
        }
        words.sort();
        words.dedup();
        let hashes: std::collections::HashSet<u64> = words
            .iter()
            .map(|word| word_hash(word.as_bytes()))
            .collect();
        assert_eq!(
            hashes.len(),
            words.len(),
            "no two of these words share a hash"
        );
        // The table keys on the top seven bits and the low bits: each of their 128 values holds a fair share.
        for shift in [57, 0] {
            let mut buckets = [0usize; 128];
            for hash in &hashes {
                buckets[(hash >> shift) as usize & 127] += 1;
            }
            let fair = hashes.len() / 128;
            assert!(
                buckets.iter().all(|&n| n > fair / 2 && n < fair * 2),
                "{shift}: {buckets:?}"
            );
        }
    }

    #[test]
    fn words_are_the_same_exactly_when_their_bytes_are() {
        // Every length up to 40, against itself, against the same with one byte changed at each place, and against
        // the word one byte shorter or longer.
        for length in 0..=40usize {
            let word: Vec<u8> = (0..length).map(|at| b'a' + (at % 26) as u8).collect();
            assert!(same_word(&word, &word.clone()), "{length}");
            for at in 0..length {
                let mut other = word.clone();
                other[at] = b'0';
                assert!(!same_word(&word, &other), "{length} at {at}");
                assert!(!same_word(&other, &word), "{length} at {at}");
            }
            let mut longer = word.clone();
            longer.push(b'z');
            assert!(!same_word(&word, &longer), "{length}");
            assert!(!same_word(&longer, &word), "{length}");
        }
    }

    #[test]
    fn a_note_of_many_short_distinct_words_grows_its_table_and_counts_each() {
        // Far more distinct words than the table is first sized for (a word per dozen bytes): it grows five times.
        let once: Vec<String> = (0..5000).map(|number| format!("{number:x}")).collect();
        let text = format!("{} {}", once.join(" "), once.join(" "));
        let found: Vec<(String, u32)> = words_of(&text)
            .each()
            .map(|(word, count, _)| (word.to_string(), count))
            .collect();
        let expected: Vec<(String, u32)> =
            once.iter().map(|word| (word.to_uppercase(), 2)).collect();
        assert_eq!(found, expected);
    }
}
