// Full-text search over the vault's Markdown notes. Notes are read with `vault.cachedRead` (Obsidian's in-memory copy)
// a few dozen at a time, in path order, and the scan stops as soon as the page is full, so a narrow query on a
// 10,000-note vault answers quickly. Matching is per line; the cursor names the last match returned (line and path)
// so the next page resumes right after it even if notes were added meanwhile. How notes are read safely (never one
// whose real file is outside the vault; symlinks the verified way) is ../vault/many.ts.

import { z } from "zod";
import { cutChars, LIMIT_CAP, maxCharsArg, snippet, snippetAround } from "../vault/limits";
import { splitLines } from "../vault/lines";
import { compileLinear } from "../vault/regex";
import { cleanVaultPath, isInConfigDir } from "../vault/paths";
import { insideVaultChecker } from "../vault/disk";
import { READ_BATCH, readNotes } from "../vault/many";
import { visibleChecker } from "../vault/hidden";
import { json, pageHead } from "./common";
import { defineTool, ToolError } from "./types";

interface Match {
  line: number;
  text: string;
  before?: string[];
  after?: string[];
}

interface FileResult {
  path: string;
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

export const search = defineTool({
  name: "search",
  title: "Search notes",
  description:
    "Search Markdown notes for text or a regular expression (RE2 syntax: JavaScript's without lookaround or " +
    "backreferences; matched in linear time), line by line, in path order. Returns matching lines (1-based) with " +
    "optional context, paginated.",
  input: {
    query: z.string().min(1).max(1000).describe("Text to find, or a regular expression when regex is true."),
    regex: z.boolean().default(false).describe("Treat query as an RE2 regular expression (default false)."),
    case_sensitive: z.boolean().default(false).describe("Match case exactly (default false)."),
    path_prefix: z
      .string()
      .default("")
      .describe('Only notes whose vault path starts with this, e.g. "Projects/" (default: whole vault).'),
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
    const visible = visibleChecker(ctx);
    const files = ctx.app.vault
      .getMarkdownFiles()
      .filter((file) => file.path.startsWith(prefix) && !isInConfigDir(file.path, ctx) && visible(file))
      .filter((file) => resume === null || file.path >= resume.path)
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const inside = insideVaultChecker(ctx);
    const budget = args.max_chars - 300;
    const results: FileResult[] = [];
    let used = 0;
    let total = 0;
    let searched = 0;
    let next: string | null = null;
    let last: { path: string; line: number } | null = null;

    scan: for (let batchStart = 0; batchStart < files.length; batchStart += READ_BATCH) {
      if (ctx.signal.aborted) throw new ToolError("search cancelled");
      const batch = files.slice(batchStart, batchStart + READ_BATCH);
      // A note whose real file is outside the vault (a symlink, or inside a symlinked folder) is counted as
      // searched but never read, so never quoted: the offline reader does not read it either.
      const texts = await readNotes(ctx, batch, inside);
      for (let b = 0; b < batch.length; b++) {
        const file = batch[b];
        const text = texts[b];
        searched++;
        if (text === null || !matcher.mayMatch(text)) continue;
        const lines = splitLines(text);
        const skipThrough = resume !== null && file.path === resume.path ? resume.line : 0;
        let fileResult: FileResult | null = null;
        for (let i = skipThrough; i < lines.length; i++) {
          const line = lines[i].endsWith("\r") ? lines[i].slice(0, -1) : lines[i];
          const index = matcher.line(line);
          if (index < 0) continue;
          fileResult ??= { path: file.path, matches: [] };
          if (fileResult.matches.length >= args.max_per_file) {
            fileResult.more_in_file = true;
            break;
          }
          if (total >= args.limit) {
            next = last ? `${last.line}:${last.path}` : null;
            break scan;
          }
          const match: Match = { line: i + 1, text: snippetAround(line, index) };
          if (args.context_lines > 0) {
            match.before = lines.slice(Math.max(0, i - args.context_lines), i).map((item) => snippet(item));
            match.after = lines.slice(i + 1, i + 1 + args.context_lines).map((item) => snippet(item));
          }
          const cost = JSON.stringify(match).length + (fileResult.matches.length === 0 ? file.path.length + 40 : 1);
          if (used + cost > budget && total > 0) {
            next = last ? `${last.line}:${last.path}` : null;
            break scan;
          }
          if (fileResult.matches.length === 0) results.push(fileResult);
          fileResult.matches.push(match);
          used += cost;
          total++;
          last = { path: file.path, line: i + 1 };
        }
      }
    }
    return json({
      ...pageHead("search", args, next),
      query: cutChars(args.query, 200),
      results,
      total_matches: total,
      notes_searched: searched,
    });
  },
});

export const SEARCH_TOOLS = [search];
