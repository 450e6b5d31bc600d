// Tasks across the vault, from Obsidian's own model: the metadata cache's list items that carry a checkbox
// (`listItems[].task`), with the line's text from the note, the nearest heading above it, the tags Obsidian found on
// that line and the dates written in the Tasks plugin's or Dataview's format (../vault/tasks.ts). `set_task` changes
// one task's checkbox through `vault.process`, guarded by the note's hash or the task's own text.

import { z } from "zod";
import type { CachedMetadata, TFile } from "obsidian";
import { insideVaultChecker, readConfigJson } from "../vault/disk";
import { cursorArg, limitArg, maxCharsArg, pageOf } from "../vault/limits";
import { splitLines } from "../vault/lines";
import { frontmatterTags, tagMatches } from "../vault/links";
import { READ_BATCH, readNotes } from "../vault/many";
import { visibleNotes } from "../vault/notes";
import { cleanVaultPath } from "../vault/paths";
import { resolveMarkdown } from "../vault/resolve";
import { Slices } from "../vault/slices";
import { DATE_FIELDS, parseTaskLine, statusesFromSettings, statusOf, taskDates, type DateField, type TaskStatus } from "../vault/tasks";
import { expectedHashArg, json, pageHead, pathArg, writeTool } from "./common";
import { defineTool, ToolError, type ToolContext } from "./types";
import { editNote } from "./write";

/** The Tasks plugin's id: its settings hold the vault's custom statuses. */
const TASKS_PLUGIN = "obsidian-tasks-plugin";

/** The vault's task statuses: the Tasks plugin's settings (data.json) when present and readable, else the defaults. */
function vaultStatuses(ctx: ToolContext): TaskStatus[] {
  return statusesFromSettings(readConfigJson(ctx, "plugins", TASKS_PLUGIN, "data.json"));
}

/** One task as `tasks` reports it; optional keys are left out when the task has none. */
interface TaskRow {
  path: string;
  line: number;
  status: string;
  type: string;
  text: string;
  heading?: string;
  due?: string;
  scheduled?: string;
  start?: string;
  done?: string;
  tags?: string[];
}

/** The tasks of one note, in line order. */
function tasksOf(file: TFile, cache: CachedMetadata, text: string, statuses: readonly TaskStatus[]): TaskRow[] {
  const lines = text.split("\n");
  const headings = cache.headings ?? [];
  const rows: TaskRow[] = [];
  for (const item of cache.listItems ?? []) {
    if (item.task === undefined) continue;
    const at = item.position.start.line;
    const line = (lines[at] ?? "").replace(/\r$/, "");
    const box = line.indexOf(`[${item.task}]`);
    const taskText = (box < 0 ? line : line.slice(box + item.task.length + 2)).replace(/^[ \t]+|[ \t]+$/g, "");
    const status = statusOf(statuses, item.task);
    const row: TaskRow = { path: file.path, line: at + 1, status: item.task, type: status.type, text: taskText };
    let heading: string | undefined;
    for (const candidate of headings) {
      if (candidate.position.start.line >= at) break;
      heading = candidate.heading;
    }
    if (heading !== undefined) row.heading = heading;
    Object.assign(row, taskDates(taskText));
    const tags = (cache.tags ?? []).filter((tag) => tag.position.start.line === at).map((tag) => tag.tag);
    if (tags.length > 0) row.tags = tags;
    rows.push(row);
  }
  return rows;
}

/** Whether a task's status passes the `status` filter. */
function statusFilter(wanted: string): (row: TaskRow) => boolean {
  switch (wanted) {
    case "all":
      return () => true;
    case "open":
      return (row) => row.type === "todo" || row.type === "in_progress";
    case "done":
    case "cancelled":
      return (row) => row.type === wanted;
    default:
      if (Array.from(wanted).length !== 1) {
        throw new ToolError(`status ${JSON.stringify(wanted)} is not "open", "done", "cancelled", "all" or one checkbox character`);
      }
      return (row) => row.status === wanted;
  }
}

const dateArg = (what: string) =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, `${what} must be a date as YYYY-MM-DD`)
    .optional()
    .describe(`${what === "from" ? "Earliest" : "Latest"} date (YYYY-MM-DD, inclusive) of the date field; tasks without it are left out.`);

export const tasks = defineTool({
  name: "tasks",
  cache: "wait",
  title: "Tasks",
  description:
    "Tasks (checkbox items) in the vault, a folder or a note: status character and type, text, path, 1-based line, " +
    "heading, due/scheduled/start/done dates (Tasks plugin emoji or Dataview [due:: …] fields) and tags. Filter by " +
    "status, path, tag and date range; sort by path or date; paged.",
  input: {
    status: z
      .string()
      .min(1)
      .max(20)
      .default("open")
      .describe('"open" (to do or in progress; default), "done", "cancelled", "all", or one checkbox character such as "?".'),
    path_prefix: z.string().default("").describe('Only notes whose path starts with this: a folder ("Projects/") or a note\'s path.'),
    tag: z.string().max(200).optional().describe("Only tasks tagged with it, or in a note whose properties carry it; nested tags count."),
    date: z.enum(DATE_FIELDS).default("due").describe("The date field that from, to and sort \"date\" use (default due)."),
    from: dateArg("from"),
    to: dateArg("to"),
    sort: z.enum(["path", "date"]).default("path").describe('"path" (path, then line; default) or "date" (earliest first, undated last).'),
    limit: limitArg("tasks", 100),
    cursor: cursorArg(),
    max_chars: maxCharsArg(),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const passes = statusFilter(args.status);
    const prefix = args.path_prefix === "" ? "" : cleanVaultPath(args.path_prefix, ctx, "path_prefix") + (args.path_prefix.endsWith("/") ? "/" : "");
    const wantedTag = args.tag?.trim().replace(/^#+/, "");
    if (wantedTag !== undefined && (wantedTag === "" || /\s/.test(wantedTag))) throw new ToolError(`tag ${JSON.stringify(args.tag)} is not a valid tag`);
    if (args.from !== undefined && args.to !== undefined && args.from > args.to) throw new ToolError(`from ${args.from} is after to ${args.to}`);
    const field: DateField = args.date;
    const inRange = (row: TaskRow) => {
      if (args.from === undefined && args.to === undefined) return true;
      const date = row[field];
      return date !== undefined && (args.from === undefined || date >= args.from) && (args.to === undefined || date <= args.to);
    };
    const statuses = vaultStatuses(ctx);
    const inside = insideVaultChecker(ctx);
    const slices = new Slices(ctx.signal, "tasks");
    // Only notes Obsidian saw a task in are read.
    const withCache = await slices.map(await visibleNotes(ctx, slices, prefix), (file) => ({ file, cache: ctx.app.metadataCache.getFileCache(file) }));
    const notes = await slices.filter(
      withCache,
      (note): note is { file: TFile; cache: CachedMetadata } => note.cache?.listItems?.some((item) => item.task !== undefined) === true,
    );
    const all: TaskRow[] = [];
    for (let start = 0; start < notes.length; start += READ_BATCH) {
      if (ctx.signal.aborted) throw new ToolError("tasks cancelled");
      if (slices.spent()) await slices.pause();
      const batch = notes.slice(start, start + READ_BATCH);
      const texts = await readNotes(
        ctx,
        batch.map((note) => note.file),
        inside,
      );
      batch.forEach(({ file, cache }, b) => {
        const text = texts[b];
        if (text === null) return;
        const noteTagged = wantedTag !== undefined && frontmatterTags(cache.frontmatter).some((tag) => tagMatches(tag, wantedTag));
        for (const row of tasksOf(file, cache, text, statuses)) {
          if (!passes(row) || !inRange(row)) continue;
          if (wantedTag !== undefined && !noteTagged && !(row.tags ?? []).some((tag) => tagMatches(tag, wantedTag))) continue;
          all.push(row);
        }
      });
    }
    // Stable: tasks with the same date (or none) stay in path and line order.
    const sorted =
      args.sort === "date"
        ? await slices.sort(all, (a, b) => {
            const x = a[field];
            const y = b[field];
            if (x === y) return 0;
            if (x === undefined) return 1;
            if (y === undefined) return -1;
            return x < y ? -1 : 1;
          })
        : all;
    const { page, next } = pageOf(sorted, args, 200);
    return json({ ...pageHead("tasks", args, next), total: sorted.length, tasks: page });
  },
});

/** The status words `set_task` accepts besides a checkbox character. */
const STATUS_WORDS: Record<string, string> = { open: " ", todo: " ", done: "x", in_progress: "/", cancelled: "-" };

export const setTask = writeTool(
  defineTool({
    name: "set_task",
    title: "Set task status",
    description:
      "Set the checkbox of one task (a path and 1-based line, as tasks reports them). Needs expected_hash or " +
      "expected_text (the task's text from tasks), so a task that moved or changed is never edited. Only the " +
      "checkbox character changes: no done date or recurrence is added.",
    input: {
      path: pathArg,
      line: z.number().int().min(1).describe("1-based line of the task."),
      status: z
        .string()
        .min(1)
        .max(20)
        .describe('"done", "open", "in_progress", "cancelled", or the checkbox character itself (e.g. "x", " ", "?").'),
      expected_text: z.string().max(10_000).optional().describe("The task's text as tasks returned it; on mismatch nothing is written."),
      expected_hash: expectedHashArg,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async run(args, ctx) {
      const symbol = STATUS_WORDS[args.status] ?? args.status;
      if (Array.from(symbol).length !== 1 || symbol === "]" || /[\r\n]/.test(symbol)) {
        throw new ToolError(`status ${JSON.stringify(args.status)} is not "done", "open", "in_progress", "cancelled" or one checkbox character`);
      }
      if (args.expected_hash === undefined && args.expected_text === undefined) {
        throw new ToolError("set_task needs expected_hash (the note's sha256) or expected_text (the task's text from tasks); nothing was written");
      }
      const { file } = resolveMarkdown(ctx, args.path);
      let previous = "";
      let taskText = "";
      // Only the one character changes: the note's other bytes, line endings included, are left as they are.
      const { sha256 } = await editNote(ctx, file, args.expected_hash, (current) => {
        const count = splitLines(current).length;
        if (args.line > count) throw new ToolError(`line ${args.line} is past the end: ${file.path} has ${count} lines`);
        let start = 0;
        for (let n = 1; n < args.line; n++) start = current.indexOf("\n", start) + 1;
        const end = current.indexOf("\n", start);
        const line = current.slice(start, end < 0 ? current.length : end).replace(/\r$/, "");
        const task = parseTaskLine(line);
        if (task === null) throw new ToolError(`line ${args.line} of ${file.path} is not a task; nothing was written`);
        if (args.expected_text !== undefined && task.text !== args.expected_text.replace(/^[ \t]+|[ \t]+$/g, "")) {
          throw new ToolError(
            `conflict: line ${args.line} of ${file.path} is now ${JSON.stringify(task.text)}, not the expected text; nothing was written. Run tasks again for its current line.`,
          );
        }
        previous = task.symbol;
        taskText = task.text;
        const at = start + task.lead.length;
        return current.slice(0, at) + symbol + current.slice(at + task.symbol.length);
      });
      return json({ path: file.path, line: args.line, status: symbol, previous_status: previous, text: taskText, sha256 });
    },
  }),
);

export const TASK_TOOLS = [tasks, setTask];
