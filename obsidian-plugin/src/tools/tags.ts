// Tag tools over the metadata cache: every tag with the number of notes carrying it, and the notes carrying a tag
// (nested tags included: `#project` also finds `#project/alpha`). Tags are grouped case-insensitively, as Obsidian's
// tag pane does, and shown in the spelling of the first note (in path order) that uses them.

import { z } from "zod";
import { cursorArg, limitArg, maxCharsArg, offsetFromCursor, pageOf } from "../vault/limits";
import { insideVaultChecker } from "../vault/disk";
import { noteTags, tagMatches } from "../vault/links";
import { visibleNotes } from "../vault/notes";
import { Slices } from "../vault/slices";
import { json, pageHead } from "./common";
import { defineTool, ToolError } from "./types";
import type { ToolContext } from "./types";

const READ = { readOnlyHint: true, openWorldHint: false } as const;

/**
 * Every Markdown note outside the config folder with its tags, in path order, gathered in slices. A note whose real
 * file is outside the vault has no tags here (its tags are its content).
 */
async function taggedNotes(ctx: ToolContext, slices: Slices): Promise<{ path: string; tags: string[] }[]> {
  const inside = insideVaultChecker(ctx);
  const notes = await visibleNotes(ctx, slices);
  return slices.map(notes, (file) => ({ path: file.path, tags: inside(file) ? noteTags(ctx.app.metadataCache.getFileCache(file)) : [] }));
}

export const tags = defineTool({
  name: "tags",
  cache: "wait",
  title: "Tags",
  description: "All tags in the vault (frontmatter and inline) with how many notes carry each.",
  input: {
    prefix: z.string().max(200).optional().describe('Only this tag and tags nested under it, e.g. "project".'),
    sort: z.enum(["count", "name"]).default("count").describe('"count" (most used first, default) or "name".'),
    limit: limitArg("tags", 200),
    cursor: cursorArg(),
  },
  annotations: READ,
  async run(args, ctx) {
    const counts = new Map<string, { tag: string; count: number }>();
    const slices = new Slices(ctx.signal, "tags");
    for (const note of await taggedNotes(ctx, slices)) {
      if (slices.due()) await slices.pause();
      for (const tag of note.tags) {
        const key = tag.toLowerCase();
        const entry = counts.get(key) ?? { tag, count: 0 };
        entry.count++;
        counts.set(key, entry);
      }
    }
    const byName = (a: { tag: string }, b: { tag: string }) => {
      const x = a.tag.toLowerCase();
      const y = b.tag.toLowerCase();
      return x < y ? -1 : x > y ? 1 : 0;
    };
    const kept = await slices.filter([...counts.values()], (entry) => args.prefix === undefined || tagMatches(entry.tag, args.prefix));
    const all = await slices.sort(kept, args.sort === "name" ? byName : (a, b) => b.count - a.count || byName(a, b));
    const offset = offsetFromCursor(args.cursor);
    const page = all.slice(offset, offset + args.limit);
    const next = offset + page.length;
    return json({
      ...pageHead("tags", args, next < all.length ? String(next) : null),
      total: all.length,
      tags: page,
    });
  },
});

export const filesByTag = defineTool({
  name: "files_by_tag",
  cache: "wait",
  title: "Notes by tag",
  description: "Notes carrying a tag or a tag nested under it (#a finds #a and #a/b), sorted by path, with their matching tags.",
  input: {
    tag: z.string().min(1).max(200).describe('The tag, with or without "#", e.g. "project" or "#project/alpha".'),
    limit: limitArg("notes", 200),
    cursor: cursorArg(),
    max_chars: maxCharsArg(),
  },
  annotations: READ,
  async run(args, ctx) {
    const wanted = args.tag.trim().replace(/^#+/, "");
    if (wanted === "" || /\s/.test(wanted)) throw new ToolError(`tag ${JSON.stringify(args.tag)} is not a valid tag`);
    const slices = new Slices(ctx.signal, "files_by_tag");
    const tagged = await slices.map(await taggedNotes(ctx, slices), (note) => ({ path: note.path, tags: note.tags.filter((tag) => tagMatches(tag, wanted)) }));
    const all = tagged.filter((note) => note.tags.length > 0);
    const { page, next } = pageOf(all, args, 200);
    return json({
      ...pageHead("files_by_tag", args, next),
      tag: `#${wanted}`,
      total: all.length,
      notes: page,
    });
  },
});

export const TAG_TOOLS = [tags, filesByTag];
