// Obsidian's search syntax as `search` reads it in word mode (the rules: ../../tools/README.md, search; the offline
// reader's twin is src/offline/plugin/tools/search/query.rs): words, "phrases", /regexes/, OR, -, ( … ), the operators and
// [property:value], parsed left to right by recursive descent into a tree whose leaves (atoms) are numbered in the
// order they are written. The first error met is the one reported, with its position (1-based, UTF-16 units: a
// JavaScript string index plus one). Regexes are compiled here, with the case rule in force where they stand, so a
// pattern that cannot be used is a syntax error with a position, not a failure halfway through a scan.

import { ToolError } from "../errors";
import { tryCompileLinear } from "../regex";
import { literalMatcher, regexMatcher, type TextMatcher } from "./matcher";

export type AtomKind = "word" | "phrase" | "regex";

/**
 * A word as it is looked for: without the sentence punctuation (`, ; : ! ? .`) that ends it in a question ("build,"
 * finds "build"), unless the word is nothing else.
 */
export function withoutTrailingPunctuation(word: string): string {
  const text = word.replace(/[,;:!?.]+$/, "");
  return text === "" ? word : text;
}

/** A word, phrase or regex of the query. */
export interface Atom {
  kind: AtomKind;
  /** As written in the query: a phrase with its quotes and escapes, a regex with its slashes. */
  written: string;
  /** What it looks for: the word, the phrase unescaped, or the pattern. */
  text: string;
  caseSensitive: boolean;
  matcher: TextMatcher;
}

/** `file:`, `path:` and `content:`: the part of the note their operand is tested on. */
export type Field = "file" | "path" | "content";

/** `line:`, `block:`, `section:` and the task operators: the units of the note their operand is tested on. */
export type Scope = "line" | "block" | "section" | "task" | "task-todo" | "task-done";

/** A node of a parsed query. */
export type QueryNode =
  | { kind: "and"; items: QueryNode[] }
  | { kind: "or"; items: QueryNode[] }
  | { kind: "not"; item: QueryNode }
  /** An index into `ParsedQuery.atoms`. */
  | { kind: "atom"; atom: number }
  /** `match-case:` / `ignore-case:`: its atoms carry the case rule; kept as a node because it is an operator. */
  | { kind: "case"; item: QueryNode }
  | { kind: "field"; field: Field; item: QueryNode }
  | { kind: "scope"; scope: Scope; item: QueryNode }
  /** `tag:NAME`, the name as written (with or without `#`). */
  | { kind: "tag"; name: string }
  /** `[name]` (value null) or `[name:value]`. */
  | { kind: "property"; name: string; value: QueryNode | null };

/** A parsed query: its tree and its atoms. */
export interface ParsedQuery {
  root: QueryNode;
  atoms: Atom[];
}

/** The operator names; each is recognised only with its colon right after it. */
const OPERATORS = [
  "match-case",
  "ignore-case",
  "task-todo",
  "task-done",
  "content",
  "section",
  "block",
  "line",
  "task",
  "file",
  "path",
  "tag",
] as const;

type Operator = (typeof OPERATORS)[number];

const FIELDS: Partial<Record<Operator, Field>> = { file: "file", path: "path", content: "content" };
const SCOPES: Partial<Record<Operator, Scope>> = {
  line: "line",
  block: "block",
  section: "section",
  task: "task",
  "task-todo": "task-todo",
  "task-done": "task-done",
};

const HINT = '; pass mode "phrase" to search for the text as written';

function invalid(what: string): ToolError {
  return new ToolError(`invalid query: ${what}${HINT}`);
}

/** The whitespace that separates terms: space, tab, CR, LF, FF, VT (not every Unicode space). */
function isSpace(c: string | undefined): boolean {
  return c === " " || c === "\t" || c === "\r" || c === "\n" || c === "\f" || c === "\v";
}

/** Parses a word-mode query; `caseSensitive` is the call's rule, which `match-case:` and `ignore-case:` override. */
export function parseQuery(query: string, caseSensitive: boolean): ParsedQuery {
  const parser = new Parser(query, caseSensitive);
  const root = parser.or(false);
  parser.skipSpace();
  // Only a `)` stops the top level early.
  if (parser.at < query.length) throw invalid(`unexpected ) at position ${parser.at + 1}`);
  if (root === null) throw new ToolError("invalid query: nothing to search for");
  return { root, atoms: parser.atoms };
}

class Parser {
  at = 0;
  readonly atoms: Atom[] = [];

  constructor(
    private readonly query: string,
    /** The case rule for atoms read now. */
    private caseSensitive: boolean,
  ) {}

  private peek(): string | undefined {
    return this.query[this.at];
  }

  skipSpace(): void {
    while (isSpace(this.peek())) this.at++;
  }

  /** Whether a character ends a word (inside `[…]` a `]` does too). */
  private endsWord(c: string, inBracket: boolean): boolean {
    return isSpace(c) || c === "(" || c === ")" || c === '"' || (inBracket && c === "]");
  }

  /** Where the word starting at `from` ends. */
  private wordEnd(from: number, inBracket: boolean): number {
    let end = from;
    while (end < this.query.length && !this.endsWord(this.query[end], inBracket)) end++;
    return end;
  }

  /** Whether the term here is the `OR` operator: the whole term, upper case. */
  private atOr(inBracket: boolean): boolean {
    return this.query.startsWith("OR", this.at) && this.wordEnd(this.at, inBracket) === this.at + 2;
  }

  /** Whether nothing that can start a term is here: the end, a `)`, or a `]` inside `[…]`. */
  private atStop(inBracket: boolean): boolean {
    const c = this.peek();
    return c === undefined || c === ")" || (inBracket && c === "]");
  }

  /** Whether an operand or an excluded term is missing here. */
  private nothingAfter(inBracket: boolean): boolean {
    return this.atStop(inBracket) || isSpace(this.peek());
  }

  /** `and ("OR" and)*`; null when no term stands here. */
  or(inBracket: boolean): QueryNode | null {
    this.skipSpace();
    if (!this.atStop(inBracket) && this.atOr(inBracket)) throw this.orWithoutSides(this.at);
    const first = this.and(inBracket);
    if (first === null) return null;
    const alternatives = [first];
    for (;;) {
      this.skipSpace();
      if (this.atStop(inBracket) || !this.atOr(inBracket)) break;
      const orAt = this.at;
      this.at += 2;
      const next = this.and(inBracket);
      if (next === null) throw this.orWithoutSides(orAt);
      alternatives.push(next);
    }
    return alternatives.length === 1 ? alternatives[0] : { kind: "or", items: alternatives };
  }

  private orWithoutSides(at: number): ToolError {
    return invalid(`OR at position ${at + 1} needs a term on each side`);
  }

  /** One or more terms side by side. */
  private and(inBracket: boolean): QueryNode | null {
    const terms: QueryNode[] = [];
    for (;;) {
      this.skipSpace();
      if (this.atStop(inBracket) || this.atOr(inBracket)) break;
      terms.push(this.unary(inBracket));
    }
    if (terms.length === 0) return null;
    return terms.length === 1 ? terms[0] : { kind: "and", items: terms };
  }

  /** A term, or `-` and the term it excludes. */
  private unary(inBracket: boolean): QueryNode {
    if (this.peek() === "-") {
      const minus = this.at;
      this.at++;
      if (this.nothingAfter(inBracket)) throw invalid(`- at position ${minus + 1} excludes nothing`);
      return { kind: "not", item: this.unary(inBracket) };
    }
    return this.primary(inBracket);
  }

  private primary(inBracket: boolean): QueryNode {
    switch (this.peek()) {
      case "(":
        return this.group(inBracket);
      case '"':
        return this.phrase();
      case "/":
        return this.regex();
      case "[":
        // `[[` starts a link's text, never a property (no property name starts with `[`).
        if (!inBracket && this.query[this.at + 1] !== "[") return this.property();
        return this.wordOrOperator(inBracket);
      default:
        return this.wordOrOperator(inBracket);
    }
  }

  private group(inBracket: boolean): QueryNode {
    const open = this.at;
    this.at++;
    const inner = this.or(inBracket);
    this.skipSpace();
    if (this.peek() !== ")") throw invalid(`the parenthesis at position ${open + 1} is never closed`);
    this.at++;
    if (inner === null) throw invalid(`empty parentheses at position ${open + 1}`);
    return inner;
  }

  /**
   * Reads from the opening character here up to the closing `close`, `\close` standing for `close` (and `\\` for
   * `\` when `unescapeBackslash`, any other `\x` kept as written); null when it is never closed.
   */
  private delimited(close: string, unescapeBackslash: boolean): string | null {
    let text = "";
    let at = this.at + 1;
    while (at < this.query.length) {
      const c = this.query[at];
      if (c === close) {
        this.at = at + 1;
        return text;
      }
      const next = this.query[at + 1];
      // A backslash and the character after it are read as a pair, so `\\` before the closing character never
      // escapes it; only `\close` (and `\\` when unescapeBackslash) lose their backslash.
      if (c === "\\" && next !== undefined) {
        text += next === close || (unescapeBackslash && next === "\\") ? next : c + next;
        at += 2;
        continue;
      }
      text += c;
      at++;
    }
    return null;
  }

  private phrase(): QueryNode {
    const start = this.at;
    const text = this.delimited('"', true);
    if (text === null) throw invalid(`the quote at position ${start + 1} is never closed`);
    if (text === "") throw invalid(`the phrase at position ${start + 1} is empty`);
    return this.pushAtom("phrase", start, text, literalMatcher(text, this.caseSensitive));
  }

  private regex(): QueryNode {
    const start = this.at;
    const pattern = this.delimited("/", false);
    if (pattern === null) throw invalid(`the regular expression at position ${start + 1} has no closing /`);
    if (pattern === "") throw invalid(`the regular expression at position ${start + 1} is empty`);
    const compiled = tryCompileLinear(pattern, this.caseSensitive);
    if (typeof compiled === "string") throw invalid(`the regular expression at position ${start + 1} cannot be used: ${compiled}`);
    return this.pushAtom("regex", start, pattern, regexMatcher(compiled));
  }

  private pushAtom(kind: AtomKind, start: number, text: string, matcher: TextMatcher): QueryNode {
    this.atoms.push({ kind, written: this.query.slice(start, this.at), text, caseSensitive: this.caseSensitive, matcher });
    return { kind: "atom", atom: this.atoms.length - 1 };
  }

  private wordOrOperator(inBracket: boolean): QueryNode {
    const start = this.at;
    const end = this.wordEnd(start, inBracket);
    const word = this.query.slice(start, end);
    const name = OPERATORS.find((operator) => word.startsWith(`${operator}:`));
    if (name === undefined) {
      this.at = end;
      const text = withoutTrailingPunctuation(word);
      return this.pushAtom("word", start, text, literalMatcher(text, this.caseSensitive));
    }
    this.at = start + name.length + 1;
    if (this.nothingAfter(inBracket)) throw invalid(`${name}: at position ${start + 1} needs a term after it`);
    if (name === "match-case" || name === "ignore-case") {
      const outer = this.caseSensitive;
      this.caseSensitive = name === "match-case";
      try {
        return { kind: "case", item: this.primary(inBracket) };
      } finally {
        this.caseSensitive = outer;
      }
    }
    if (name === "tag") return { kind: "tag", name: this.tagName(start, inBracket) };
    const field = FIELDS[name];
    if (field !== undefined) return { kind: "field", field, item: this.primary(inBracket) };
    return { kind: "scope", scope: SCOPES[name] as Scope, item: this.primary(inBracket) };
  }

  /** The operand of `tag:` (starting at `start`): a word or a phrase, as written. */
  private tagName(start: number, inBracket: boolean): string {
    const c = this.peek();
    if (c === "(" || c === "/") throw invalid(`tag: at position ${start + 1} takes a tag name, not a group or a regular expression`);
    if (c === '"') {
      const quote = this.at;
      const name = this.delimited('"', true);
      if (name === null) throw invalid(`the quote at position ${quote + 1} is never closed`);
      return name;
    }
    const end = this.wordEnd(this.at, inBracket);
    const name = this.query.slice(this.at, end);
    this.at = end;
    return name;
  }

  /** `[name]` or `[name:value]`: the name runs to the first `:` or `]`, the value to the matching `]`. */
  private property(): QueryNode {
    const open = this.at;
    let at = open + 1;
    while (at < this.query.length && this.query[at] !== ":" && this.query[at] !== "]") at++;
    if (at >= this.query.length) throw invalid(`the [ at position ${open + 1} is never closed`);
    const name = this.query.slice(open + 1, at).trim();
    if (name === "") throw invalid(`[ at position ${open + 1} names no property`);
    const stop = this.query[at];
    this.at = at + 1;
    if (stop === "]") return { kind: "property", name, value: null };
    const value = this.or(true);
    this.skipSpace();
    if (this.peek() !== "]") throw invalid(`the [ at position ${open + 1} is never closed`);
    this.at++;
    return { kind: "property", name, value };
  }
}
