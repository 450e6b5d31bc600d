// Path safety and note resolution. Every path an agent passes goes through here before the vault is touched.
// Paths are vault-relative with "/" separators. We refuse rather than repair anything that could point outside the
// vault or into its config folder: absolute paths, ".." segments, percent-encoded dots or separators, backslashes,
// control characters, Windows device names, and symlinks whose real location on disk is outside the vault. The
// symlink check needs the disk, so it uses Node's fs on the vault's base path. A note whose text goes to an agent is
// read by `readVerified`: opened first, then confirmed to be a file inside the vault, so a symlink swapped in
// between a check and the read cannot redirect it.

import { promises as fsp, realpathSync, statSync, type Stats } from "fs";
import type { FileHandle } from "fs/promises";
import { dirname, join, sep } from "path";
import { TFile, TFolder } from "obsidian";
import type { ToolContext } from "../tools/types";
import { ToolError } from "../tools/types";
import { firstVisibleDest, hiddenChecker } from "./hidden";

/** Extensions a note-reading tool accepts: text formats Obsidian keeps in a vault. */
const TEXT_EXTENSIONS = new Set(["md", "canvas", "base", "txt", "csv", "json"]);
const MAX_PATH_CHARS = 1024;

/**
 * File names Windows opens as devices, by the rule of Microsoft's "Naming Files, Paths, and Namespaces"
 * (https://learn.microsoft.com/windows/win32/fileio/naming-a-file), applied to a name's part before its first "."
 * (and ":", as "COM1:" is the port's DOS spelling) with trailing spaces dropped, so "nul.tar.gz" and "NUL .md" are
 * NUL. Reserved: CON, PRN, AUX, NUL, COM1-COM9 and LPT1-LPT9, and COM/LPT followed by a superscript ¹ ² ³, which
 * Windows reads as digits (listed by Microsoft since 2023, MicrosoftDocs/win32#1731). COM0 and LPT0 are accepted:
 * Windows opens them as plain files, and Microsoft, after listing them in 2022, removed them in 2025 as never reserved
 * (MicrosoftDocs/win32#2008). The `i` flag without `u` folds ASCII letters only, as Windows does here. The offline
 * reader's `is_windows_device_name` (src/offline/paths/mod.rs) applies the same rule.
 */
const WINDOWS_DEVICE_NAME = /^(?:con|prn|aux|nul|(?:com|lpt)[1-9\u00b9\u00b2\u00b3])$/i;

/** Whether Windows opens a file or folder of this name as a device, not a file. */
function isWindowsDeviceName(name: string): boolean {
  return WINDOWS_DEVICE_NAME.test(name.split(/[.:]/, 1)[0].replace(/ +$/, ""));
}

/**
 * Validates a vault-relative path and returns it normalized ("" is the vault root). `.` and empty segments are
 * dropped; a trailing "/" is allowed.
 */
export function cleanVaultPath(raw: string, ctx: ToolContext, what = "path"): string {
  if (raw.length > MAX_PATH_CHARS) throw new ToolError(`${what} is longer than ${MAX_PATH_CHARS} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) throw new ToolError(`${what} contains a NUL or control character`);
  if (raw.includes("\\")) throw new ToolError(`${what} contains a backslash: use "/" between folders`);
  if (/%(2e|2f|5c|00)/i.test(raw)) {
    throw new ToolError(`${what} contains a percent-encoded dot, slash or NUL: pass the plain vault path`);
  }
  if (raw.startsWith("/") || /^[A-Za-z]:/.test(raw) || raw.startsWith("~/")) {
    throw new ToolError(`${what} ${JSON.stringify(raw)} is absolute: pass a path relative to the vault root`);
  }
  const segments = raw.split("/").filter((segment) => segment !== "" && segment !== ".");
  if (segments.some((segment) => segment === "..")) {
    throw new ToolError(`${what} ${JSON.stringify(raw)} has a ".." segment: paths must stay inside the vault`);
  }
  const path = segments.join("/");
  // "./C:/x" and "notes/C:/x": a bare drive segment reads as a Windows path however it is joined. "./~/x" is refused
  // too, so that a cleaned path is always accepted again as it is. (A name like "a:b" is left to Obsidian, which
  // refuses ":" in file names with its own message.)
  if (segments.some((segment) => /^[A-Za-z]:$/.test(segment)) || path.startsWith("~/")) {
    throw new ToolError(`${what} ${JSON.stringify(raw)} is absolute: pass a path relative to the vault root`);
  }
  // Refused on every OS: a vault synced to Windows would open the device there ("NUL.md" swallows what is written,
  // "CON" waits on the console).
  const device = segments.find(isWindowsDeviceName);
  if (device !== undefined) {
    throw new ToolError(
      `${what} ${JSON.stringify(raw)} has a segment Windows opens as a device, not a file: ${JSON.stringify(device)} ` +
        "(CON, PRN, AUX, NUL, COM1-9 and LPT1-9 are reserved, with any extension)",
    );
  }
  if (isInConfigDir(path, ctx)) {
    throw new ToolError(`${what} ${JSON.stringify(raw)} is inside the vault's config folder ${ctx.configDir}`);
  }
  return path;
}

/**
 * Whether a normalized vault path is the config folder or inside it: compared case-insensitively, and with trailing
 * dots and spaces dropped from each name, as Windows opens ".obsidian. /app.json" as ".obsidian/app.json".
 */
export function isInConfigDir(path: string, ctx: ToolContext): boolean {
  const config = ctx.configDir.replace(/^\/+|\/+$/g, "").toLowerCase();
  // Listings ask this for every file: most paths differ from the config folder in their first character.
  if (config === "" || path.charAt(0).toLowerCase() !== config.charAt(0)) return false;
  const names = path.split("/");
  const bare = (name: string) => name.replace(/[. ]+$/, "").toLowerCase();
  return config.split("/").every((wanted, index) => index < names.length && bare(names[index]) === bare(wanted));
}

/** The vault folder on disk; the plugin is desktop-only, so the adapter is always the file-system one. */
export function vaultBasePath(ctx: ToolContext): string {
  const adapter = ctx.app.vault.adapter as unknown as { basePath?: unknown; getBasePath?: () => string };
  const base = typeof adapter.getBasePath === "function" ? adapter.getBasePath() : adapter.basePath;
  if (typeof base !== "string" || base === "") throw new ToolError("the vault's folder on disk is unknown");
  return base;
}

/**
 * A test of real (symlink-free) locations: inside the vault and outside its config folder. The config folder is
 * judged by its own real location (it may itself be a link) and, below the vault, by name as `isInConfigDir` does,
 * so that a link such as `cfglink -> .obsidian` cannot reach the token in `data.json`. The offline reader's
 * `RealVault::allows` (src/offline/paths/disk.rs) applies the same rule.
 */
function realLocationTest(ctx: ToolContext): (real: string) => boolean {
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
export function isInsideVaultOnDisk(ctx: ToolContext, path: string): boolean {
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
 * `isInsideVaultOnDisk` decides it. Verdicts are cached per file, so a search over a large vault costs one
 * `realpath` per note once, not on every call. A file that cannot be resolved (deleted meanwhile) counts as outside.
 */
export function insideVaultChecker(ctx: ToolContext): (file: TFile) => boolean {
  let allows: ((real: string) => boolean) | null = null;
  return (file) => {
    const known = verdicts.get(file);
    if (known && known.path === file.path && known.mtime === file.stat.mtime && known.size === file.stat.size) {
      return known.inside;
    }
    allows ??= realLocationTest(ctx);
    let real: string;
    try {
      real = realpathSync.native(join(vaultBasePath(ctx), ...file.path.split("/")));
    } catch {
      // Unresolvable now (removed, dangling link): nothing can be read from it, and a later call looks again.
      return false;
    }
    const inside = allows(real);
    verdicts.set(file, { path: file.path, mtime: file.stat.mtime, size: file.stat.size, inside });
    return inside;
  };
}

/**
 * The same test by vault path, for indexes keyed by path (the metadata cache's link maps); a path the vault no
 * longer lists is judged on disk directly.
 */
export function insideVaultPathChecker(ctx: ToolContext): (path: string) => boolean {
  const check = insideVaultChecker(ctx);
  return (path) => {
    const file = ctx.app.vault.getFileByPath(path);
    return file ? check(file) : isInsideVaultOnDisk(ctx, path);
  };
}

/**
 * Reads a file's text as `vault.read` does (from disk, UTF-8), judged by what was really opened: the file is opened
 * first, then the real location of what was opened must be inside the vault and outside its config folder. On Linux
 * the kernel names that location (`/proc/self/fd`), which no later swap can change. Elsewhere the path is resolved
 * again and its last component must be the very file opened (same device and inode, not following a link), so a
 * symlink swapped in for the note itself is refused; a folder above it swapped in the same instant is a window
 * there.
 */
export async function readVerified(ctx: ToolContext, file: TFile): Promise<string> {
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
export function stillPinned(ctx: ToolContext, file: TFile, pinned: Pinned): boolean {
  try {
    const now = statSync(join(vaultBasePath(ctx), ...file.path.split("/")));
    return now.dev === pinned.dev && now.ino === pinned.ino;
  } catch {
    return false;
  }
}

/** Opens `file` as `readVerified` judges it and keeps it open; the caller closes the handle. */
export async function openVerified(ctx: ToolContext, file: TFile): Promise<Pinned> {
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
    return { handle, text: await readWhole(handle), dev: opened.dev, ino: opened.ino };
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

/**
 * After a create or a move through Obsidian (which works by path): throws unless what now sits at `path` is inside
 * the vault, so that a folder swapped for a symlink during the call cannot redirect the write silently.
 */
export function assertLandedInside(ctx: ToolContext, path: string, what: string): void {
  if (!isInsideVaultOnDisk(ctx, path)) {
    throw new ToolError(
      `${what} ${JSON.stringify(path)}, but it now resolves outside the vault or into its config folder (a symlink was swapped in during the call): check that folder`,
    );
  }
}

/** Throws unless `path` stays inside the vault on disk. */
export function assertInsideVaultOnDisk(ctx: ToolContext, path: string): void {
  if (!isInsideVaultOnDisk(ctx, path)) throw outsideVault(path);
}

/** A note reference split into the path part and the `#heading` / `#^block` part of a link. */
export interface NoteRef {
  file: TFile;
  /** Heading or block named in the reference (without "#"), or "" when none. */
  subpath: string;
}

/** Strips `[[…]]`, a leading `!` and an `|alias` from a wikilink, leaving linktext such as `Note#Heading`. */
function linktextOf(raw: string): string {
  let text = raw.trim();
  if (text.startsWith("!")) text = text.slice(1);
  if (text.startsWith("[[") && text.endsWith("]]")) text = text.slice(2, -2);
  const bar = text.indexOf("|");
  if (bar >= 0) text = text.slice(0, bar);
  return text.trim();
}

/**
 * Resolves a path argument to an existing file: an exact vault path, the path plus ".md", or a wikilink / linktext
 * resolved as Obsidian resolves links (`getFirstLinkpathDest`). `Note#Heading` and `Note#^block` keep their subpath.
 */
export function resolveNote(ctx: ToolContext, raw: string, options: { textOnly?: boolean } = {}): NoteRef {
  const hidden = hiddenChecker(ctx);
  // A hidden file or folder is not there at all: every lookup below passes over it, so that the answer (another note
  // found by its link name, or "not found") is the one a vault without it would give.
  const lookup = (path: string) => {
    const entry = ctx.app.vault.getAbstractFileByPath(path);
    return entry && !hidden(entry.path) ? entry : null;
  };
  const linktext = linktextOf(raw);
  if (linktext === "") throw new ToolError("path is empty");
  let file: TFile | null = null;
  let subpath = "";
  const exact = lookup(cleanVaultPath(linktext, ctx));
  if (exact instanceof TFile) {
    file = exact;
  } else {
    const hash = linktext.indexOf("#");
    const linkpath = hash >= 0 ? linktext.slice(0, hash) : linktext;
    subpath = hash >= 0 ? linktext.slice(hash + 1).trim() : "";
    const path = cleanVaultPath(linkpath, ctx);
    const direct = lookup(path);
    const withExtension = path.toLowerCase().endsWith(".md") ? null : lookup(path + ".md");
    if (direct instanceof TFile) file = direct;
    else if (withExtension instanceof TFile) file = withExtension;
    else if (direct instanceof TFolder) throw new ToolError(`${JSON.stringify(path)} is a folder, not a note`);
    else if (path !== "") file = firstVisibleDest(ctx, path, "");
    if (!file) throw new ToolError(`note not found: ${JSON.stringify(raw)} (no such path and no note with that link name)`);
  }
  if (isInConfigDir(file.path, ctx)) throw new ToolError(`${JSON.stringify(raw)} is inside the config folder`);
  assertInsideVaultOnDisk(ctx, file.path);
  if (options.textOnly !== false && !TEXT_EXTENSIONS.has(file.extension.toLowerCase())) {
    throw new ToolError(`${file.path} is not a text note (extension .${file.extension})`);
  }
  return { file, subpath };
}

/** Resolves a path argument that must name a Markdown note. */
export function resolveMarkdown(ctx: ToolContext, raw: string): NoteRef {
  const ref = resolveNote(ctx, raw);
  if (ref.file.extension.toLowerCase() !== "md") throw new ToolError(`${ref.file.path} is not a Markdown note`);
  return ref;
}

/** Validates a folder argument; "" and a lone "/" (Obsidian's name for the root folder) are the vault root. */
export function cleanFolderPath(raw: string, ctx: ToolContext): string {
  return raw.trim() === "/" ? "" : cleanVaultPath(raw, ctx, "folder");
}

/** Resolves a folder argument ("" or "/" is the vault root). */
export function resolveFolder(ctx: ToolContext, raw: string): TFolder {
  const path = cleanFolderPath(raw, ctx);
  const folder = path === "" ? ctx.app.vault.getRoot() : ctx.app.vault.getAbstractFileByPath(path);
  if (!(folder instanceof TFolder) || hiddenChecker(ctx)(folder.path)) {
    throw new ToolError(`folder not found: ${JSON.stringify(raw)}`);
  }
  assertInsideVaultOnDisk(ctx, folder.path === "/" ? "" : folder.path);
  return folder;
}

/**
 * Validates the path of a note about to be created or moved to: a vault path (not a link) that gets ".md" appended
 * unless it already ends in ".md", outside the config folder, whose existing ancestors are inside the vault on disk.
 */
export function newNotePath(ctx: ToolContext, raw: string, what = "path"): string {
  const path = notePathOf(ctx, raw, what);
  assertNotHidden(ctx, path);
  return path;
}

/** `newNotePath` without the hidden-path check, for reads that look up where a note would be. */
export function notePathOf(ctx: ToolContext, raw: string, what = "path"): string {
  if (raw.trim().endsWith("/")) throw new ToolError(`${what} ${JSON.stringify(raw)} ends with "/": give the note's file name`);
  let path = cleanVaultPath(raw.trim(), ctx, what);
  if (path === "") throw new ToolError(`${what} is empty`);
  if (!path.toLowerCase().endsWith(".md")) path += ".md";
  if (/[*"<>:|?]/.test(path)) {
    throw new ToolError(`${what} ${JSON.stringify(raw)}: Obsidian file and folder names cannot contain * " < > : | ?`);
  }
  if (/[[\]#^]/.test(path.split("/").pop() ?? "")) {
    throw new ToolError(`${what} ${JSON.stringify(raw)}: a note name cannot contain [ ] # ^ (links could not reach it)`);
  }
  if (isInConfigDir(path, ctx)) throw new ToolError(`${what} ${JSON.stringify(raw)} is inside the config folder`);
  assertInsideVaultOnDisk(ctx, path);
  return path;
}

/**
 * Refuses a path that a hidden-path rule covers (itself, or the real location of its nearest existing ancestor
 * when a symlink leads there), whether or not anything exists at it: writes never create or move anything into a
 * hidden path, and the refusal is the same for an empty spot and a hidden note.
 */
export function assertNotHidden(ctx: ToolContext, path: string): void {
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

/** The parent folder of a vault path ("" for the root). */
export function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}

/** Creates every missing folder on the way to `path`'s parent, through the vault. */
export async function ensureParentFolders(ctx: ToolContext, path: string): Promise<void> {
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
