// Where vault paths really are on disk, symlinks followed, for one call: each folder is read once (its real path and
// which of its entries are symlinks), so a vault-wide call resolves 100,000 paths without a `realpath` each. Hidden
// paths (hidden.ts) judge a path by its real location, and the "inside the vault" test (disk.ts) by its real path.

import { readdirSync, realpathSync } from "fs";
import { join, sep } from "path";
import type { App } from "obsidian";
import type { VaultContext } from "./context";

/** One call's real locations (null when the vault is not on a file system), shared by its checker. */
const realPaths = new WeakMap<VaultContext, RealPaths | null>();

export function realPathsOf(ctx: VaultContext): RealPaths | null {
  let real = realPaths.get(ctx);
  if (real === undefined) {
    const base = realBaseOf(ctx);
    real = base === null ? null : new RealPaths(base);
    realPaths.set(ctx, real);
  }
  return real;
}

/**
 * The real locations of vault paths for one call, each folder read once: a folder's real path, and which of its
 * entries are symlinks (one listing). An entry that is no symlink is where its folder really is; only symlinks, and
 * names the listing lacks, are resolved one by one. Resolving every path (a `realpath` each, several system calls)
 * held Obsidian's thread 1–1.5 s per vault-wide call at 100,000 notes.
 */
export class RealPaths {
  private readonly folders = new Map<string, { real: string | null; links: Map<string, boolean> | null }>();

  constructor(readonly realBase: string) {}

  /** The vault path of `path`'s real location, when it is inside the vault (null when outside or unresolvable). */
  of(path: string): string | null {
    const slash = path.lastIndexOf("/");
    const folder = slash < 0 ? "" : path.slice(0, slash);
    const name = path.slice(slash + 1);
    const { real, links } = this.folder(folder);
    const isLink = links?.get(name);
    if (isLink !== false) return realRelative(this.realBase, path);
    if (real === null) return null;
    return real === "" ? name : `${real}/${name}`;
  }

  folder(folder: string): { real: string | null; links: Map<string, boolean> | null } {
    let known = this.folders.get(folder);
    if (known) return known;
    const real = folder === "" ? "" : realRelative(this.realBase, folder);
    let links: Map<string, boolean> | null = null;
    try {
      const entries = readdirSync(join(this.realBase, ...folder.split("/")), { withFileTypes: true });
      links = new Map(entries.map((entry) => [entry.name, entry.isSymbolicLink()]));
    } catch {
      // Unreadable or gone: each of its paths is resolved on its own.
    }
    known = { real, links };
    this.folders.set(folder, known);
    return known;
  }
}

/** The vault folder on disk, when the adapter is the file-system one. */
export function basePathOf(app: App): string | undefined {
  const adapter = app.vault.adapter as unknown as { basePath?: unknown; getBasePath?: () => string };
  const base = typeof adapter.getBasePath === "function" ? adapter.getBasePath() : adapter.basePath;
  return typeof base === "string" && base !== "" ? base : undefined;
}

function realBaseOf(ctx: VaultContext): string | null {
  const base = basePathOf(ctx.app);
  if (base === undefined) return null;
  try {
    return realpathSync.native(base);
  } catch {
    return null;
  }
}

/** The vault path of a file's real location, when it is inside the vault (null when outside or unresolvable). */
function realRelative(realBase: string, path: string): string | null {
  let real: string;
  try {
    real = realpathSync.native(join(realBase, ...path.split("/")));
  } catch {
    return null;
  }
  const prefix = realBase.endsWith(sep) ? realBase : realBase + sep;
  if (!real.startsWith(prefix)) return null;
  return real.slice(prefix.length).split(sep).join("/");
}

