// completion/complete for the path argument of the file template: the vault's files that match what the user typed
// so far, best first, at most COMPLETION_LIMIT. Matching is on folded text (NFC, lowercased, as hidden paths are
// compared), in tiers: the name equals the text, the name starts with it, an alias starts with it, the path starts
// with it, the name contains it, the path or an alias contains it, and last the path contains its characters in
// order (fuzzy). Nothing typed yet lists the most recently modified files first. The tie-breaks and the exact rules
// are in ./README.md; the offline reader's twin is src/offline/resources/complete.rs.

import type { CompleteResult } from "@modelcontextprotocol/server";
import type { ToolContext } from "../tools/types";
import { insideVaultChecker } from "../vault/disk";
import { letterMask, type FileIndex, type IndexedFile } from "../vault/file-index";
import { fold } from "../vault/hidden";
import { visibleFileTest } from "./listing";

/** The most values one completion returns (the protocol's own ceiling). */
export const COMPLETION_LIMIT = 100;

export function completePath(ctx: ToolContext, index: FileIndex, typed: string): CompleteResult["completion"] {
  const query = fold(typed);
  const visible = visibleFileTest(ctx);
  const inside = insideVaultChecker(ctx);
  // Aliases come from a note's text: a note whose real location is outside the vault has none. Most notes have no
  // aliases, so the on-disk check runs only for those that do.
  const aliases = (entry: IndexedFile) => {
    const known = index.foldedAliases(entry);
    return known.length > 0 && inside(entry.file) ? known : [];
  };
  const byRecent = query === "";
  const order = (a: Match, b: Match) => {
    if (a.tier !== b.tier) return a.tier - b.tier;
    if (byRecent && a.entry.file.stat.mtime !== b.entry.file.stat.mtime) return b.entry.file.stat.mtime - a.entry.file.stat.mtime;
    const pa = a.entry.file.path;
    const pb = b.entry.file.path;
    if (pa.length !== pb.length) return pa.length - pb.length;
    return pa < pb ? -1 : pa > pb ? 1 : 0;
  };
  // The best COMPLETION_LIMIT are kept in order as the files go by: a vault of 100,000 notes is never sorted whole.
  const best: Match[] = [];
  let total = 0;
  // Every tier but the alias ones needs each character of the query in the path: a file whose path lacks one, and
  // that has no aliases, is passed over without a string comparison.
  const wanted = letterMask(query);
  // Split once per completion, not once per file.
  const chars = Array.from(query);
  for (const entry of index.files()) {
    if ((wanted & ~entry.letters) !== 0 && index.foldedAliases(entry).length === 0) continue;
    const tier = byRecent ? 0 : tierOf(entry, query, chars, aliases);
    if (tier === 0 && !byRecent) continue;
    if (!visible(entry)) continue;
    total += 1;
    const match = { entry, tier };
    if (best.length === COMPLETION_LIMIT && order(match, best[COMPLETION_LIMIT - 1]) >= 0) continue;
    let low = 0;
    let high = best.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (order(best[middle], match) <= 0) low = middle + 1;
      else high = middle;
    }
    best.splice(low, 0, match);
    if (best.length > COMPLETION_LIMIT) best.pop();
  }
  return { values: best.map((match) => match.entry.file.path), total, hasMore: total > COMPLETION_LIMIT };
}

interface Match {
  entry: IndexedFile;
  tier: number;
}

/** How well a file matches: 1 (best) to 7, or 0 for no match. */
function tierOf(entry: IndexedFile, query: string, chars: readonly string[], aliases: (entry: IndexedFile) => readonly string[]): number {
  const { foldedName: name, foldedPath: path } = entry;
  const known = aliases(entry);
  // The name is part of the path: without the text in the path (and with no aliases) only tier 7 is left.
  if (known.length === 0 && !path.includes(query)) return inOrder(chars, path) ? 7 : 0;
  if (name === query) return 1;
  if (name.startsWith(query)) return 2;
  if (known.some((alias) => alias.startsWith(query))) return 3;
  if (path.startsWith(query)) return 4;
  if (name.includes(query)) return 5;
  if (path.includes(query) || known.some((alias) => alias.includes(query))) return 6;
  return inOrder(chars, path) ? 7 : 0;
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
