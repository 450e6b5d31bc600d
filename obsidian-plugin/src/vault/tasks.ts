// Tasks as the Tasks plugin and Dataview write them: the checkbox character's status (the Tasks plugin's own status
// settings when the vault has them), and the due / scheduled / start / done dates in either the emoji format
// (`📅 2026-12-01`) or Dataview's inline fields (`[due:: 2026-12-01]`). Pure text rules, so that the offline reader
// (src/offline/plugin/vault/tasks.rs) follows them exactly; the rules are stated in ../tools/README.md (tasks).

/** What a status means, as the Tasks plugin types its statuses. */
export type StatusType = "todo" | "in_progress" | "done" | "cancelled" | "non_task";

export interface TaskStatus {
  symbol: string;
  name: string;
  type: StatusType;
}

/** The symbol of the status every character not defined otherwise has (no single character is empty). */
const ANY_OTHER = "";

/**
 * The statuses a vault without Tasks plugin settings has: the Tasks plugin's defaults (`/` in progress, `-`
 * cancelled), and Obsidian's own rule for every other character: any character inside the brackets checks the box
 * (help: Editing and formatting/Basic formatting syntax, Task lists), so `X` and `?` are done.
 */
export const DEFAULT_STATUSES: readonly TaskStatus[] = [
  { symbol: " ", name: "Todo", type: "todo" },
  { symbol: "x", name: "Done", type: "done" },
  { symbol: "X", name: "Done", type: "done" },
  { symbol: "/", name: "In Progress", type: "in_progress" },
  { symbol: "-", name: "Cancelled", type: "cancelled" },
  { symbol: ANY_OTHER, name: "Checked", type: "done" },
];

const TYPES: Record<string, StatusType> = {
  TODO: "todo",
  IN_PROGRESS: "in_progress",
  DONE: "done",
  CANCELLED: "cancelled",
  NON_TASK: "non_task",
};

/**
 * The statuses of the Tasks plugin's settings (its data.json, parsed): `statusSettings.coreStatuses` then
 * `customStatuses`, the first definition of a symbol winning; the defaults when it defines none.
 */
export function statusesFromSettings(settings: unknown): TaskStatus[] {
  const found: TaskStatus[] = [];
  const statusSettings = (settings as { statusSettings?: Record<string, unknown> } | null)?.statusSettings;
  for (const key of ["coreStatuses", "customStatuses"]) {
    const list = statusSettings?.[key];
    if (!Array.isArray(list)) continue;
    for (const item of list as Record<string, unknown>[]) {
      const symbol = item?.symbol;
      const type = typeof item?.type === "string" ? TYPES[item.type] : undefined;
      if (typeof symbol !== "string" || Array.from(symbol).length !== 1 || type === undefined) continue;
      if (found.some((status) => status.symbol === symbol)) continue;
      found.push({ symbol, name: typeof item.name === "string" ? item.name : symbol, type });
    }
  }
  return found.length > 0 ? found : DEFAULT_STATUSES.slice();
}

/**
 * The status of `symbol`: its definition, else the definition of any other character (the defaults have one), else
 * an unknown symbol, which the Tasks plugin treats as to do.
 */
export function statusOf(statuses: readonly TaskStatus[], symbol: string): TaskStatus {
  const found = statuses.find((status) => status.symbol === symbol) ?? statuses.find((status) => status.symbol === ANY_OTHER);
  return found ? { ...found, symbol } : { symbol, name: "Unknown", type: "todo" };
}

/** The dates a task may carry, in the order results list them. */
export const DATE_FIELDS = ["due", "scheduled", "start", "done"] as const;
export type DateField = (typeof DATE_FIELDS)[number];

const DATE = "(\\d{4}-\\d{2}-\\d{2})";
/** Each date's emoji (with an optional variation selector) and its Dataview field name. */
const DATE_PATTERNS: Record<DateField, RegExp[]> = {
  due: [new RegExp(`(?:📅|📆|🗓)\\uFE0F? *${DATE}`, "u"), dataview("due")],
  scheduled: [new RegExp(`(?:⏳|⌛)\\uFE0F? *${DATE}`, "u"), dataview("scheduled")],
  start: [new RegExp(`🛫\\uFE0F? *${DATE}`, "u"), dataview("start")],
  done: [new RegExp(`✅\\uFE0F? *${DATE}`, "u"), dataview("completion")],
};

/** `[field:: 2026-12-01]` or `(field:: 2026-12-01)`. */
function dataview(field: string): RegExp {
  return new RegExp(`[\\[(]${field}:: *${DATE} *[\\])]`, "u");
}

/** The dates written in a task's text: for each field the first one found, emoji format first, then Dataview's. */
export function taskDates(text: string): Partial<Record<DateField, string>> {
  const dates: Partial<Record<DateField, string>> = {};
  for (const field of DATE_FIELDS) {
    for (const pattern of DATE_PATTERNS[field]) {
      const found = pattern.exec(text);
      if (found) {
        dates[field] = found[1];
        break;
      }
    }
  }
  return dates;
}

/**
 * A task line: its indentation and list marker up to the `[`, the status symbol, and the text after `] `. Block quotes
 * (`> - [ ] …`) are tasks too. Null for a line that is not one.
 */
export function parseTaskLine(line: string): { lead: string; symbol: string; text: string } | null {
  const found = /^((?:[ \t]*>)*[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\[)([^\]\n\r])\](?:[ \t]+|$)(.*)$/u.exec(line);
  if (!found) return null;
  return { lead: found[1], symbol: found[2], text: found[3].replace(/[ \t]+$/, "") };
}
