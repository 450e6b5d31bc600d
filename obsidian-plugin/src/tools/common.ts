// Pieces shared by the tool groups: JSON results, the read-only guard for write tools, the `expected_hash` argument
// and the `[lines a-b of N]` text format of note reads.

import { z } from "zod";
import type { TFile } from "obsidian";
import { contentHash } from "../vault/hash";
import { cutChars } from "../vault/limits";
import { splitLines } from "../vault/lines";
import type { ToolDef, ToolOutput } from "./types";
import { ToolError } from "./types";

/** A structured result: compact JSON. */
export function json(value: unknown): ToolOutput {
  return { text: JSON.stringify(value) };
}

/** Wraps a write tool so it is refused while the plugin's read-only setting is on. */
export function writeTool<Shape extends z.ZodRawShape>(def: ToolDef<Shape>): ToolDef<Shape> {
  const run = def.run;
  return {
    ...def,
    run: async (args, ctx) => {
      if (ctx.readOnly) {
        throw new ToolError(`${def.name} is refused: the obsmcp plugin is in read-only mode (change it in its settings)`);
      }
      return run(args, ctx);
    },
  };
}

export const pathArg = z
  .string()
  .min(1)
  .describe("Vault-relative path (with or without .md) or a wikilink / link name such as [[Note]] or Note#Heading.");

export const expectedHashArg = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, "expected_hash must be a 64-character SHA-256 hex string")
  .optional()
  .describe("SHA-256 the note must still have (from a previous read); on mismatch nothing is written.");

/** A call a limited result names as the way to get the rest: `{"tool", "arguments"}`. */
export interface NextCall {
  tool: string;
  arguments: Record<string, unknown>;
}

/**
 * The exact call that gets the next part of a limited result: the same tool and arguments (as parsed, defaults
 * included, in the schema's order), with `changes` set (an existing key keeps its place, a new one goes last) and
 * `drop` removed.
 */
export function nextCall(tool: string, args: object, changes: Record<string, unknown>, drop: string[] = []): NextCall {
  const next: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    if (value !== undefined && !drop.includes(key)) next[key] = value;
  }
  Object.assign(next, changes);
  return { tool, arguments: next };
}

/**
 * The keys a paged result starts with: whether it was limited, the next page's cursor and, when limited, the exact
 * call that gets that page. First, so that a client that cuts the end of a long result still shows them.
 */
export function pageHead(tool: string, args: object, nextCursor: string | null) {
  return nextCursor === null
    ? { truncated: false, next_cursor: null }
    : { truncated: true, next_cursor: nextCursor, continue_with: nextCall(tool, args, { cursor: nextCursor }) };
}

/** Milliseconds-since-epoch timestamps as ISO 8601 strings. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** Which lines of a note to show and what to say when they do not all fit. */
export interface ReadWindow {
  /** 0-based first line, inclusive. */
  start: number;
  /** 0-based end, exclusive. */
  end: number;
  maxChars: number;
  /** Extra `key=value` fields for the header (e.g. `created=true`). */
  extra?: string;
}

/**
 * Renders a note read: one header line `[lines a-b of N] path="…" sha256=…` (plus `truncated=true
 * continue_with={"tool":"read_note","arguments":{…}}`, the call that reads the rest, when the window did not fit in
 * max_chars) and then the lines themselves.
 */
export function renderRead(file: TFile, text: string, window: ReadWindow): ToolOutput {
  const lines = splitLines(text);
  const total = lines.length;
  const parts: string[] = [];
  let used = 0;
  let next = window.end;
  let cutLine = -1;
  for (let i = window.start; i < window.end; i++) {
    const cost = lines[i].length + (parts.length > 0 ? 1 : 0);
    if (used + cost > window.maxChars) {
      if (parts.length === 0) {
        parts.push(cutChars(lines[i], window.maxChars));
        cutLine = i;
        next = i + 1;
      } else {
        next = i;
      }
      break;
    }
    parts.push(lines[i]);
    used += cost;
  }
  const shownEnd = window.start + parts.length;
  let header =
    total === 0 || parts.length === 0
      ? `[lines 0-0 of ${total}]`
      : `[lines ${window.start + 1}-${shownEnd} of ${total}]`;
  header += ` path=${JSON.stringify(file.path)} sha256=${contentHash(text)}`;
  if (window.extra) header += ` ${window.extra}`;
  if (cutLine >= 0) header += ` cut_line=${cutLine + 1}`;
  if (next < window.end) {
    const rest = { path: file.path, start_line: next + 1, end_line: window.end, max_chars: window.maxChars };
    header += ` truncated=true continue_with=${JSON.stringify({ tool: "read_note", arguments: rest })}`;
  } else if (cutLine >= 0) {
    header += " truncated=true";
  }
  return { text: `${header}\n${parts.join("\n")}` };
}
