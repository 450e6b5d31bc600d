// A tool's note and folder arguments, found as Obsidian finds them: an exact vault path, the path plus ".md", or a
// wikilink or link name resolved like a link; and the path of a note about to be created or moved to. What comes
// back has passed the lexical rules of paths.ts and the on-disk checks of disk.ts, and a hidden file or folder is
// passed over as if it were not there. The offline reader's twin is src/offline/plugin/vault/paths/resolve.rs.

import { TFile, TFolder } from "obsidian";
import type { VaultContext } from "./context";
import { ToolError } from "./errors";
import { assertInsideVaultOnDisk, assertNotHidden } from "./disk";
import { firstVisibleDest, hiddenChecker } from "./hidden";
import { cleanVaultPath, isInConfigDir } from "./paths";

/** Extensions a note-reading tool accepts: text formats Obsidian keeps in a vault. */
const TEXT_EXTENSIONS = new Set(["md", "canvas", "base", "txt", "csv", "json"]);

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
export function resolveNote(ctx: VaultContext, raw: string, options: { textOnly?: boolean } = {}): NoteRef {
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
export function resolveMarkdown(ctx: VaultContext, raw: string): NoteRef {
  const ref = resolveNote(ctx, raw);
  if (ref.file.extension.toLowerCase() !== "md") throw new ToolError(`${ref.file.path} is not a Markdown note`);
  return ref;
}

/** Validates a folder argument; "" and a lone "/" (Obsidian's name for the root folder) are the vault root. */
export function cleanFolderPath(raw: string, ctx: VaultContext): string {
  return raw.trim() === "/" ? "" : cleanVaultPath(raw, ctx, "folder");
}

/** Resolves a folder argument ("" or "/" is the vault root). */
export function resolveFolder(ctx: VaultContext, raw: string): TFolder {
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
export function newNotePath(ctx: VaultContext, raw: string, what = "path"): string {
  const path = notePathOf(ctx, raw, what);
  assertNotHidden(ctx, path);
  return path;
}

/** `newNotePath` without the hidden-path check, for reads that look up where a note would be. */
export function notePathOf(ctx: VaultContext, raw: string, what = "path"): string {
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
