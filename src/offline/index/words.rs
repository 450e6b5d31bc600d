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
//! [`Words::compact`] drops retired numbers once they are half of all. A large build and a compaction lay every word
//! out flat, in byte order ([`Frozen`]: a third of the memory, and the saved index reads it in a few copies); words
//! added later are kept by word beside it until the next compaction. The counts let ranking weigh a plain word
//! (letters and digits, in any script) without reading notes: its occurrences at word starts are the counts of the
//! words that start with it ([`Words::plain_words`]).
//! Runs longer than [`LONG_WORD`] characters (encoded data, hashes) are not stored: their notes are kept in one list
//! that every query which could match inside a long word includes.

use std::collections::HashMap;

use crate::offline::js::js_canonicalize;

/// The longest word stored, in characters.
pub(crate) const LONG_WORD: usize = 48;

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

/// The words of every note added so far: those of the last build or compaction laid out flat ([`Frozen`]), and those
/// added since by word. A word's documents are its frozen list followed by its added one.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Words {
    frozen: Frozen,
    /// The postings added since `frozen` was laid out: documents after all of its.
    added: Added,
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
    /// The added words that `frozen` lacks in one string, for the searches that look inside words; built on the
    /// first such search after such a word was added.
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

/// What one distinct word costs beyond its letters: its posting list's header (32 bytes, and the room its vector
/// grows into), its number in the table and where it starts among the words.
const WORD_OVERHEAD: u64 = 48;

impl Words {
    /// Adds a note's words as a new document and returns its number.
    pub(crate) fn add(&mut self, words: &NoteWords) -> u32 {
        let doc = self.docs;
        self.docs += 1;
        self.forget_terms();
        if self.dropped.is_some() {
            return doc;
        }
        for (word, count, hash) in words.each() {
            let (postings, new) = self.added.list_mut(word, hash);
            let before = postings.bytes.len();
            postings.push(doc, count);
            self.bytes += (postings.bytes.len() - before) as u64;
            if new {
                self.bytes += WORD_OVERHEAD + word.len() as u64;
                if self.frozen.words.find(word).is_none() {
                    self.vocabulary.take();
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
        self.frozen = Frozen::default();
        self.added = Added::default();
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

    /// Lays out every word flat ([`Frozen`]): after a build, the words were added one by one, each in an allocation
    /// of its own with up to half of it spare room; laid out, they take a third of that, and a list laid out tight
    /// is faster to scan.
    pub(crate) fn freeze(&mut self) {
        let added = std::mem::take(&mut self.added);
        self.frozen = Frozen::merged(std::mem::take(&mut self.frozen), added, None);
        self.laid_out();
    }

    /// Drops the documents not in `live` from the posting lists; numbers stay as they are.
    pub(crate) fn compact(&mut self, live: &DocSet) {
        let added = std::mem::take(&mut self.added);
        self.frozen = Frozen::merged(std::mem::take(&mut self.frozen), added, Some(live));
        let mut long = Postings::default();
        self.long.for_each_count(|doc, count| {
            if live.contains(doc) {
                long.push(doc, count);
            }
        });
        self.long = long;
        self.retired = 0;
        self.laid_out();
    }

    /// What follows laying the words out again: nothing added since, nothing kept of the old layout.
    fn laid_out(&mut self) {
        self.long.bytes.shrink_to_fit();
        self.vocabulary.take();
        self.forget_terms();
        self.bytes = self.frozen.bytes();
    }

    /// Whether the words read from a saved index hold together (see [`Frozen::is_sound`]).
    pub(crate) fn is_sound(&self) -> bool {
        self.frozen.is_sound()
    }

    /// Each document holding the frozen word at `index`, with its count: its frozen list, then its added one.
    fn each_count_at(&self, index: usize, mut visit: impl FnMut(u32, u32)) {
        postings::each_count(self.frozen.postings(index), &mut visit);
        if !self.added.is_empty()
            && let Some(added) = self.added.get(self.frozen.words.word(index))
        {
            added.for_each_count(visit);
        }
    }

    /// Each document holding `word`, with its count.
    fn each_count_of(&self, word: &str, visit: impl FnMut(u32, u32)) {
        match self.frozen.words.find(word) {
            Some(index) => self.each_count_at(index, visit),
            None => {
                if let Some(added) = self.added.get(word) {
                    added.for_each_count(visit);
                }
            }
        }
    }

    /// The words added since the layout that it lacks, joined.
    fn added_vocabulary(&self) -> &Vocabulary {
        self.vocabulary
            .get_or_init(|| Vocabulary::of(self.added.words(), &self.frozen.words))
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
    pub(crate) fn plain_words(&self, terms: &[&str]) -> Option<Vec<(DocSet, DocCounts)>> {
        if self.dropped.is_some() || !terms.iter().all(|term| is_plain_word(term)) {
            return None;
        }
        let finders: Vec<memchr::memmem::Finder<'static>> = terms
            .iter()
            .map(|term| memchr::memmem::Finder::new(canonical_word(term).as_bytes()).into_owned())
            .collect();
        let mut found: Vec<(DocSet, DocCounts)> = terms
            .iter()
            .map(|_| {
                (
                    self.doc_set(std::iter::empty()),
                    DocCounts::zeros(self.docs),
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
            let mut count = |doc: u32, count: u32| {
                set.insert(doc);
                counts.add(doc, count);
            };
            for &index in &term_words.starting {
                self.each_count_at(index, &mut count);
            }
            for word in &term_words.starting_added {
                if let Some(postings) = self.added.get(word) {
                    postings.for_each_count(&mut count);
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
            self.each_count_of(run.text, |doc, _| set.insert(doc));
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
        for (index, starts) in self.frozen.words.holding(&finder) {
            if !at_start || starts {
                self.each_count_at(index, |doc, _| set.insert(doc));
            }
        }
        let added = self.added_vocabulary();
        for (index, starts) in added.holding(&finder) {
            if (!at_start || starts)
                && let Some(postings) = self.added.get(added.word(index))
            {
                postings.for_each(|doc| set.insert(doc));
            }
        }
        self.long.for_each(|doc| set.insert(doc));
        set
    }
}

mod added;
mod frozen;
mod postings;
mod split;
#[cfg(test)]
mod tests;
mod vocabulary;

use added::Added;
use frozen::Frozen;
use postings::Postings;
pub(crate) use postings::{DocCounts, DocSet};
use split::is_long;
pub(crate) use split::{NoteWords, words_of};
use vocabulary::{TermWords, Vocabulary};
