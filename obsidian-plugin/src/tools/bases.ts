// `bases`: the vault's `.base` files and their views, or one view's rows. Obsidian evaluates bases only inside its
// own views (the plugin API offers no query of a base), so obsmcp evaluates the documented expression language's
// common subset itself (../vault/bases-expr.ts) over the metadata cache, the same way offline; anything outside the
// subset is refused with the expression named.

import { z } from "zod";
import { parseYaml, type CachedMetadata, type TFile } from "obsidian";
import { baseOf, runView, type FileFacts } from "../vault/bases";
import { insideVaultChecker, readVerified } from "../vault/disk";
import { visibleChecker, visibleLinkMaps, type LinkMaps } from "../vault/hidden";
import { cursorArg, limitArg, maxCharsArg, pageOf } from "../vault/limits";
import { noteTags } from "../vault/links";
import { configDirChecker, parentOf } from "../vault/paths";
import { resolveNote } from "../vault/resolve";
import { Slices } from "../vault/slices";
import { json, pageHead } from "./common";
import { defineTool, ToolError, type ToolContext } from "./types";

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

/**
 * A file as the query sees it. Its tags and links are worked out only when an expression asks for them: most filters
 * read a property or two, and a base is evaluated over every file of the vault.
 */
class VaultFile implements FileFacts {
  readonly path: string;
  readonly name: string;
  readonly basename: string;
  readonly folder: string;
  readonly ext: string;
  readonly size: number;
  readonly ctime: number;
  readonly mtime: number;
  readonly properties: Record<string, unknown>;
  private knownTags?: string[];
  private knownLinks?: string[];

  constructor(
    file: TFile,
    private readonly cache: CachedMetadata | null,
    private readonly linkMaps: LinkMaps,
  ) {
    this.path = file.path;
    this.name = file.name;
    this.basename = file.basename;
    this.folder = parentOf(file.path);
    this.ext = file.extension;
    this.size = file.stat.size;
    this.ctime = file.stat.ctime;
    this.mtime = file.stat.mtime;
    this.properties = (cache?.frontmatter ?? {}) as Record<string, unknown>;
  }

  get tags(): string[] {
    this.knownTags ??= noteTags(this.cache).map((tag) => tag.replace(/^#/, ""));
    return this.knownTags;
  }

  get links(): string[] {
    this.knownLinks ??= this.cache
      ? [...Object.keys(this.linkMaps.resolved[this.path] ?? {}), ...Object.keys(this.linkMaps.unresolved[this.path] ?? {})]
      : [];
    return this.knownLinks;
  }
}

/** Every visible file outside the config folder as the query sees it, in path order, gathered in slices. */
async function vaultFacts(ctx: ToolContext, slices: Slices): Promise<FileFacts[]> {
  const visible = visibleChecker(ctx);
  const inConfigDir = configDirChecker(ctx);
  const inside = insideVaultChecker(ctx);
  const links = await visibleLinkMaps(ctx, slices);
  const files = await slices.filter(
    (await ctx.files.filesInSlices(slices)).map((entry) => entry.file),
    (file) => !inConfigDir(file.path) && visible(file),
  );
  return slices.map(files, (file) => {
    // A note whose real file is outside the vault has no properties, tags or links here (they are its content).
    const cache = file.extension === "md" && inside(file) ? ctx.app.metadataCache.getFileCache(file) : null;
    return new VaultFile(file, cache, links);
  });
}

export const bases = defineTool({
  name: "bases",
  cache: "wait",
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
      const slices = new Slices(ctx.signal, "bases");
      const files = await slices.filter(
        (await ctx.files.filesInSlices(slices)).map((entry) => entry.file),
        (file) => file.extension === "base" && !inConfigDir(file.path) && visible(file),
      );
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
    const slices = new Slices(ctx.signal, "bases");
    const result = await runView(base, view, await vaultFacts(ctx, slices), Date.now(), file.path, slices);
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
