// `search` in phrase mode (`mode: "phrase"`, or `regex: true`): the line search from before word mode, for callers
// that want one literal line or one regular expression (the offline reader's twin: src/offline/plugin/tools/search/phrase.rs).
// Notes are read with `vault.cachedRead` (Obsidian's in-memory copy) a few dozen at a time, in path order, and the scan
// stops as soon as the page is full, so a narrow query on a 10,000-note vault answers quickly; a scan runs in slices
// (../vault/slices.ts), so Obsidian stays responsive while it does. Matching is per line. With `rank`, every note is
// searched first and the matching ones are ordered by relevance (`relevance`, BM25's weight), the cursor then resuming
// in that order. How notes are read safely (never one whose real file is outside the vault; symlinks the verified way)
// is ../vault/many.ts.

import type { TFile } from "obsidian";
import { cutChars } from "../vault/limits";
import { splitLines } from "../vault/lines";
import { compileLinear } from "../vault/regex";
import { cleanVaultPath } from "../vault/paths";
import { insideVaultChecker } from "../vault/disk";
import { eachText, readNotes } from "../vault/many";
import { visibleNotes } from "../vault/notes";
import { literalIgnoringCase } from "../vault/query/matcher";
import { Slices } from "../vault/slices";
import { json, pageHead } from "./common";
import { parseCursor, roundScore, SearchPage, type LineMatcher, type SearchArgs } from "./search-page";
import { ToolError, type ToolContext, type ToolOutput } from "./types";

/**
 * How a query is matched: the first match in a line, and a test on a whole text that is false only when no line of
 * it can match, so a note without a match is skipped without being split into lines.
 */
interface QueryMatcher {
  line: LineMatcher;
  mayMatch: (text: string) => boolean;
}

function matcherFor(query: string, regex: boolean, caseSensitive: boolean): QueryMatcher {
  if (regex) {
    const pattern = compileLinear(query, caseSensitive);
    return { line: (line) => pattern.indexIn(line), mayMatch: (text) => pattern.mayMatch(text) };
  }
  if (caseSensitive) return { line: (line) => line.indexOf(query), mayMatch: (text) => text.includes(query) };
  const pattern = literalIgnoringCase(query);
  return {
    line: (line) => {
      const found = pattern.exec(line);
      return found ? found.index : -1;
    },
    mayMatch: (text) => pattern.test(text),
  };
}

/** How many lines of a text match. */
function matchingLines(matcher: QueryMatcher, text: string): number {
  if (!matcher.mayMatch(text)) return 0;
  let count = 0;
  for (const raw of splitLines(text)) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (matcher.line(line) >= 0) count++;
  }
  return count;
}

/**
 * BM25's weight of a note for the query, without the query's IDF (the same for every note, so it does not change
 * the order): `lines` matching lines (the term frequency) in a note of `size` bytes, against the mean size of the
 * notes searched; k1 = 1.2, b = 0.75. The offline reader (src/offline/plugin/tools/search/phrase.rs) computes the same, in the
 * same order of operations, so that both give the same order and the same scores.
 */
export function relevance(lines: number, size: number, meanSize: number): number {
  const ratio = meanSize > 0 ? size / meanSize : 1;
  return (lines * 2.2) / (lines + 1.2 * (0.25 + 0.75 * ratio));
}

/** Runs a phrase-mode search. */
export async function searchPhrase(args: SearchArgs, ctx: ToolContext): Promise<ToolOutput> {
  if (!args.regex && /[\r\n]/.test(args.query)) {
    throw new ToolError("query spans several lines, but search matches one line at a time: search for one line of it");
  }
  const matcher = matcherFor(args.query, args.regex, args.case_sensitive);
  const prefix = args.path_prefix === "" ? "" : cleanVaultPath(args.path_prefix, ctx, "path_prefix") + (args.path_prefix.endsWith("/") ? "/" : "");
  const resume = parseCursor(args.cursor);
  const slices = new Slices(ctx.signal, "search");
  const inside = insideVaultChecker(ctx);
  const page = new SearchPage(args);
  const skipFor = (path: string) => (resume !== null && path === resume.path ? resume.line : 0);
  const head = { query: cutChars(args.query, 200), mode: "phrase" };
  if (args.rank) {
    const files = await visibleNotes(ctx, slices, prefix);
    const ranked = await rankNotes(ctx, slices, files, matcher, inside);
    let at = 0;
    if (resume !== null) {
      at = ranked.findIndex((note) => note.file.path === resume.path);
      if (at < 0) throw new ToolError(`the cursor's note ${JSON.stringify(resume.path)} no longer matches (it changed meanwhile): search again without cursor`);
    }
    for (; at < ranked.length; at++) {
      if (slices.spent()) await slices.pause();
      const { file, score } = ranked[at];
      const [text] = await readNotes(ctx, [file], inside);
      if (text === null || text === undefined) continue;
      if (page.addNote({ path: file.path, score: roundScore(score) }, splitLines(text), skipFor(file.path), matcher.line)) break;
    }
    return json({
      ...pageHead("search", args, page.next),
      ...head,
      order: "relevance",
      results: page.results,
      total_matches: page.total,
      notes_searched: files.length,
      notes_matching: ranked.length,
    });
  }
  const files = await visibleNotes(ctx, slices, prefix, resume?.path ?? "");
  let searched = 0;
  // A note whose real file is outside the vault (a symlink, or inside a symlinked folder) is counted as searched
  // but never read, so never quoted: the offline reader does not read it either.
  for await (const { file, text } of eachText(ctx, files, slices, inside)) {
    searched++;
    if (text === null || !matcher.mayMatch(text)) continue;
    if (page.addNote({ path: file.path }, splitLines(text), skipFor(file.path), matcher.line)) break;
  }
  return json({
    ...pageHead("search", args, page.next),
    ...head,
    results: page.results,
    total_matches: page.total,
    notes_searched: searched,
  });
}

/** The notes that match at all, most relevant first (equal scores in path order), with their scores. */
async function rankNotes(
  ctx: ToolContext,
  slices: Slices,
  files: readonly TFile[],
  matcher: QueryMatcher,
  inside: (file: TFile) => boolean,
): Promise<{ file: TFile; score: number }[]> {
  let bytes = 0;
  for (const file of files) bytes += file.stat.size;
  const meanSize = files.length > 0 ? bytes / files.length : 0;
  const matching: { file: TFile; score: number }[] = [];
  for await (const { file, text } of eachText(ctx, files, slices, inside)) {
    const lines = text === null ? 0 : matchingLines(matcher, text);
    if (lines > 0) matching.push({ file, score: relevance(lines, file.stat.size, meanSize) });
  }
  // Already in path order, and the sort is stable: equal scores stay so.
  return slices.sort(matching, (a, b) => b.score - a.score);
}
