// Link and tag helpers over Obsidian's metadata cache. There is no public backlinks API, so backlinks come from
// `metadataCache.resolvedLinks` (source → target → count), the same index Obsidian's backlinks pane is built from.
// Tags are the inline tags of the cache plus the frontmatter `tags` / `tag` property, as Obsidian's getAllTags
// reports them; we compute them here so the rule is written down once for the offline reader. Obsidian indexes
// symlinked notes too, so a note whose real file is outside the vault is left out of every link and tag answer.

import type { CachedMetadata, FrontMatterCache, TFile } from "obsidian";
import type { VaultContext } from "./context";
import { firstVisibleDest, hiddenChecker, visibleLinkMaps } from "./hidden";
import { byPath, Slices } from "./slices";
import { insideVaultPathChecker } from "./disk";

/** The note a link in `sourcePath` points to, resolved as Obsidian does, or null when unresolved. */
export function resolveLink(ctx: VaultContext, link: string, sourcePath: string): TFile | null {
  const hash = link.indexOf("#");
  const linkpath = hash >= 0 ? link.slice(0, hash) : link;
  if (linkpath === "") {
    const self = ctx.app.vault.getFileByPath(sourcePath);
    return self && !hiddenChecker(ctx)(self.path) ? self : null;
  }
  return firstVisibleDest(ctx, linkpath, sourcePath);
}

/**
 * Notes other than the target itself that link to `targetPath`, with link counts, sorted by path. A note whose real
 * file is outside the vault is not a source: its links are its content, which is never read. Obsidian's link map is
 * gone through in slices (a source per note: 100,000 at 100,000 notes).
 */
export async function backlinkSources(ctx: VaultContext, targetPath: string, slices = new Slices(ctx.signal, "backlinks")): Promise<{ path: string; count: number }[]> {
  const inside = insideVaultPathChecker(ctx);
  const sources: { path: string; count: number }[] = [];
  const resolved = (await visibleLinkMaps(ctx, slices)).resolved;
  await slices.fresh();
  for (const source in resolved) {
    if (slices.due()) await slices.pause();
    const count = resolved[source]?.[targetPath];
    if (count && source !== targetPath && inside(source)) sources.push({ path: source, count });
  }
  return slices.sort(sources, (a, b) => byPath(a.path, b.path));
}

/** Splits a frontmatter list property that may be a list, a single string, or a comma-separated string. */
function frontmatterList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((item) => item !== null && item !== undefined).map(String);
  if (typeof value === "string") return value.split(",").map((item) => item.trim()).filter((item) => item !== "");
  if (typeof value === "number") return [String(value)];
  return [];
}

/** Aliases from the frontmatter `aliases` / `alias` property. */
export function frontmatterAliases(frontmatter: FrontMatterCache | undefined): string[] {
  if (!frontmatter) return [];
  return [...frontmatterList(frontmatter.aliases), ...frontmatterList(frontmatter.alias)];
}

/** Frontmatter tags (from `tags` / `tag`, split on commas and spaces), each with a leading "#". */
export function frontmatterTags(frontmatter: FrontMatterCache | undefined): string[] {
  if (!frontmatter) return [];
  const raw = [...frontmatterList(frontmatter.tags), ...frontmatterList(frontmatter.tag)];
  return raw
    .flatMap((item) => item.split(/\s+/))
    .map((item) => item.replace(/^#+/, ""))
    .filter((item) => item !== "")
    .map((item) => `#${item}`);
}

/** A note's tags: frontmatter tags first, then inline tags in order; duplicates (case-insensitive) dropped. */
export function noteTags(cache: CachedMetadata | null): string[] {
  if (!cache) return [];
  const seen = new Set<string>();
  const tags: string[] = [];
  for (const tag of [...frontmatterTags(cache.frontmatter), ...(cache.tags ?? []).map((item) => item.tag)]) {
    const key = tag.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    tags.push(tag);
  }
  return tags;
}

/** Whether `tag` is `wanted` or nested under it (`#a/b` is under `#a`), case-insensitively. */
export function tagMatches(tag: string, wanted: string): boolean {
  const a = tag.toLowerCase().replace(/^#/, "");
  const b = wanted.toLowerCase().replace(/^#/, "");
  return a === b || a.startsWith(b + "/");
}
