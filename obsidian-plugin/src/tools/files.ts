// Frontmatter properties and whole-file operations. Properties go through `fileManager.processFrontMatter` so
// Obsidian writes the YAML; moves through `fileManager.renameFile` so Obsidian rewrites links to the moved note;
// deletes through `fileManager.trashFile` so the user's trash setting decides where the note goes.

import { z } from "zod";
import { getFrontMatterInfo, parseYaml, type TFile } from "obsidian";
import { checkExpectedHash, contentHash } from "../vault/hash";
import { backlinkSources } from "../vault/links";
import { assertStillAt, withPathLocks } from "../vault/locks";
import { cleanVaultPath } from "../vault/paths";
import {
  assertInsideVaultOnDisk,
  assertLandedInside,
  ensureParentFolders,
  identityOnDisk,
  openVerified,
  readVerified,
  readWhole,
  stillPinned,
} from "../vault/disk";
import { newNotePath, resolveMarkdown, resolveNote } from "../vault/resolve";
import { expectedHashArg, json, pathArg, writeTool } from "./common";
import { defineTool, ToolError } from "./types";
import type { ToolContext } from "./types";

const keyArg = z.string().min(1).max(200).describe("Property (frontmatter key) name.");

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/**
 * Runs a frontmatter edit after checking `expected_hash`, holding the note's write lock from the check to the hash
 * it returns (processFrontMatter does not expose the raw text, so the check reads it first).
 */
async function editFrontmatter(
  ctx: ToolContext,
  file: TFile,
  expectedHash: string | undefined,
  edit: (frontmatter: Record<string, unknown>) => void,
): Promise<string> {
  const path = file.path;
  return withPathLocks([path], async () => {
    assertStillAt(ctx, file, path, "nothing was written");
    // Held open as editNote holds a note: Obsidian reads and writes by path, so the frontmatter it parsed must be
    // this very note's, and its write must have reached it.
    const pinned = await openVerified(ctx, file);
    try {
      checkExpectedHash(file.path, pinned.text, expectedHash);
      const info = getFrontMatterInfo(pinned.text);
      const expected = info.exists ? parsedFrontmatter(info.frontmatter) : "{}";
      try {
        await ctx.app.fileManager.processFrontMatter(file, (frontmatter: Record<string, unknown>) => {
          if (JSON.stringify(frontmatter) !== expected || !stillPinned(ctx, file, pinned)) {
            throw new ToolError(`${file.path} changed while its frontmatter was being edited (or a file was swapped in for it); nothing was written: retry`);
          }
          edit(frontmatter);
        });
      } catch (error) {
        if (error instanceof ToolError) throw error;
        // Obsidian throws (and writes nothing) when the existing YAML does not parse; say so instead of a bare failure.
        const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
        throw new ToolError(
          `could not edit the frontmatter of ${file.path}: ${reason}; nothing was written ` +
            '(fix the YAML with patch_section target "frontmatter")',
        );
      }
      // The held note must now be what Obsidian left at the path; and an edit that changes the frontmatter must
      // have changed the held note (a write redirected elsewhere leaves it as it was, which the path may also show).
      const landed = await readWhole(pinned.handle);
      const now = await readVerified(ctx, file).catch(() => null);
      if (now === null || landed !== now || (changesFrontmatter(expected, edit) && landed === pinned.text)) {
        throw new ToolError(
          `${file.path}: the frontmatter edit did not reach the note (a symlink was swapped in for it during the call, so the write may have gone to the file it points to)`,
        );
      }
      return contentHash(now);
    } finally {
      await pinned.handle.close();
    }
  });
}

/** Whether `edit` changes the frontmatter `expected` (as `parsedFrontmatter` gives it), tried on a copy. */
function changesFrontmatter(expected: string, edit: (frontmatter: Record<string, unknown>) => void): boolean {
  if (expected.startsWith("unparsed ")) return true;
  const probe = JSON.parse(expected) as Record<string, unknown>;
  edit(probe);
  return JSON.stringify(probe) !== expected;
}

/** Frontmatter text parsed as Obsidian parses it, for comparison; a block that does not parse compares as itself. */
function parsedFrontmatter(text: string): string {
  try {
    return JSON.stringify(parseYaml(text) ?? {});
  } catch {
    return `unparsed ${text}`;
  }
}

/** Whether `record` has `key` as its own property (`__proto__` included, which `in` and indexing get wrong). */
function hasOwn(record: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(record, key);
}

export const setProperty = writeTool(
  defineTool({
    name: "set_property",
    title: "Set property",
    description: "Set one frontmatter property of a note (created with the frontmatter if missing), written by Obsidian.",
    input: {
      path: pathArg,
      key: keyArg,
      value: z
        .union([scalar, z.array(scalar)])
        .describe("New value: text, number, true/false, null, or a list of these (e.g. tags or aliases)."),
      expected_hash: expectedHashArg,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async run(args, ctx) {
      const { file } = resolveMarkdown(ctx, args.path);
      let previous: unknown = null;
      const sha256 = await editFrontmatter(ctx, file, args.expected_hash, (frontmatter) => {
        previous = hasOwn(frontmatter, args.key) ? (frontmatter[args.key] ?? null) : null;
        // Defined, not assigned: assigning `__proto__` would replace the object's prototype and write nothing.
        Object.defineProperty(frontmatter, args.key, { value: args.value, enumerable: true, writable: true, configurable: true });
      });
      return json({ path: file.path, key: args.key, previous, sha256 });
    },
  }),
);

export const deleteProperty = writeTool(
  defineTool({
    name: "delete_property",
    title: "Delete property",
    description: "Remove one frontmatter property from a note; existed says whether it was there.",
    input: {
      path: pathArg,
      key: keyArg,
      expected_hash: expectedHashArg,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async run(args, ctx) {
      const { file } = resolveMarkdown(ctx, args.path);
      let existed = false;
      const sha256 = await editFrontmatter(ctx, file, args.expected_hash, (frontmatter) => {
        existed = hasOwn(frontmatter, args.key);
        if (existed) delete frontmatter[args.key];
      });
      return json({ path: file.path, key: args.key, existed, sha256 });
    },
  }),
);

/** Validates a move destination: a Markdown note keeps ".md"; other files must keep their extension. */
function destinationPath(ctx: ToolContext, file: TFile, raw: string): string {
  if (file.extension.toLowerCase() === "md") return newNotePath(ctx, raw, "new_path");
  const path = cleanVaultPath(raw.trim(), ctx, "new_path");
  if (!path.toLowerCase().endsWith(`.${file.extension.toLowerCase()}`)) {
    throw new ToolError(`new_path must keep the file's extension .${file.extension}`);
  }
  assertInsideVaultOnDisk(ctx, path);
  return path;
}

export const moveNote = writeTool(
  defineTool({
    name: "move_note",
    cache: "refuse",
    title: "Move or rename note",
    description:
      "Move or rename a note (or other file) through Obsidian, which updates links to it. Missing folders are created; " +
      "an existing destination is refused.",
    input: {
      path: pathArg,
      new_path: z.string().min(1).describe('New vault-relative path, e.g. "Archive/Old plan.md".'),
      expected_hash: expectedHashArg,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async run(args, ctx) {
      const { file } = resolveNote(ctx, args.path, { textOnly: false });
      const from = file.path;
      const to = destinationPath(ctx, file, args.new_path);
      if (to === from) throw new ToolError(`${from} is already at that path`);
      const existing = ctx.app.vault.getAbstractFileByPath(to);
      // A case-only rename on a case-insensitive disk finds the note itself; that is allowed.
      if (existing && existing !== file) throw new ToolError(`${to} already exists; nothing was moved`);
      return withPathLocks([from, to], async () => {
        assertStillAt(ctx, file, from, "nothing was moved");
        if (args.expected_hash !== undefined) checkExpectedHash(from, await readVerified(ctx, file), args.expected_hash);
        const taken = ctx.app.vault.getAbstractFileByPath(to);
        if (taken && taken !== file) throw new ToolError(`${to} already exists; nothing was moved`);
        const linking = (await backlinkSources(ctx, from)).map((source) => source.path);
        // A rename keeps the file: the one at the new path must be this very one.
        const identity = identityOnDisk(ctx, from);
        if (identity === null) throw new ToolError(`${from} is not on disk; nothing was moved`);
        await ensureParentFolders(ctx, to);
        await ctx.app.fileManager.renameFile(file, to);
        await assertLandedInside(ctx, file.path, `moved ${from} to`, identity);
        // Obsidian may rewrite the moved note's own relative links, so its hash is reported afresh.
        const sha256 = file.extension.toLowerCase() === "md" ? contentHash(await readVerified(ctx, file)) : null;
        return json({ from, to: file.path, linking_notes: linking.length, sha256 });
      });
    },
  }),
);

export const deleteNote = writeTool(
  defineTool({
    name: "delete_note",
    cache: "wait",
    title: "Delete note",
    description: "Move a note (or other file) to the trash, as Obsidian's delete does (system or vault trash per settings).",
    input: {
      path: pathArg,
      expected_hash: expectedHashArg,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    async run(args, ctx) {
      const { file } = resolveNote(ctx, args.path, { textOnly: false });
      const path = file.path;
      return withPathLocks([path], async () => {
        assertStillAt(ctx, file, path, "nothing was deleted");
        if (args.expected_hash !== undefined) checkExpectedHash(path, await readVerified(ctx, file), args.expected_hash);
        const linking = (await backlinkSources(ctx, path)).length;
        await ctx.app.fileManager.trashFile(file);
        return json({ path, trashed: true, linking_notes: linking });
      });
    },
  }),
);

export const FILE_TOOLS = [setProperty, deleteProperty, moveNote, deleteNote];

