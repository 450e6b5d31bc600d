//! The word index that narrows text search: which notes may contain a query, so that a search reads only those
//! notes from disk instead of keeping every note's text in memory (no plugin twin: the plugin scans Obsidian's
//! cache).
//!
//! A note's words are the maximal runs of alphanumeric characters of its text after JavaScript's case
//! canonicalization (`js_canonicalize`, one character for one, so runs keep their edges). When a line contains the
//! query (exactly, or ignoring case the way the plugin does), the canonical text contains the canonical query, so
//! every run of the query is a word of the note (a run between two other characters of the query), the end of one
//! (the query's first run, followed by more of the query), the start of one (its last run) or inside one (a query
//! that is one run). The index answers with every note holding such words: a superset of the notes that match,
//! which the search then reads and checks line by line, so results are exactly what scanning every note gives.
//! A query with no alphanumeric character cannot be narrowed, nor can a regex: those read every note.
//!
//! Documents are numbered in the order they are added and never renumbered; a note that changes is added again
//! under a new number and its old one is retired. Posting lists are ascending document numbers as LEB128 deltas,
//! each with how many times the word occurs there (see [`Postings`]), so adding a document appends to them;
//! [`Words::compact`] drops retired numbers once they are half of all. The counts let ranking weigh a plain word
//! (letters and digits, in any script) without reading notes: its occurrences at word starts are the counts of the
//! words that start with it ([`Words::plain_words`]).
//! Runs longer than [`LONG_WORD`] characters (encoded data, hashes) are not stored: their notes are kept in one list
//! that every query which could match inside a long word includes.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::offline::js::js_canonicalize;

/// FNV-1a: words are short and not chosen by an attacker who could profit from collisions (a vault's own text), and
/// hashing them is most of the cost of adding a note.
#[derive(Default, Clone)]
struct WordHasher(u64);

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut hash = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &byte in bytes {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = hash;
    }
}

type WordMap<V> = HashMap<Box<str>, V, BuildHasherDefault<WordHasher>>;

/// A run longer than [`LONG_WORD`] characters (at most four bytes each).
fn is_long(word: &str) -> bool {
    word.len() > LONG_WORD && word.chars().nth(LONG_WORD).is_some()
}

/// The longest word stored, in characters.
pub(crate) const LONG_WORD: usize = 48;

/// A note's distinct words, ready to add: joined by NUL (which is not alphanumeric, so never inside a word), each with
/// how many times it occurs.
#[derive(Debug, Default, Clone)]
pub(crate) struct NoteWords {
    joined: String,
    counts: Vec<u32>,
    has_long: bool,
}

/// Splits a text into its distinct canonical words.
pub(crate) fn words_of(text: &str) -> NoteWords {
    let mut canonical = String::with_capacity(text.len());
    let mut rest = text;
    // Runs of ASCII are upper-cased whole; only the characters between them are canonicalised one by one.
    while !rest.is_empty() {
        let ascii = rest
            .bytes()
            .position(|byte| !byte.is_ascii())
            .unwrap_or(rest.len());
        let from = canonical.len();
        canonical.push_str(&rest[..ascii]);
        canonical[from..].make_ascii_uppercase();
        rest = &rest[ascii..];
        if let Some(c) = rest.chars().next() {
            canonical.push(js_canonicalize(c));
            rest = &rest[c.len_utf8()..];
        }
    }
    // Sized for a note of prose (a distinct word per dozen bytes or so), so that it is seldom grown.
    let mut seen: HashMap<&str, usize, BuildHasherDefault<WordHasher>> =
        HashMap::with_capacity_and_hasher(text.len() / 12, BuildHasherDefault::default());
    let mut out = NoteWords::default();
    for run in runs(&canonical) {
        if is_long(run.text) {
            out.has_long = true;
            continue;
        }
        let next = out.counts.len();
        let at = *seen.entry(run.text).or_insert(next);
        if at < next {
            out.counts[at] += 1;
            continue;
        }
        if !out.joined.is_empty() {
            out.joined.push('\0');
        }
        out.joined.push_str(run.text);
        out.counts.push(1);
    }
    out.joined.shrink_to_fit();
    out.counts.shrink_to_fit();
    out
}

/// Whether a term is one word of letters and digits (alphabetic or numeric characters, in any script): for such a
/// term, compared ignoring case, the index says exactly which notes hold it (anywhere, or at word starts and how
/// often), not only which may. Its occurrences lie inside the note's words, because no character changes between
/// letter or digit and anything else when canonicalised (`js.rs` tests that for every character).
pub(crate) fn is_plain_word(term: &str) -> bool {
    !term.is_empty() && term.chars().all(char::is_alphanumeric)
}

/// A plain word as the index keeps words: canonical case (upper case, for ASCII).
pub(crate) fn canonical_word(term: &str) -> String {
    term.chars().map(js_canonicalize).collect()
}

/// A maximal run of alphanumeric characters, and whether other characters of the same text surround it.
struct Run<'a> {
    text: &'a str,
    after_other: bool,
    before_other: bool,
}

fn runs(text: &str) -> Vec<Run<'_>> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let (mut at, mut next) = (0, 0);
    while let Some(&byte) = text.as_bytes().get(at) {
        let word = if byte.is_ascii() {
            next += 1;
            byte.is_ascii_alphanumeric()
        } else {
            let c = text[at..].chars().next().expect("a character starts here");
            next += c.len_utf8();
            c.is_alphanumeric()
        };
        match (word, start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                out.push(Run {
                    text: &text[from..at],
                    after_other: from > 0,
                    before_other: true,
                });
                start = None;
            }
            _ => {}
        }
        at = next;
    }
    if let Some(from) = start {
        out.push(Run {
            text: &text[from..],
            after_other: from > 0,
            before_other: false,
        });
    }
    out
}

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct Postings {
    #[serde(with = "crate::offline::index::raw_bytes")]
    bytes: Vec<u8>,
    /// The last document appended plus one (0: none yet).
    next: u32,
}

/// A posting is the document's delta from the one before, shifted left once, its low bit set when the word occurs
/// more than once there; then, only in that case, the count. Both LEB128. Most words occur once in a note, so the
/// counts ranking needs cost little.
impl Postings {
    fn push(&mut self, doc: u32, count: u32) {
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

    fn for_each(&self, mut visit: impl FnMut(u32)) {
        self.for_each_count(|doc, _| visit(doc));
    }

    /// Each document with how many times the word occurs in it.
    fn for_each_count(&self, mut visit: impl FnMut(u32, u32)) {
        let (mut value, mut shift, mut previous) = (0u64, 0u32, 0u32);
        let mut counted: Option<u32> = None;
        for &byte in &self.bytes {
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 != 0 {
                shift += 7;
                continue;
            }
            match counted.take() {
                Some(doc) => visit(doc, value as u32),
                None => {
                    previous += (value >> 1) as u32;
                    if value & 1 == 1 {
                        counted = Some(previous - 1);
                    } else {
                        visit(previous - 1, 1);
                    }
                }
            }
            (value, shift) = (0, 0);
        }
    }
}

/// A set of document numbers.
#[derive(Debug, Clone)]
pub(crate) struct DocSet(Vec<u64>);

impl DocSet {
    fn empty(docs: u32) -> DocSet {
        DocSet(vec![0; (docs as usize).div_ceil(64)])
    }

    fn insert(&mut self, doc: u32) {
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

    fn union(&mut self, other: &DocSet) {
        for (word, other) in self.0.iter_mut().zip(&other.0) {
            *word |= other;
        }
    }

    fn is_empty(&self) -> bool {
        self.0.iter().all(|&word| word == 0)
    }

    fn intersect(&mut self, other: &DocSet) {
        for (word, other) in self.0.iter_mut().zip(&other.0) {
            *word &= other;
        }
    }
}

/// The words of every note added so far.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Words {
    postings: WordMap<Postings>,
    long: Postings,
    docs: u32,
    retired: u32,
    /// About how many bytes the posting lists and their words hold (what a word costs in the table included).
    bytes: u64,
    /// The memory budget (bytes) the index passed, when it did: the word index was then dropped and keeps nothing,
    /// and every text search reads every note ([`Words::candidates`] narrows nothing).
    dropped: Option<u64>,
    /// The budget for the whole index (the word index and the notes' metadata), when there is one.
    #[serde(skip)]
    budget: Option<u64>,
    /// Every word in one string, for the searches that look inside words; built on the first such search after a
    /// word was added.
    #[serde(skip)]
    vocabulary: std::sync::OnceLock<Vocabulary>,
    /// Per plain term asked lately (canonical case), what [`Words::plain_words`] found in the vocabulary: for a short
    /// term (`a`, `in`) that is most postings of the index to decode, and questions repeat such words. Emptied
    /// whenever a document is added; at most [`INSIDE_TERMS`] terms.
    #[serde(skip)]
    terms: std::sync::Mutex<HashMap<Box<str>, std::sync::Arc<TermWords>>>,
}

/// How many terms [`Words`] keeps the words of (a set is a bit per document: 12.5 KB at 100,000).
const INSIDE_TERMS: usize = 64;

/// What one distinct word costs beyond its letters: its key's box, its posting list's header and the table's slot.
const WORD_OVERHEAD: u64 = 64;

impl Words {
    /// Adds a note's words as a new document and returns its number.
    pub(crate) fn add(&mut self, words: &NoteWords) -> u32 {
        let doc = self.docs;
        self.docs += 1;
        self.forget_terms();
        if self.dropped.is_some() {
            return doc;
        }
        if !words.joined.is_empty() {
            for (word, &count) in words.joined.split('\0').zip(&words.counts) {
                match self.postings.get_mut(word) {
                    Some(postings) => {
                        let before = postings.bytes.len();
                        postings.push(doc, count);
                        self.bytes += (postings.bytes.len() - before) as u64;
                    }
                    None => {
                        let mut postings = Postings::default();
                        postings.push(doc, count);
                        self.bytes += WORD_OVERHEAD + (word.len() + postings.bytes.len()) as u64;
                        self.postings.insert(word.into(), postings);
                        self.vocabulary.take();
                    }
                }
            }
        }
        if words.has_long {
            self.long.push(doc, 1);
        }
        doc
    }

    /// Sets the budget for the whole index, in bytes.
    pub(crate) fn set_budget(&mut self, budget: u64) {
        self.budget = Some(budget);
    }

    /// With `others` bytes held beside the word index (the notes' metadata, the listing): drops the word index when
    /// the whole passes the budget. Returns whether it is dropped.
    pub(crate) fn keep_within_budget(&mut self, others: u64) -> bool {
        if let Some(budget) = self.budget
            && self.dropped.is_none()
            && self.bytes + others > budget
        {
            tracing::warn!(
                budget_mb = budget >> 20,
                words_mb = self.bytes >> 20,
                others_mb = others >> 20,
                "offline index over its memory budget: the word index is dropped, text search reads every note"
            );
            self.drop_for(budget);
        }
        self.dropped.is_some()
    }

    /// About how many bytes the word index holds.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The budget the index passed, when the word index was dropped for it.
    pub(crate) fn dropped(&self) -> Option<u64> {
        self.dropped
    }

    /// Drops the word index because the whole index passed `budget` bytes: its memory goes back, and from now on
    /// text search reads every note (slower, never cut).
    pub(crate) fn drop_for(&mut self, budget: u64) {
        self.postings = WordMap::default();
        self.vocabulary.take();
        self.forget_terms();
        self.long = Postings::default();
        self.bytes = 0;
        self.dropped = Some(budget);
    }

    /// Marks a document as no longer in use (its note changed or left the vault).
    pub(crate) fn retire(&mut self) {
        self.retired += 1;
    }

    /// Whether retired documents are half of all (and many): then [`Words::compact`] is worth its cost.
    pub(crate) fn wants_compaction(&self) -> bool {
        self.retired >= 1000 && self.retired * 2 >= self.docs
    }

    /// Gives back what the posting lists grew beyond their length: after a build, up to half of each list is spare
    /// room, and a list laid out tight is faster to scan.
    pub(crate) fn shrink(&mut self) {
        for postings in self.postings.values_mut() {
            postings.bytes.shrink_to_fit();
        }
        self.long.bytes.shrink_to_fit();
    }

    /// Drops the documents not in `live` from the posting lists; numbers stay as they are.
    pub(crate) fn compact(&mut self, live: &DocSet) {
        let rewrite = |postings: &Postings| {
            let mut kept = Postings::default();
            postings.for_each_count(|doc, count| {
                if live.contains(doc) {
                    kept.push(doc, count);
                }
            });
            kept.bytes.shrink_to_fit();
            kept
        };
        self.postings = self
            .postings
            .iter()
            .map(|(word, postings)| (word.clone(), rewrite(postings)))
            .filter(|(_, postings)| !postings.bytes.is_empty())
            .collect();
        self.vocabulary.take();
        self.forget_terms();
        self.long = rewrite(&self.long);
        self.retired = 0;
        self.bytes = self
            .postings
            .iter()
            .map(|(word, postings)| WORD_OVERHEAD + (word.len() + postings.bytes.len()) as u64)
            .sum();
    }

    /// A set of this index's documents.
    pub(crate) fn doc_set(&self, docs: impl IntoIterator<Item = u32>) -> DocSet {
        let mut set = DocSet::empty(self.docs);
        for doc in docs {
            set.insert(doc);
        }
        set
    }

    /// The documents that may contain `query` (compared ignoring case), or `None` when the index cannot narrow it.
    pub(crate) fn candidates(&self, query: &str) -> Option<DocSet> {
        if self.dropped.is_some() {
            return None;
        }
        let canonical: String = query.chars().map(js_canonicalize).collect();
        let mut runs = runs(&canonical);
        if runs.is_empty() {
            return None;
        }
        // Whole words first: each is one posting list, where a run that is part of a word visits the vocabulary.
        runs.sort_by_key(|run| !(run.after_other && run.before_other));
        let mut result: Option<DocSet> = None;
        for run in &runs {
            let set = self.docs_for(run);
            match &mut result {
                Some(result) => result.intersect(&set),
                None => result = Some(set),
            }
            if result.as_ref().is_some_and(DocSet::is_empty) {
                break;
            }
        }
        result
    }

    /// For each of `terms`, plain words (see [`is_plain_word`]) compared ignoring case: the documents that may hold
    /// it (as [`Words::candidates`] says) and how many times each document holds it at the start of a word (the sum
    /// of its counts of the words that start with it), in one pass over the words. Exact except in the documents of
    /// [`Words::long_docs`], whose long words the index does not keep. `None` when the index was dropped or a term
    /// is not a plain word.
    pub(crate) fn plain_words(&self, terms: &[&str]) -> Option<Vec<(DocSet, Vec<u32>)>> {
        if self.dropped.is_some() || !terms.iter().all(|term| is_plain_word(term)) {
            return None;
        }
        let finders: Vec<memchr::memmem::Finder<'static>> = terms
            .iter()
            .map(|term| memchr::memmem::Finder::new(canonical_word(term).as_bytes()).into_owned())
            .collect();
        let mut found: Vec<(DocSet, Vec<u32>)> = terms
            .iter()
            .map(|_| {
                (
                    self.doc_set(std::iter::empty()),
                    vec![0u32; self.docs as usize],
                )
            })
            .collect();
        for ((term, finder), (set, counts)) in terms.iter().zip(&finders).zip(&mut found) {
            let key = canonical_word(term);
            let kept = crate::lock::lock(&self.terms).get(&*key).cloned();
            let term_words = kept.unwrap_or_else(|| {
                let found = std::sync::Arc::new(self.term_words(finder));
                let mut cache = crate::lock::lock(&self.terms);
                if cache.len() >= INSIDE_TERMS {
                    cache.clear();
                }
                cache.insert(key.into(), std::sync::Arc::clone(&found));
                found
            });
            for word in &term_words.starting {
                if let Some(postings) = self.postings.get(word) {
                    postings.for_each_count(|doc, count| {
                        set.insert(doc);
                        counts[doc as usize] += count;
                    });
                }
            }
            set.union(&term_words.inside);
        }
        Some(found)
    }

    /// Empties the terms' words kept ([`Words::terms`]): the postings changed.
    fn forget_terms(&mut self) {
        if let Ok(cache) = self.terms.get_mut()
            && !cache.is_empty()
        {
            cache.clear();
        }
    }

    /// The documents holding a word longer than [`LONG_WORD`] characters, which the index does not keep.
    pub(crate) fn long_docs(&self) -> DocSet {
        let mut set = DocSet::empty(self.docs);
        self.long.for_each(|doc| set.insert(doc));
        set
    }

    /// The documents holding a word that a run of the query can be part of.
    fn docs_for(&self, run: &Run<'_>) -> DocSet {
        let mut set = DocSet::empty(self.docs);
        let exact = run.after_other && run.before_other;
        if exact {
            if let Some(postings) = self.postings.get(run.text) {
                postings.for_each(|doc| set.insert(doc));
            }
            if is_long(run.text) {
                self.long.for_each(|doc| set.insert(doc));
            }
            return set;
        }
        // The run starts the words it can be part of (`at_start`), ends them (the needle takes the NUL after the
        // word) or is anywhere in them.
        let at_start = run.after_other;
        let needle = if !run.after_other && run.before_other {
            format!("{}\0", run.text)
        } else {
            run.text.to_string()
        };
        let finder = memchr::memmem::Finder::new(needle.as_bytes());
        let vocabulary = self
            .vocabulary
            .get_or_init(|| Vocabulary::of(&self.postings));
        for (word, starts) in vocabulary.holding(&finder) {
            if at_start && !starts {
                continue;
            }
            if let Some(postings) = self.postings.get(word) {
                postings.for_each(|doc| set.insert(doc));
            }
        }
        self.long.for_each(|doc| set.insert(doc));
        set
    }
}

#[cfg(test)]
mod tests;
mod vocabulary;

use vocabulary::{TermWords, Vocabulary};
