// A page of `search` results, shared by both modes (the offline reader's twin: src/offline/plugin/tools/search/page.rs): notes
// added one by one until the limit or the character budget is reached, and the `line:path` cursor that resumes right
// after the last match returned (`0:path` after a note shown without lines), even if notes were added meanwhile.

import { snippet, snippetAround } from "../vault/limits";
import { ToolError } from "./types";

/** The arguments of `search` as its schema parses them. */
export interface SearchArgs {
  query: string;
  mode: "words" | "phrase";
  regex: boolean;
  case_sensitive: boolean;
  path_prefix: string;
  rank: boolean;
  match?: "all" | "any";
  context_lines: number;
  max_per_file: number;
  limit: number;
  cursor?: string;
  max_chars: number;
}

export interface Match {
  line: number;
  text: string;
  before?: string[];
  after?: string[];
}

/** What a result says about its note before its matches: `path`, and per mode `score` and `terms_matched`. */
export interface NoteHead {
  path: string;
  score?: number;
  terms_matched?: number;
}

export interface FileResult extends NoteHead {
  matches: Match[];
  more_in_file?: boolean;
}

/** Finds the first match in a line (without its `\r`): its UTF-16 index, or -1. */
export type LineMatcher = (line: string) => number;

/** Decodes `line:path` cursors produced below. */
export function parseCursor(cursor: string | undefined): { path: string; line: number } | null {
  if (cursor === undefined || cursor === "") return null;
  const match = /^(\d{1,9}):(.+)$/s.exec(cursor);
  if (!match) throw new ToolError(`invalid cursor ${JSON.stringify(cursor)}: pass next_cursor from the previous result unchanged`);
  return { line: Number(match[1]), path: match[2] };
}

/** A score as results show it: three decimals. */
export function roundScore(score: number): number {
  return Math.round(score * 1000) / 1000;
}

/** What a page of results holds so far; `addNote` fills it note by note until the limit or the budget is reached. */
export class SearchPage {
  readonly results: FileResult[] = [];
  total = 0;
  next: string | null = null;
  private used = 0;
  private last: { path: string; line: number } | null = null;
  private readonly budget: number;

  constructor(private readonly args: { max_per_file: number; limit: number; context_lines: number; max_chars: number }) {
    this.budget = args.max_chars - 300;
  }

  /**
   * Adds the lines of one note after line `skipThrough` that `find` matches; true when the page is full (`next` then
   * says where). The note's entry starts with `head`.
   */
  addNote(head: NoteHead, lines: string[], skipThrough: number, find: LineMatcher): boolean {
    let fileResult: FileResult | null = null;
    for (let i = skipThrough; i < lines.length; i++) {
      const line = lines[i].endsWith("\r") ? lines[i].slice(0, -1) : lines[i];
      const index = find(line);
      if (index < 0) continue;
      fileResult ??= { ...head, matches: [] };
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
      const cost = JSON.stringify(match).length + (fileResult.matches.length === 0 ? head.path.length + 40 : 1);
      if (this.used + cost > this.budget && this.total > 0) return this.full();
      if (fileResult.matches.length === 0) this.results.push(fileResult);
      fileResult.matches.push(match);
      this.used += cost;
      this.total++;
      this.last = { path: head.path, line: i + 1 };
    }
    return false;
  }

  /**
   * Adds a note that matched without a line to show (by its path, tags or properties): `"matches":[]`, one match of
   * the limit, its path's length + 40 of the budget, and `0:path` as its cursor. True when the page is full.
   */
  addBare(head: NoteHead): boolean {
    const cost = head.path.length + 40;
    if (this.total >= this.args.limit || (this.used + cost > this.budget && this.total > 0)) return this.full();
    this.results.push({ ...head, matches: [] });
    this.used += cost;
    this.total++;
    this.last = { path: head.path, line: 0 };
    return false;
  }

  private full(): boolean {
    this.next = this.last ? `${this.last.line}:${this.last.path}` : null;
    return true;
  }
}
