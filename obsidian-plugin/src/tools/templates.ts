// The core Templates plugin: its templates folder and formats (`<configDir>/templates.json`, which Obsidian writes
// when the settings change), the templates in it, and a new note made from one with `{{title}}`, `{{date}}`,
// `{{time}}` and their `:FORMAT` forms filled as the core plugin fills them. Templater's `<% … %>` commands are never
// run: such a template is inserted as text, and the result says so.

import { z } from "zod";
import { moment, TFile } from "obsidian";
import { fillTemplate } from "../vault/daily";
import { createInside, ensureParentFolders, insideVaultChecker, readConfigJson, readVerified } from "../vault/disk";
import { contentHash } from "../vault/hash";
import { visibleChecker } from "../vault/hidden";
import { cursorArg, limitArg, maxCharsArg, pageOf } from "../vault/limits";
import { configDirChecker } from "../vault/paths";
import { Slices } from "../vault/slices";
import { cleanFolderPath, newNotePath, resolveNote } from "../vault/resolve";
import { json, pageHead, pathArg, writeTool } from "./common";
import { defineTool, ToolError, type ToolContext } from "./types";

interface TemplateSettings {
  enabled: boolean;
  folder: string;
  date_format: string;
  time_format: string;
}

/** The core Templates plugin's settings, its defaults filled in (no folder, YYYY-MM-DD, HH:mm). */
function templateSettings(ctx: ToolContext): TemplateSettings {
  const core = readConfigJson(ctx, "core-plugins.json");
  const enabled = Array.isArray(core) ? core.includes("templates") : core && typeof core === "object" ? (core as Record<string, unknown>).templates === true : false;
  const saved = (readConfigJson(ctx, "templates.json") ?? {}) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === "string" ? value.trim() : "");
  return {
    enabled,
    folder: text(saved.folder).replace(/^\/+|\/+$/g, ""),
    date_format: text(saved.dateFormat) || "YYYY-MM-DD",
    time_format: text(saved.timeFormat) || "HH:mm",
  };
}

/** Whether a template holds Templater commands, which obsmcp never runs. */
function usesTemplater(text: string): boolean {
  return text.includes("<%");
}

export const templates = defineTool({
  name: "templates",
  title: "Templates",
  description:
    "The core Templates plugin's settings (folder, date and time formats) and the templates in its folder, marked " +
    "when they hold Templater commands (never run: create_from_template inserts them as text).",
  input: {
    limit: limitArg("templates", 200),
    cursor: cursorArg(),
    max_chars: maxCharsArg(),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const settings = templateSettings(ctx);
    const folder = settings.folder === "" ? "" : cleanFolderPath(settings.folder, ctx);
    const visible = visibleChecker(ctx);
    const inConfigDir = configDirChecker(ctx);
    const inside = insideVaultChecker(ctx);
    const files = folder === ""
      ? []
      : ctx.app.vault
          .getMarkdownFiles()
          .filter((file) => file.path.startsWith(`${folder}/`) && !inConfigDir(file.path) && visible(file))
          .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const all: { path: string; name: string; templater?: true }[] = [];
    for (const file of files) {
      const entry: { path: string; name: string; templater?: true } = { path: file.path, name: file.basename };
      // A template whose real file is outside the vault is listed but never read.
      if (inside(file) && usesTemplater(await ctx.app.vault.cachedRead(file))) entry.templater = true;
      all.push(entry);
    }
    const { page, next } = pageOf(all, args, 400);
    return json({
      ...pageHead("templates", args, next),
      settings,
      ...(folder === "" ? { note: "no templates folder is set in the Templates plugin's settings" } : {}),
      total: all.length,
      templates: page,
    });
  },
});

export const createFromTemplate = writeTool(
  defineTool({
    name: "create_from_template",
    title: "Create note from template",
    description:
      "Create a note from a template with {{title}}, {{date}}, {{time}} and {{date:FORMAT}} filled as the core " +
      "Templates plugin fills them. Refuses an existing note. Templater commands are inserted as text, never run.",
    input: {
      path: z.string().min(1).describe('Vault-relative path of the new note, e.g. "Meetings/2026-12-01 Standup.md".'),
      template: pathArg.describe('The template: a path or name, e.g. "Templates/Meeting" or "Meeting" (in the templates folder).'),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async run(args, ctx) {
      const settings = templateSettings(ctx);
      const path = newNotePath(ctx, args.path);
      const existing = ctx.app.vault.getAbstractFileByPath(path);
      if (existing) throw new ToolError(`${path} already exists; nothing was written (edit it, or pick another path)`);
      let template: TFile;
      try {
        template = resolveNote(ctx, args.template).file;
      } catch (error) {
        // A bare name is looked for in the templates folder too, as the core plugin's picker lists it.
        if (!(error instanceof ToolError) || settings.folder === "") throw error;
        template = resolveNote(ctx, `${settings.folder}/${args.template}`).file;
      }
      if (template.extension.toLowerCase() !== "md") throw new ToolError(`${template.path} is not a Markdown note, so not a template`);
      const text = await readVerified(ctx, template);
      const title = path.slice(path.lastIndexOf("/") + 1, -".md".length);
      const formats = { format: settings.date_format, timeFormat: settings.time_format };
      const slices = new Slices(ctx.signal, "create_from_template");
      const content = await fillTemplate({ path: template.path, text }, title, moment(), formats, slices);
      await ensureParentFolders(ctx, path);
      const created = await createInside(ctx, path, content);
      return json({
        path: created.path,
        template: template.path,
        sha256: contentHash(content),
        ...(usesTemplater(text) ? { templater: "the template holds Templater commands (<% … %>): inserted as text, not run" } : {}),
      });
    },
  }),
);

export const TEMPLATE_TOOLS = [templates, createFromTemplate];
