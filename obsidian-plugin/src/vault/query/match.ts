// A word-mode query tested on one note (the offline reader's twin: src/offline/plugin/tools/search/note.rs): its path, file
// name, text and lines, and what Obsidian's metadata cache holds for it (sections, headings, list items with their
// tasks, tags as note_metadata lists them, frontmatter properties), each worked out only when an operator asks. Also
// which atoms are the query's `terms`, how many of them a note holds, and where a line shows one.
//
// Every operator means the same wherever it stands: `file:`, `path:` and `content:` look at that part of the note and
// the unit operators at the note's units, whatever encloses them; only a plain word, phrase or regex depends on where
// it stands (the note's path or text at the top level, the operator's text below one).

import type { CachedMetadata } from "obsidian";
import { frontmatterAliases, noteTags, tagMatches } from "../links";
import { splitLines } from "../lines";
import type { ParsedQuery, QueryNode, Scope } from "./parse";

/** A note as a query sees it; its lines and metadata are worked out when first asked for. */
export class NoteView {
  private lineList: string[] | null = null;
  private readonly unitLists = new Map<Scope, string[]>();
  private tagList: string[] | null = null;
  private cacheEntry: CachedMetadata | null | undefined;

  /** `cacheOf` gives the metadata cache's entry (null when there is none); it is asked at most once. */
  constructor(
    readonly path: string,
    readonly text: string,
    private readonly cacheOf: () => CachedMetadata | null,
  ) {}

  private get cache(): CachedMetadata | null {
    if (this.cacheEntry === undefined) this.cacheEntry = this.cacheOf();
    return this.cacheEntry;
  }

  /** The lines, each without its final `\r`. */
  lines(): string[] {
    this.lineList ??= splitLines(this.text).map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
    return this.lineList;
  }

  /** The file name, `.md` included. */
  name(): string {
    return this.path.slice(this.path.lastIndexOf("/") + 1);
  }

  /** The file name without its extension (`TFile.basename`). */
  title(): string {
    const name = this.name();
    const dot = name.lastIndexOf(".");
    return dot >= 0 ? name.slice(0, dot) : name;
  }

  /** The aliases (`aliases` then `alias`) joined by a line break, as ranking weighs them. */
  aliases(): string {
    return frontmatterAliases(this.cache?.frontmatter).join("\n");
  }

  /** The tags as note_metadata lists them. */
  tags(): string[] {
    this.tagList ??= noteTags(this.cache);
    return this.tagList;
  }

  /** The units a scope operator tests, each as its lines joined by `\n`. */
  units(scope: Scope): string[] {
    let units = this.unitLists.get(scope);
    if (units === undefined) {
      units = this.unitsOf(scope);
      this.unitLists.set(scope, units);
    }
    return units;
  }

  private unitsOf(scope: Scope): string[] {
    const lines = this.lines();
    // The cache may lag behind the text for a moment: a unit past the end keeps what is there.
    const join = (from: number, to: number) => lines.slice(Math.min(from, lines.length), Math.min(to, lines.length)).join("\n");
    switch (scope) {
      case "line":
        return lines;
      case "block":
        return (this.cache?.sections ?? []).map((section) => join(section.position.start.line, section.position.end.line + 1));
      case "section": {
        const starts = (this.cache?.headings ?? []).map((heading) => heading.position.start.line);
        const units: string[] = [];
        if (starts.length === 0 || starts[0] > 0) units.push(join(0, starts.length > 0 ? starts[0] : lines.length));
        starts.forEach((start, at) => units.push(join(start, at + 1 < starts.length ? starts[at + 1] : lines.length)));
        return units;
      }
      default: {
        const units: string[] = [];
        for (const item of this.cache?.listItems ?? []) {
          if (item.task === undefined) continue;
          if ((scope === "task-todo" && item.task !== " ") || (scope === "task-done" && item.task === " ")) continue;
          units.push(join(item.position.start.line, item.position.start.line + 1));
        }
        return units;
      }
    }
  }

  /**
   * The values of the frontmatter properties named `name` (ignoring case) as the texts a value query tests: strings
   * as written, numbers and booleans as `String` writes them, each item of a list; null when the note has no such
   * property.
   */
  property(name: string): string[] | null {
    const frontmatter: Record<string, unknown> | undefined = this.cache?.frontmatter;
    if (!frontmatter) return null;
    const wanted = name.toLowerCase();
    let found = false;
    const values: string[] = [];
    for (const [key, value] of Object.entries(frontmatter)) {
      if (key.toLowerCase() !== wanted) continue;
      found = true;
      for (const item of Array.isArray(value) ? value : [value]) {
        if (typeof item === "string" || typeof item === "number" || typeof item === "boolean") values.push(String(item));
      }
    }
    return found ? values : null;
  }
}

/** What a word, phrase or regex is tested on: the note's path or text, or one text. */
type Target = { note: true } | { note: false; text: string };

const NOTE: Target = { note: true };

/** Whether atom `at` matches the target. */
function atomMatches(query: ParsedQuery, at: number, note: NoteView, target: Target): boolean {
  const matcher = query.atoms[at].matcher;
  return target.note ? matcher.matches(note.path) || matcher.matches(note.text) : matcher.matches(target.text);
}

function evaluate(query: ParsedQuery, node: QueryNode, note: NoteView, target: Target): boolean {
  switch (node.kind) {
    case "and":
      return node.items.every((item) => evaluate(query, item, note, target));
    case "or":
      return node.items.some((item) => evaluate(query, item, note, target));
    case "not":
      return !evaluate(query, node.item, note, target);
    case "atom":
      return atomMatches(query, node.atom, note, target);
    case "case":
      return evaluate(query, node.item, note, target);
    case "field": {
      const text = node.field === "file" ? note.name() : node.field === "path" ? note.path : note.text;
      return evaluate(query, node.item, note, { note: false, text });
    }
    case "scope":
      return note.units(node.scope).some((text) => evaluate(query, node.item, note, { note: false, text }));
    case "tag":
      return note.tags().some((tag) => tagMatches(tag, node.name));
    case "property": {
      const values = note.property(node.name);
      if (values === null) return false;
      const value = node.value;
      // The value, or one item of a list value, matches the whole sub-query.
      return value === null || values.some((text) => evaluate(query, value, note, { note: false, text }));
    }
  }
}

/** With `match: "any"`, the top level's plain words and phrases (optional: one is enough) and the rest (required). */
function optionalTerms(query: ParsedQuery): { optional: QueryNode[]; required: QueryNode[] } | null {
  if (query.root.kind !== "and") return null;
  const optional: QueryNode[] = [];
  const required: QueryNode[] = [];
  for (const item of query.root.items) {
    const plain = item.kind === "atom" && query.atoms[item.atom].kind !== "regex";
    (plain ? optional : required).push(item);
  }
  return optional.length > 0 ? { optional, required } : null;
}

/** Whether a note matches the query; `any` is `match: "any"`. */
export function qualifies(query: ParsedQuery, any: boolean, note: NoteView): boolean {
  const split = any ? optionalTerms(query) : null;
  if (split !== null) {
    return (
      split.required.every((item) => evaluate(query, item, note, NOTE)) && split.optional.some((item) => evaluate(query, item, note, NOTE))
    );
  }
  return evaluate(query, query.root, note, NOTE);
}

/**
 * The query's `terms`: the atoms that are not excluded (under an odd number of `-`) and not under `file:`, `path:`,
 * `tag:` or a property, once each as written (the first one's case rule), in the order they are written.
 */
export function queryTerms(query: ParsedQuery): number[] {
  const terms: number[] = [];
  const walk = (node: QueryNode, negated: boolean): void => {
    switch (node.kind) {
      case "and":
      case "or":
        for (const item of node.items) walk(item, negated);
        return;
      case "not":
        walk(node.item, !negated);
        return;
      case "atom": {
        const written = query.atoms[node.atom].written;
        if (!negated && !terms.some((at) => query.atoms[at].written === written)) terms.push(node.atom);
        return;
      }
      case "case":
      case "scope":
        walk(node.item, negated);
        return;
      case "field":
        if (node.field === "content") walk(node.item, negated);
        return;
      case "tag":
      case "property":
        return;
    }
  };
  walk(query.root, false);
  return terms;
}

/** How many of `terms` the note holds in its path or text. */
export function termsMatched(query: ParsedQuery, terms: readonly number[], note: NoteView): number {
  let count = 0;
  for (const at of terms) if (atomMatches(query, at, note, NOTE)) count++;
  return count;
}

/**
 * A finder of the lines a result shows: for a line, the UTF-16 index of the first occurrence of the first of `terms`
 * it holds, or -1. Only the terms the note's text holds are tried, since a line holds no other.
 */
export function lineFinder(query: ParsedQuery, terms: readonly number[], note: NoteView): (line: string) => number {
  const matchers = terms.map((at) => query.atoms[at].matcher).filter((matcher) => matcher.matches(note.text));
  return (line) => {
    for (const matcher of matchers) {
      const index = matcher.find(line);
      if (index >= 0) return index;
    }
    return -1;
  };
}
