//! BM25 over terms for word mode (plugin: `src/vault/query/rank.ts`; the formula is in
//! `obsidian-plugin/src/tools/README.md`, search): each scored term's occurrences weighted by field (title ×3,
//! aliases ×2, headings ×2, text ×1), its IDF over the notes in scope, and the note's size against the mean. Both
//! readers do the same operations in the same order, so scores and order agree.

use super::note::NoteView;
use super::query::Query;

/// The weighted occurrences of each scored term in a note.
pub(super) fn weighted_counts(query: &Query, scored: &[usize], note: &NoteView<'_>) -> Vec<f64> {
    let (aliases, headings) = (note.aliases(), note.headings());
    scored
        .iter()
        .map(|&at| {
            let matcher = &query.atoms[at].matcher;
            let count = |text: &str| matcher.count(text) as f64;
            3.0 * count(note.title())
                + 2.0 * count(&aliases)
                + 2.0 * count(&headings)
                + count(note.text)
        })
        .collect()
}

/// The weighted occurrences of each scored term in the title alone: a note whose text cannot hold any term.
pub(super) fn title_counts(query: &Query, scored: &[usize], title: &str) -> Vec<f64> {
    scored
        .iter()
        .map(|&at| 3.0 * query.atoms[at].matcher.count(title) as f64)
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

/// A note's score: `Σ idf · wtf·2.2 / (wtf + norm)`, `norm = 1.2·(0.25 + 0.75·size/mean)`, in the terms' order.
pub(super) fn score(idf: &[f64], wtf: &[f64], size: u64, mean_size: f64) -> f64 {
    let ratio = if mean_size > 0.0 {
        size as f64 / mean_size
    } else {
        1.0
    };
    let norm = 1.2 * (0.25 + 0.75 * ratio);
    let mut sum = 0.0;
    for (idf, wtf) in idf.iter().zip(wtf) {
        sum += idf * (wtf * 2.2) / (wtf + norm);
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
        // Two notes of 100 bytes and 300 bytes (mean 200); a term in one of three notes.
        let idf = idf(3, &[1]);
        assert!((idf[0] - (1.0f64 + 2.5 / 1.5).ln()).abs() < 1e-12);
        let short = score(&idf, &[1.0], 100, 200.0);
        let long = score(&idf, &[1.0], 300, 200.0);
        let by_hand = idf[0] * 2.2 / (1.0 + 1.2 * (0.25 + 0.75 * 0.5));
        assert!((short - by_hand).abs() < 1e-12);
        assert!(
            short > long,
            "a shorter note ranks higher for the same count"
        );
        assert!(
            score(&idf, &[3.0], 100, 200.0) > short,
            "a title hit (×3) outweighs one in the text"
        );
        assert_eq!(score(&idf, &[0.0], 100, 200.0), 0.0);
        assert_eq!(order_key(1.234_567_4), 1_234_567);
        assert!(
            super::idf(10, &[10])[0] > 0.0,
            "a term in every note still counts a little"
        );
    }
}
