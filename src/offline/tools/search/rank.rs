//! BM25F over terms for word mode (plugin: `src/vault/query/rank.ts`; the formula is in
//! `obsidian-plugin/src/tools/README.md`, search): each scored term's occurrences at word starts in the title and the
//! aliases (each counted in full) and in the text (against the note's size relative to the mean), saturated with
//! k1 = 2, times its IDF over the notes in scope. Both readers do the same operations in the same order, so scores
//! and order agree.
//!
//! A query of plain words (`super::known`) is ranked from the word index alone: which notes match and each term's
//! count at word starts come from there, so only the notes a page shows are read. Any other query reads every note
//! that may match or hold a term.

use crate::offline::obsidian::walk::FileEntry;
use crate::offline::tools::Context;

use super::known::{Known, plain_word_starts};
use super::note::{self, NoteView};
use super::query::{AtomKind, Query};

/// How much the text's own occurrences count for a note of `size` bytes: `0.25 + 0.75·size/mean`, the divisor.
pub(super) fn length_norm(size: u64, mean_size: f64) -> f64 {
    let ratio = if mean_size > 0.0 {
        size as f64 / mean_size
    } else {
        1.0
    };
    0.25 + 0.75 * ratio
}

/// The weighted occurrences (`wtf`) of each scored term in a note: `title + aliases + text / norm`, from each term's
/// count at the word starts of the title, of the aliases and of the text (counted in the text read, or the word
/// index's count).
pub(super) fn weighted_counts(
    title: &[usize],
    aliases: &[usize],
    text: &[u32],
    norm: f64,
) -> Vec<f64> {
    (0..title.len())
        .map(|i| title[i] as f64 + aliases[i] as f64 + f64::from(text[i]) / norm)
        .collect()
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

/// The notes that match, most relevant first (equal keys in path order), with their scores; and the terms whose lines
/// the results show: not those in more than half the notes in scope (`the`, `how`), which would show nearly every line,
/// unless every scored term is that common.
pub(super) fn rank_notes<'c>(
    ctx: &Context<'_>,
    any: bool,
    query: &Query,
    notes: &[(usize, &'c FileEntry)],
    known: &Known,
) -> (Vec<Ranked<'c>>, Vec<usize>) {
    let terms = note::terms(query);
    let scored: Vec<usize> = terms
        .iter()
        .copied()
        .filter(|&at| query.atoms[at].kind != AtomKind::Regex)
        .collect();
    let bytes: u64 = notes.iter().map(|(_, file)| file.size).sum();
    let mean_size = if notes.is_empty() {
        0.0
    } else {
        bytes as f64 / notes.len() as f64
    };
    let counts = known.counts(&scored);
    // Each scored term's count at the word starts of a text, by the term's matcher.
    let matched = |text: &str| -> Vec<usize> {
        if text.is_empty() {
            return vec![0; scored.len()];
        }
        scored
            .iter()
            .map(|&at| query.atoms[at].matcher.count_word_starts(text))
            .collect()
    };
    let words: Vec<&str> = scored
        .iter()
        .map(|&at| query.atoms[at].text.as_str())
        .collect();
    let (none, no_text) = (vec![0; scored.len()], vec![0; scored.len()]);
    // The same counts, without a regex when the index counts every term (they are all plain words).
    let counted = |text: &str| -> Vec<usize> {
        if text.is_empty() {
            none.clone()
        } else if counts.is_some() {
            plain_word_starts(text, &words)
        } else {
            matched(text)
        }
    };
    let mut df = vec![0usize; scored.len()];
    let mut matching: Vec<(&FileEntry, Vec<f64>)> = Vec::new();
    for (index, file) in notes {
        let Some(indexed) = ctx.snapshot.note_at(*index) else {
            continue;
        };
        let doc = indexed.doc;
        let holds =
            |at: usize, content_only: bool| known.holds(query, doc, &file.path, at, content_only);
        let decided = note::decide(query, any, &holds);
        let in_text: Vec<bool> = scored
            .iter()
            .map(|&at| holds(at, true) != Some(false))
            .collect();
        let norm = length_norm(file.size, mean_size);
        let wtf = match &counts {
            _ if decided == Some(false) && !in_text.contains(&true) => {
                weighted_counts(&counted(file.title()), &none, &no_text, norm)
            }
            Some(counts) if decided.is_some() && known.exact_for(doc) => {
                let text: Vec<u32> = counts
                    .iter()
                    .map(|counts| counts.get(doc as usize).copied().unwrap_or(0))
                    .collect();
                // Aliases are in the text: none of them holds a term the text lacks.
                let aliases = if text.iter().any(|&count| count > 0) {
                    counted(&NoteView::new(&file.path, "", Some(indexed)).aliases())
                } else {
                    none.clone()
                };
                let wtf = weighted_counts(&counted(file.title()), &aliases, &text, norm);
                if decided == Some(true) {
                    matching.push((file, wtf.clone()));
                }
                wtf
            }
            _ => {
                let Ok(text) = ctx.text_of(file) else {
                    continue;
                };
                let view = NoteView::new(&file.path, &text, Some(indexed));
                let in_body: Vec<u32> = scored
                    .iter()
                    .zip(&in_text)
                    .map(|(&at, &may)| {
                        if may {
                            query.atoms[at].matcher.count_word_starts(view.text) as u32
                        } else {
                            0
                        }
                    })
                    .collect();
                let wtf = weighted_counts(
                    &matched(view.title()),
                    &matched(&view.aliases()),
                    &in_body,
                    norm,
                );
                if decided != Some(false) && note::qualifies(query, any, &view) {
                    matching.push((file, wtf.clone()));
                }
                wtf
            }
        };
        for (count, weighted) in df.iter_mut().zip(&wtf) {
            if *weighted > 0.0 {
                *count += 1;
            }
        }
    }
    let idf = idf(notes.len(), &df);
    let mut keyed: Vec<(i64, Ranked<'c>)> = matching
        .into_iter()
        .map(|(file, wtf)| {
            let score = score(&idf, &wtf);
            (order_key(score), (file, score))
        })
        .collect();
    // Stable, from path order: equal keys stay in path order, as in the plugin.
    keyed.sort_by_key(|(key, _)| std::cmp::Reverse(*key));
    let ranked: Vec<Ranked<'c>> = keyed.into_iter().map(|(_, ranked)| ranked).collect();
    let common = |at: usize| {
        scored
            .iter()
            .position(|&scored| scored == at)
            .is_some_and(|index| df[index] * 2 > notes.len())
    };
    let mut shown: Vec<usize> = terms.iter().copied().filter(|&at| !common(at)).collect();
    if !scored.is_empty() && scored.iter().all(|&at| common(at)) {
        shown = terms;
    }
    (ranked, shown)
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
