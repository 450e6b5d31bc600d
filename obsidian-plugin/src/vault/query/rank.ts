// BM25F over terms for word-mode search (the formula: ../../tools/README.md, search; the offline reader's twin is
// src/offline/plugin/tools/search/rank.rs): each scored term's occurrences at word starts in the title and the aliases (each
// counted in full) and in the text (against the note's size relative to the mean), saturated with k1 = 2, times its
// IDF over the notes in scope. Both readers do the same floating-point operations in the same order, so they give the
// same scores and the same order.

import type { NoteView } from "./match";
import type { ParsedQuery } from "./parse";

/** How much a note's text counts for a note of `size` bytes: the divisor `0.25 + 0.75·size/mean` (1 when every note in scope is empty). */
export function lengthNorm(size: number, meanSize: number): number {
  const ratio = meanSize > 0 ? size / meanSize : 1;
  return 0.25 + 0.75 * ratio;
}

/** The weighted occurrences (`wtf`) of each scored term (atom indexes, in the terms' order) in a note, counted at word starts: `title + aliases + text / norm`. */
export function weightedCounts(query: ParsedQuery, scored: readonly number[], note: NoteView, norm: number): number[] {
  const title = note.title();
  const aliases = note.aliases();
  return scored.map((at) => {
    const matcher = query.atoms[at].matcher;
    return matcher.count(title) + matcher.count(aliases) + matcher.count(note.text) / norm;
  });
}

/** Each term's IDF, `ln(1 + (N − df + 0.5) / (df + 0.5))`, for `notes` notes in scope. */
export function inverseFrequencies(notes: number, df: readonly number[]): number[] {
  return df.map((count) => Math.log(1 + (notes - count + 0.5) / (count + 0.5)));
}

/** A note's score, `Σ idf · wtf·3 / (wtf + 2)` in the terms' order (BM25's saturation with k1 = 2). */
export function noteScore(idf: readonly number[], wtf: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < idf.length; i++) sum += (idf[i] * (wtf[i] * 3)) / (wtf[i] + 2);
  return sum;
}

/** What notes are ordered by (descending): the score to six decimals, so the last bits of two engines' logarithms never change an order. */
export function orderKey(score: number): number {
  return Math.round(score * 1_000_000);
}
