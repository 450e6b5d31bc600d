//! The words added since the last layout ([`super::Frozen`]), each with its posting list: the words joined in one
//! string ([`Vocabulary`], in the order they came), their lists by number, and a table of the numbers by each word's
//! hash. A build of 100,000 notes adds 153,000 words: kept as a table of boxed words and lists, that was 153,000
//! allocations for the words and 48 bytes a slot; here a slot is 4 bytes and the words take one string.

use hashbrown::HashTable;
use hashbrown::hash_table::Entry;

use super::postings::Postings;
use super::split::word_hash;
use super::vocabulary::Vocabulary;

#[derive(Debug, Default)]
pub(super) struct Added {
    words: Vocabulary,
    /// Each word's posting list, by the word's number (its place in `words`).
    lists: Vec<Postings>,
    /// The words' numbers, by the hash of the word.
    table: HashTable<u32>,
}

/// The hash of a word, as the notes' own tables of words hash it.
fn hash(word: &str) -> u64 {
    word_hash(word.as_bytes())
}

impl Added {
    pub(super) fn is_empty(&self) -> bool {
        self.lists.is_empty()
    }

    /// The word numbered `number`.
    pub(super) fn word(&self, number: u32) -> &str {
        self.words.word(number as usize)
    }

    /// Every word, in the order they came.
    pub(super) fn words(&self) -> impl Iterator<Item = &str> {
        (0..self.words.len()).map(|index| self.words.word(index))
    }

    /// `word`'s posting list.
    pub(super) fn get(&self, word: &str) -> Option<&Postings> {
        let number = self
            .table
            .find(hash(word), |&number| self.word(number) == word)?;
        Some(&self.lists[*number as usize])
    }

    /// `word`'s posting list, an empty one for a word not yet added; with whether the word is new. `hash` is the
    /// word's [`word_hash`], which the reading threads computed for the note's own table.
    pub(super) fn list_mut(&mut self, word: &str, hash_of_word: u64) -> (&mut Postings, bool) {
        debug_assert_eq!(hash_of_word, hash(word));
        let Added {
            words,
            lists,
            table,
        } = self;
        let entry = table.entry(
            hash_of_word,
            |&number| words.word(number as usize) == word,
            |&number| hash(words.word(number as usize)),
        );
        match entry {
            Entry::Occupied(entry) => (&mut lists[*entry.get() as usize], false),
            Entry::Vacant(entry) => {
                let number = u32::try_from(lists.len()).expect("fewer than 4 billion words");
                entry.insert(number);
                words.push(word);
                lists.push(Postings::default());
                (lists.last_mut().expect("just pushed"), true)
            }
        }
    }

    /// The words in ascending order with their lists, for a layout; the table of numbers is dropped first (1.3 MB
    /// at a build's peak at 100,000 notes).
    pub(super) fn into_sorted(self) -> Sorted {
        let Added {
            words,
            lists,
            table,
        } = self;
        drop(table);
        let mut order: Vec<u32> = (0..lists.len() as u32).collect();
        order.sort_unstable_by(|&one, &other| {
            words.word(one as usize).cmp(words.word(other as usize))
        });
        Sorted {
            words,
            lists,
            order: order.into_iter().peekable(),
        }
    }
}

/// The words added, in ascending order, each with its list: what a layout takes them from.
pub(super) struct Sorted {
    words: Vocabulary,
    lists: Vec<Postings>,
    /// The words' numbers in the words' order, from the next one on.
    order: std::iter::Peekable<std::vec::IntoIter<u32>>,
}

impl Sorted {
    /// How many words, and how many bytes their letters and their lists take.
    pub(super) fn sizes(&self) -> (usize, usize, usize) {
        let letters = (0..self.words.len())
            .map(|index| self.words.word(index).len())
            .sum();
        let lists = self.lists.iter().map(|list| list.bytes.len()).sum();
        (self.lists.len(), letters, lists)
    }

    /// The next word, if any.
    pub(super) fn peek(&mut self) -> Option<&str> {
        let number = *self.order.peek()?;
        Some(self.words.word(number as usize))
    }

    /// The next word and its list.
    pub(super) fn next(&mut self) -> Option<(&str, Postings)> {
        let number = self.order.next()? as usize;
        let list = std::mem::take(&mut self.lists[number]);
        Some((self.words.word(number), list))
    }
}

/// Saved as a map from each word to its list, as the table of boxed words was: files saved before read the same.
impl serde::Serialize for Added {
    fn serialize<S: serde::Serializer>(&self, out: S) -> Result<S::Ok, S::Error> {
        out.collect_map(self.words().zip(&self.lists))
    }
}

impl<'de> serde::Deserialize<'de> for Added {
    fn deserialize<D: serde::Deserializer<'de>>(input: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Added;
            fn expecting(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                out.write_str("a map of words to posting lists")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Added, A::Error> {
                let mut added = Added::default();
                while let Some((word, list)) = map.next_entry::<String, Postings>()? {
                    let (slot, new) = added.list_mut(&word, hash(&word));
                    if !new {
                        return Err(serde::de::Error::custom("a word listed twice"));
                    }
                    *slot = list;
                }
                Ok(added)
            }
        }
        input.deserialize_map(Visit)
    }
}

#[cfg(test)]
mod tests {
    use super::{Added, Postings, hash};

    fn list(docs: &[u32]) -> Postings {
        let mut list = Postings::default();
        for &doc in docs {
            list.push(doc, 1);
        }
        list
    }

    #[test]
    fn a_map_saved_by_word_reads_back_and_a_word_twice_is_refused() {
        // What a table of boxed words saved, laid out as postcard lays out a map: its length, then each pair.
        let saved: Vec<(String, Postings)> = vec![
            ("GARDEN".into(), list(&[0, 3])),
            ("ÉCOLE".into(), list(&[1])),
        ];
        let bytes = postcard::to_allocvec(&saved).unwrap();
        let added: Added = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(added.words().count(), 2);
        assert_eq!(added.get("GARDEN").unwrap().bytes, list(&[0, 3]).bytes);
        assert_eq!(added.get("ÉCOLE").unwrap().bytes, list(&[1]).bytes);
        assert!(added.get("GARDE").is_none());
        assert_eq!(
            postcard::to_allocvec(&added).unwrap(),
            bytes,
            "saved again the same"
        );
        let twice = vec![("A".to_string(), list(&[0])), ("A".to_string(), list(&[1]))];
        let error =
            postcard::from_bytes::<Added>(&postcard::to_allocvec(&twice).unwrap()).unwrap_err();
        // postcard keeps no custom message: the error is its kind for one.
        assert!(matches!(error, postcard::Error::SerdeDeCustom), "{error}");
    }

    #[test]
    fn words_past_the_first_table_size_keep_their_lists() {
        let mut added = Added::default();
        for doc in 0..5000u32 {
            let word = format!("W{}", doc % 1500);
            let (list, new) = added.list_mut(&word, hash(&word));
            assert_eq!(new, doc < 1500);
            list.push(doc, 1);
        }
        assert_eq!(added.words().count(), 1500);
        let mut docs = Vec::new();
        added.get("W7").unwrap().for_each(|doc| docs.push(doc));
        assert_eq!(docs, [7, 1507, 3007, 4507]);
        let mut sorted = added.into_sorted();
        assert_eq!(sorted.sizes().0, 1500);
        let mut words = Vec::new();
        while let Some((word, list)) = sorted.next() {
            assert!(!list.bytes.is_empty());
            words.push(word.to_string());
        }
        assert_eq!(words.len(), 1500);
        assert!(
            words.windows(2).all(|pair| pair[0] < pair[1]),
            "in ascending order"
        );
    }
}
