// Finding a section of a note's current text: a heading's section, a block (`^id`) or the frontmatter. This works on
// the text itself, not on the metadata cache, because the cache is updated asynchronously after a write: an edit
// computed from a stale cache position would land in the wrong place. The rules are small and documented in
// tools/README.md so the offline reader can reproduce them exactly.
//
// All line numbers here are 0-based indexes into splitLines(text); tools convert to 1-based at the edge.

import { ToolError } from "./errors";

/** A heading found in the text. */
export interface Heading {
  line: number;
  level: number;
  text: string;
}

/** A half-open range of lines [start, end). */
export interface LineRange {
  start: number;
  end: number;
}

const HEADING = /^(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^[ ]{0,3}(`{3,}|~{3,})/;
const BLOCK_ID = /(?:^|\s)\^([A-Za-z0-9-]+)\s*$/;

/** The frontmatter's lines: the opening and closing "---" included, or null when the note has none. */
export function frontmatterRange(lines: string[]): LineRange | null {
  if (lines.length === 0 || lines[0].replace(/\r$/, "") !== "---") return null;
  for (let i = 1; i < lines.length; i++) {
    if (lines[i].replace(/\r$/, "") === "---") return { start: 0, end: i + 1 };
  }
  return null;
}

/** The ATX headings outside frontmatter and fenced code, in order. */
export function findHeadings(lines: string[]): Heading[] {
  const headings: Heading[] = [];
  const front = frontmatterRange(lines);
  let fence: string | null = null;
  for (let i = front ? front.end : 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, "");
    const fenceMatch = FENCE.exec(line);
    if (fence !== null) {
      if (fenceMatch && fenceMatch[1][0] === fence[0] && fenceMatch[1].length >= fence.length) fence = null;
      continue;
    }
    if (fenceMatch) {
      fence = fenceMatch[1];
      continue;
    }
    const match = HEADING.exec(line);
    if (match) headings.push({ line: i, level: match[1].length, text: (match[2] ?? "").trim() });
  }
  return headings;
}

/** Lines a heading's section covers: from the heading line to the next heading of the same or a higher level. */
export function headingSectionEnd(headings: Heading[], index: number, lineCount: number): number {
  const level = headings[index].level;
  for (let j = index + 1; j < headings.length; j++) {
    if (headings[j].level <= level) return headings[j].line;
  }
  return lineCount;
}

function sameHeading(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/**
 * Finds a heading by its text (case-insensitive, leading "#"s ignored). `Parent#Child` looks for Child inside
 * Parent's section. Returns the index into `headings`.
 */
export function findHeading(lines: string[], headings: Heading[], wanted: string): number {
  const parts = wanted.split("#").map((part) => part.trim()).filter((part) => part !== "");
  if (parts.length === 0) throw new ToolError("heading is empty");
  let from = 0;
  let to = headings.length;
  let found = -1;
  for (const part of parts) {
    found = -1;
    for (let j = from; j < to; j++) {
      if (sameHeading(headings[j].text, part)) {
        found = j;
        break;
      }
    }
    if (found < 0) break;
    const end = headingSectionEnd(headings, found, lines.length);
    from = found + 1;
    to = headings.findIndex((heading, k) => k > found && heading.line >= end);
    if (to < 0) to = headings.length;
  }
  if (found < 0) {
    const known = headings.slice(0, 30).map((heading) => heading.text);
    throw new ToolError(
      `heading ${JSON.stringify(wanted)} not found` +
        (known.length ? `; headings: ${known.map((text) => JSON.stringify(text)).join(", ")}` : "; the note has no headings"),
    );
  }
  return found;
}

/**
 * The lines of a block: the line ending in `^id` and, when that line is a paragraph line (not a list item), the
 * paragraph lines directly above it up to a blank line or heading. A line holding only `^id` marks the block above it.
 */
export function findBlock(lines: string[], wantedId: string): LineRange {
  const id = wantedId.trim().replace(/^\^/, "");
  if (id === "") throw new ToolError("block id is empty");
  const headingLines = new Set(findHeadings(lines).map((heading) => heading.line));
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, "");
    const match = BLOCK_ID.exec(line);
    if (!match || match[1] !== id) continue;
    if (headingLines.has(i) || /^\s*([-*+]|\d+[.)])\s/.test(line)) return { start: i, end: i + 1 };
    let start = i;
    const standalone = line.trim() === `^${id}`;
    let probe = standalone ? i - 1 : i;
    if (standalone) {
      while (probe >= 0 && lines[probe].trim() === "") probe--;
      if (probe < 0) return { start: i, end: i + 1 };
      start = probe;
    }
    while (start > 0 && lines[start - 1].trim() !== "" && !headingLines.has(start - 1) && !headingLines.has(start)) {
      start--;
    }
    return { start, end: i + 1 };
  }
  throw new ToolError(`block ^${id} not found`);
}
