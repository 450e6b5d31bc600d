// Periodic-note settings and paths. The core "Daily notes" plugin keeps its settings on its instance, which the public
// typings do not describe, so we read them through one narrow cast and fall back to Obsidian's own defaults
// (format YYYY-MM-DD, vault root, no template) when the plugin is absent or has not saved settings. Weekly, monthly,
// quarterly and yearly notes (and daily ones, when it manages them) follow the community Periodic Notes plugin: its
// settings file, `<configDir>/plugins/periodic-notes/data.json`, when the plugin is enabled
// (`<configDir>/community-plugins.json`) and the period is turned on there; its defaults otherwise.

import { moment } from "obsidian";
import type { Moment } from "moment";
import type { ToolContext } from "../tools/types";
import { ToolError } from "../tools/types";
import { readConfigJson } from "./disk";

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
export function dailyNoteSettings(ctx: ToolContext): DailyNoteSettings {
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
export function periodicSettings(ctx: ToolContext, period: Period): PeriodicSettings {
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

/**
 * Fills the placeholders Obsidian's daily notes and core Templates fill in a template: {{title}}, {{date}}, {{time}},
 * {{date:FMT}}, {{time:FMT}}; `{{date}}` takes `formats.format`, `{{time}}` `formats.timeFormat` (default HH:mm).
 */
export function fillTemplate(template: string, title: string, day: Moment, formats: { format: string; timeFormat?: string }): string {
  const now = moment();
  return template.replace(/\{\{\s*(date|time|title)\s*(?::([^}]*))?\}\}/gi, (_match, name: string, format?: string) => {
    const key = name.toLowerCase();
    if (key === "title") return title;
    const stamp = key === "time" ? now : day.clone().set({ hour: now.hour(), minute: now.minute() });
    return stamp.format(format?.trim() || (key === "time" ? (formats.timeFormat ?? "HH:mm") : formats.format));
  });
}
