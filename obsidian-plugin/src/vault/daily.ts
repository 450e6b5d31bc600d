// Periodic-note settings and paths. The core "Daily notes" plugin keeps its settings on its instance, which the public
// typings do not describe, so we read them through one narrow cast and fall back to Obsidian's own defaults
// (format YYYY-MM-DD, vault root, no template) when the plugin is absent or has not saved settings. Weekly, monthly,
// quarterly and yearly notes (and daily ones, when it manages them) follow the community Periodic Notes plugin: its
// settings file, `<configDir>/plugins/periodic-notes/data.json`, when the plugin is enabled
// (`<configDir>/community-plugins.json`) and the period is turned on there; its defaults otherwise.

import { moment } from "obsidian";
import type { Moment } from "moment";
import type { VaultContext } from "./context";
import { ToolError } from "./errors";
import { readConfigJson } from "./disk";
import type { Slices } from "./slices";

/** The daily-notes settings a tool reports and honours. */
export interface DailyNoteSettings {
  enabled: boolean;
  format: string;
  folder: string;
  template: string;
}

interface DailyNotesPlugin {
  enabled?: boolean;
  instance?: { options?: { format?: string; folder?: string; template?: string } };
}

interface InternalPlugins {
  getPluginById?(id: string): DailyNotesPlugin | null | undefined;
}

export const DEFAULT_DAILY_FORMAT = "YYYY-MM-DD";

/** The core Daily notes plugin's settings, defaults filled in. */
export function dailyNoteSettings(ctx: VaultContext): DailyNoteSettings {
  const internal = (ctx.app as unknown as { internalPlugins?: InternalPlugins }).internalPlugins;
  const plugin = internal?.getPluginById?.("daily-notes") ?? null;
  const options = plugin?.instance?.options ?? {};
  return {
    enabled: Boolean(plugin?.enabled),
    format: options.format?.trim() || DEFAULT_DAILY_FORMAT,
    folder: (options.folder ?? "").trim().replace(/^\/+|\/+$/g, ""),
    template: (options.template ?? "").trim(),
  };
}

/** A moment for `date`: "today", "yesterday", "tomorrow" or YYYY-MM-DD (strict). */
export function parseDailyDate(date: string): Moment {
  const today = moment().startOf("day");
  const word = date.trim().toLowerCase();
  if (word === "" || word === "today") return today;
  if (word === "yesterday") return today.subtract(1, "day");
  if (word === "tomorrow") return today.add(1, "day");
  const parsed = moment(date.trim(), "YYYY-MM-DD", true);
  if (!parsed.isValid()) throw new ToolError(`date ${JSON.stringify(date)} is not YYYY-MM-DD, today, yesterday or tomorrow`);
  return parsed;
}

/** The vault path of the daily note for `day` under `settings`. */
export function dailyNotePath(settings: DailyNoteSettings, day: Moment): string {
  const name = day.format(settings.format);
  return (settings.folder ? `${settings.folder}/${name}` : name) + ".md";
}

/** The periods a periodic note can cover. */
export const PERIODS = ["day", "week", "month", "quarter", "year"] as const;
export type Period = (typeof PERIODS)[number];

/** Periodic Notes' key and default format for each period, and the word results use. */
const PERIOD_SETTINGS: Record<Period, { key: string; format: string; noun: string }> = {
  day: { key: "daily", format: DEFAULT_DAILY_FORMAT, noun: "daily" },
  week: { key: "weekly", format: "gggg-[W]ww", noun: "weekly" },
  month: { key: "monthly", format: "YYYY-MM", noun: "monthly" },
  quarter: { key: "quarterly", format: "YYYY-[Q]Q", noun: "quarterly" },
  year: { key: "yearly", format: "YYYY", noun: "yearly" },
};

/** A period's settings and which plugin they come from. */
export interface PeriodicSettings extends DailyNoteSettings {
  period: Period;
  /** "periodic-notes", "daily-notes" (the core plugin, days only) or "default" (neither has settings for it). */
  source: string;
  /** "daily", "weekly", …: how messages name the note. */
  noun: string;
}

/** The settings that place `period`'s notes. */
export function periodicSettings(ctx: VaultContext, period: Period): PeriodicSettings {
  const { key, format, noun } = PERIOD_SETTINGS[period];
  const enabledPlugins = readConfigJson(ctx, "community-plugins.json");
  if (Array.isArray(enabledPlugins) && enabledPlugins.includes("periodic-notes")) {
    const saved = (readConfigJson(ctx, "plugins", "periodic-notes", "data.json") as Record<string, unknown> | null)?.[key];
    if (saved && typeof saved === "object" && (saved as { enabled?: unknown }).enabled === true) {
      const options = saved as { format?: unknown; folder?: unknown; template?: unknown };
      const text = (value: unknown) => (typeof value === "string" ? value.trim() : "");
      return {
        period,
        source: "periodic-notes",
        noun,
        enabled: true,
        format: text(options.format) || format,
        folder: text(options.folder).replace(/^\/+|\/+$/g, ""),
        template: text(options.template),
      };
    }
  }
  if (period === "day") return { ...dailyNoteSettings(ctx), period, source: "daily-notes", noun };
  return { period, source: "default", noun, enabled: false, format, folder: "", template: "" };
}

/** The first day of the period holding `day` (weeks start on Sunday, as moment's default locale has them). */
export function periodStart(day: Moment, period: Period): Moment {
  return day.clone().startOf(period);
}

/** Longest format a `{{date:FMT}}` or `{{time:FMT}}` may give, in characters (spaces around it not counted). */
export const MAX_FORMAT_CHARS = 100;

/** Most distinct formats one template may give. */
export const MAX_TEMPLATE_FORMATS = 50;

const PLACEHOLDER_NAMES = ["date", "time", "title"] as const;
type PlaceholderName = (typeof PLACEHOLDER_NAMES)[number];

/** One placeholder of a template: its span, its name, and the text after its ":" when it has one. */
interface Placeholder {
  start: number;
  end: number;
  name: PlaceholderName;
  format?: string;
}

const SPACE = /\s/;

/**
 * Finds placeholders exactly where `/\{\{\s*(date|time|title)\s*(?::([^}]*))?\}\}/gi` matches, in linear time. That
 * regex backtracks: each `{{date:` runs its `[^}]*` to the next "}" (or the end), so a template of `{{date:` × 25,000
 * without one cost 25,000 scans of the rest of the text (Obsidian's UI thread held for 10-14 s). Here the next "}" is
 * found once and reused by every placeholder before it, and every other step looks at a character once.
 */
class PlaceholderScanner {
  /** The first "}" at or after `closeFrom` (the text's length when there is none). */
  private close = -1;
  private closeFrom = Number.POSITIVE_INFINITY;

  constructor(private readonly text: string) {}

  /** The placeholder starting at `start` (where the text holds "{{"), or null when none starts there. */
  at(start: number): Placeholder | null {
    const text = this.text;
    let i = this.skipSpaces(start + 2);
    const name = PLACEHOLDER_NAMES.find((each) => this.asciiInsensitiveAt(i, each));
    if (name === undefined) return null;
    i = this.skipSpaces(i + name.length);
    let format: string | undefined;
    if (text[i] === ":") {
      // [^}]* runs to the first "}", and "}}" must follow there: a shorter run would stop before a character that
      // is not "}", so it cannot match either.
      const close = this.firstCloseFrom(i + 1);
      format = text.slice(i + 1, close);
      i = close;
    }
    return text.startsWith("}}", i) ? { start, end: i + 2, name, format } : null;
  }

  private skipSpaces(from: number): number {
    let i = from;
    while (i < this.text.length && SPACE.test(this.text[i])) i++;
    return i;
  }

  /** Whether `word` (lower-case ASCII) is at `i`, ASCII letters compared as the regex's /i does without /u. */
  private asciiInsensitiveAt(i: number, word: string): boolean {
    if (i + word.length > this.text.length) return false;
    for (let k = 0; k < word.length; k++) {
      const code = this.text.charCodeAt(i + k);
      const lower = code >= 65 && code <= 90 ? code + 32 : code;
      if (lower !== word.charCodeAt(k)) return false;
    }
    return true;
  }

  private firstCloseFrom(from: number): number {
    if (this.closeFrom <= from && this.close >= from) return this.close;
    const found = this.text.indexOf("}", from);
    this.close = found < 0 ? this.text.length : found;
    this.closeFrom = from;
    return this.close;
  }
}

/** The 1-based line of the text holding character `at`, for messages. */
function lineAt(text: string, at: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i >= 0 && i < at; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/**
 * Fills the placeholders Obsidian's daily notes and core Templates fill in a template: {{title}}, {{date}}, {{time}},
 * {{date:FMT}}, {{time:FMT}}; `{{date}}` takes `formats.format`, `{{time}}` `formats.timeFormat` (default HH:mm).
 * Placeholders are found in linear time and filled in slices, so a large template never holds Obsidian's thread for
 * long. A format over MAX_FORMAT_CHARS, or more than MAX_TEMPLATE_FORMATS distinct ones, is refused with the line it
 * is on: moment keeps every format it is given for as long as Obsidian runs (a 2,000,000-character one held ~17 MB).
 */
export async function fillTemplate(
  template: { path: string; text: string },
  title: string,
  day: Moment,
  formats: { format: string; timeFormat?: string },
  slices: Slices,
): Promise<string> {
  const { text } = template;
  const now = moment();
  const dayNow = day.clone().set({ hour: now.hour(), minute: now.minute() });
  const scanner = new PlaceholderScanner(text);
  const given = new Set<string>();
  // Each slice's pieces are joined before the pause: one join of a million pieces at the end would hold the thread.
  const filled: string[] = [];
  let parts: string[] = [];
  let last = 0;
  for (let at = text.indexOf("{{"); at >= 0; ) {
    if (slices.due()) {
      filled.push(parts.join(""));
      parts = [];
      await slices.pause();
    }
    const found = scanner.at(at);
    if (found === null) {
      at = text.indexOf("{{", at + 1);
      continue;
    }
    parts.push(text.slice(last, found.start));
    if (found.name === "title") {
      parts.push(title);
    } else {
      const format = found.format?.trim() ?? "";
      if (format.length > MAX_FORMAT_CHARS) {
        throw new ToolError(
          `${template.path}, line ${lineAt(text, found.start)}: a {{${found.name}:…}} format of ${format.length} characters; ` +
            `formats are limited to ${MAX_FORMAT_CHARS} characters, so nothing was created (shorten it in the template)`,
        );
      }
      if (format !== "" && !given.has(format)) {
        given.add(format);
        if (given.size > MAX_TEMPLATE_FORMATS) {
          throw new ToolError(
            `${template.path}, line ${lineAt(text, found.start)}: more than ${MAX_TEMPLATE_FORMATS} different date and time ` +
              "formats in one template, so nothing was created (use fewer in the template)",
          );
        }
      }
      const stamp = found.name === "time" ? now : dayNow;
      parts.push(stamp.format(format || (found.name === "time" ? (formats.timeFormat ?? "HH:mm") : formats.format)));
    }
    last = found.end;
    at = text.indexOf("{{", last);
  }
  parts.push(text.slice(last));
  filled.push(parts.join(""));
  return filled.join("");
}
