//! Posting lists and sets of documents: how the word index says which documents hold a word.

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
