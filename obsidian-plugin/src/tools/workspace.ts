// Tools about what the user is doing in Obsidian: the active note and its selection, recently modified or opened
// files, and the daily note (read, or created for a date) following the core Daily notes plugin's settings.

import { z } from "zod";
import { MarkdownView, TFile } from "obsidian";
import { cutChars, limitArg, maxCharsArg } from "../vault/limits";
import { splitLines } from "../vault/lines";
import { isInConfigDir } from "../vault/paths";
import {
  assertLandedInside,
  assertNotHidden,
  ensureParentFolders,
  insideVaultChecker,
  readVerified,
} from "../vault/disk";
import { notePathOf, resolveNote } from "../vault/resolve";
import { visibleAt, visibleChecker } from "../vault/hidden";
import { dailyNotePath, dailyNoteSettings, fillDailyTemplate, parseDailyDate } from "../vault/daily";
import { isoTime, json, renderRead } from "./common";
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
    const notes = vault.getMarkdownFiles().filter((file) => !isInConfigDir(file.path, ctx) && visible(file));
    const files = notes
      .sort((a, b) => b.stat.mtime - a.stat.mtime || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
      .slice(0, args.limit)
      .map((file) => ({ path: file.path, mtime: isoTime(file.stat.mtime) }));
    return json({ truncated: notes.length > files.length, source: "modified", files, total: notes.length });
  },
});

/** The daily-note template named in the settings; a missing one is an error rather than an empty note. */
function templateFile(ctx: ToolContext, template: string): TFile {
  try {
    return resolveNote(ctx, template).file;
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    throw new ToolError(`the daily-note template ${JSON.stringify(template)} (Daily notes settings) cannot be used: ${error.message}`);
  }
}

/** Where the daily note for `date` lives under the Daily notes settings, and what is there now. */
function dailyNoteTarget(ctx: ToolContext, date: string) {
  const settings = dailyNoteSettings(ctx);
  const day = parseDailyDate(date);
  const path = notePathOf(ctx, dailyNotePath(settings, day), "daily note path");
  const existing = visibleAt(ctx, path);
  if (existing && !(existing instanceof TFile)) throw new ToolError(`${path} is a folder, not a daily note`);
  return { settings, day, path, existing };
}

const dailyDateArg = z.string().max(40).default("today").describe('YYYY-MM-DD, "today" (default), "yesterday" or "tomorrow".');

export const dailyNote = defineTool({
  name: "daily_note",
  title: "Daily note",
  description:
    "Read the daily note for a date (path from the Daily notes settings). Output like read_note. " +
    "create_daily_note creates a missing one.",
  input: {
    date: dailyDateArg,
    max_chars: maxCharsArg("note content"),
  },
  annotations: READ,
  async run(args, ctx) {
    const { day, path, existing } = dailyNoteTarget(ctx, args.date);
    if (!existing) {
      throw new ToolError(
        `no daily note for ${day.format("YYYY-MM-DD")} (it would be ${JSON.stringify(path)}); create_daily_note creates it`,
      );
    }
    const text = await readVerified(ctx, existing);
    return renderRead(existing, text, { start: 0, end: splitLines(text).length, maxChars: args.max_chars });
  },
});

export const createDailyNote = defineTool({
  name: "create_daily_note",
  title: "Create daily note",
  description:
    "Create the daily note for a date from the Daily notes template, or read it when it exists. Output like " +
    'read_note; the header says "created=true" when it was created.',
  input: {
    date: dailyDateArg,
    max_chars: maxCharsArg("note content"),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, ctx) {
    const { settings, day, path, existing } = dailyNoteTarget(ctx, args.date);
    if (existing) {
      const text = await readVerified(ctx, existing);
      return renderRead(existing, text, { start: 0, end: splitLines(text).length, maxChars: args.max_chars });
    }
    if (ctx.readOnly) throw new ToolError("creating a daily note is refused: the obsmcp plugin is in read-only mode");
    assertNotHidden(ctx, path);
    let content = "";
    if (settings.template !== "") {
      const template = templateFile(ctx, settings.template);
      const title = path.slice(path.lastIndexOf("/") + 1, -".md".length);
      content = fillDailyTemplate(await readVerified(ctx, template), title, day, settings);
    }
    await ensureParentFolders(ctx, path);
    const created = await ctx.app.vault.create(path, content);
    assertLandedInside(ctx, created.path, "created");
    return renderRead(created, content, {
      start: 0,
      end: splitLines(content).length,
      maxChars: args.max_chars,
      extra: "created=true",
    });
  },
});

export const WORKSPACE_TOOLS = [activeNote, recentFiles, dailyNote, createDailyNote];
