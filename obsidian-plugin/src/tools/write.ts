// Note-editing tools. Every edit of an existing note goes through `vault.process`, Obsidian's atomic
// read-modify-write, and checks `expected_hash` inside it against the text actually being edited, so a conflicting
// change is never overwritten. Results are JSON with the note's new sha256.

import { z } from "zod";
import { TFile } from "obsidian";
import { checkExpectedHash, contentHash } from "../vault/hash";
import { editLines, linesOf, replaceLines, splitLines } from "../vault/lines";
import { assertStillAt, withPathLocks } from "../vault/locks";
import { createInside, ensureParentFolders, openVerified, readVerified, readWhole, stillPinned } from "../vault/disk";
import { keepBefore, type Kept, recordAfter, release } from "../vault/kept";
import { newNotePath, resolveMarkdown } from "../vault/resolve";
import { findBlock, findHeading, findHeadings, frontmatterRange, headingSectionEnd } from "../vault/sections";
import { expectedHashArg, json, pathArg, writeTool } from "./common";
import { defineTool, ToolError } from "./types";
import type { ToolContext } from "./types";

/** Largest text a single write accepts, in characters. */
const MAX_CONTENT = 25_000_000;

const contentArg = (what: string) => z.string().max(MAX_CONTENT).describe(what);

/** Edits a note atomically; `edit` returns the new text or throws (nothing is written then). Returns the new hash. */
export async function editNote(
  ctx: ToolContext,
  file: TFile,
  expectedHash: string | undefined,
  edit: (text: string) => string,
): Promise<{ text: string; sha256: string }> {
  // vault.process is atomic on its own; the lock also orders it with moves, deletes and frontmatter edits.
  const path = file.path;
  return withPathLocks([path], async () => {
    assertStillAt(ctx, file, path, "nothing was written");
    // The note is opened and judged first and held open: Obsidian reads and writes by path, so what it read must be
    // this very file, and the write must have reached it, or a symlink was swapped in during the call.
    const pinned = await openVerified(ctx, file);
    let kept: Kept | null = null;
    try {
      // A large note's text is kept until the edit is verified: Obsidian writes in place, and a crash mid-write can cut
      // the note (vault/kept.ts).
      kept = await keepBefore(ctx, path, pinned.text, contentHash(pinned.text));
      let sha256 = "";
      const written = await ctx.app.vault.process(file, (current) => {
        // Same text is not enough: a file made to hold the same text could have been swapped in.
        if (current !== pinned.text || !stillPinned(ctx, file, pinned)) {
          throw new ToolError(`${file.path} changed while it was being edited (or a file was swapped in for it); nothing was written: retry`);
        }
        checkExpectedHash(file.path, current, expectedHash);
        const next = edit(current);
        sha256 = contentHash(next);
        if (kept) recordAfter(kept, sha256);
        return next;
      });
      if ((await readWhole(pinned.handle)) !== written) {
        throw new ToolError(
          `${file.path}: the edit did not reach the note (a symlink was swapped in for it during the call, so the write may have gone to the file it points to); the note is unchanged`,
        );
      }
      return { text: written, sha256: sha256 === "" ? contentHash(written) : sha256 };
    } finally {
      if (kept) await release(kept);
      await pinned.handle.close();
    }
  });
}

export const createNote = writeTool(
  defineTool({
    name: "create_note",
    title: "Create note",
    description:
      'Create a Markdown note (".md" added if missing; parent folders created). If it exists: if_exists "fail" ' +
      '(default) refuses, "overwrite" replaces it (expected_hash guards the replace).',
    input: {
      path: z.string().min(1).describe('Vault-relative path of the new note, e.g. "Projects/Plan.md".'),
      content: contentArg("The note's full text."),
      if_exists: z
        .enum(["fail", "overwrite"])
        .default("fail")
        .describe('What to do when the note exists: "fail" (default) or "overwrite".'),
      expected_hash: expectedHashArg,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    async run(args, ctx) {
      const path = newNotePath(ctx, args.path);
      const existing = ctx.app.vault.getAbstractFileByPath(path);
      if (existing && !(existing instanceof TFile)) throw new ToolError(`${path} is a folder`);
      if (existing instanceof TFile) {
        if (args.if_exists !== "overwrite") {
          const current = contentHash(await readVerified(ctx, existing));
          throw new ToolError(
            `${path} already exists (sha256 ${current}); pass if_exists: "overwrite" to replace it, or edit it instead`,
          );
        }
        const { sha256 } = await editNote(ctx, existing, args.expected_hash, () => args.content);
        return json({ path, created: false, overwritten: true, sha256 });
      }
      if (args.expected_hash !== undefined) {
        throw new ToolError(`conflict: expected_hash was given but ${path} does not exist; nothing was written`);
      }
      await ensureParentFolders(ctx, path);
      const created = await createInside(ctx, path, args.content);
      return json({ path: created.path, created: true, overwritten: false, sha256: contentHash(args.content) });
    },
  }),
);

/** Non-overlapping occurrences of `needle` in `text`, by index. */
function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) found.push(at);
  return found;
}

export const strReplace = writeTool(
  defineTool({
    name: "str_replace",
    title: "Replace text",
    description:
      "Replace one exact occurrence of old_text with new_text in a note. Refused unless old_text occurs exactly once " +
      "(the error says how many times); add surrounding text to make it unique.",
    input: {
      path: pathArg,
      old_text: z.string().min(1).max(MAX_CONTENT).describe("Exact text to replace (whitespace and line breaks count)."),
      new_text: contentArg("Replacement text (may be empty to delete old_text)."),
      expected_hash: expectedHashArg,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    async run(args, ctx) {
      const { file } = resolveMarkdown(ctx, args.path);
      let line = 0;
      const { sha256 } = await editNote(ctx, file, args.expected_hash, (text) => {
        let oldText = args.old_text;
        let newText = args.new_text;
        // An agent writes "\n"; a note saved with CRLF holds "\r\n". Match the note's own line endings.
        if (text.includes("\r\n") && !oldText.includes("\r") && oldText.includes("\n")) {
          oldText = oldText.replace(/\n/g, "\r\n");
          newText = newText.replace(/\r?\n/g, "\r\n");
        }
        const found = occurrences(text, oldText);
        if (found.length !== 1) {
          throw new ToolError(
            found.length === 0
              ? `old_text was not found in ${file.path}; nothing was written`
              : `old_text occurs ${found.length} times in ${file.path}; include more surrounding text so it occurs exactly once`,
          );
        }
        line = splitLines(text.slice(0, found[0]) + "x").length;
        return text.slice(0, found[0]) + newText + text.slice(found[0] + oldText.length);
      });
      return json({ path: file.path, line, sha256 });
    },
  }),
);

type Operation = "append" | "prepend" | "replace";

/** Index just past the last non-blank line in [start, end), or `start` when all are blank. */
function lastContentLine(lines: string[], start: number, end: number): number {
  let at = end;
  while (at > start && lines[at - 1].trim() === "") at--;
  return at;
}

function patchHeading(lines: string[], name: string, operation: Operation, content: string[]): string[] {
  const headings = findHeadings(lines);
  const index = findHeading(lines, headings, name);
  const headingLine = headings[index].line;
  const end = headingSectionEnd(headings, index, lines.length);
  const bodyEnd = lastContentLine(lines, headingLine + 1, end);
  if (operation === "prepend") return replaceLines(lines, headingLine + 1, 0, content);
  if (operation === "append") return replaceLines(lines, bodyEnd, 0, content);
  return replaceLines(lines, headingLine + 1, bodyEnd - (headingLine + 1), content);
}

function patchBlock(lines: string[], id: string, operation: Operation, content: string[]): string[] {
  const blockId = id.trim().replace(/^\^/, "");
  const range = findBlock(lines, blockId);
  const isListItem = /^\s*([-*+]|\d+[.)])\s/.test(lines[range.start]);
  const separator = isListItem ? [] : [""];
  if (operation === "prepend") return replaceLines(lines, range.start, 0, content.concat(separator));
  if (operation === "append") return replaceLines(lines, range.end, 0, separator.concat(content));
  const replacement = content.slice();
  // Links to ^id must keep working: the id moves to the end of the replacement unless the agent wrote it.
  if (!replacement.some((line) => new RegExp(`(^|\\s)\\^${blockId}\\s*$`).test(line))) {
    if (replacement.length === 0) replacement.push(`^${blockId}`);
    else replacement[replacement.length - 1] += ` ^${blockId}`;
  }
  return replaceLines(lines, range.start, range.end - range.start, replacement);
}

function patchFrontmatter(lines: string[], operation: Operation, content: string[]): string[] {
  const range = frontmatterRange(lines);
  if (!range) return ["---", ...content, "---", ...lines];
  const bodyStart = range.start + 1;
  const bodyEnd = range.end - 1;
  if (operation === "prepend") return replaceLines(lines, bodyStart, 0, content);
  if (operation === "append") return replaceLines(lines, bodyEnd, 0, content);
  return replaceLines(lines, bodyStart, bodyEnd - bodyStart, content);
}

export const patchSection = writeTool(
  defineTool({
    name: "patch_section",
    title: "Patch section",
    description:
      "Append, prepend or replace inside one part of a note: a heading's section (the heading line is kept), a block " +
      "(^id; kept on replace) or the frontmatter's YAML (created if missing). Prefer set_property for single properties.",
    input: {
      path: pathArg,
      target: z.enum(["heading", "block", "frontmatter"]).describe('What to patch: "heading", "block" or "frontmatter".'),
      name: z
        .string()
        .optional()
        .describe('Heading text ("Parent#Child" for a nested one) or block id; required unless target is "frontmatter".'),
      operation: z.enum(["append", "prepend", "replace"]).describe('"append", "prepend" or "replace".'),
      content: contentArg("Lines to insert or the replacement text."),
      expected_hash: expectedHashArg,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    async run(args, ctx) {
      const { file } = resolveMarkdown(ctx, args.path);
      const name = args.name?.trim() ?? "";
      if (args.target !== "frontmatter" && name === "") throw new ToolError(`name is required when target is "${args.target}"`);
      const content = linesOf(args.content);
      const { sha256 } = await editNote(ctx, file, args.expected_hash, (text) =>
        editLines(text, (lines) =>
          args.target === "heading"
            ? patchHeading(lines, name, args.operation, content)
            : args.target === "block"
              ? patchBlock(lines, name, args.operation, content)
              : patchFrontmatter(lines, args.operation, content),
        ),
      );
      return json({ path: file.path, target: args.target, operation: args.operation, sha256 });
    },
  }),
);

export const append = writeTool(
  defineTool({
    name: "append",
    title: "Append to note",
    description: "Append text to the end of a note, starting on a new line.",
    input: {
      path: pathArg,
      content: contentArg("Text to append."),
      expected_hash: expectedHashArg,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async run(args, ctx) {
      const { file } = resolveMarkdown(ctx, args.path);
      const { text, sha256 } = await editNote(ctx, file, args.expected_hash, (current) => {
        const eol = current.includes("\r\n") ? "\r\n" : "\n";
        const addition = eol === "\r\n" ? args.content.replace(/\r?\n/g, "\r\n") : args.content;
        if (current === "" || current.endsWith("\n")) return current + addition;
        return current + eol + addition;
      });
      return json({ path: file.path, lines: splitLines(text).length, sha256 });
    },
  }),
);

export const insertAtLine = writeTool(
  defineTool({
    name: "insert_at_line",
    title: "Insert at line",
    description: "Insert lines before a 1-based line of a note; line = (line count + 1) appends at the end.",
    input: {
      path: pathArg,
      line: z.number().int().min(1).describe("1-based line the content is inserted before."),
      content: contentArg("Lines to insert."),
      expected_hash: expectedHashArg,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async run(args, ctx) {
      const { file } = resolveMarkdown(ctx, args.path);
      const content = linesOf(args.content);
      const { text, sha256 } = await editNote(ctx, file, args.expected_hash, (current) =>
        editLines(current, (lines) => {
          if (args.line > lines.length + 1) {
            throw new ToolError(`line ${args.line} is past the end: ${file.path} has ${lines.length} lines (use ${lines.length + 1} to append)`);
          }
          return replaceLines(lines, args.line - 1, 0, content);
        }),
      );
      return json({ path: file.path, lines: splitLines(text).length, sha256 });
    },
  }),
);

export const WRITE_TOOLS = [createNote, strReplace, patchSection, append, insertAtLine];
