//! The words as a build or a compaction leaves them: laid out flat, in byte order, so that the saved index reads
//! them in a few copies (not one allocation per word and per list) and they cost a few bytes beyond their letters
//! and postings (a table of boxed words and lists held 28 MB for the 153,000 words of 100,000 notes).

use super::DocSet;
use super::added::Added;
use super::postings::{Postings, each_count, last_doc};
use super::vocabulary::Vocabulary;

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Frozen {
    /// The words, in ascending order.
    pub(super) words: Vocabulary,
    /// Each word's posting list (see [`Postings`]), one after another in the words' order.
    #[serde(with = "crate::offline::index::raw_bytes::pieces")]
    postings: Vec<u8>,
    /// Where each word's list ends in `postings`.
    ends: Vec<u64>,
}

impl Frozen {
    /// About how many bytes it holds.
    pub(super) fn bytes(&self) -> u64 {
        self.words.bytes() + (self.postings.len() + 8 * self.ends.len()) as u64
    }

    /// The posting list of the word at `index`.
    pub(super) fn postings(&self, index: usize) -> &[u8] {
        let start = index
            .checked_sub(1)
            .map_or(0, |before| self.ends[before] as usize);
        &self.postings[start..self.ends[index] as usize]
    }

    /// Whether the layout holds together (see [`Vocabulary::is_sorted_and_sound`]).
    pub(super) fn is_sound(&self) -> bool {
        self.words.is_sorted_and_sound()
            && self.ends.len() == self.words.len()
            && self.ends.windows(2).all(|pair| pair[0] <= pair[1])
            && self
                .ends
                .last()
                .is_none_or(|&last| last == self.postings.len() as u64)
    }

    fn push(&mut self, word: &str, postings: &[u8]) {
        self.words.push(word);
        self.postings.extend_from_slice(postings);
        self.ends.push(self.postings.len() as u64);
    }

    /// `frozen` and the words `added` since (whose documents all follow `frozen`'s) as one frozen list; with `live`,
    /// only its documents are kept, and words left with none are dropped.
    pub(super) fn merged(frozen: Frozen, added: Added, live: Option<&DocSet>) -> Frozen {
        // The added words in order, by number (4 bytes a word: a vector of the words and their lists taken out of a
        // table of them, 48 bytes a word, was 7 MB at a build's peak at 100,000 notes).
        let mut added = added.into_sorted();
        let (count, letters, lists) = added.sizes();
        let mut merged = Frozen::default();
        merged.words.reserve(
            frozen.words.len() + count,
            frozen.words.bytes() as usize + letters,
        );
        merged.postings.reserve_exact(frozen.postings.len() + lists);
        merged.ends.reserve_exact(frozen.words.len() + count);
        let mut index = 0;
        loop {
            let old = (index < frozen.words.len()).then(|| frozen.words.word(index));
            let new = added.peek();
            match (old, new) {
                (None, None) => break,
                (Some(word), new) if new.is_none_or(|new| word <= new) => {
                    let new = (new == Some(word))
                        .then(|| added.next())
                        .flatten()
                        .map(|(_, list)| list);
                    merged.push_joined(word, frozen.postings(index), new, live);
                    index += 1;
                }
                _ => {
                    let Some((word, list)) = added.next() else {
                        break;
                    };
                    merged.push_joined(word, &[], Some(list), live);
                }
            }
        }
        merged.postings.shrink_to_fit();
        merged
    }

    /// Pushes a word whose list is `old` followed by `new` (documents past `old`'s), keeping only `live`'s documents.
    fn push_joined(
        &mut self,
        word: &str,
        old: &[u8],
        new: Option<Postings>,
        live: Option<&DocSet>,
    ) {
        let list = match (live, new) {
            (None, None) => {
                self.push(word, old);
                return;
            }
            (None, Some(new)) if old.is_empty() => new,
            (None, Some(new)) => {
                let mut list = Postings::continuing(old, last_doc(old));
                new.for_each_count(|doc, count| list.push(doc, count));
                list
            }
            (Some(live), new) => {
                let mut list = Postings::default();
                let mut keep = |doc, count| {
                    if live.contains(doc) {
                        list.push(doc, count);
                    }
                };
                each_count(old, &mut keep);
                if let Some(new) = new {
                    new.for_each_count(&mut keep);
                }
                list
            }
        };
        if !list.bytes.is_empty() {
            self.push(word, &list.bytes);
        }
    }
}
