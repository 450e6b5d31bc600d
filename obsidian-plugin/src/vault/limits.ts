// Output bounds shared by every tool. Characters are counted as JavaScript string length (UTF-16 code units); cuts
// never split a surrogate pair. Defaults keep one result well under what agents accept (Claude Code spills results
// over ~50k characters into a file), and the caps stop a caller from asking for megabytes at once.

import { z } from "zod";
import { ToolError } from "./errors";

export const MAX_CHARS_DEFAULT = 20_000;
export const MAX_CHARS_CAP = 200_000;
export const LIMIT_CAP = 500;
/** Longest single line or snippet quoted in a structured result. */
export const SNIPPET_CHARS = 300;

/** The `max_chars` argument every text-returning tool takes. */
export function maxCharsArg(what = "the result") {
  return z
    .number()
    .int()
    .min(100)
    .max(MAX_CHARS_CAP)
    .default(MAX_CHARS_DEFAULT)
    .describe(`Maximum characters of ${what} (default ${MAX_CHARS_DEFAULT}, max ${MAX_CHARS_CAP}).`);
}

/** A `limit` argument with a default and the shared cap. */
export function limitArg(what: string, fallback: number) {
  return z
    .number()
    .int()
    .min(1)
    .max(LIMIT_CAP)
    .default(fallback)
    .describe(`Maximum ${what} to return (default ${fallback}, max ${LIMIT_CAP}).`);
}

/** The opaque `cursor` argument of paginated tools. */
export function cursorArg() {
  return z.string().max(4096).optional().describe("Cursor from a previous result's next_cursor, to get the next page.");
}

/** Cuts `text` to at most `max` characters without splitting a surrogate pair. */
export function cutChars(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

/** A line quoted in a structured result: at most SNIPPET_CHARS characters, "…" marking a cut. */
export function snippet(line: string, max = SNIPPET_CHARS): string {
  const clean = line.endsWith("\r") ? line.slice(0, -1) : line;
  return clean.length <= max ? clean : cutChars(clean, max) + "…";
}

/**
 * A snippet of `line` that keeps the match at `index` visible: when the line is too long, the window starts a little
 * before the match.
 */
export function snippetAround(line: string, index: number, max = SNIPPET_CHARS): string {
  const clean = line.endsWith("\r") ? line.slice(0, -1) : line;
  if (clean.length <= max) return clean;
  let start = Math.max(0, Math.min(index - Math.floor(max / 4), clean.length - max));
  const code = clean.charCodeAt(start);
  if (code >= 0xdc00 && code <= 0xdfff) start += 1;
  const body = cutChars(clean.slice(start), max);
  return (start > 0 ? "…" : "") + body + (start + body.length < clean.length ? "…" : "");
}

/** Decodes a numeric offset cursor; a bad cursor is a clear error rather than a silent restart. */
export function offsetFromCursor(cursor: string | undefined): number {
  if (cursor === undefined || cursor === "") return 0;
  if (!/^\d{1,9}$/.test(cursor)) {
    throw new ToolError(`invalid cursor ${JSON.stringify(cursor)}: pass next_cursor from the previous result unchanged`);
  }
  return Number(cursor);
}

/**
 * How many of `items` fit in `budget` characters once serialized as JSON array members (each item's JSON plus a
 * comma). Always at least one item when any exist, so a page can never be empty while more remain.
 */
export function countWithinBudget(items: unknown[], budget: number): number {
  let used = 0;
  for (let i = 0; i < items.length; i++) {
    used += JSON.stringify(items[i]).length + 1;
    if (used > budget && i > 0) return i;
  }
  return items.length;
}

/**
 * One page of `all` for a tool paged by an offset cursor: at most `limit` items that fit in `max_chars` less
 * `reserve` (what the rest of the result takes), and the cursor of the next page (null on the last one).
 */
export function pageOf<T>(all: T[], args: { cursor?: string; limit: number; max_chars: number }, reserve: number): { page: T[]; next: string | null } {
  const offset = offsetFromCursor(args.cursor);
  const window = all.slice(offset, offset + args.limit);
  const page = window.slice(0, countWithinBudget(window, args.max_chars - reserve));
  const next = offset + page.length;
  return { page, next: next < all.length ? String(next) : null };
}

/** Bytes as MiB with one decimal, for messages about sizes and limits. */
export function mib(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1);
}
