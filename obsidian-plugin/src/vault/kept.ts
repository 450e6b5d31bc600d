// The text a large note held before an edit, kept until the edit is verified. Obsidian writes a note in place
// (truncate, then write), so Obsidian or the machine dying during a 30 MB write can leave the note cut short; that write
// is not ours to make atomic, but the loss is ours to prevent. Before an edit of a note of KEEP_FROM_BYTES or more, its
// text goes to `<configDir>/plugins/obsmcp/kept/ID.md` and a record to `ID.json` (`{path, before, after}`: the note's
// vault path and the SHA-256 of its text before and after the edit, `after` written once the new text is known); both
// go once the edit is verified or refused. A record still there means the edit was interrupted: `obsmcp doctor`
// compares the note with both hashes and, when it matches neither, offers the kept text back beside it
// (src/doctor/vault/kept.rs). The plugin's own folder is used because every Obsidian install (Flatpak and Snap
// included) and doctor reach it, and no tool or index ever reads the config folder.

import { randomBytes } from "crypto";
import { promises as fsp, renameSync, writeFileSync } from "fs";
import { join } from "path";
import type { VaultContext } from "./context";
import { ToolError } from "./errors";
import { vaultBasePath } from "./disk";

/** Notes this large (UTF-8 bytes) or larger are kept before an edit; smaller ones are written in one go. */
export const KEEP_FROM_BYTES = 1024 * 1024;

/** One edit's kept text and record. */
export interface Kept {
  record: string;
  copy: string;
  path: string;
  before: string;
}

/** The folder of kept texts: `kept` in the plugin's own folder. */
export function keptFolder(ctx: VaultContext): string {
  return join(vaultBasePath(ctx), ...ctx.configDir.split("/"), "plugins", "obsmcp", "kept");
}

/** Writes, and syncs, `text` to a new file. */
async function writeSynced(file: string, text: string): Promise<void> {
  const handle = await fsp.open(file, "wx", 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes a record whole or not at all (a temporary file renamed over it), so that doctor never reads half of one. */
function writeRecord(kept: Kept, after: string | null): void {
  const temporary = `${kept.record}.tmp`;
  writeFileSync(temporary, JSON.stringify({ path: kept.path, before: kept.before, after }), { mode: 0o600 });
  renameSync(temporary, kept.record);
}

/**
 * Keeps `text`, what the note at `path` holds now with SHA-256 `before`, when it is large enough to need it; null
 * otherwise. A failure to keep it refuses the edit: writing on without the copy is what this is here to prevent.
 */
export async function keepBefore(ctx: VaultContext, path: string, text: string, before: string): Promise<Kept | null> {
  if (Buffer.byteLength(text) < KEEP_FROM_BYTES) return null;
  const folder = keptFolder(ctx);
  const id = `${Date.now()}-${randomBytes(6).toString("hex")}`;
  const kept: Kept = { record: join(folder, `${id}.json`), copy: join(folder, `${id}.md`), path, before };
  try {
    await fsp.mkdir(folder, { recursive: true, mode: 0o700 });
    // The copy first: a record always has its copy.
    await writeSynced(kept.copy, text);
    writeRecord(kept, null);
  } catch (error) {
    await release(kept);
    throw new ToolError(`${path}: its text could not be kept before a large edit (${(error as Error).message}); nothing was written`);
  }
  return kept;
}

/**
 * Records the hash of the text about to be written. Called inside `vault.process`, which wants its answer at once, so
 * it writes synchronously; the record is a few hundred bytes.
 */
export function recordAfter(kept: Kept, after: string): void {
  writeRecord(kept, after);
}

/** Removes the kept text and its record: the edit was verified, or nothing was written. */
export async function release(kept: Kept): Promise<void> {
  // A leftover pair costs only disk: doctor finds it, sees the note matches a hash, and removes it. So a failure here
  // must not fail an edit that succeeded; it is said on the console, where Obsidian's developer tools show it.
  for (const file of [kept.record, `${kept.record}.tmp`, kept.copy]) {
    await fsp.rm(file, { force: true }).catch((error: Error) => console.warn(`obsmcp: could not remove ${file}: ${error.message}`));
  }
}
