// completion/complete for the path argument of the file template: the vault's files that match what the user typed
// so far, best first, at most COMPLETION_LIMIT. Matching is on folded text (NFC, lowercased, as hidden paths are
// compared), in tiers: the name equals the text, the name starts with it, an alias starts with it, the path starts
// with it, the name contains it, the path or an alias contains it, and last the path contains its characters in
// order (fuzzy). Nothing typed yet lists the most recently modified files first. The tie-breaks and the exact rules
// are in ./README.md; the offline reader's twin is src/offline/plugin/resources/complete.rs.

import type { CompleteResult } from "@modelcontextprotocol/server";
import type { ToolContext } from "../tools/types";
import { insideVaultChecker } from "../vault/disk";
import { letterMask, type FileIndex, type IndexedFile } from "../vault/file-index";
import { Slices } from "../vault/slices";
import { fold } from "../vault/hidden";
import { visibleFileTest } from "./listing";

/** The most values one completion returns (the protocol's own ceiling). */
export const COMPLETION_LIMIT = 100;

export async function completePath(ctx: ToolContext, index: FileIndex, typed: string): Promise<CompleteResult["completion"]> {
  const slices = new Slices(ctx.signal, "completion");
  const query = fold(typed);
  const visible = visibleFileTest(ctx);
  const inside = insideVaultChecker(ctx);
  // Aliases come from a note's text: a note whose real location is outside the vault has none. Most notes have no
  // aliases, and few of those that do match, so the on-disk check runs only for an alias that matches.
  const aliasTier = (entry: IndexedFile) => {
    const known = index.foldedAliases(entry);
    if (known.length === 0) return 0;
    const tier = known.some((alias) => alias.startsWith(query)) ? 3 : known.some((alias) => alias.includes(query)) ? 6 : 0;
    return tier !== 0 && inside(entry.file) ? tier : 0;
  };
  const byRecent = query === "";
  /** Whether `entry` at `tier` goes before `match`. */
  const before = (tier: number, entry: IndexedFile, match: Match) => {
    if (tier !== match.tier) return tier < match.tier;
    const other = match.entry;
    if (byRecent && entry.file.stat.mtime !== other.file.stat.mtime) return entry.file.stat.mtime > other.file.stat.mtime;
    const pa = entry.file.path;
    const pb = other.file.path;
    if (pa.length !== pb.length) return pa.length < pb.length;
    return pa < pb;
  };
  // The best COMPLETION_LIMIT are kept in order as the files go by: a vault of 100,000 notes is never sorted whole,
  // and a file that cannot enter them costs no allocation.
  const best: Match[] = [];
  let total = 0;
  // Every tier but the alias ones needs each character of the query in the path: a file whose path lacks one, and
  // that has no aliases, is passed over without a string comparison.
  const wanted = letterMask(query);
  // Split once per completion, not once per file.
  const chars = Array.from(query);
  for (const entry of await index.filesInSlices(slices)) {
    if (slices.due()) await slices.pause();
    if ((wanted & ~entry.letters) !== 0 && index.foldedAliases(entry).length === 0) continue;
    const tier = byRecent ? 0 : tierOf(entry, query, chars, aliasTier);
    if (tier === 0 && !byRecent) continue;
    if (!visible(entry)) continue;
    total += 1;
    if (best.length === COMPLETION_LIMIT && !before(tier, entry, best[COMPLETION_LIMIT - 1])) continue;
    // Equal files do not occur (paths are unique), so the first that this one goes before is where it belongs.
    let low = 0;
    let high = best.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (before(tier, entry, best[middle])) high = middle;
      else low = middle + 1;
    }
    best.splice(low, 0, { entry, tier });
    if (best.length > COMPLETION_LIMIT) best.pop();
  }
  return { values: best.map((match) => match.entry.file.path), total, hasMore: total > COMPLETION_LIMIT };
}

interface Match {
  entry: IndexedFile;
  tier: number;
}

/** How well a file matches: 1 (best) to 7, or 0 for no match; `aliasTier` says 3, 6 or 0 for the note's aliases. */
function tierOf(entry: IndexedFile, query: string, chars: readonly string[], aliasTier: (entry: IndexedFile) => number): number {
  const { foldedName: name, foldedPath: path } = entry;
  // The name is part of the path: without the text in the path only the aliases and tier 7 are left.
  if (!path.includes(query)) {
    const alias = aliasTier(entry);
    return alias !== 0 ? alias : inOrder(chars, path) ? 7 : 0;
  }
  if (name === query) return 1;
  if (name.startsWith(query)) return 2;
  if (aliasTier(entry) === 3) return 3;
  if (path.startsWith(query)) return 4;
  if (name.includes(query)) return 5;
  return 6;
}

/** Whether every one of `chars` (the query's code points) occurs in `text` in the same order. */
function inOrder(chars: readonly string[], text: string): boolean {
  let at = 0;
  for (let i = 0; i < chars.length; i++) {
    const found = text.indexOf(chars[i], at);
    if (found < 0) return false;
    at = found + chars[i].length;
  }
  return true;
}
