// BM25 over terms for word-mode search (the formula: ../../tools/README.md, search; the offline reader's twin is
// src/offline/tools/search/rank.rs): each scored term's occurrences weighted by where they stand (title ×3, aliases
// ×2, headings ×2, text ×1), its IDF over the notes in scope, and the note's size against the mean size. Both readers
// do the same floating-point operations in the same order, so they give the same scores and the same order.

import type { NoteView } from "./match";
import type { ParsedQuery } from "./parse";

/** The weighted occurrences (`wtf`) of each scored term (atom indexes, in the terms' order) in a note. */
export function weightedCounts(query: ParsedQuery, scored: readonly number[], note: NoteView): number[] {
  const title = note.title();
  const aliases = note.aliases();
  const headings = note.headings();
  return scored.map((at) => {
    const matcher = query.atoms[at].matcher;
    return 3 * matcher.count(title) + 2 * matcher.count(aliases) + 2 * matcher.count(headings) + matcher.count(note.text);
  });
}

/** Each term's IDF, `ln(1 + (N − df + 0.5) / (df + 0.5))`, for `notes` notes in scope. */
export function inverseFrequencies(notes: number, df: readonly number[]): number[] {
  return df.map((count) => Math.log(1 + (notes - count + 0.5) / (count + 0.5)));
}

/**
 * A note's score, `Σ idf · wtf·2.2 / (wtf + norm)` in the terms' order, with `norm = 1.2·(0.25 + 0.75·size/mean)`
 * (`size/mean` taken as 1 when every note in scope is empty), computed as `idf * (wtf * 2.2) / (wtf + norm)` and
 * `0.75 * (size / mean)`, as phrase mode's `relevance` does.
 */
export function noteScore(idf: readonly number[], wtf: readonly number[], size: number, meanSize: number): number {
  const ratio = meanSize > 0 ? size / meanSize : 1;
  const norm = 1.2 * (0.25 + 0.75 * ratio);
  let sum = 0;
  for (let i = 0; i < idf.length; i++) sum += (idf[i] * (wtf[i] * 2.2)) / (wtf[i] + norm);
  return sum;
}

/** What notes are ordered by (descending): the score to six decimals, so the last bits of two engines' logarithms never change an order. */
export function orderKey(score: number): number {
  return Math.round(score * 1_000_000);
}
