//! Words joined in one string, for the searches that look inside words and for the frozen words' own lookup.

use super::{DocSet, Words};

/// Words joined, each followed by NUL (which no word holds), with where each starts: a term is looked for inside
/// every word by one scan of one string, instead of a visit to every word's own allocation (150,000 words in a vault
/// of 100,000 notes took 5 ms per term that way).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Vocabulary {
    joined: String,
    starts: Vec<u32>,
}

impl Vocabulary {
    /// The words of `added` that `frozen` lacks.
    pub(super) fn of<'a>(added: impl Iterator<Item = &'a str>, frozen: &Vocabulary) -> Vocabulary {
        let mut vocabulary = Vocabulary::default();
        for word in added.filter(|word| frozen.find(word).is_none()) {
            vocabulary.push(word);
        }
        vocabulary
    }

    /// Adds a word at the end.
    pub(super) fn push(&mut self, word: &str) {
        self.starts.push(self.joined.len() as u32);
        self.joined.push_str(word);
        self.joined.push('\0');
    }

    pub(super) fn reserve(&mut self, words: usize, bytes: usize) {
        self.starts.reserve_exact(words);
        self.joined.reserve_exact(bytes + words);
    }

    pub(super) fn len(&self) -> usize {
        self.starts.len()
    }

    /// About how many bytes it holds.
    pub(super) fn bytes(&self) -> u64 {
        (self.joined.len() + 4 * self.starts.len()) as u64
    }

    /// The word at `index` (`index` below [`Vocabulary::len`]).
    pub(super) fn word(&self, index: usize) -> &str {
        let start = self.starts[index] as usize;
        let end = self
            .starts
            .get(index + 1)
            .map_or(self.joined.len(), |&next| next as usize);
        &self.joined[start..end - 1]
    }

    /// Where `word` is, in words pushed in ascending order.
    pub(super) fn find(&self, word: &str) -> Option<usize> {
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let middle = low + (high - low) / 2;
            match self.word(middle).cmp(word) {
                std::cmp::Ordering::Less => low = middle + 1,
                std::cmp::Ordering::Greater => high = middle,
                std::cmp::Ordering::Equal => return Some(middle),
            }
        }
        None
    }

    /// Whether the layout holds together, its words in ascending order: what a file saved by this version holds
    /// (the saved index checks, so that nothing read can index out of its bounds).
    pub(super) fn is_sorted_and_sound(&self) -> bool {
        let bytes = self.joined.as_bytes();
        let bounds_hold = self.starts.first().is_none_or(|&first| first == 0)
            && self.starts.windows(2).all(|pair| pair[0] < pair[1])
            && self.starts.iter().all(|&start| {
                (start as usize) < bytes.len() && (start == 0 || bytes[start as usize - 1] == 0)
            })
            && (self.starts.is_empty() == bytes.is_empty())
            && bytes.last().is_none_or(|&last| last == 0);
        bounds_hold && (1..self.len()).all(|index| self.word(index - 1) < self.word(index))
    }

    /// Each word holding `finder`'s needle, once, by index, with whether it starts with it.
    pub(super) fn holding<'v>(
        &'v self,
        finder: &'v memchr::memmem::Finder<'_>,
    ) -> impl Iterator<Item = (usize, bool)> + 'v {
        let mut last = None;
        finder
            .find_iter(self.joined.as_bytes())
            .filter_map(move |at| {
                let index = self.starts.partition_point(|&start| start as usize <= at) - 1;
                if last == Some(index) {
                    return None;
                }
                last = Some(index);
                Some((index, at == self.starts[index] as usize))
            })
    }
}

/// A plain term's words in the index: those that start with it (frozen ones by index, added ones by name), and the
/// documents holding it inside a word (not at its start) or holding a long word.
#[derive(Debug)]
pub(super) struct TermWords {
    pub(super) starting: Vec<usize>,
    pub(super) starting_added: Vec<Box<str>>,
    pub(super) inside: DocSet,
}

impl Words {
    /// The words that start with `finder`'s needle, and the documents holding it elsewhere in a word (or a long
    /// word): one scan of the frozen words and one of those added since.
    pub(super) fn term_words(&self, finder: &memchr::memmem::Finder<'_>) -> TermWords {
        let mut found = TermWords {
            starting: Vec::new(),
            starting_added: Vec::new(),
            inside: self.doc_set(std::iter::empty()),
        };
        for (index, at_start) in self.frozen.words.holding(finder) {
            if at_start {
                found.starting.push(index);
            } else {
                self.each_count_at(index, |doc, _| found.inside.insert(doc));
            }
        }
        let added = self.added_vocabulary();
        for (index, at_start) in added.holding(finder) {
            let word = added.word(index);
            if at_start {
                found.starting_added.push(word.into());
            } else if let Some(postings) = self.added.get(word) {
                postings.for_each(|doc| found.inside.insert(doc));
            }
        }
        self.long.for_each(|doc| found.inside.insert(doc));
        found
    }
}
