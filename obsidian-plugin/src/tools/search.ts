// Full-text search over the vault's Markdown notes. Notes are read with `vault.cachedRead` (Obsidian's in-memory copy)
// a few dozen at a time, in path order, and the scan stops as soon as the page is full, so a narrow query on a
// 10,000-note vault answers quickly; a scan runs in slices (../vault/slices.ts), so Obsidian stays responsive while it
// does. Matching is per line; the cursor names the last match returned (line and path) so the next page resumes
// right after it even if notes were added meanwhile. With `rank`, every note is searched first and the matching
// ones are ordered by relevance (`relevance`, BM25's weight), the cursor then resuming in that order. How notes are
// read safely (never one whose real file is outside the vault; symlinks the verified way) is ../vault/many.ts.

import { z } from "zod";
import type { TFile } from "obsidian";
import { cutChars, LIMIT_CAP, maxCharsArg, snippet, snippetAround } from "../vault/limits";
import { splitLines } from "../vault/lines";
import { compileLinear } from "../vault/regex";
import { cleanVaultPath } from "../vault/paths";
import { insideVaultChecker } from "../vault/disk";
import { eachText, readNotes } from "../vault/many";
import { visibleNotes } from "../vault/notes";
import { Slices } from "../vault/slices";
import { json, pageHead } from "./common";
import { defineTool, ToolError, type ToolContext } from "./types";

interface Match {
  line: number;
  text: string;
  before?: string[];
  after?: string[];
}

interface FileResult {
  path: string;
  /** With rank: the note's relevance (see `relevance`). */
  score?: number;
  matches: Match[];
  more_in_file?: boolean;
}

/** Finds the first match in a line: its index, or -1. */
type LineMatcher = (line: string) => number;

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

/**
 * The query as a literal, case-insensitive pattern. A regex with the `i` flag compares case without copying the text,
 * several times faster on a whole vault than lower-casing every note; the same pattern serves the whole-text test and
 * the line matcher, so both agree on what matches.
 */
function literalIgnoringCase(query: string): RegExp {
  return new RegExp(query.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"), "i");
}

/** Decodes `line:path` cursors produced below. */
function parseCursor(cursor: string | undefined): { path: string; line: number } | null {
  if (cursor === undefined || cursor === "") return null;
  const match = /^(\d{1,9}):(.+)$/s.exec(cursor);
  if (!match) throw new ToolError(`invalid cursor ${JSON.stringify(cursor)}: pass next_cursor from the previous result unchanged`);
  return { line: Number(match[1]), path: match[2] };
}

/** What a page of results holds so far; `addNote` fills it note by note until the limit or the budget is reached. */
class SearchPage {
  readonly results: FileResult[] = [];
  total = 0;
  next: string | null = null;
  private used = 0;
  private last: { path: string; line: number } | null = null;
  private readonly budget: number;

  constructor(
    private readonly args: { max_per_file: number; limit: number; context_lines: number; max_chars: number },
    private readonly matcher: QueryMatcher,
  ) {
    this.budget = args.max_chars - 300;
  }

  /** Adds the matches of one note after line `skipThrough`; true when the page is full (`next` then says where). */
  addNote(path: string, lines: string[], skipThrough: number, score?: number): boolean {
    let fileResult: FileResult | null = null;
    for (let i = skipThrough; i < lines.length; i++) {
      const line = lines[i].endsWith("\r") ? lines[i].slice(0, -1) : lines[i];
      const index = this.matcher.line(line);
      if (index < 0) continue;
      fileResult ??= score === undefined ? { path, matches: [] } : { path, score: roundScore(score), matches: [] };
      if (fileResult.matches.length >= this.args.max_per_file) {
        fileResult.more_in_file = true;
        return false;
      }
      if (this.total >= this.args.limit) return this.full();
      const match: Match = { line: i + 1, text: snippetAround(line, index) };
      if (this.args.context_lines > 0) {
        match.before = lines.slice(Math.max(0, i - this.args.context_lines), i).map((item) => snippet(item));
        match.after = lines.slice(i + 1, i + 1 + this.args.context_lines).map((item) => snippet(item));
      }
      const cost = JSON.stringify(match).length + (fileResult.matches.length === 0 ? path.length + 40 : 1);
      if (this.used + cost > this.budget && this.total > 0) return this.full();
      if (fileResult.matches.length === 0) this.results.push(fileResult);
      fileResult.matches.push(match);
      this.used += cost;
      this.total++;
      this.last = { path, line: i + 1 };
    }
    return false;
  }

  private full(): boolean {
    this.next = this.last ? `${this.last.line}:${this.last.path}` : null;
    return true;
  }
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
 * notes searched; k1 = 1.2, b = 0.75. The offline reader (src/offline/tools/search.rs) computes the same, in the same
 * order of operations, so that both give the same order and the same scores.
 */
export function relevance(lines: number, size: number, meanSize: number): number {
  const ratio = meanSize > 0 ? size / meanSize : 1;
  return (lines * 2.2) / (lines + 1.2 * (0.25 + 0.75 * ratio));
}

/** A score as results show it: three decimals. */
function roundScore(score: number): number {
  return Math.round(score * 1000) / 1000;
}

export const search = defineTool({
  name: "search",
  title: "Search notes",
  description:
    "Search Markdown notes for text or a regular expression (RE2 syntax: JavaScript's without lookaround or " +
    "backreferences; matched in linear time), line by line, in path order, or with rank most relevant notes first. " +
    "Returns matching lines (1-based) with optional context, paginated.",
  input: {
    query: z.string().min(1).max(1000).describe("Text to find, or a regular expression when regex is true."),
    regex: z.boolean().default(false).describe("Treat query as an RE2 regular expression (default false)."),
    case_sensitive: z.boolean().default(false).describe("Match case exactly (default false)."),
    path_prefix: z
      .string()
      .default("")
      .describe('Only notes whose vault path starts with this, e.g. "Projects/" (default: whole vault).'),
    rank: z
      .boolean()
      .default(false)
      .describe(
        "Most relevant notes first (BM25: more matching lines for the note's length rank higher; each note gets a score) " +
          "instead of path order; every note is searched before the first page (default false).",
      ),
    context_lines: z.number().int().min(0).max(10).default(0).describe("Lines of context before and after each match (default 0, max 10)."),
    max_per_file: z.number().int().min(1).max(100).default(10).describe("Maximum matches per note (default 10, max 100)."),
    limit: z.number().int().min(1).max(LIMIT_CAP).default(100).describe(`Maximum matches in total (default 100, max ${LIMIT_CAP}).`),
    cursor: z.string().max(4096).optional().describe("Cursor from a previous result's next_cursor, to get the next page."),
    max_chars: maxCharsArg(),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    if (!args.regex && /[\r\n]/.test(args.query)) {
      throw new ToolError("query spans several lines, but search matches one line at a time: search for one line of it");
    }
    const matcher = matcherFor(args.query, args.regex, args.case_sensitive);
    const prefix = args.path_prefix === "" ? "" : cleanVaultPath(args.path_prefix, ctx, "path_prefix") + (args.path_prefix.endsWith("/") ? "/" : "");
    const resume = parseCursor(args.cursor);
    const slices = new Slices(ctx.signal, "search");
    const inside = insideVaultChecker(ctx);
    const page = new SearchPage(args, matcher);
    const skipFor = (path: string) => (resume !== null && path === resume.path ? resume.line : 0);
    const head = { query: cutChars(args.query, 200) };
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
        if (page.addNote(file.path, splitLines(text), skipFor(file.path), score)) break;
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
      if (page.addNote(file.path, splitLines(text), skipFor(file.path))) break;
    }
    return json({
      ...pageHead("search", args, page.next),
      ...head,
      results: page.results,
      total_matches: page.total,
      notes_searched: searched,
    });
  },
});

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

export const SEARCH_TOOLS = [search];
