//! BM25F over terms for word mode (plugin: `src/vault/query/rank.ts`; the formula is in
//! `obsidian-plugin/src/tools/README.md`, search): each scored term's occurrences at word starts in the title and the
//! aliases (each counted in full) and in the text (against the note's size relative to the mean), saturated with
//! k1 = 2, times its IDF over the notes in scope. Both readers do the same operations in the same order, so scores
//! and order agree.
//!
//! A query of plain words (`super::known`) is ranked from the word index alone: which notes match and each term's
//! count at word starts come from there, so only the notes a page shows are read. Any other query reads every note
//! that may match or hold a term. What a ranking keeps of each matching note, and how it orders them: `ranked.rs`.

use std::borrow::Cow;

use crate::offline::index::words::DocCounts;
use crate::offline::obsidian::vault::FileEntry;
use crate::offline::plugin::tools::Context;

use super::Scope;
use super::known::{Known, plain_word_starts};
use super::note::{self, NoteView};
use super::query::{AtomKind, Query};

mod ranked;

pub(super) use ranked::RankedNotes;
use ranked::{Recount, Weighed};

/// How much the text's own occurrences count for a note of `size` bytes: `0.25 + 0.75·size/mean`, the divisor.
pub(super) fn length_norm(size: u64, mean_size: f64) -> f64 {
    let ratio = if mean_size > 0.0 {
        size as f64 / mean_size
    } else {
        1.0
    };
    0.25 + 0.75 * ratio
}

/// The weighted occurrences (`wtf`) of each scored term in a note, `title + aliases + text / norm`, written over
/// `out`: from each term's count at the word starts of the title, of the aliases and of the text (counted in the text
/// read, or the word index's count).
pub(super) fn weighted_counts(
    out: &mut Vec<f64>,
    title: &[usize],
    aliases: &[usize],
    text: &[u32],
    norm: f64,
) {
    out.clear();
    out.extend((0..title.len()).map(|i| weight(title[i], aliases[i], text[i], norm)));
}

/// One term's weighted occurrences in a note, from its counts at word starts in the title, the aliases and the text.
pub(super) fn weight(title: usize, aliases: usize, text: u32, norm: f64) -> f64 {
    title as f64 + aliases as f64 + f64::from(text) / norm
}

/// Each term's IDF: `ln(1 + (N − df + 0.5) / (df + 0.5))`.
pub(super) fn idf(notes: usize, df: &[usize]) -> Vec<f64> {
    df.iter()
        .map(|&df| {
            let (n, df) = (notes as f64, df as f64);
            (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
        })
        .collect()
}

/// A note's score: `Σ idf · wtf·3 / (wtf + 2)` in the terms' order (BM25's saturation with k1 = 2).
pub(super) fn score(idf: &[f64], wtf: &[f64]) -> f64 {
    let mut sum = 0.0;
    for (idf, wtf) in idf.iter().zip(wtf) {
        sum += idf * (wtf * 3.0) / (wtf + 2.0);
    }
    sum
}

/// The key notes are ordered by: the score to six decimals, so that the last bits of two engines' logarithms never
/// change an order.
pub(super) fn order_key(score: f64) -> i64 {
    (score * 1_000_000.0).round() as i64
}

/// A ranked note and its score.
pub(super) type Ranked<'c> = (&'c FileEntry, f64);

/// How a query's scored terms are counted at the word starts of a text: by each term's matcher, or without a regex
/// when every one is a plain word the index counts (the same counts).
struct Counter<'q> {
    query: &'q Query,
    scored: &'q [usize],
    plain: Option<Vec<&'q str>>,
}

impl Counter<'_> {
    /// Each scored term's count in `text`, over `out`.
    fn count_into(&self, text: &str, out: &mut Vec<usize>) {
        out.clear();
        if text.is_empty() {
            out.resize(self.scored.len(), 0);
        } else if let Some(words) = &self.plain {
            plain_word_starts(text, words, out);
        } else {
            out.extend(
                self.scored
                    .iter()
                    .map(|&at| self.query.atoms[at].matcher.count_word_starts(text)),
            );
        }
    }
}

/// Weighs a query's scored terms in one note after another, in buffers kept from note to note (at 100,000 notes, a
/// few allocations per note were a tenth of a ranked search).
struct Weigher<'q> {
    counter: Counter<'q>,
    title: Vec<usize>,
    aliases: Vec<usize>,
    text: Vec<u32>,
    wtf: Vec<f64>,
}

impl<'q> Weigher<'q> {
    fn new(query: &'q Query, scored: &'q [usize], plain: bool) -> Self {
        // Titles and aliases are counted without a regex only for ASCII words (`plain_word_starts` folds ASCII).
        let ascii = scored.iter().all(|&at| query.atoms[at].text.is_ascii());
        let plain = (plain && ascii).then(|| {
            scored
                .iter()
                .map(|&at| query.atoms[at].text.as_str())
                .collect()
        });
        Weigher {
            counter: Counter {
                query,
                scored,
                plain,
            },
            title: Vec::new(),
            aliases: Vec::new(),
            text: Vec::new(),
            wtf: Vec::new(),
        }
    }

    /// The weights from the title and aliases given and the text counts already in `self.text`.
    fn weigh(&mut self, title: &str, aliases: &str, norm: f64) {
        self.counter.count_into(title, &mut self.title);
        self.counter.count_into(aliases, &mut self.aliases);
        weighted_counts(&mut self.wtf, &self.title, &self.aliases, &self.text, norm);
    }

    /// The weights of a note whose text holds no scored term: its title alone.
    fn title_only(&mut self, title: &str, norm: f64) {
        self.text.clear();
        self.text.resize(self.counter.scored.len(), 0);
        self.weigh(title, "", norm)
    }

    /// The weights of a note whose text the word index counted (`text`: the counts by term, each by document).
    fn counted_by_index<'a>(
        &mut self,
        title: &str,
        aliases: impl FnOnce() -> Cow<'a, str>,
        doc: u32,
        text: &[&DocCounts],
        norm: f64,
    ) {
        self.text.clear();
        self.text.extend(text.iter().map(|counts| counts.get(doc)));
        // Aliases are in the text: none of them holds a term the text lacks.
        let aliases = if self.text.iter().any(|&count| count > 0) {
            aliases()
        } else {
            Cow::Borrowed("")
        };
        self.weigh(title, &aliases, norm)
    }

    /// The weights of a note read: `in_text[i]` is false for a term the word index says its text lacks (not counted).
    fn counted_in_text(&mut self, view: &NoteView<'_>, in_text: &[bool], norm: f64) {
        self.text.clear();
        for (&at, &may) in self.counter.scored.iter().zip(in_text) {
            let matcher = &self.counter.query.atoms[at].matcher;
            self.text.push(if may {
                matcher.count_word_starts(view.text) as u32
            } else {
                0
            });
        }
        self.weigh(view.title(), &view.aliases(), norm)
    }

    /// Whether the last note weighed holds no scored term in its title or aliases: its weights are its text's alone.
    fn text_alone(&self) -> bool {
        self.title
            .iter()
            .chain(&self.aliases)
            .all(|&count| count == 0)
    }
}

/// Past this many notes in scope, ranking weighs them on two threads.
const PARALLEL_FROM: usize = 20_000;

/// A ranking's inputs shared by every note.
struct Ranking<'a, 'q> {
    ctx: &'a Context<'a>,
    any: bool,
    query: &'q Query,
    scored: &'q [usize],
    known: &'a Known<'a>,
    counts: Option<Vec<&'a DocCounts>>,
    mean_size: f64,
}

impl Ranking<'_, '_> {
    /// Weighs `notes` one after another.
    fn weigh(&self, files: &[FileEntry], notes: &[usize]) -> Weighed {
        let (ctx, query, known) = (self.ctx, self.query, self.known);
        let names = ctx.snapshot.names();
        let mut weigher = Weigher::new(query, self.scored, self.counts.is_some());
        let mut out = Weighed::new(notes.len(), self.scored.len());
        let mut in_text: Vec<bool> = Vec::with_capacity(self.scored.len());
        for &index in notes {
            let file = &files[index];
            let Some(doc) = known.doc(ctx, index) else {
                continue;
            };
            let holds = |at: usize, content_only: bool| {
                known.holds(query, (index, file, doc), at, content_only)
            };
            let decided = note::decide(query, self.any, &holds);
            in_text.clear();
            in_text.extend(self.scored.iter().map(|&at| holds(at, true) != Some(false)));
            let size = names.map_or(file.size, |names| names.size(index));
            let norm = length_norm(size, self.mean_size);
            // A title or aliases the table says hold no scored term are not counted (most notes' hold none).
            let title = match names {
                Some(_) if !known.named(self.scored, index, true) => "",
                Some(names) => names.title(index),
                None => file.title(),
            };
            // Whether the note matches, and its document when the index counted its text.
            let (matches, counted) = match &self.counts {
                _ if decided == Some(false) && !in_text.contains(&true) => {
                    weigher.title_only(title, norm);
                    (false, None)
                }
                Some(counts) if decided.is_some() && known.exact_for(doc) => {
                    let aliases = || match names {
                        Some(_) if !known.named(self.scored, index, false) => Cow::Borrowed(""),
                        Some(names) => Cow::Borrowed(names.aliases(index)),
                        None => Cow::Owned(
                            NoteView::new(
                                &file.path,
                                "",
                                ctx.snapshot.note_at(index).map(|n| &**n),
                            )
                            .aliases(),
                        ),
                    };
                    weigher.counted_by_index(title, aliases, doc, counts, norm);
                    (decided == Some(true), Some(doc))
                }
                _ => {
                    let Ok(text) = ctx.text_of(file) else {
                        continue;
                    };
                    let indexed = ctx.snapshot.note_at(index).map(|note| &**note);
                    let view = NoteView::new(&file.path, &text, indexed);
                    let matches = decided != Some(false) && note::qualifies(query, self.any, &view);
                    weigher.counted_in_text(&view, &in_text, norm);
                    (matches, None)
                }
            };
            let wtf = &weigher.wtf;
            for (count, weighted) in out.df.iter_mut().zip(wtf) {
                if *weighted > 0.0 {
                    *count += 1;
                }
            }
            match counted {
                _ if !matches => {}
                Some(doc) if weigher.text_alone() => out.push_counted(index, doc, wtf),
                _ => out.push_kept(index, wtf),
            }
        }
        out
    }

    /// Weighs `notes`, on two threads when there are many: the parts, in the notes' order.
    fn weigh_all(&self, notes: &Scope<'_>) -> Vec<Weighed> {
        let (files, indexes) = (notes.files(), notes.indexes());
        if indexes.len() < PARALLEL_FROM {
            return vec![self.weigh(files, indexes)];
        }
        let (first, second) = indexes.split_at(indexes.len() / 2);
        let (out, rest) = std::thread::scope(|scope| {
            let later = scope.spawn(|| self.weigh(files, second));
            let out = self.weigh(files, first);
            (out, later.join())
        });
        // A panic in the other half is the caller's, as it would be on one thread.
        vec![
            out,
            rest.unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        ]
    }
}

/// The notes that match, most relevant first (equal keys in path order), with their scores; and the terms whose lines
/// the results show: not those in more than half the notes in scope (`the`, `how`), which would show nearly every line,
/// unless every scored term is that common.
pub(super) fn rank_notes<'c, 'k>(
    ctx: &'k Context<'_>,
    any: bool,
    query: &Query,
    notes: &Scope<'c>,
    known: &'k Known<'_>,
) -> (RankedNotes<'c, 'k>, Vec<usize>) {
    let terms = note::terms(query);
    let scored: Vec<usize> = terms
        .iter()
        .copied()
        .filter(|&at| query.atoms[at].kind != AtomKind::Regex)
        .collect();
    let names = ctx.snapshot.names();
    let bytes: u64 = notes
        .iter()
        .map(|(index, file)| names.map_or(file.size, |names| names.size(index)))
        .sum();
    let mean_size = if notes.is_empty() {
        0.0
    } else {
        bytes as f64 / notes.len() as f64
    };
    let ranking = Ranking {
        ctx,
        any,
        query,
        scored: &scored,
        known,
        counts: known.counts(&scored),
        mean_size,
    };
    let parts = ranking.weigh_all(notes);
    let mut df = vec![0; scored.len()];
    for part in &parts {
        for (count, more) in df.iter_mut().zip(&part.df) {
            *count += more;
        }
    }
    let idf = idf(notes.len(), &df);
    let shown = shown_terms(terms, &scored, &df, notes.len());
    let recount = Recount {
        files: notes.files(),
        names,
        counts: ranking.counts.unwrap_or_default(),
        mean_size,
    };
    (RankedNotes::new(parts, idf, recount), shown)
}

/// The terms whose lines the results show: not those in more than half the `notes` in scope, unless every scored term
/// is that common.
fn shown_terms(terms: Vec<usize>, scored: &[usize], df: &[usize], notes: usize) -> Vec<usize> {
    let common = |at: usize| {
        scored
            .iter()
            .position(|&scored| scored == at)
            .is_some_and(|index| df[index] * 2 > notes)
    };
    if !scored.is_empty() && scored.iter().all(|&at| common(at)) {
        return terms;
    }
    terms.into_iter().filter(|&at| !common(at)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_follow_the_formula_by_hand() {
        // A term in one of three notes.
        let idf = idf(3, &[1]);
        assert!((idf[0] - (1.0f64 + 2.5 / 1.5).ln()).abs() < 1e-12);
        // Once in the text of a note half the mean size, and of one 1.5 times it.
        let (short, long) = (length_norm(100, 200.0), length_norm(300, 200.0));
        assert_eq!(short, 0.625);
        let by_hand = idf[0] * (1.0 / 0.625 * 3.0) / (1.0 / 0.625 + 2.0);
        assert!((score(&idf, &[1.0 / short]) - by_hand).abs() < 1e-12);
        assert!(
            score(&idf, &[1.0 / short]) > score(&idf, &[1.0 / long]),
            "a shorter note ranks higher"
        );
        assert!(
            score(&idf, &[1.0 + 1.0 / long]) > score(&idf, &[1.0 / short]),
            "a word in the title counts on top of the text's"
        );
        assert!(
            score(&idf, &[1000.0]) < 3.0 * idf[0],
            "saturates below k1 + 1"
        );
        assert_eq!(score(&idf, &[0.0]), 0.0);
        assert_eq!(order_key(1.234_567_4), 1_234_567);
        assert!(
            super::idf(10, &[10])[0] > 0.0,
            "a term in every note still counts a little"
        );
        assert_eq!(
            length_norm(5, 0.0),
            1.0,
            "an empty vault divides by nothing"
        );
    }
}
