//! What the word index (`crate::offline::index::words`) knows of a query's atoms without reading a note: which notes
//! may hold each one; and, for a plain word (letters and digits, in any script) compared ignoring case, which notes
//! surely do and how many times at word starts, in every note but those holding a word too long for the index to
//! keep.

use std::sync::Arc;

use crate::offline::index::words::{DocCounts, DocSet, canonical_word, is_plain_word};
use crate::offline::obsidian::names::{Mentions, NoteNames};
use crate::offline::obsidian::vault::FileEntry;
use crate::offline::plugin::tools::Context;

use super::query::{AtomKind, Query};

pub(super) struct Known<'c> {
    /// Per atom, the notes that may hold it (`None`: any note may).
    sets: Vec<Option<DocSet>>,
    /// Per atom, when its set is exact (the notes that hold it, not only those that may), each note's count of it
    /// at word starts, by document.
    counts: Vec<Option<DocCounts>>,
    /// The notes for which no set is exact (they hold a word too long to keep), when some set is.
    long: Option<DocSet>,
    /// Each note's name and folder, when the snapshot has the table: a plain word is looked for in those instead of
    /// the note's path.
    names: Option<&'c NoteNames>,
    /// Per atom, for a plain word: whether each of the snapshot's folders holds it, and which notes' names and
    /// aliases do.
    in_folders: Vec<Option<Vec<bool>>>,
    mentions: Vec<Option<Arc<Mentions>>>,
}

impl<'c> Known<'c> {
    pub(super) fn new(ctx: &Context<'c>, query: &Query) -> Known<'c> {
        let words = crate::lock::read(ctx.words);
        let plain: Vec<usize> = (0..query.atoms.len())
            .filter(|&at| {
                let atom = &query.atoms[at];
                atom.kind != AtomKind::Regex
                    && atom.matcher.folds_case()
                    && is_plain_word(&atom.text)
            })
            .collect();
        let texts: Vec<&str> = plain
            .iter()
            .map(|&at| query.atoms[at].text.as_str())
            .collect();
        let mut sets: Vec<Option<DocSet>> = query.atoms.iter().map(|_| None).collect();
        let mut counts: Vec<Option<DocCounts>> = query.atoms.iter().map(|_| None).collect();
        for (&at, (set, count)) in plain
            .iter()
            .zip(words.plain_words(&texts).unwrap_or_default())
        {
            (sets[at], counts[at]) = (Some(set), Some(count));
        }
        for (at, atom) in query.atoms.iter().enumerate() {
            if sets[at].is_none() && atom.kind != AtomKind::Regex {
                sets[at] = words.candidates(&atom.text);
            }
        }
        let long = counts
            .iter()
            .any(Option::is_some)
            .then(|| words.long_docs());
        let names = ctx.snapshot.names();
        let in_folders = (0..query.atoms.len())
            .map(|at| {
                (names.is_some() && counts[at].is_some()).then(|| {
                    ctx.snapshot
                        .folders
                        .iter()
                        .map(|folder| holds_word(query, at, folder))
                        .collect()
                })
            })
            .collect();
        let mentions = (0..query.atoms.len())
            .map(|at| {
                let names = names.filter(|_| counts[at].is_some())?;
                Some(mentions(names, query, at))
            })
            .collect();
        Known {
            sets,
            counts,
            long,
            names,
            in_folders,
            mentions,
        }
    }

    /// Whether the name (`in_name`) or the aliases of the file at `index` may hold one of the atoms `of`: false only
    /// when the table says none does.
    pub(super) fn named(&self, of: &[usize], index: usize, in_name: bool) -> bool {
        of.iter().any(|&at| {
            self.mentions[at].as_ref().is_none_or(|mentions| {
                if in_name {
                    mentions.in_name(index)
                } else {
                    mentions.in_aliases(index)
                }
            })
        })
    }

    /// The document of the note at file index `index`, when it is readable.
    pub(super) fn doc(&self, ctx: &Context<'_>, index: usize) -> Option<u32> {
        match self.names {
            Some(names) => names.doc(index),
            None => ctx.snapshot.note_at(index).map(|note| note.doc),
        }
    }

    /// Whether the path of the file at `index` holds atom `at`, a plain word.
    fn path_holds(&self, query: &Query, index: usize, file: &FileEntry, at: usize) -> bool {
        match (self.names, &self.in_folders[at]) {
            // A plain word holds no `/`: it is in the folder's path or in the name.
            (Some(names), Some(in_folders)) => {
                names.folder(index).is_some_and(|folder| in_folders[folder])
                    || self.mentions[at].as_ref().map_or_else(
                        || holds_word(query, at, names.name(index)),
                        |mentions| mentions.in_name(index),
                    )
            }
            _ => holds_word(query, at, &file.path),
        }
    }

    /// Whether the index's sets are exact for this note (it holds no word too long to keep).
    pub(super) fn exact_for(&self, doc: u32) -> bool {
        self.long.as_ref().is_some_and(|long| !long.contains(doc))
    }

    /// Whether atom `at` occurs in a note's text (or, unless `content_only`, its path): `Some(true)` surely,
    /// `Some(false)` surely not, `None` perhaps (the note must be read to know).
    pub(super) fn holds(
        &self,
        query: &Query,
        (index, file, doc): (usize, &FileEntry, u32),
        at: usize,
        content_only: bool,
    ) -> Option<bool> {
        match &self.sets[at] {
            None => None,
            Some(set) if set.contains(doc) => {
                (self.counts[at].is_some() && self.exact_for(doc)).then_some(true)
            }
            Some(_) if content_only => Some(false),
            // A plain word is compared without a regex: most notes lack most of a question's words.
            Some(_) if self.counts[at].is_some() => Some(self.path_holds(query, index, file, at)),
            Some(_) => Some(query.atoms[at].matcher.matches(&file.path)),
        }
    }

    /// Per atom of `scored`, how many times each note (by document) holds it at word starts, when the index counts
    /// every one of them.
    pub(super) fn counts(&self, scored: &[usize]) -> Option<Vec<&DocCounts>> {
        scored.iter().map(|&at| self.counts[at].as_ref()).collect()
    }
}

/// Which files' names and aliases hold atom `at`, a plain word: found in the table with one scan of its text.
fn mentions(names: &NoteNames, query: &Query, at: usize) -> Arc<Mentions> {
    let atom = &query.atoms[at];
    let key = canonical_word(&atom.text);
    if atom.text.is_ascii() {
        // The table's text is in ASCII lower case: a byte search finds the word.
        let word = atom.text.to_ascii_lowercase();
        let finder = memchr::memmem::Finder::new(word.as_bytes());
        names.mentions_of(&key, |text, from| {
            let at = from + finder.find(&text.as_bytes()[from..])?;
            Some(at..at + word.len())
        })
    } else {
        // Lower-casing ASCII letters changes nothing the matcher tells apart.
        names.mentions_of(&key, |text, from| atom.matcher.find_from(text, from))
    }
}

/// Whether `text` holds atom `at`, a plain word, as its matcher says: for an ASCII word, without a regex.
fn holds_word(query: &Query, at: usize, text: &str) -> bool {
    let atom = &query.atoms[at];
    if atom.text.is_ascii() {
        holds_ignoring_ascii_case(text, &atom.text)
    } else {
        atom.matcher.matches(text)
    }
}

/// Whether `text` holds `word` (ASCII letters and digits), ignoring ASCII case: what the matcher answers for a plain
/// word (it folds ASCII letters only), without a regex.
fn holds_ignoring_ascii_case(text: &str, word: &str) -> bool {
    let (text, word) = (text.as_bytes(), word.as_bytes());
    let Some(&first) = word.first() else {
        return true;
    };
    memchr::memchr2_iter(first.to_ascii_lowercase(), first.to_ascii_uppercase(), text).any(|at| {
        text.len() - at >= word.len() && text[at..at + word.len()].eq_ignore_ascii_case(word)
    })
}

/// How many times each plain word occurs at the start of a word of `text`, ignoring ASCII case: the count
/// `Matcher::count_word_starts` gives for it (a word start follows no letter or digit, and a plain word's occurrence
/// there is the start of a run of letters and digits), in one pass and without a regex.
pub(super) fn plain_word_starts(text: &str, words: &[&str], found: &mut Vec<usize>) {
    found.clear();
    found.resize(words.len(), 0);
    let bytes = text.as_bytes();
    let mut after_word = false;
    let mut at = 0;
    while at < bytes.len() {
        let (in_word, width) = match bytes[at] {
            byte if byte.is_ascii() => (byte.is_ascii_alphanumeric(), 1),
            _ => text[at..]
                .chars()
                .next()
                .map_or((false, 1), |c| (c.is_alphanumeric(), c.len_utf8())),
        };
        if in_word && !after_word {
            let first = bytes[at].to_ascii_lowercase();
            for (word, count) in words.iter().zip(found.iter_mut()) {
                let word = word.as_bytes();
                // The first letter alone rules out most words (a title starts few words with each letter).
                if word.first().map(u8::to_ascii_lowercase) == Some(first)
                    && bytes[at..].len() >= word.len()
                    && bytes[at..at + word.len()].eq_ignore_ascii_case(word)
                {
                    *count += 1;
                }
            }
        }
        after_word = in_word;
        at += width;
    }
}

#[cfg(test)]
mod tests {
    use super::super::phrase::Matcher;
    use super::{holds_ignoring_ascii_case, plain_word_starts};

    #[test]
    fn plain_words_are_counted_as_the_matcher_counts_them() {
        let texts = [
            "Garden garden-GARDEN gardening regarden",
            "éGarden ßgarden 1garden _garden (garden) garden2",
            "\u{212A}elvin kelvin KELVIN",
            "",
            "ga",
            "ganz gar garden",
        ];
        for text in texts {
            for word in ["garden", "GARDEN", "kelvin", "g", "2", "ga"] {
                let matcher = Matcher::new(word, false, false).unwrap();
                let mut found = vec![7; 5];
                plain_word_starts(text, &[word, "x"], &mut found);
                assert_eq!(found.len(), 2, "one count per word, none left over");
                assert_eq!(
                    found[0],
                    matcher.count_word_starts(text),
                    "{word} in {text:?}"
                );
            }
        }
    }

    #[test]
    fn the_index_counts_words_of_any_script_as_the_matcher_does() {
        use crate::offline::index::words::{Words, words_of};
        let texts = [
            "Café café-CAFÉ cafés décafé 2café",
            "ΣΟΦΊΑ σοφία σοφίας λόγος ΛΌΓΟΣ λόγοσ",
            "µm μm Μm mµ",
            "Straße STRASSE straße \u{1E9E}traße",
            "naïve NAÏVE naïveté",
            "東京 東京都 京都に東京",
            "𝐀bc x𝐀 𝐀",
            "",
        ];
        let mut words = Words::default();
        for text in texts {
            words.add(&words_of(text));
        }
        for term in [
            "café",
            "CAFÉ",
            "σοφία",
            "λόγοσ",
            "λόγος",
            "μm",
            "µ",
            "straße",
            "ß",
            "naïve",
            "東京",
            "京都",
            "𝐀",
        ] {
            let matcher = Matcher::new(term, false, false).unwrap();
            let (set, counts) = words.plain_words(&[term]).expect("a plain word").remove(0);
            for (doc, text) in texts.iter().enumerate() {
                assert_eq!(
                    counts.get(doc as u32) as usize,
                    matcher.count_word_starts(text),
                    "{term} at word starts in {text:?}"
                );
                assert_eq!(
                    set.contains(doc as u32),
                    matcher.matches(text),
                    "{term} in {text:?}"
                );
            }
        }
        // JavaScript's `i` flag equates the final sigma with the other two, and the micro sign with mu.
        let sigma = Matcher::new("λόγοσ", false, false).unwrap();
        assert_eq!(sigma.count_word_starts(texts[1]), 3);
        assert_eq!(
            Matcher::new("μm", false, false)
                .unwrap()
                .count_word_starts(texts[2]),
            3
        );
    }

    #[test]
    fn plain_words_are_found_in_paths_as_the_matcher_finds_them() {
        for path in [
            "Garden/Plans.md",
            "über/GARDEN 2.md",
            "a/ga",
            "",
            "Kelvin.md",
            "\u{212A}elvin.md",
        ] {
            for word in ["garden", "plans", "2", "ga", "kelvin", "md"] {
                let matcher = Matcher::new(word, false, false).unwrap();
                assert_eq!(
                    holds_ignoring_ascii_case(path, word),
                    matcher.matches(path),
                    "{word} in {path:?}"
                );
            }
        }
    }
}
