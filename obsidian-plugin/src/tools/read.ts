// Reading tools: vault overview, file listing, note reads (whole, a heading's section, a block or a line range),
// a note's metadata from Obsidian's metadata cache, and its outline.

import { z } from "zod";
import { TAbstractFile, TFile, TFolder } from "obsidian";
import type { CachedMetadata } from "obsidian";
import { contentHash } from "../vault/hash";
import { countWithinBudget, cursorArg, limitArg, maxCharsArg, offsetFromCursor } from "../vault/limits";
import { splitLines } from "../vault/lines";
import { configDirChecker, isInConfigDir } from "../vault/paths";
import { readVerified } from "../vault/disk";
import { resolveFolder, resolveMarkdown, resolveNote } from "../vault/resolve";
import { findBlock, findHeading, findHeadings, headingSectionEnd } from "../vault/sections";
import { backlinkSources, frontmatterAliases, noteTags, resolveLink } from "../vault/links";
import { dailyNoteSettings } from "../vault/daily";
import { visibleChecker } from "../vault/hidden";
import { firstAtOrAfter } from "../vault/file-index";
import { byPath, Slices } from "../vault/slices";
import { isoTime, json, pathArg, renderRead, pageHead } from "./common";
import { defineTool, ToolError } from "./types";
import type { ToolContext } from "./types";

const READ = { readOnlyHint: true, openWorldHint: false } as const;

export const vaultInfo = defineTool({
  name: "vault_info",
  cache: "report",
  title: "Vault info",
  description: "Vault name, counts of notes, files and folders, config folder, read-only state and daily-note settings.",
  input: {},
  annotations: READ,
  async run(_args, ctx) {
    const { vault } = ctx.app;
    const visible = visibleChecker(ctx);
    const all = vault.getAllLoadedFiles().filter((entry) => !isInConfigDir(entry.path, ctx) && visible(entry));
    const folders = all.filter((entry) => entry instanceof TFolder && !(entry as TFolder).isRoot()).length;
    return json({
      name: vault.getName(),
      notes: vault.getMarkdownFiles().filter((file) => !isInConfigDir(file.path, ctx) && visible(file)).length,
      files: all.filter((entry) => entry instanceof TFile).length,
      folders,
      config_dir: ctx.configDir,
      read_only: ctx.readOnly,
      daily_notes: dailyNoteSettings(ctx),
    });
  },
});

interface ListEntry {
  path: string;
  type: "file" | "folder";
  size?: number;
  mtime?: string;
}

export const listFiles = defineTool({
  name: "list_files",
  title: "List files",
  description: "List files (and optionally folders) under a folder, sorted by path, paginated.",
  input: {
    folder: z.string().default("").describe('Folder to list, vault-relative; "" (default) or "/" is the vault root.'),
    extension: z
      .string()
      .max(20)
      .optional()
      .describe('Only files with this extension, e.g. "md" (no dot). Default: all files.'),
    recursive: z.boolean().default(true).describe("Include subfolders' contents (default true)."),
    include_folders: z.boolean().default(false).describe("Also list folders as entries (default false)."),
    limit: limitArg("entries", 200),
    cursor: cursorArg(),
    max_chars: maxCharsArg(),
  },
  annotations: READ,
  async run(args, ctx) {
    const folder = resolveFolder(ctx, args.folder);
    const extension = args.extension?.replace(/^\./, "").toLowerCase();
    const visible = visibleChecker(ctx);
    const inConfigDir = configDirChecker(ctx);
    const slices = new Slices(ctx.signal, "list_files");
    const wanted = (file: TFile) => (extension === undefined || file.extension.toLowerCase() === extension) && !inConfigDir(file.path) && visible(file);
    let found: TAbstractFile[] = [];
    if (args.recursive && !args.include_folders) {
      // Files only: the kept index is already in path order, and the folder's files are one run of it.
      const prefix = folder.isRoot() ? "" : `${folder.path}/`;
      const files = await ctx.files.filesInSlices(slices);
      for (let at = firstAtOrAfter(files, prefix); at < files.length; at++) {
        if (slices.due()) await slices.pause();
        const { file } = files[at];
        if (!file.path.startsWith(prefix)) break;
        if (wanted(file)) found.push(file);
      }
    } else {
      const visit = async (children: TAbstractFile[]) => {
        for (const child of children) {
          if (slices.due()) await slices.pause();
          if (child instanceof TFolder) {
            if (inConfigDir(child.path) || !visible(child)) continue;
            if (args.include_folders) found.push(child);
            if (args.recursive) await visit(child.children);
          } else if (child instanceof TFile && wanted(child)) found.push(child);
        }
      };
      await visit(folder.children);
      found = await slices.sort(found, (a, b) => byPath(a.path, b.path));
    }
    const offset = offsetFromCursor(args.cursor);
    // Entries are built for the page only: a vault-wide listing sorts thousands of files to return a few hundred.
    const window: ListEntry[] = found
      .slice(offset, offset + args.limit)
      .map((entry) =>
        entry instanceof TFile
          ? { path: entry.path, type: "file", size: entry.stat.size, mtime: isoTime(entry.stat.mtime) }
          : { path: entry.path, type: "folder" },
      );
    const count = countWithinBudget(window, args.max_chars - 200);
    const page = window.slice(0, count);
    const next = offset + page.length;
    return json({
      ...pageHead("list_files", args, next < found.length ? String(next) : null),
      folder: folder.isRoot() ? "" : folder.path,
      total: found.length,
      entries: page,
    });
  },
});

export const readNote = defineTool({
  name: "read_note",
  title: "Read note",
  description:
    "Read a note, or one heading's section, a block (^id) or a line range. Starts with a header line " +
    '"[lines a-b of N] path=… sha256=…"; pass that sha256 as expected_hash to later writes.',
  input: {
    path: pathArg,
    heading: z
      .string()
      .optional()
      .describe('Read only this heading\'s section (case-insensitive; "Parent#Child" for a nested one).'),
    block: z.string().optional().describe("Read only the block with this id (with or without ^)."),
    start_line: z.number().int().min(1).optional().describe("First line to read (1-based)."),
    end_line: z.number().int().min(1).optional().describe("Last line to read (inclusive)."),
    max_chars: maxCharsArg("note content"),
  },
  annotations: READ,
  async run(args, ctx) {
    const { file, subpath } = resolveNote(ctx, args.path);
    const text = await readVerified(ctx, file);
    const lines = splitLines(text);
    let heading = args.heading;
    let block = args.block;
    if (heading === undefined && block === undefined && subpath !== "") {
      if (subpath.startsWith("^")) block = subpath;
      else heading = subpath;
    }
    const range = sectionRange(lines, heading, block);
    let start = range.start;
    let end = range.end;
    if (args.start_line !== undefined || args.end_line !== undefined) {
      if (heading !== undefined || block !== undefined) {
        throw new ToolError("pass either heading/block or start_line/end_line, not both");
      }
      start = (args.start_line ?? 1) - 1;
      end = Math.min(args.end_line ?? lines.length, lines.length);
      if (start >= lines.length && lines.length > 0) {
        throw new ToolError(`start_line ${args.start_line} is past the end: ${file.path} has ${lines.length} lines`);
      }
      if (end <= start && lines.length > 0) throw new ToolError("end_line must not be before start_line");
    }
    return renderRead(file, text, { start, end, maxChars: args.max_chars });
  },
});

/** The lines a read covers: the whole note, a heading's section or a block. */
function sectionRange(lines: string[], heading: string | undefined, block: string | undefined) {
  if (heading !== undefined && block !== undefined) throw new ToolError("pass heading or block, not both");
  if (heading !== undefined) {
    const headings = findHeadings(lines);
    const index = findHeading(lines, headings, heading);
    return { start: headings[index].line, end: headingSectionEnd(headings, index, lines.length) };
  }
  if (block !== undefined) return findBlock(lines, block);
  return { start: 0, end: lines.length };
}

/** Caps a list, remembering its name when it was cut. */
function capped<T>(items: T[], limit: number, name: string, cut: string[]): T[] {
  if (items.length > limit) cut.push(name);
  return items.slice(0, limit);
}

export const noteMetadata = defineTool({
  name: "note_metadata",
  cache: "wait",
  title: "Note metadata",
  description:
    "A note's frontmatter, tags, aliases, headings, links, embeds, block ids, backlink count, size, dates and sha256, " +
    "from Obsidian's metadata cache (long lists: page with outline / outgoing_links).",
  input: {
    path: pathArg,
    limit: limitArg("items per list (headings, links, embeds, blocks, tags)", 200),
  },
  annotations: READ,
  async run(args, ctx) {
    const { file } = resolveMarkdown(ctx, args.path);
    const cache: CachedMetadata = ctx.app.metadataCache.getFileCache(file) ?? {};
    const text = await readVerified(ctx, file);
    const cut: string[] = [];
    const links = (cache.links ?? []).map((link) => ({
      link: link.link,
      line: link.position.start.line + 1,
      resolved: resolveLink(ctx, link.link, file.path)?.path ?? null,
    }));
    const embeds = (cache.embeds ?? []).map((embed) => ({
      link: embed.link,
      line: embed.position.start.line + 1,
      resolved: resolveLink(ctx, embed.link, file.path)?.path ?? null,
    }));
    const headings = (cache.headings ?? []).map((heading) => ({
      level: heading.level,
      heading: heading.heading,
      line: heading.position.start.line + 1,
    }));
    const blocks = Object.values(cache.blocks ?? {}).map((block) => ({
      id: block.id,
      line: block.position.start.line + 1,
    }));
    const lists = {
      tags: capped(noteTags(cache), args.limit, "tags", cut),
      aliases: frontmatterAliases(cache.frontmatter),
      headings: capped(headings, args.limit, "headings", cut),
      links: capped(links, args.limit, "links", cut),
      embeds: capped(embeds, args.limit, "embeds", cut),
      blocks: capped(blocks, args.limit, "blocks", cut),
    };
    return json({
      truncated: cut.length > 0,
      truncated_lists: cut,
      path: file.path,
      size: file.stat.size,
      ctime: isoTime(file.stat.ctime),
      mtime: isoTime(file.stat.mtime),
      lines: splitLines(text).length,
      sha256: contentHash(text),
      frontmatter: cache.frontmatter ?? null,
      ...lists,
      backlinks: (await backlinkSources(ctx, file.path)).length,
    });
  },
});

export const outline = defineTool({
  name: "outline",
  cache: "wait",
  title: "Outline",
  description: "A note's headings in order, with level and 1-based line, for reading or patching one section.",
  input: {
    path: pathArg,
    limit: limitArg("headings", 300),
    cursor: cursorArg(),
  },
  annotations: READ,
  async run(args, ctx) {
    const { file } = resolveMarkdown(ctx, args.path);
    const headings = await headingsOf(ctx, file);
    const offset = offsetFromCursor(args.cursor);
    const page = headings.slice(offset, offset + args.limit);
    const next = offset + page.length;
    return json({
      ...pageHead("outline", args, next < headings.length ? String(next) : null),
      path: file.path,
      headings: page,
      total: headings.length,
    });
  },
});

/** Headings from the metadata cache, or from the text when the cache has no entry for the note yet. */
async function headingsOf(ctx: ToolContext, file: TFile) {
  const cache = ctx.app.metadataCache.getFileCache(file);
  if (cache) {
    return (cache.headings ?? []).map((heading) => ({
      level: heading.level,
      heading: heading.heading,
      line: heading.position.start.line + 1,
    }));
  }
  const lines = splitLines(await ctx.app.vault.cachedRead(file));
  return findHeadings(lines).map((heading) => ({ level: heading.level, heading: heading.text, line: heading.line + 1 }));
}

export const READ_TOOLS = [vaultInfo, listFiles, readNote, noteMetadata, outline];
