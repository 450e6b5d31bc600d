// Hidden paths: notes the user keeps private, which every tool treats as if they did not exist (the contract is in
// ../tools/README.md, "Hidden paths"). The rules come from the plugin's settings and, when the user asks for it, from
// Obsidian's own "Excluded files"; this file compiles them, answers "is this path hidden?" (following symlinks inside
// the vault to their real location), and gives the tools a view of links in which hidden notes do not exist. The
// offline reader applies the same rules (src/offline/plugin/vault/hidden.rs).

import { readFileSync, statSync } from "fs";
import { join } from "path";
import { TAbstractFile, TFile, TFolder } from "obsidian";
import type { HiddenRules, VaultContext } from "./context";
import { realPathsOf } from "./real-paths";
import type { Slices } from "./slices";

export { basePathOf } from "./real-paths";

export type { HiddenRules };

/** What the settings say about hidden paths. */
export interface HiddenSettings {
  hiddenPaths: readonly string[];
  hideExcludedFiles: boolean;
}

export const NO_RULES: HiddenRules = { count: 0, hides: () => false };

/** Paths and rules are compared in one form: NFC, lowercased. */
export function fold(text: string): string {
  return text.normalize("NFC").toLowerCase();
}

/** A glob as an anchored regular expression over a folded path: `**` any text, `*` and `?` within one segment. */
function globToRegExp(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; ) {
    if (glob.startsWith("**", i)) {
      source += ".*";
      i += 2;
    } else {
      const char = String.fromCodePoint(glob.codePointAt(i) ?? 0);
      source += char === "*" ? "[^/]*" : char === "?" ? "[^/]" : char.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
      i += char.length;
    }
  }
  return new RegExp(`^${source}$`, "su");
}

/** The forms a path (or name) is tested in: as it is, and without a final `.md`. */
function forms(text: string): string[] {
  return text.endsWith(".md") ? [text, text.slice(0, -3)] : [text];
}

type Test = (folded: string, raw: string) => boolean;

/** One rule of the settings as a test, or null for a blank line or a comment. */
function settingRule(rule: string): Test | null {
  let text = rule.trim();
  if (text === "" || text.startsWith("#")) return null;
  text = text.replace(/^\/+/, "").replace(/\/+$/, "");
  if (text === "") return null;
  const pattern = globToRegExp(fold(text));
  if (!text.includes("/")) {
    // A name: any segment of the path, at any depth.
    return (folded) => folded.split("/").some((segment) => forms(segment).some((form) => pattern.test(form)));
  }
  // A path from the root: the path itself or any of its ancestor folders.
  return (folded) => {
    const segments = folded.split("/");
    for (let end = 1; end <= segments.length; end++) {
      const prefix = segments.slice(0, end).join("/");
      if (forms(prefix).some((form) => pattern.test(form))) return true;
    }
    return false;
  };
}

/** One filter of Obsidian's "Excluded files": `/regex/` tested against the path as it is, or a path prefix. */
function excludedFilter(filter: string): Test | null {
  if (filter === "") return null;
  if (filter.length > 1 && filter.startsWith("/") && filter.endsWith("/")) {
    let regex: RegExp;
    try {
      regex = new RegExp(filter.slice(1, -1));
    } catch {
      // Obsidian cannot use it either; a filter that hides nothing in Obsidian hides nothing here.
      return null;
    }
    return (_folded, raw) => regex.test(raw);
  }
  const prefix = fold(filter);
  // `Archive/` names the folder too, not only what is inside it.
  return (folded) => folded.startsWith(prefix) || (prefix.endsWith("/") && folded === prefix.slice(0, -1));
}

/** Compiles the rules of the settings and the excluded-files filters. */
export function compileRules(rules: readonly string[], excluded: readonly string[]): HiddenRules {
  const tests = [...rules.map(settingRule), ...excluded.map(excludedFilter)].filter((test): test is Test => test !== null);
  if (tests.length === 0) return NO_RULES;
  return {
    count: tests.length,
    hides: (path) => {
      if (path === "" || path === "/") return false;
      const folded = fold(path);
      return tests.some((test) => test(folded, path));
    },
  };
}

/** The excluded-files filters of `<configDir>/app.json`, re-read when the file changes. */
let appJson: { path: string; mtime: number; size: number; filters: string[] } | undefined;

function excludedFilters(base: string, configDir: string): string[] {
  const path = join(base, ...configDir.split("/"), "app.json");
  let stat;
  try {
    stat = statSync(path);
  } catch (error) {
    // No app.json: Obsidian excludes nothing. Any other failure keeps what was last read, never drops the filters.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    return appJson?.path === path ? appJson.filters : [];
  }
  if (appJson && appJson.path === path && appJson.mtime === stat.mtimeMs && appJson.size === stat.size) return appJson.filters;
  let filters: string[] = [];
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
    const list = (parsed as { userIgnoreFilters?: unknown } | null)?.userIgnoreFilters;
    if (Array.isArray(list)) filters = list.filter((item): item is string => typeof item === "string");
  } catch {
    // Obsidian rewrites app.json whole: a half-written or broken file keeps the filters last read until it is whole.
    filters = appJson?.path === path ? appJson.filters : [];
  }
  appJson = { path, mtime: stat.mtimeMs, size: stat.size, filters };
  return filters;
}

/** The rules in force for one call: the settings' own, plus Obsidian's excluded files when the settings ask. */
export function rulesFor(settings: HiddenSettings, base: string | undefined, configDir: string): HiddenRules {
  const excluded = settings.hideExcludedFiles && base ? excludedFilters(base, configDir) : [];
  return compileRules(settings.hiddenPaths, excluded);
}

/** One checker per call (a call's context), so that every lookup of the call shares its answers. */
const checkers = new WeakMap<VaultContext, (path: string) => boolean>();

/**
 * A test of vault paths for one call: hidden by a rule, or reached through a symlink whose real location inside the
 * vault is hidden. Answers are kept for the call, so a listing of many files resolves each path once, however many
 * lookups of the call ask.
 */
export function hiddenChecker(ctx: VaultContext): (path: string) => boolean {
  const known = checkers.get(ctx);
  if (known) return known;
  const checker = newChecker(ctx);
  checkers.set(ctx, checker);
  return checker;
}

function newChecker(ctx: VaultContext): (path: string) => boolean {
  const rules = ctx.hidden;
  if (rules.count === 0) return () => false;
  const known = new Map<string, boolean>();
  return (path) => {
    let hidden = known.get(path);
    if (hidden !== undefined) return hidden;
    hidden = rules.hides(path);
    if (!hidden) {
      const real = realPathsOf(ctx);
      const at = real === null ? null : real.of(path);
      hidden = at !== null && at !== path && rules.hides(at);
    }
    known.set(path, hidden);
    return hidden;
  };
}

/**
 * Reads what the call's checker needs of every folder, a slice at a time, before a loop that checks notes in any
 * order: one note's links (a hub's) can reach every folder, and reading them all at once held Obsidian's thread
 * 90 ms at 100,000 notes.
 */
async function readFoldersAhead(ctx: VaultContext, slices: Slices): Promise<void> {
  const real = ctx.hidden.count === 0 ? null : realPathsOf(ctx);
  if (real === null) return;
  for (const entry of ctx.app.vault.getAllLoadedFiles()) {
    if (slices.due()) await slices.pause();
    if (entry instanceof TFolder) real.folder(entry.isRoot() ? "" : entry.path);
  }
}

/** A visibility test for files and folders of the vault. */
export function visibleChecker(ctx: VaultContext): (entry: TAbstractFile) => boolean {
  const hidden = hiddenChecker(ctx);
  return (entry) => !hidden(entry.path);
}

/** The file at a vault path unless it is hidden. */
export function visibleAt(ctx: VaultContext, path: string): TAbstractFile | null {
  const entry = ctx.app.vault.getAbstractFileByPath(path);
  return entry && !hiddenChecker(ctx)(entry.path) ? entry : null;
}

/**
 * `getFirstLinkpathDest` among the visible files only: Obsidian's answer when it is visible, else the best visible
 * candidate by the same rules (exact path, then a path ending with the link, in the source's folder first, then the
 * shortest, then the smallest in code-unit order), as if the hidden files did not exist.
 */
export function firstVisibleDest(ctx: VaultContext, linkpath: string, sourcePath: string): TFile | null {
  const found = ctx.app.metadataCache.getFirstLinkpathDest(linkpath, sourcePath);
  const hidden = hiddenChecker(ctx);
  if (!found || !hidden(found.path)) return found;
  // Relative links are looked up exactly, and that file is hidden; a leading "/" only means the root.
  if (linkpath.startsWith("./") || linkpath.startsWith("../")) return null;
  linkpath = linkpath.replace(/^\/+/, "");
  const exact = [linkpath, `${linkpath}.md`]
    .map((path) => ctx.app.vault.getAbstractFileByPath(path))
    .find((entry): entry is TFile => entry instanceof TFile && !hidden(entry.path));
  if (exact) return exact;
  const wanted = linkpath.toLowerCase();
  const folder = folderOf(sourcePath);
  let best: TFile | null = null;
  let bestRank: [number, number, string] | null = null;
  for (const file of ctx.app.vault.getFiles()) {
    const path = file.path.toLowerCase();
    const bare = file.extension.toLowerCase() === "md" ? path.slice(0, -3) : null;
    const matches = [path, bare].some((form) => form !== null && (form === wanted || form.endsWith(`/${wanted}`)));
    if (!matches || hidden(file.path)) continue;
    const rank: [number, number, string] = [folderOf(file.path) === folder ? 0 : 1, file.path.length, file.path];
    if (bestRank === null || compareRank(rank, bestRank) < 0) {
      best = file;
      bestRank = rank;
    }
  }
  return best;
}

function folderOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}

function compareRank(a: [number, number, string], b: [number, number, string]): number {
  return a[0] - b[0] || a[1] - b[1] || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0);
}

/**
 * Link maps in the shape of `resolvedLinks` / `unresolvedLinks`. Filtered for hidden paths, `unresolved` leaves out
 * the notes with no unresolved link (Obsidian's own map has an empty one for each): readers take a missing note as
 * an empty map.
 */
export interface LinkMaps {
  resolved: Record<string, Record<string, number>>;
  unresolved: Record<string, Record<string, number>>;
}

/**
 * Obsidian's link maps as if hidden notes did not exist: no hidden source, and each link whose target is hidden
 * resolved again among the visible files (to another note, or unresolved under its link path). Built in slices: with
 * any rule in force every path is checked (its real path included), 2.5 s at 100,000 notes, which held Obsidian's
 * thread that long when built at once.
 */
export async function visibleLinkMaps(ctx: VaultContext, slices: Slices): Promise<LinkMaps> {
  const { metadataCache } = ctx.app;
  if (ctx.hidden.count === 0) return { resolved: metadataCache.resolvedLinks, unresolved: metadataCache.unresolvedLinks };
  const hidden = hiddenChecker(ctx);
  const resolved: LinkMaps["resolved"] = {};
  const unresolved: LinkMaps["unresolved"] = {};
  await readFoldersAhead(ctx, slices);
  await slices.fresh();
  for (const source in metadataCache.resolvedLinks) {
    if (slices.due()) await slices.pause();
    // A note deleted during a pause is skipped, as it would be had the maps been read after the event.
    const targets = metadataCache.resolvedLinks[source];
    if (!targets || hidden(source)) continue;
    let redo = false;
    for (const target in targets) {
      if (hidden(target)) {
        redo = true;
        break;
      }
    }
    const original = metadataCache.unresolvedLinks[source] ?? {};
    if (!redo) {
      // Obsidian's own maps, when no link leads to a hidden note (most notes): a copy of each per note was most of
      // the call's time and garbage at 100,000 notes.
      resolved[source] = targets;
      if (holdsAny(original)) unresolved[source] = original;
      continue;
    }
    const kept: Record<string, number> = {};
    for (const [target, count] of Object.entries(targets)) {
      if (!hidden(target)) kept[target] = count;
    }
    // Links to hidden notes add to the unresolved ones: a copy of Obsidian's map.
    const missing: Record<string, number> = { ...original };
    // Only links that Obsidian resolved to a hidden note are resolved again; the rest keep Obsidian's answer.
    const file = ctx.app.vault.getFileByPath(source);
    const cache = file ? metadataCache.getFileCache(file) : null;
    const links = [...(cache?.links ?? []), ...(cache?.embeds ?? []), ...(cache?.frontmatterLinks ?? [])];
    for (const link of links) {
      const hash = link.link.indexOf("#");
      const linkpath = hash >= 0 ? link.link.slice(0, hash) : link.link;
      if (linkpath === "") continue;
      const target = metadataCache.getFirstLinkpathDest(linkpath, source);
      if (!target || !hidden(target.path)) continue;
      const dest = firstVisibleDest(ctx, linkpath, source);
      if (dest) kept[dest.path] = (kept[dest.path] ?? 0) + 1;
      else missing[linkpath] = (missing[linkpath] ?? 0) + 1;
    }
    resolved[source] = kept;
    if (holdsAny(missing)) unresolved[source] = missing;
  }
  return { resolved, unresolved };
}

/** Whether a link map holds a link. */
function holdsAny(links: Record<string, number>): boolean {
  for (const _ in links) return true;
  return false;
}

/** Whether an entry is a visible Markdown note (for enumerations of `getMarkdownFiles`). */
export function isVisibleNote(visible: (entry: TAbstractFile) => boolean, entry: TAbstractFile): entry is TFile {
  return entry instanceof TFile && visible(entry);
}

/** Whether an entry is a visible folder. */
export function isVisibleFolder(visible: (entry: TAbstractFile) => boolean, entry: TAbstractFile): entry is TFolder {
  return entry instanceof TFolder && visible(entry);
}
