// Agent-supplied regular expressions, run in linear time. The plugin runs on Obsidian's UI thread, where a
// backtracking engine (V8's own) can be made to run for minutes by one pattern such as `(a|a)*$` or
// `(.*){1,32000}[bc]`; RE2JS, a port of RE2, matches in time linear in the text whatever the pattern. Its syntax is
// RE2's, the same family as the offline reader's Rust `regex` crate, so both readers accept and refuse the same
// patterns (lookaround and backreferences are refused by both) and find the same matches.
//
// RE2JS is several times slower than V8 on text without a match, so a pattern that can only match where a plain
// ASCII literal occurs is first tested for that literal with a V8 regex of the escaped literal, which cannot
// backtrack (it has no quantifier or alternation) and uses the same Unicode case folding as RE2 (the `u` flag).

import { RE2JS } from "re2js";
import { ToolError } from "./errors";

/** A compiled pattern: where it first matches in a line, and whether a whole text can hold a match at all. */
export interface LinearRegex {
  /** The UTF-16 index of the first match in `line`, or -1. */
  indexIn(line: string): number;
  /** False only when no line of `text` can match. */
  mayMatch(text: string): boolean;
}

/** Characters with no meaning in a pattern outside a class: they stand for themselves. */
const PLAIN = /[A-Za-z0-9 _\-,;:'"%&@#~<>=!/`]/;

/**
 * The ASCII literal every match of `source` starts with, when one of at least two characters can be read off its
 * start: the run of plain characters after an optional `^`, less its last character when a quantifier follows it.
 * None for a pattern with `|` anywhere (an alternative may not start with it) or an inline flag group.
 */
export function leadingLiteral(source: string): string | null {
  if (source.includes("|")) return null;
  let index = source.startsWith("^") ? 1 : 0;
  let literal = "";
  while (index < source.length && PLAIN.test(source[index])) literal += source[index++];
  if (/^[?*{]/.test(source.slice(index))) literal = literal.slice(0, -1);
  return literal.length >= 2 ? literal : null;
}

const LOOK_AROUND = "look-around ((?=, (?!, (?<=, (?<!) is not supported: patterns are RE2 syntax, which matches in linear time";
const BACKREFERENCE = "backreferences (\\1 to \\9) are not supported: patterns are RE2 syntax, which matches in linear time";

/**
 * Why a pattern uses syntax neither reader's engine has, in the words both readers give (`unsupported_syntax` in
 * src/offline/plugin/vault/regex.rs): the engines' own messages for these differ, and an agent should get one answer whichever
 * reader serves it.
 */
export function unsupportedSyntax(source: string): string | null {
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      if (!inClass && /[1-9]/.test(source[i + 1] ?? "")) return BACKREFERENCE;
      i++;
    } else if (c === "[" && !inClass) {
      inClass = true;
      // A `]` right after `[` or `[^` is a member of the class, not its end.
      if (source[i + 1] === "^") i++;
      if (source[i + 1] === "]") i++;
    } else if (c === "]" && inClass) {
      inClass = false;
    } else if (c === "(" && !inClass) {
      const rest = source.slice(i + 1, i + 4);
      if (["?=", "?!", "?<=", "?<!"].some((open) => rest.startsWith(open))) return LOOK_AROUND;
    }
  }
  return null;
}

/** Compiles an agent's pattern; a pattern RE2 refuses is a `ToolError` naming it. */
export function compileLinear(source: string, caseSensitive: boolean): LinearRegex {
  const compiled = tryCompileLinear(source, caseSensitive);
  if (typeof compiled === "string") throw new ToolError(`invalid regular expression ${JSON.stringify(source)}: ${compiled}`);
  return compiled;
}

/**
 * Compiles an agent's pattern, or says why it cannot be used: `unsupportedSyntax`'s words, else RE2JS's own. Word-mode
 * search puts the reason in a message of its own (the pattern's position in the query).
 */
export function tryCompileLinear(source: string, caseSensitive: boolean): LinearRegex | string {
  const unsupported = unsupportedSyntax(source);
  if (unsupported !== null) return unsupported;
  const flags = caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE;
  let line: RE2JS;
  let whole: RE2JS;
  try {
    line = RE2JS.compile(source, flags);
    // A match inside one line is a match of the whole text in multi-line mode (`^`, `$` and `\b` see a line break
    // as a line edge); not for `\A` and `\z`, which mean the line's edges when tested per line.
    whole = RE2JS.compile(source, flags | RE2JS.MULTILINE);
  } catch (error) {
    return (error as Error).message;
  }
  const literal = leadingLiteral(source);
  // The literal holds no character with a meaning in a V8 pattern, so it needs no escaping.
  const prefilter = literal === null ? null : new RegExp(literal, caseSensitive ? "u" : "iu");
  const textEdges = /\\[Az]/.test(source);
  return {
    indexIn(text) {
      const matcher = line.matcher(text);
      return matcher.find() ? matcher.start() : -1;
    },
    mayMatch(text) {
      if (prefilter !== null && !prefilter.test(text)) return false;
      // `$` does not match before a "\r", so notes with CRLF line breaks are always scanned line by line.
      return textEdges || text.includes("\r") || whole.matcher(text).find();
    },
  };
}
