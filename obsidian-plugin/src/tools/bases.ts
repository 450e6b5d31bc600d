// `bases`: the vault's `.base` files and their views, or one view's rows. Obsidian evaluates bases only inside its
// own views (the plugin API offers no query of a base), so obsmcp evaluates the documented expression language's
// common subset itself (../vault/bases-expr.ts) over the metadata cache, the same way offline; anything outside the
// subset is refused with the expression named.

import { z } from "zod";
import { parseYaml, type TFile } from "obsidian";
import { baseOf, runView, type FileFacts } from "../vault/bases";
import { insideVaultChecker, readVerified } from "../vault/disk";
import { visibleChecker, visibleLinkMaps } from "../vault/hidden";
import { cursorArg, limitArg, maxCharsArg, pageOf } from "../vault/limits";
import { noteTags } from "../vault/links";
import { configDirChecker, parentOf } from "../vault/paths";
import { resolveNote } from "../vault/resolve";
import { json, pageHead } from "./common";
import { defineTool, ToolError, type ToolContext } from "./types";

const byPath = (a: TFile, b: TFile) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

async function readBase(ctx: ToolContext, file: TFile) {
  const text = await readVerified(ctx, file);
  let yaml: unknown;
  try {
    yaml = text.trim() === "" ? null : parseYaml(text);
  } catch {
    throw new ToolError(`${file.path} is not valid YAML, so not a base; open it in Obsidian to see what is wrong`);
  }
  return baseOf(file.path, yaml);
}

/** Every visible file outside the config folder as the query sees it, in path order. */
function vaultFacts(ctx: ToolContext): FileFacts[] {
  const visible = visibleChecker(ctx);
  const inConfigDir = configDirChecker(ctx);
  const inside = insideVaultChecker(ctx);
  const links = visibleLinkMaps(ctx);
  return ctx.app.vault
    .getFiles()
    .filter((file) => !inConfigDir(file.path) && visible(file))
    .sort(byPath)
    .map((file) => {
      const markdown = file.extension === "md";
      // A note whose real file is outside the vault has no properties, tags or links here (they are its content).
      const cache = markdown && inside(file) ? ctx.app.metadataCache.getFileCache(file) : null;
      return {
        path: file.path,
        name: file.name,
        basename: file.basename,
        folder: parentOf(file.path),
        ext: file.extension,
        size: file.stat.size,
        ctime: file.stat.ctime,
        mtime: file.stat.mtime,
        tags: noteTags(cache).map((tag) => tag.replace(/^#/, "")),
        links: cache ? [...Object.keys(links.resolved[file.path] ?? {}), ...Object.keys(links.unresolved[file.path] ?? {})] : [],
        properties: (cache?.frontmatter ?? {}) as Record<string, unknown>,
      };
    });
}

export const bases = defineTool({
  name: "bases",
  title: "Bases",
  description:
    "Without base: the vault's .base files and their views. With base: one view's rows (its filters, sort, group and " +
    "limit applied; its order as columns), evaluated by obsmcp over the vault (a subset of the Bases language).",
  input: {
    base: z.string().min(1).max(1024).optional().describe('The .base file, e.g. "Projects.base" (without it: every base and its views).'),
    view: z.string().max(200).optional().describe("The view's name (default: the first)."),
    limit: limitArg("rows or bases", 100),
    cursor: cursorArg(),
    max_chars: maxCharsArg(),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    if (args.base === undefined) {
      if (args.view !== undefined) throw new ToolError("view needs base: the base whose view to run");
      const visible = visibleChecker(ctx);
      const inConfigDir = configDirChecker(ctx);
      const inside = insideVaultChecker(ctx);
      const files = ctx.app.vault
        .getFiles()
        .filter((file) => file.extension === "base" && !inConfigDir(file.path) && visible(file))
        .sort(byPath);
      const all: { path: string; views?: { name: string; type: string }[]; error?: string }[] = [];
      for (const file of files) {
        if (!inside(file)) {
          all.push({ path: file.path, error: "its real file is outside the vault, so it is not read" });
          continue;
        }
        try {
          const base = await readBase(ctx, file);
          all.push({ path: file.path, views: base.views.map((view) => ({ name: view.name, type: view.type })) });
        } catch (error) {
          if (!(error instanceof ToolError)) throw error;
          all.push({ path: file.path, error: error.message });
        }
      }
      const { page, next } = pageOf(all, args, 200);
      return json({ ...pageHead("bases", args, next), total: all.length, bases: page });
    }
    const { file } = resolveNote(ctx, args.base);
    if (file.extension !== "base") throw new ToolError(`${file.path} is not a base (.base file)`);
    const base = await readBase(ctx, file);
    if (base.views.length === 0) throw new ToolError(`${file.path} has no views`);
    const view = args.view === undefined ? base.views[0] : base.views.find((candidate) => candidate.name === args.view);
    if (!view) throw new ToolError(`${file.path} has no view ${JSON.stringify(args.view)}; its views: ${base.views.map((v) => JSON.stringify(v.name)).join(", ")}`);
    const result = runView(base, view, vaultFacts(ctx), Date.now(), file.path);
    const { page, next } = pageOf(result.rows, args, 400 + JSON.stringify(result.columns).length);
    return json({
      ...pageHead("bases", args, next),
      path: file.path,
      view: view.name,
      type: view.type,
      ...(result.unshown.length > 0 ? { not_shown: result.unshown } : {}),
      columns: result.columns,
      total: result.total,
      rows: page,
    });
  },
});

export const BASE_TOOLS = [bases];
