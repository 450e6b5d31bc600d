// Link tools over Obsidian's link index: backlinks with the linking lines, a note's outgoing links (resolved and
// not), the vault's unresolved links, and orphan notes. Link resolution is always Obsidian's
// (`getFirstLinkpathDest`), so results match what the user sees in the graph and backlinks pane, except that a note
// whose real file is outside the vault (through a symlink) is never a source: its links are never read or quoted.

import { z } from "zod";
import type { CachedMetadata, ReferenceCache, TFile } from "obsidian";
import { countWithinBudget, cursorArg, limitArg, maxCharsArg, offsetFromCursor, snippet } from "../vault/limits";
import { splitLines } from "../vault/lines";
import { configDirChecker } from "../vault/paths";
import { insideVaultPathChecker } from "../vault/disk";
import { cleanFolderPath, resolveMarkdown } from "../vault/resolve";
import { backlinkSources, resolveLink } from "../vault/links";
import { visibleLinkMaps } from "../vault/hidden";
import { visibleNotes } from "../vault/notes";
import { byPath, Slices } from "../vault/slices";
import { json, pathArg, pageHead } from "./common";
import { defineTool } from "./types";
import type { ToolContext } from "./types";

const READ = { readOnlyHint: true, openWorldHint: false } as const;

/** Every link-like reference of a note: body links, embeds and frontmatter links. */
function referencesOf(cache: CachedMetadata | null): { ref: ReferenceCache; embed: boolean; line: number | null }[] {
  if (!cache) return [];
  const refs: { ref: ReferenceCache; embed: boolean; line: number | null }[] = [];
  for (const link of cache.links ?? []) refs.push({ ref: link, embed: false, line: link.position.start.line });
  for (const embed of cache.embeds ?? []) refs.push({ ref: embed, embed: true, line: embed.position.start.line });
  for (const link of cache.frontmatterLinks ?? []) refs.push({ ref: link as unknown as ReferenceCache, embed: false, line: null });
  return refs;
}

/** 0-based lines of `source` holding a link that resolves to `target`. */
function linkingLines(ctx: ToolContext, source: TFile, target: TFile): number[] {
  const lines = new Set<number>();
  for (const { ref, line } of referencesOf(ctx.app.metadataCache.getFileCache(source))) {
    if (line === null) continue;
    if (resolveLink(ctx, ref.link, source.path)?.path === target.path) lines.add(line);
  }
  return [...lines].sort((a, b) => a - b);
}

export const backlinks = defineTool({
  name: "backlinks",
  cache: "wait",
  title: "Backlinks",
  description: "Notes that link to a note (resolved links, embeds included), with the linking lines as snippets.",
  input: {
    path: pathArg,
    snippets: z.boolean().default(true).describe("Include the linking lines (default true)."),
    max_lines_per_note: z.number().int().min(1).max(20).default(3).describe("Linking lines quoted per note (default 3, max 20)."),
    limit: limitArg("linking notes", 50),
    cursor: cursorArg(),
    max_chars: maxCharsArg(),
  },
  annotations: READ,
  async run(args, ctx) {
    const { file } = resolveMarkdown(ctx, args.path);
    const sources = await backlinkSources(ctx, file.path);
    const offset = offsetFromCursor(args.cursor);
    const window = sources.slice(offset, offset + args.limit);
    const entries = await Promise.all(
      window.map(async (source) => {
        const entry: { path: string; count: number; lines?: { line: number; text: string }[] } = { ...source };
        if (!args.snippets) return entry;
        const sourceFile = ctx.app.vault.getFileByPath(source.path);
        if (!sourceFile) return entry;
        const wanted = linkingLines(ctx, sourceFile, file).slice(0, args.max_lines_per_note);
        const lines = splitLines(await ctx.app.vault.cachedRead(sourceFile));
        entry.lines = wanted.filter((line) => line < lines.length).map((line) => ({ line: line + 1, text: snippet(lines[line]) }));
        return entry;
      }),
    );
    const page = entries.slice(0, countWithinBudget(entries, args.max_chars - 300));
    const next = offset + page.length;
    return json({
      ...pageHead("backlinks", args, next < sources.length ? String(next) : null),
      path: file.path,
      total: sources.length,
      backlinks: page,
    });
  },
});

export const outgoingLinks = defineTool({
  name: "outgoing_links",
  cache: "wait",
  title: "Outgoing links",
  description:
    "A note's links, embeds and frontmatter links in order, each with its 1-based line (null in frontmatter) and the " +
    "note it resolves to (null when unresolved).",
  input: {
    path: pathArg,
    unresolved_only: z.boolean().default(false).describe("Only links that resolve to no note (default false)."),
    limit: limitArg("links", 200),
    cursor: cursorArg(),
  },
  annotations: READ,
  async run(args, ctx) {
    const { file } = resolveMarkdown(ctx, args.path);
    const links = referencesOf(ctx.app.metadataCache.getFileCache(file))
      .map(({ ref, embed, line }) => ({
        link: ref.link,
        line: line === null ? null : line + 1,
        embed,
        resolved: resolveLink(ctx, ref.link, file.path)?.path ?? null,
      }))
      .filter((link) => !args.unresolved_only || link.resolved === null);
    const offset = offsetFromCursor(args.cursor);
    const page = links.slice(offset, offset + args.limit);
    const next = offset + page.length;
    return json({
      ...pageHead("outgoing_links", args, next < links.length ? String(next) : null),
      path: file.path,
      total: links.length,
      unresolved: links.filter((link) => link.resolved === null).length,
      links: page,
    });
  },
});

export const unresolvedLinks = defineTool({
  name: "unresolved_links",
  cache: "wait",
  title: "Unresolved links",
  description:
    "Link targets across the vault that resolve to no note, most-linked first, each with its total count and the notes " +
    "that contain it.",
  input: {
    max_sources: z.number().int().min(1).max(50).default(5).describe("Linking notes listed per target (default 5, max 50)."),
    limit: limitArg("link targets", 100),
    cursor: cursorArg(),
  },
  annotations: READ,
  async run(args, ctx) {
    const byTarget = new Map<string, { count: number; sources: string[] }>();
    const slices = new Slices(ctx.signal, "unresolved_links");
    const inside = insideVaultPathChecker(ctx);
    const inConfigDir = configDirChecker(ctx);
    const { unresolved } = await visibleLinkMaps(ctx, slices);
    await slices.fresh();
    const sources = await slices.sort(Object.keys(unresolved), byPath);
    for (const source of sources) {
      if (slices.due()) await slices.pause();
      const targets = unresolved[source];
      if (!targets || inConfigDir(source) || !inside(source)) continue;
      for (const target in targets) {
        const entry = byTarget.get(target) ?? { count: 0, sources: [] };
        entry.count += targets[target];
        entry.sources.push(source);
        byTarget.set(target, entry);
      }
    }
    const found = await slices.map([...byTarget.entries()], ([link, entry]) => ({
      link,
      count: entry.count,
      notes: entry.sources.length,
      sources: entry.sources.slice(0, args.max_sources),
    }));
    const all = await slices.sort(found, (a, b) => b.count - a.count || byPath(a.link, b.link));
    const offset = offsetFromCursor(args.cursor);
    const page = all.slice(offset, offset + args.limit);
    const next = offset + page.length;
    return json({
      ...pageHead("unresolved_links", args, next < all.length ? String(next) : null),
      total: all.length,
      unresolved: page,
    });
  },
});

export const orphans = defineTool({
  name: "orphans",
  cache: "wait",
  title: "Orphan notes",
  description:
    "Markdown notes no other note links to (by resolved link or embed), sorted by path; has_outgoing says whether " +
    "the note itself links anywhere.",
  input: {
    folder: z.string().default("").describe('Only notes under this folder (default "" or "/": the whole vault).'),
    limit: limitArg("notes", 200),
    cursor: cursorArg(),
  },
  annotations: READ,
  async run(args, ctx) {
    const linked = new Set<string>();
    const outgoing = new Set<string>();
    const slices = new Slices(ctx.signal, "orphans");
    // Links held by a note whose real file is outside the vault are its content: they neither link nor count.
    const inside = insideVaultPathChecker(ctx);
    const maps = await visibleLinkMaps(ctx, slices);
    await slices.fresh();
    for (const source in maps.resolved) {
      if (slices.due()) await slices.pause();
      const targets = maps.resolved[source];
      if (!targets || !inside(source)) continue;
      for (const target in targets) {
        if (target !== source) linked.add(target);
        outgoing.add(source);
      }
    }
    await slices.fresh();
    for (const source in maps.unresolved) {
      if (slices.due()) await slices.pause();
      const targets = maps.unresolved[source];
      if (targets && Object.keys(targets).length > 0 && inside(source)) outgoing.add(source);
    }
    const folder = cleanFolderPath(args.folder, ctx);
    const notes = await visibleNotes(ctx, slices, folder === "" ? "" : folder + "/");
    const all = notes.filter((note) => !linked.has(note.path)).map((note) => note.path);
    const offset = offsetFromCursor(args.cursor);
    const page = all.slice(offset, offset + args.limit);
    const next = offset + page.length;
    return json({
      ...pageHead("orphans", args, next < all.length ? String(next) : null),
      total: all.length,
      orphans: page.map((path) => ({ path, has_outgoing: outgoing.has(path) })),
    });
  },
});

export const LINK_TOOLS = [backlinks, outgoingLinks, unresolvedLinks, orphans];
