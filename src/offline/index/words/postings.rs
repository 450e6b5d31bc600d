//! Posting lists, sets of documents and counts by document: how the word index says which documents hold a word, and
//! how often.

/// One word's documents, in ascending order, as it grows. A posting is the document's delta from the one before,
/// shifted left once, its low bit set when the word occurs more than once there; then, only in that case, the count.
/// Both LEB128. Most words occur once in a note, so the counts ranking needs cost little.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct Postings {
    #[serde(with = "crate::offline::index::raw_bytes")]
    pub(super) bytes: Vec<u8>,
    /// The last document appended plus one (0: none yet).
    pub(super) next: u32,
}

impl Postings {
    /// A list that continues `bytes`, whose last document is `last` (`None`: an empty list).
    pub(super) fn continuing(bytes: &[u8], last: Option<u32>) -> Postings {
        Postings {
            bytes: bytes.to_vec(),
            next: last.map_or(0, |last| last + 1),
        }
    }

    pub(super) fn push(&mut self, doc: u32, count: u32) {
        let delta = u64::from(doc + 1 - self.next);
        self.next = doc + 1;
        self.put((delta << 1) | u64::from(count > 1));
        if count > 1 {
            self.put(u64::from(count));
        }
    }

    fn put(&mut self, mut value: u64) {
        loop {
            let low = (value & 0x7f) as u8;
            value >>= 7;
            if value == 0 {
                self.bytes.push(low);
                break;
            }
            self.bytes.push(low | 0x80);
        }
    }

    pub(super) fn for_each(&self, mut visit: impl FnMut(u32)) {
        each_count(&self.bytes, |doc, _| visit(doc));
    }

    /// Each document with how many times the word occurs in it.
    pub(super) fn for_each_count(&self, visit: impl FnMut(u32, u32)) {
        each_count(&self.bytes, visit);
    }
}

/// Each document of a posting list laid out as [`Postings`] lays it out (from document 0), with its count.
pub(super) fn each_count(bytes: &[u8], mut visit: impl FnMut(u32, u32)) {
    let (mut value, mut shift, mut previous) = (0u64, 0u32, 0u32);
    let mut counted: Option<u32> = None;
    for &byte in bytes {
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 != 0 {
            shift += 7;
            continue;
        }
        match counted.take() {
            Some(doc) => visit(doc, value as u32),
            None => {
                previous = previous.wrapping_add((value >> 1) as u32);
                if value & 1 == 1 {
                    counted = Some(previous.wrapping_sub(1));
                } else {
                    visit(previous.wrapping_sub(1), 1);
                }
            }
        }
        (value, shift) = (0, 0);
    }
}

/// The last document of a posting list laid out as [`Postings`] lays it out.
pub(super) fn last_doc(bytes: &[u8]) -> Option<u32> {
    let mut last = None;
    each_count(bytes, |doc, _| last = Some(doc));
    last
}

/// A set of document numbers.
#[derive(Debug, Clone)]
pub(crate) struct DocSet(Vec<u64>);

impl DocSet {
    pub(super) fn empty(docs: u32) -> DocSet {
        DocSet(vec![0; (docs as usize).div_ceil(64)])
    }

    pub(super) fn insert(&mut self, doc: u32) {
        if let Some(word) = self.0.get_mut(doc as usize / 64) {
            *word |= 1 << (doc % 64);
        }
    }

    /// Whether the document may hold the query.
    pub(crate) fn contains(&self, doc: u32) -> bool {
        self.0
            .get(doc as usize / 64)
            .is_some_and(|word| word & (1 << (doc % 64)) != 0)
    }

    pub(super) fn union(&mut self, other: &DocSet) {
        for (word, other) in self.0.iter_mut().zip(&other.0) {
            *word |= other;
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.0.iter().all(|&word| word == 0)
    }

    pub(super) fn intersect(&mut self, other: &DocSet) {
        for (word, other) in self.0.iter_mut().zip(&other.0) {
            *word &= other;
        }
    }
}

/// How many times each document holds a term at word starts: a byte per document, and the few counts past 254 aside.
/// Four bytes a document held 3.6 MB for a nine-word question at 100,000 notes, at a ranked search's peak; one holds
/// 0.9 MB, and a term occurs 255 times in hardly any note.
#[derive(Debug, Clone)]
pub(crate) struct DocCounts {
    small: Vec<u8>,
    /// The counts of the documents whose byte is [`DocCounts::LARGE`].
    large: std::collections::HashMap<u32, u32>,
}

impl DocCounts {
    const LARGE: u8 = u8::MAX;

    /// Zero for each of `docs` documents.
    pub(super) fn zeros(docs: u32) -> DocCounts {
        DocCounts {
            small: vec![0; docs as usize],
            large: std::collections::HashMap::new(),
        }
    }

    /// Counts `count` more for `doc` (nothing for a document past the last).
    pub(super) fn add(&mut self, doc: u32, count: u32) {
        let Some(small) = self.small.get_mut(doc as usize) else {
            return;
        };
        if *small == Self::LARGE {
            let total = self.large.entry(doc).or_insert(0);
            *total = total.saturating_add(count);
            return;
        }
        let total = u32::from(*small).saturating_add(count);
        match u8::try_from(total) {
            Ok(fits) if fits != Self::LARGE => *small = fits,
            _ => {
                *small = Self::LARGE;
                self.large.insert(doc, total);
            }
        }
    }

    /// The count of `doc` (0 past the last document).
    pub(crate) fn get(&self, doc: u32) -> u32 {
        match self.small.get(doc as usize) {
            Some(&Self::LARGE) => self.large.get(&doc).copied().unwrap_or(0),
            Some(&small) => u32::from(small),
            None => 0,
        }
    }

    /// Every document's count, in order.
    #[cfg(test)]
    pub(crate) fn to_vec(&self) -> Vec<u32> {
        (0..self.small.len() as u32)
            .map(|doc| self.get(doc))
            .collect()
    }
}
