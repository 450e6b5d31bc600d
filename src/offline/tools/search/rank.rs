//! BM25F over terms for word mode (plugin: `src/vault/query/rank.ts`; the formula is in
//! `obsidian-plugin/src/tools/README.md`, search): each scored term's occurrences at word starts in the title and the
//! aliases (each counted in full) and in the text (against the note's size relative to the mean), saturated with
//! k1 = 2, times its IDF over the notes in scope. Both readers do the same operations in the same order, so scores
//! and order agree.

use super::note::NoteView;
use super::query::Query;

/// How much the text's own occurrences count for a note of `size` bytes: `0.25 + 0.75·size/mean`, the divisor.
pub(super) fn length_norm(size: u64, mean_size: f64) -> f64 {
    let ratio = if mean_size > 0.0 {
        size as f64 / mean_size
    } else {
        1.0
    };
    0.25 + 0.75 * ratio
}

/// The weighted occurrences (`wtf`) of each scored term in a note: `title + aliases + text / norm`. `in_text(at)` is
/// false for a term the word index says the text cannot hold (its count there is 0, unread).
pub(super) fn weighted_counts(
    query: &Query,
    scored: &[usize],
    note: &NoteView<'_>,
    norm: f64,
    in_text: impl Fn(usize) -> bool,
) -> Vec<f64> {
    let count = |at: usize, text: &str| query.atoms[at].matcher.count_word_starts(text) as f64;
    let aliases = note.aliases();
    scored
        .iter()
        .map(|&at| {
            let text = if in_text(at) {
                count(at, note.text)
            } else {
                0.0
            };
            count(at, note.title()) + count(at, &aliases) + text / norm
        })
        .collect()
}

/// The weighted occurrences of each scored term in the title alone: a note whose text cannot hold any term.
pub(super) fn title_counts(query: &Query, scored: &[usize], title: &str) -> Vec<f64> {
    scored
        .iter()
        .map(|&at| query.atoms[at].matcher.count_word_starts(title) as f64)
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
