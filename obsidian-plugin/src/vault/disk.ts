// The vault on disk: where its folder is, whether a path's real location (symlinks followed) is inside the vault and
// outside its config folder, and reading a note by what was really opened. These checks need the disk, so they use
// Node's fs on the vault's base path; the lexical rules they build on are in paths.ts. A note whose text goes to an
// agent is read by `readVerified`: opened first, then confirmed to be a file inside the vault, so a symlink swapped in
// between a check and the read cannot redirect it. Writes are checked here too: nothing lands in a hidden path or,
// through a swapped-in symlink, outside the vault. The offline reader's twin is src/offline/plugin/vault/paths/disk.rs.

import { lstatSync, promises as fsp, readFileSync, realpathSync, statSync, type Stats } from "fs";
import type { FileHandle } from "fs/promises";
import { dirname, join, sep } from "path";
import { TFolder, type TFile } from "obsidian";
import type { VaultContext } from "./context";
import { ToolError } from "./errors";
import { isInConfigDir, parentOf } from "./paths";
import { realPathsOf } from "./real-paths";

/** The vault folder on disk; the plugin is desktop-only, so the adapter is always the file-system one. */
export function vaultBasePath(ctx: VaultContext): string {
  const adapter = ctx.app.vault.adapter as unknown as { basePath?: unknown; getBasePath?: () => string };
  const base = typeof adapter.getBasePath === "function" ? adapter.getBasePath() : adapter.basePath;
  if (typeof base !== "string" || base === "") throw new ToolError("the vault's folder on disk is unknown");
  return base;
}

/**
 * A test of real (symlink-free) locations: inside the vault and outside its config folder. The config folder is
 * judged by its own real location (it may itself be a link) and, below the vault, by name as `isInConfigDir` does,
 * so that a link such as `cfglink -> .obsidian` cannot reach the token in `data.json`. The offline reader's
 * `RealVault::allows` (src/offline/plugin/vault/paths/disk.rs) applies the same rule.
 */
function realLocationTest(ctx: VaultContext): (real: string) => boolean {
  const base = vaultBasePath(ctx);
  const realBase = realpathSync.native(base);
  const prefix = realBase.endsWith(sep) ? realBase : realBase + sep;
  const configName = ctx.configDir.replace(/^\/+|\/+$/g, "");
  let realConfig: string | null = null;
  if (configName !== "") {
    const named = join(realBase, ...configName.split("/"));
    try {
      realConfig = realpathSync.native(named);
    } catch {
      realConfig = named;
    }
  }
  return (real) => {
    if (real !== realBase && !real.startsWith(prefix)) return false;
    if (realConfig === null) return true;
    if (real === realConfig || real.startsWith(realConfig.endsWith(sep) ? realConfig : realConfig + sep)) return false;
    const below = real === realBase ? "" : real.slice(prefix.length).split(sep).join("/");
    return !isInConfigDir(below, ctx);
  };
}

/**
 * Whether `path` (or, for a path that does not exist yet, its nearest existing ancestor) really lives inside the
 * vault, and outside its config folder, once symlinks are followed.
 */
export function isInsideVaultOnDisk(ctx: VaultContext, path: string): boolean {
  const base = vaultBasePath(ctx);
  const allows = realLocationTest(ctx);
  let probe = path === "" ? base : join(base, ...path.split("/"));
  for (;;) {
    try {
      return allows(realpathSync.native(probe));
    } catch (error) {
      // A missing path is judged by its nearest existing ancestor (the folders a create would write into).
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") return false;
      const parent = dirname(probe);
      if (parent === probe) return false;
      probe = parent;
    }
  }
}

/** A file's real-location verdict, valid while the file keeps this path, mtime and size. */
interface Verdict {
  path: string;
  mtime: number;
  size: number;
  inside: boolean;
}

// Keyed by the TFile object, which Obsidian replaces when a file is deleted and recreated; a rename (new path) or
// an edit (new mtime or size) makes the stored verdict stale. Weak keys let deleted files drop out on their own.
const verdicts = new WeakMap<TFile, Verdict>();

/**
 * A test for many files at once: whether each one's real location (symlinks followed) is inside the vault, as
 * `isInsideVaultOnDisk` decides it. Verdicts are kept per file, so later calls ask the disk only about files added or
 * changed since. A file is found from its folder, which is read once per call (`RealPaths`): a `realpath` per note
 * held Obsidian's thread about 0.9 s in all on the first vault-wide call at 100,000 notes. A file that cannot be
 * resolved (deleted meanwhile) counts as outside.
 */
export function insideVaultChecker(ctx: VaultContext): (file: TFile) => boolean {
  let allows: ((real: string) => boolean) | null = null;
  return (file) => {
    const known = verdicts.get(file);
    if (known && known.path === file.path && known.mtime === file.stat.mtime && known.size === file.stat.size) {
      return known.inside;
    }
    allows ??= realLocationTest(ctx);
    const real = realLocation(ctx, file.path);
    // Unresolvable now (removed, dangling link): nothing can be read from it, and a later call looks again.
    if (real === null) return false;
    const inside = allows(real);
    verdicts.set(file, { path: file.path, mtime: file.stat.mtime, size: file.stat.size, inside });
    return inside;
  };
}

/**
 * The real path of a vault path, null when it cannot be resolved: from its folder's listing. A path the listing cannot
 * place inside the vault (a symlink out, a name the listing lacks) gets a `realpath` of its own.
 */
function realLocation(ctx: VaultContext, path: string): string | null {
  const real = realPathsOf(ctx);
  const at = real?.of(path);
  if (real && typeof at === "string") return join(real.realBase, ...at.split("/"));
  try {
    return realpathSync.native(join(vaultBasePath(ctx), ...path.split("/")));
  } catch {
    return null;
  }
}

/**
 * The same test by vault path, for indexes keyed by path (the metadata cache's link maps); a path the vault no
 * longer lists is judged on disk directly.
 */
export function insideVaultPathChecker(ctx: VaultContext): (path: string) => boolean {
  const check = insideVaultChecker(ctx);
  return (path) => {
    const file = ctx.app.vault.getFileByPath(path);
    return file ? check(file) : isInsideVaultOnDisk(ctx, path);
  };
}

/**
 * Whether the note's own path is a symlink on disk right now (`null`: it is not there). A symlink's target can change
 * between any judgement and a read, and Obsidian's cached copy of it may come from an earlier target, so a caller that
 * reads many notes from the cache reads these the verified way instead.
 */
export function isSymlinkOnDisk(ctx: VaultContext, file: TFile): boolean | null {
  try {
    return lstatSync(join(vaultBasePath(ctx), ...file.path.split("/"))).isSymbolicLink();
  } catch {
    return null;
  }
}

/**
 * Reads a file's text as `vault.read` does (from disk, UTF-8), judged by what was really opened: the file is opened
 * first, then the real location of what was opened must be inside the vault and outside its config folder. On Linux
 * the kernel names that location (`/proc/self/fd`), which no later swap can change. Elsewhere the path is resolved
 * again and its last component must be the very file opened (same device and inode, not following a link), so a
 * symlink swapped in for the note itself is refused; a folder above it swapped in the same instant is a window
 * there.
 */
export async function readVerified(ctx: VaultContext, file: TFile): Promise<string> {
  const pinned = await openVerified(ctx, file);
  try {
    return pinned.text;
  } finally {
    await pinned.handle.close();
  }
}

/** A note opened and judged as `readVerified` does, kept open: the handle stays on that very file. */
export interface Pinned {
  handle: FileHandle;
  /** Its text when it was opened. */
  text: string;
  /** Its identity (device and inode). */
  dev: number;
  ino: number;
}

/**
 * Whether `file`'s path leads, right now, to the very file `pinned` holds. Synchronous, so it can run inside the
 * callback of `vault.process` or `processFrontMatter`, between Obsidian's read and its write.
 */
export function stillPinned(ctx: VaultContext, file: TFile, pinned: Pinned): boolean {
  try {
    const now = statSync(join(vaultBasePath(ctx), ...file.path.split("/")));
    return now.dev === pinned.dev && now.ino === pinned.ino;
  } catch {
    return false;
  }
}

/** Opens `file` as `readVerified` judges it and keeps it open; the caller closes the handle. */
export async function openVerified(ctx: VaultContext, file: TFile): Promise<Pinned> {
  const { handle, opened } = await openJudged(ctx, file);
  try {
    return { handle, text: await readWhole(handle), dev: opened.dev, ino: opened.ino };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * The bytes of any file, judged as `readVerified` judges a note; a file larger than `limit` bytes is refused by
 * `tooLarge(size)` before anything is read.
 */
export async function readBytesVerified(ctx: VaultContext, file: TFile, limit: number, tooLarge: (size: number) => Error): Promise<Buffer> {
  const { handle, opened } = await openJudged(ctx, file);
  try {
    if (opened.size > limit) throw tooLarge(opened.size);
    const bytes = Buffer.alloc(opened.size);
    let done = 0;
    while (done < opened.size) {
      const { bytesRead } = await handle.read(bytes, done, opened.size - done, done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    return bytes.subarray(0, done);
  } finally {
    await handle.close();
  }
}

/** `file` opened for reading once its real location is known to be inside the vault; the caller closes it. */
async function openJudged(ctx: VaultContext, file: TFile): Promise<{ handle: FileHandle; opened: Stats }> {
  const full = join(vaultBasePath(ctx), ...file.path.split("/"));
  let handle: FileHandle;
  try {
    handle = await fsp.open(full, "r");
  } catch (error) {
    throw new ToolError(`could not read ${file.path}: ${(error as NodeJS.ErrnoException).code ?? "error"}`);
  }
  try {
    const opened = await handle.stat();
    const real = opened.isFile() ? await realLocationOf(handle, full, opened) : null;
    if (real === null) throw changedWhileRead(file.path);
    if (!realLocationTest(ctx)(real)) throw outsideVault(file.path);
    return { handle, opened };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The whole text behind `handle` now, from its first byte (whatever was read through it before). */
export async function readWhole(handle: FileHandle): Promise<string> {
  const { size } = await handle.stat();
  const bytes = Buffer.alloc(size);
  let done = 0;
  while (done < size) {
    const { bytesRead } = await handle.read(bytes, done, size - done, done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return bytes.subarray(0, done).toString("utf8");
}

/** Where the file behind `handle` really is, or null when `full` no longer leads to it. */
async function realLocationOf(handle: FileHandle, full: string, opened: Stats): Promise<string | null> {
  if (process.platform === "linux") {
    try {
      // A file replaced since it was opened is named "<path> (deleted)": still where it was, which is what counts.
      return await fsp.readlink(`/proc/self/fd/${handle.fd}`);
    } catch {
      // No /proc mounted: judge by path as elsewhere.
    }
  }
  try {
    const real = await fsp.realpath(full);
    const there = await fsp.lstat(real);
    return there.dev === opened.dev && there.ino === opened.ino ? real : null;
  } catch {
    return null;
  }
}

function changedWhileRead(path: string): ToolError {
  return new ToolError(`${JSON.stringify(path)} changed while it was being read (a file or symlink was swapped in): retry`);
}

function outsideVault(path: string): ToolError {
  return new ToolError(
    `${JSON.stringify(path)} resolves (through a symlink) to a location outside the vault or inside its config folder`,
  );
}

/** A file's identity on disk: device and inode. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

/** The identity of what `path` leads to now (symlinks followed), or null when nothing is there. */
export function identityOnDisk(ctx: VaultContext, path: string): FileIdentity | null {
  try {
    const { dev, ino } = statSync(join(vaultBasePath(ctx), ...path.split("/")));
    return { dev, ino };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    // Anything else (no permission, an I/O error) is not "nothing there": say what it was.
    throw new ToolError(`${path} cannot be examined on disk (${code ?? String(error)})`);
  }
}

/**
 * After a create or a move through Obsidian (which works by path): throws unless the file at `path` is there, inside
 * the vault, judged by the file opened as `readVerified` judges a note, and (for a move, which keeps the file) is
 * `expected`. A folder on the way swapped for a symlink during the call can redirect the write outside the vault;
 * when the folder is back, nothing is at the path, which is a failure too (judging the path by its nearest existing
 * folder took such a create for a success).
 */
export async function assertLandedInside(
  ctx: VaultContext,
  path: string,
  what: string,
  expected?: FileIdentity,
): Promise<void> {
  const full = join(vaultBasePath(ctx), ...path.split("/"));
  const failed = (why: string) =>
    new ToolError(
      `${what} ${JSON.stringify(path)}, but ${why} (a symlink was swapped in during the call): ` +
        "the write may have gone outside the vault; check that folder",
    );
  let handle: FileHandle;
  try {
    handle = await fsp.open(full, "r");
  } catch (error) {
    throw failed(`nothing can be opened at that path now (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
  try {
    const opened = await handle.stat();
    const real = opened.isFile() ? await realLocationOf(handle, full, opened) : null;
    if (real === null) throw failed("what is at that path changed while it was checked");
    if (!realLocationTest(ctx)(real)) throw failed("it now resolves outside the vault or into its config folder");
    if (expected && (opened.dev !== expected.dev || opened.ino !== expected.ino)) {
      throw failed("the file at that path is not the one written");
    }
  } finally {
    await handle.close();
  }
}

/**
 * Creates a note through Obsidian and checks, as `assertLandedInside` does, that it is where it was meant to be.
 * Obsidian writes the file and then reads its stat by path, so a folder swapped for a symlink in between fails the
 * create after the write went through the link: such a failure (an error from the file system) says so too.
 */
export async function createInside(ctx: VaultContext, path: string, content: string): Promise<TFile> {
  let created: TFile;
  try {
    created = await ctx.app.vault.create(path, content);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code !== "string") throw error;
    throw new ToolError(
      `could not create ${JSON.stringify(path)} (${code}); if a folder on its way was swapped for a symlink during ` +
        "the call, the write may have gone outside the vault: check that folder",
    );
  }
  await assertLandedInside(ctx, created.path, "created");
  return created;
}

/** Throws unless `path` stays inside the vault on disk. */
export function assertInsideVaultOnDisk(ctx: VaultContext, path: string): void {
  if (!isInsideVaultOnDisk(ctx, path)) throw outsideVault(path);
}

/**
 * Refuses a path that a hidden-path rule covers (itself, or the real location of its nearest existing ancestor
 * when a symlink leads there), whether or not anything exists at it: writes never create or move anything into a
 * hidden path, and the refusal is the same for an empty spot and a hidden note.
 */
export function assertNotHidden(ctx: VaultContext, path: string): void {
  if (ctx.hidden.count === 0) return;
  const refuse = () => new ToolError(`${path} is hidden by the obsmcp plugin's hidden paths; nothing was written`);
  if (ctx.hidden.hides(path)) throw refuse();
  const base = vaultBasePath(ctx);
  const realBase = realpathSync.native(base);
  const parts = path.split("/");
  for (let keep = parts.length; keep > 0; keep--) {
    let real: string;
    try {
      real = realpathSync.native(join(base, ...parts.slice(0, keep)));
    } catch (error) {
      // Not there yet: its parent decides. Anything else means the location cannot be known, so nothing is written.
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw refuse();
    }
    const prefix = realBase.endsWith(sep) ? realBase : realBase + sep;
    if (real.startsWith(prefix)) {
      const relative = [...real.slice(prefix.length).split(sep), ...parts.slice(keep)].join("/");
      if (ctx.hidden.hides(relative)) throw refuse();
    }
    return;
  }
}

/** Creates every missing folder on the way to `path`'s parent, through the vault. */
export async function ensureParentFolders(ctx: VaultContext, path: string): Promise<void> {
  const parts = parentOf(path).split("/").filter((part) => part !== "");
  let current = "";
  for (const part of parts) {
    current = current === "" ? part : `${current}/${part}`;
    const existing = ctx.app.vault.getAbstractFileByPath(current);
    if (existing instanceof TFolder) continue;
    if (existing) throw new ToolError(`cannot create folder ${current}: a file has that path`);
    await ctx.app.vault.createFolder(current);
  }
}

/**
 * A settings file of the config folder (`<configDir>/…parts`), parsed; null when it is absent or not JSON, which the
 * callers treat as Obsidian treats a plugin that never saved settings: its defaults.
 */
export function readConfigJson(ctx: VaultContext, ...parts: string[]): unknown {
  try {
    return JSON.parse(readFileSync(join(vaultBasePath(ctx), ...ctx.configDir.split("/"), ...parts), "utf8"));
  } catch {
    return null;
  }
}
