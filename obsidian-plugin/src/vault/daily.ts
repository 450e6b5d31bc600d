// Daily-note settings and paths. The core "Daily notes" plugin keeps its settings on its instance, which the public
// typings do not describe, so we read them through one narrow cast and fall back to Obsidian's own defaults
// (format YYYY-MM-DD, vault root, no template) when the plugin is absent or has not saved settings.

import { moment } from "obsidian";
import type { Moment } from "moment";
import type { ToolContext } from "../tools/types";
import { ToolError } from "../tools/types";

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

/** Fills the placeholders Obsidian's daily notes fill in a template: {{title}}, {{date}}, {{time}}, {{date:FMT}}. */
export function fillDailyTemplate(template: string, title: string, day: Moment, settings: DailyNoteSettings): string {
  const now = moment();
  return template.replace(/\{\{\s*(date|time|title)\s*(?::([^}]*))?\}\}/gi, (_match, name: string, format?: string) => {
    const key = name.toLowerCase();
    if (key === "title") return title;
    const stamp = key === "time" ? now : day.clone().set({ hour: now.hour(), minute: now.minute() });
    return stamp.format(format?.trim() || (key === "time" ? "HH:mm" : settings.format));
  });
}
