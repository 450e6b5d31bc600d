// Path safety, the rules that need only the text of a path: every path an agent passes is cleaned here before the
// vault is touched. Paths are vault-relative with "/" separators. We refuse rather than repair anything that could
// point outside the vault or into its config folder: absolute paths, ".." segments, percent-encoded dots or
// separators, backslashes, control characters, Windows device names. What needs the disk (symlinks, reading a note by
// what was really opened) is in disk.ts, and how a note or folder argument is found in resolve.ts: the same cut as
// the offline reader's src/offline/plugin/vault/paths/, whose mod.rs holds these rules with the same messages.

import type { VaultContext } from "./context";
import { ToolError } from "./errors";

const MAX_PATH_CHARS = 1024;

/**
 * File names Windows opens as devices, by the rule of Microsoft's "Naming Files, Paths, and Namespaces"
 * (https://learn.microsoft.com/windows/win32/fileio/naming-a-file), applied to a name's part before its first "."
 * (and ":", as "COM1:" is the port's DOS spelling) with trailing spaces dropped, so "nul.tar.gz" and "NUL .md" are
 * NUL. Reserved: CON, PRN, AUX, NUL, COM1-COM9 and LPT1-LPT9, and COM/LPT followed by a superscript ¹ ² ³, which
 * Windows reads as digits (listed by Microsoft since 2023, MicrosoftDocs/win32#1731). COM0 and LPT0 are accepted:
 * Windows opens them as plain files, and Microsoft, after listing them in 2022, removed them in 2025 as never reserved
 * (MicrosoftDocs/win32#2008). The `i` flag without `u` folds ASCII letters only, as Windows does here. The offline
 * reader's `is_windows_device_name` (src/offline/plugin/vault/paths/mod.rs) applies the same rule.
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
export function cleanVaultPath(raw: string, ctx: VaultContext, what = "path"): string {
  if (raw.length > MAX_PATH_CHARS) throw new ToolError(`${what} is longer than ${MAX_PATH_CHARS} characters`);
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
export function isInConfigDir(path: string, ctx: VaultContext): boolean {
  return configDirChecker(ctx)(path);
}

/** `isInConfigDir` for many paths: the config folder's name is worked out once, not once per path. */
export function configDirChecker(ctx: VaultContext): (path: string) => boolean {
  const bare = (name: string) => name.replace(/[. ]+$/, "").toLowerCase();
  const config = ctx.configDir.replace(/^\/+|\/+$/g, "").toLowerCase();
  const wanted = config.split("/").map(bare);
  const first = config.charAt(0);
  // Listings ask this for every file: most paths differ from the config folder in their first character.
  if (first === "") return () => false;
  return (path) => {
    if (path.charAt(0).toLowerCase() !== first) return false;
    const names = path.split("/");
    return wanted.every((name, index) => index < names.length && bare(names[index]) === name);
  };
}

/** The parent folder of a vault path ("" for the root). */
export function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}
