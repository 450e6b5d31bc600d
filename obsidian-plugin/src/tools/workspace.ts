// Tools about what the user is doing in Obsidian: the active note and its selection, recently modified or opened
// files, the daily note (read, or created for a date) following the core Daily notes plugin's settings, and opening
// a note for the user to see.

import { z } from "zod";
import { MarkdownView, TFile } from "obsidian";
import { cutChars, limitArg, maxCharsArg } from "../vault/limits";
import { splitLines } from "../vault/lines";
import { isInConfigDir } from "../vault/paths";
import {
  assertNotHidden,
  createInside,
  ensureParentFolders,
  insideVaultChecker,
  readVerified,
} from "../vault/disk";
import { notePathOf, resolveNote } from "../vault/resolve";
import { visibleAt, visibleChecker } from "../vault/hidden";
import { dailyNotePath, fillTemplate, parseDailyDate, PERIODS, periodicSettings, periodStart, type Period, type PeriodicSettings } from "../vault/daily";
import { isoTime, json, pathArg, renderRead, writeTool } from "./common";
import { visibleNotes } from "../vault/notes";
import { byPath, Slices } from "../vault/slices";
import { defineTool, ToolError } from "./types";
import type { ToolContext } from "./types";

const READ = { readOnlyHint: true, openWorldHint: false } as const;

export const activeNote = defineTool({
  name: "active_note",
  title: "Active note",
  description:
    "The note open in Obsidian's active pane and the editor selection (lines 1-based, ch 0-based), or path null when " +
    "no file is active.",
  input: {
    max_chars: maxCharsArg("the selected text"),
  },
  annotations: READ,
  async run(args, ctx) {
    const file = ctx.app.workspace.getActiveFile();
    if (!file || isInConfigDir(file.path, ctx) || !visibleChecker(ctx)(file)) return json({ path: null, selection: null });
    const view = ctx.app.workspace.getActiveViewOfType(MarkdownView);
    const editor = view && view.file?.path === file.path ? view.editor : null;
    // The text of a note whose real file is outside the vault is never given out, not even the part selected.
    if (!editor || !insideVaultChecker(ctx)(file)) return json({ path: file.path, selection: null });
    const selected = editor.getSelection();
    const from = editor.getCursor("from");
    const to = editor.getCursor("to");
    return json({
      path: file.path,
      selection: {
        text: cutChars(selected, args.max_chars),
        truncated: selected.length > args.max_chars,
        from: { line: from.line + 1, ch: from.ch },
        to: { line: to.line + 1, ch: to.ch },
      },
    });
  },
});

export const recentFiles = defineTool({
  name: "recent_files",
  title: "Recent files",
  description: 'Recently modified Markdown notes (newest first), or the files recently opened in Obsidian (source "opened").',
  input: {
    source: z
      .enum(["modified", "opened"])
      .default("modified")
      .describe('"modified" (by modification time, default) or "opened" (Obsidian\'s recently opened list).'),
    limit: limitArg("files", 20),
  },
  annotations: READ,
  async run(args, ctx) {
    const { vault, workspace } = ctx.app;
    const visible = visibleChecker(ctx);
    if (args.source === "opened") {
      const files = workspace
        .getLastOpenFiles()
        .map((path) => vault.getFileByPath(path))
        .filter((file): file is TFile => file !== null && !isInConfigDir(file.path, ctx) && visible(file))
        .slice(0, args.limit)
        .map((file) => ({ path: file.path, mtime: isoTime(file.stat.mtime) }));
      return json({ source: "opened", files });
    }
    const slices = new Slices(ctx.signal, "recent_files");
    const notes = await visibleNotes(ctx, slices);
    const newest = await slices.sort(notes, (a, b) => b.stat.mtime - a.stat.mtime || byPath(a.path, b.path));
    const files = newest.slice(0, args.limit).map((file) => ({ path: file.path, mtime: isoTime(file.stat.mtime) }));
    return json({ truncated: notes.length > files.length, source: "modified", files, total: notes.length });
  },
});

/** The template named in the settings; a missing one is an error rather than an empty note. */
function templateFile(ctx: ToolContext, settings: PeriodicSettings): TFile {
  try {
    return resolveNote(ctx, settings.template).file;
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    const owner = settings.source === "periodic-notes" ? "Periodic Notes settings" : "Daily notes settings";
    throw new ToolError(`the ${settings.noun}-note template ${JSON.stringify(settings.template)} (${owner}) cannot be used: ${error.message}`);
  }
}

/** Where the note of `period` holding `date` lives under its settings, and what is there now. */
function periodicNoteTarget(ctx: ToolContext, date: string, period: Period) {
  const settings = periodicSettings(ctx, period);
  const day = periodStart(parseDailyDate(date), period);
  const path = notePathOf(ctx, dailyNotePath(settings, day), `${settings.noun} note path`);
  const existing = visibleAt(ctx, path);
  if (existing && !(existing instanceof TFile)) throw new ToolError(`${path} is a folder, not a ${settings.noun} note`);
  const what = period === "day" ? day.format("YYYY-MM-DD") : `the ${period} starting ${day.format("YYYY-MM-DD")}`;
  return { settings, day, path, existing, what };
}

const dailyDateArg = z
  .string()
  .max(40)
  .default("today")
  .describe('YYYY-MM-DD, "today" (default), "yesterday" or "tomorrow"; with period, the period holding that day.');
const periodArg = z
  .enum(PERIODS)
  .default("day")
  .describe('"day" (default), "week", "month", "quarter" or "year" (Periodic Notes settings when enabled).');

export const dailyNote = defineTool({
  name: "daily_note",
  title: "Daily note",
  description:
    "Read the daily (or weekly, monthly, quarterly, yearly) note for a date, placed by the Daily notes or Periodic " +
    "Notes settings. Output like read_note. create_daily_note creates a missing one.",
  input: {
    date: dailyDateArg,
    period: periodArg,
    max_chars: maxCharsArg("note content"),
  },
  annotations: READ,
  async run(args, ctx) {
    const { settings, path, existing, what } = periodicNoteTarget(ctx, args.date, args.period);
    if (!existing) {
      throw new ToolError(`no ${settings.noun} note for ${what} (it would be ${JSON.stringify(path)}); create_daily_note creates it`);
    }
    const text = await readVerified(ctx, existing);
    return renderRead(existing, text, { start: 0, end: splitLines(text).length, maxChars: args.max_chars });
  },
});

export const createDailyNote = defineTool({
  name: "create_daily_note",
  title: "Create daily note",
  description:
    "Create the daily (or weekly, monthly, …) note for a date from its template, or read it when it exists. Output " +
    'like read_note; the header says "created=true" when it was created.',
  input: {
    date: dailyDateArg,
    period: periodArg,
    max_chars: maxCharsArg("note content"),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, ctx) {
    const { settings, day, path, existing } = periodicNoteTarget(ctx, args.date, args.period);
    if (existing) {
      const text = await readVerified(ctx, existing);
      return renderRead(existing, text, { start: 0, end: splitLines(text).length, maxChars: args.max_chars });
    }
    if (ctx.readOnly) throw new ToolError(`creating a ${settings.noun} note is refused: the obsmcp plugin is in read-only mode`);
    assertNotHidden(ctx, path);
    let content = "";
    if (settings.template !== "") {
      const template = templateFile(ctx, settings);
      const title = path.slice(path.lastIndexOf("/") + 1, -".md".length);
      const text = await readVerified(ctx, template);
      content = await fillTemplate({ path: template.path, text }, title, day, settings, new Slices(ctx.signal, "create_daily_note"));
    }
    await ensureParentFolders(ctx, path);
    const created = await createInside(ctx, path, content);
    return renderRead(created, content, {
      start: 0,
      end: splitLines(content).length,
      maxChars: args.max_chars,
      extra: "created=true",
    });
  },
});

/**
 * The 0-based line a heading or `^block` of a Markdown note starts on, from the metadata cache; headings compare
 * exactly, then case-insensitively, as read_note finds them.
 */
function lineOfSubpath(ctx: ToolContext, file: TFile, subpath: string): number {
  const cache = ctx.app.metadataCache.getFileCache(file);
  if (subpath.startsWith("^")) {
    const block = cache?.blocks?.[subpath.slice(1).toLowerCase()];
    if (!block) throw new ToolError(`block ^${subpath.slice(1)} not found in ${file.path}`);
    return block.position.start.line;
  }
  const headings = cache?.headings ?? [];
  const found = headings.find((h) => h.heading === subpath) ?? headings.find((h) => h.heading.toLowerCase() === subpath.toLowerCase());
  if (!found) {
    const names = headings.slice(0, 20).map((h) => JSON.stringify(h.heading));
    throw new ToolError(`heading ${JSON.stringify(subpath)} not found in ${file.path}${names.length > 0 ? `; its headings: ${names.join(", ")}` : " (it has no headings)"}`);
  }
  return found.position.start.line;
}

export const openNote = writeTool(
  defineTool({
    name: "open_note",
    cache: "wait",
    title: "Open in Obsidian",
    description:
      "Show a note (or any vault file) to the user in Obsidian: in the current tab or a new one, optionally at a heading, " +
      "block or 1-based line. Changes what is on screen, never the vault.",
    input: {
      path: pathArg,
      new_tab: z.boolean().default(false).describe("Open in a new tab (default: the current tab)."),
      heading: z.string().min(1).max(1000).optional().describe('A heading to scroll to (or pass "Note#Heading" as path).'),
      line: z.number().int().min(1).optional().describe("A 1-based line to put the cursor on."),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async run(args, ctx) {
      const ref = resolveNote(ctx, args.path, { textOnly: false });
      const subpath = args.heading ?? ref.subpath;
      if (subpath !== "" && args.line !== undefined) throw new ToolError("give a heading or a line, not both");
      const markdown = ref.file.extension.toLowerCase() === "md";
      if ((subpath !== "" || args.line !== undefined) && !markdown) throw new ToolError(`${ref.file.path} is not a Markdown note: it opens without a heading or line`);
      let line: number | undefined;
      if (subpath !== "") line = lineOfSubpath(ctx, ref.file, subpath);
      if (args.line !== undefined) {
        const count = splitLines(await readVerified(ctx, ref.file)).length;
        if (args.line > Math.max(count, 1)) throw new ToolError(`line ${args.line} is past the end: ${ref.file.path} has ${count} lines`);
        line = args.line - 1;
      }
      const leaf = ctx.app.workspace.getLeaf(args.new_tab ? "tab" : false);
      await leaf.openFile(ref.file, { active: true, ...(line !== undefined ? { eState: { line } } : {}) });
      return json({ path: ref.file.path, tab: args.new_tab ? "new" : "current", line: line === undefined ? null : line + 1 });
    },
  }),
);

export const WORKSPACE_TOOLS = [activeNote, recentFiles, dailyNote, createDailyNote, openNote];
