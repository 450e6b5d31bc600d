// One writer per note at a time. Every obsmcp write checks `expected_hash` and acts while holding the lock of each
// path it touches, so two agents holding the same hash cannot both succeed: the second waits for the first, then
// reads the text the first left and is refused. Keys are lower-cased, as a case-insensitive disk (macOS, Windows)
// holds one file for both spellings. All of it runs on Obsidian's one JavaScript thread: the lock only orders the
// awaits between a check and the act. A writer that waited may find its note moved or deleted by the writer before
// it: it must not follow the note to its new path (its caller named the old one), so it checks `stillAt` first.

import type { TFile } from "obsidian";
import type { VaultContext } from "./context";
import { ToolError } from "./errors";

const tails = new Map<string, Promise<void>>();

/** Runs `act` once no other obsmcp write holds any of `paths`, holding them all until it settles. */
export async function withPathLocks<T>(paths: readonly string[], act: () => Promise<T>): Promise<T> {
  const keys = [...new Set(paths.map((path) => path.toLowerCase()))];
  const before = keys.map((key) => tails.get(key));
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  // Every key is taken in the same synchronous step, so two writers can never each hold one key the other waits on.
  for (const key of keys) tails.set(key, held);
  try {
    await Promise.all(before);
    return await act();
  } finally {
    release();
    for (const key of keys) if (tails.get(key) === held) tails.delete(key);
  }
}

/**
 * Throws unless `file` is still the vault's file at `path`, the path it was resolved at: run first inside the lock,
 * since the write that held it before may have moved or deleted the note. `nothing` ends the message ("nothing was
 * written").
 */
export function assertStillAt(ctx: VaultContext, file: TFile, path: string, nothing: string): void {
  if (file.path === path && ctx.app.vault.getAbstractFileByPath(path) === file) return;
  if (file.path !== path && ctx.app.vault.getAbstractFileByPath(file.path) === file) {
    throw new ToolError(
      `${path} was moved to ${file.path} by another write while this one waited; ${nothing}: read the note again at its new path before changing it`,
    );
  }
  throw new ToolError(`${path} was deleted by another write while this one waited; ${nothing}`);
}
