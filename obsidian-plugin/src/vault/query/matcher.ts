// How search finds a word, a phrase or a regex in a text, for both modes: the literal matchers phrase mode has always
// used (a case-insensitive literal is a JavaScript regex with the `i` flag and no `u` flag, as the tool reference
// says, and the offline reader reproduces), and RE2 patterns from ../regex.ts. Word mode also counts a literal's
// occurrences, for ranking.

import { splitLines } from "../lines";
import type { LinearRegex } from "../regex";

/** A word, phrase or regex as search looks for it. */
export interface TextMatcher {
  /** The UTF-16 index of the first match in one line, or -1. */
  find(line: string): number;
  /** Whether a text holds a match: a literal anywhere in it, a regex in one of its lines. */
  matches(text: string): boolean;
  /**
   * How many times a literal occurs in a text at the start of a word (see `startsWord`), matches found without
   * overlaps, left to right: what ranking counts (0 for a regex: never scored).
   */
  count(text: string): number;
}

const WORD_CHARACTER = /[\p{Alphabetic}\p{N}]/u;

/** Whether a match at UTF-16 index `at` starts a word: the text's start, or after a character that is neither alphabetic nor numeric. */
export function startsWord(text: string, at: number): boolean {
  if (at === 0) return true;
  const low = text.charCodeAt(at - 1);
  // ASCII, most of what precedes a match: a letter or a digit is a word character, nothing else is.
  if (low < 0x80) return !((low >= 0x30 && low <= 0x39) || ((low | 0x20) >= 0x61 && (low | 0x20) <= 0x7a));
  const high = at >= 2 ? text.charCodeAt(at - 2) : 0;
  const before = low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff ? text.slice(at - 2, at) : text[at - 1];
  return !WORD_CHARACTER.test(before);
}

/**
 * The query as a literal, case-insensitive pattern. A regex with the `i` flag compares case without copying the text,
 * several times faster on a whole vault than lower-casing every note; the same pattern serves the whole-text test and
 * the line matcher, so both agree on what matches.
 */
export function literalIgnoringCase(query: string, flags = "i"): RegExp {
  return new RegExp(query.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"), flags);
}

/** A literal (never empty), compared exactly or ignoring case. */
export function literalMatcher(literal: string, caseSensitive: boolean): TextMatcher {
  if (caseSensitive) {
    return {
      find: (line) => line.indexOf(literal),
      matches: (text) => text.includes(literal),
      count(text) {
        let count = 0;
        for (let at = text.indexOf(literal); at >= 0; at = text.indexOf(literal, at + literal.length)) {
          if (startsWord(text, at)) count++;
        }
        return count;
      },
    };
  }
  const first = literalIgnoringCase(literal);
  const every = literalIgnoringCase(literal, "gi");
  return {
    find(line) {
      const found = first.exec(line);
      return found ? found.index : -1;
    },
    matches: (text) => first.test(text),
    count(text) {
      // `test` moves `lastIndex` past each match without building a match array (ranking counts every term in every
      // note: the arrays were most of its garbage). With the `i` flag and no `u`, a match is as long as the literal,
      // one code unit for one, so it starts `literal.length` before `lastIndex`.
      every.lastIndex = 0;
      let count = 0;
      while (every.test(text)) {
        if (startsWord(text, every.lastIndex - literal.length)) count++;
      }
      return count;
    },
  };
}

/** An RE2 pattern: it matches a text when it matches one of its lines (each without its final `\r`). */
export function regexMatcher(pattern: LinearRegex): TextMatcher {
  return {
    find: (line) => pattern.indexIn(line),
    matches(text) {
      if (!pattern.mayMatch(text)) return false;
      for (const raw of splitLines(text)) {
        if (pattern.indexIn(raw.endsWith("\r") ? raw.slice(0, -1) : raw) >= 0) return true;
      }
      return false;
    },
    count: () => 0,
  };
}
