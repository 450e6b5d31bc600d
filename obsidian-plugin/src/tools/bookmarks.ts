// The core Bookmarks plugin's items, as it saves them in `<configDir>/bookmarks.json` (Obsidian writes the file as
// soon as a bookmark changes; the plugin's in-memory list is not part of the public API). Groups are flattened into
// one list in the order the Bookmarks pane shows them, each item naming the group path it sits in, so the list pages
// like any other. A bookmark of a hidden path, or of anything inside the config folder, does not exist.

import fs from "fs";
import path from "path";
import { vaultBasePath } from "../vault/disk";
import { hiddenChecker } from "../vault/hidden";
import { cursorArg, limitArg, maxCharsArg, pageOf } from "../vault/limits";
import { configDirChecker } from "../vault/paths";
import { json, pageHead } from "./common";
import { defineTool, ToolError, type ToolContext } from "./types";

/** One bookmark as the result lists it; keys absent from the saved item are left out. */
interface BookmarkRow {
  type: string;
  group: string;
  title?: string;
  path?: string;
  subpath?: string;
  query?: string;
  url?: string;
  missing?: true;
}

/** The saved items, or null when there is no bookmarks.json; a file that cannot be read or is not JSON is an error. */
function savedItems(ctx: ToolContext): unknown[] | null {
  const file = path.join(vaultBasePath(ctx), ...ctx.configDir.split("/"), "bookmarks.json");
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new ToolError(`${ctx.configDir}/bookmarks.json cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"}), so the bookmarks cannot be listed`);
  }
  let saved: unknown;
  try {
    saved = JSON.parse(text);
  } catch {
    throw new ToolError(`${ctx.configDir}/bookmarks.json is not valid JSON, so the bookmarks cannot be read; Obsidian rewrites it when a bookmark changes`);
  }
  const items = (saved as { items?: unknown } | null)?.items;
  return Array.isArray(items) ? items : [];
}

/** The items of a group (or the top level) in order, groups followed by what they hold. */
function flatten(ctx: ToolContext, items: unknown[], group: string, out: BookmarkRow[]): void {
  const hidden = hiddenChecker(ctx);
  const inConfigDir = configDirChecker(ctx);
  const vault = ctx.app.vault;
  for (const item of items) {
    if (item === null || typeof item !== "object" || Array.isArray(item)) continue;
    const saved = item as Record<string, unknown>;
    const type = typeof saved.type === "string" ? saved.type : "unknown";
    const row: BookmarkRow = { type, group };
    if (typeof saved.title === "string" && saved.title !== "") row.title = saved.title;
    if (typeof saved.path === "string") {
      const target = saved.path.replace(/^\/+/, "");
      if (inConfigDir(target) || hidden(target)) continue;
      row.path = target;
      if (vault.getAbstractFileByPath(target) === null && target !== "") row.missing = true;
    }
    if (typeof saved.subpath === "string" && saved.subpath !== "") row.subpath = saved.subpath;
    if (typeof saved.query === "string") row.query = saved.query;
    if (typeof saved.url === "string") row.url = saved.url;
    out.push(row);
    if (type === "group" && Array.isArray(saved.items)) {
      const name = row.title ?? "";
      flatten(ctx, saved.items, group === "" ? name : `${group}/${name}`, out);
    }
  }
}

export const bookmarks = defineTool({
  name: "bookmarks",
  title: "Bookmarks",
  description:
    "The core Bookmarks plugin's items in the order its pane shows them: notes, headings, blocks, folders, searches, " +
    "URLs and groups (flattened; each item names its group path). Bookmarks of missing files are marked missing.",
  input: {
    limit: limitArg("bookmarks", 200),
    cursor: cursorArg(),
    max_chars: maxCharsArg(),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const items = savedItems(ctx);
    const all: BookmarkRow[] = [];
    if (items !== null) flatten(ctx, items, "", all);
    const { page, next } = pageOf(all, args, 300);
    return json({
      ...pageHead("bookmarks", args, next),
      ...(items === null ? { note: "no bookmarks.json: the vault has no bookmarks (or the Bookmarks core plugin was never used)" } : {}),
      total: all.length,
      bookmarks: page,
    });
  },
});

export const BOOKMARK_TOOLS = [bookmarks];
