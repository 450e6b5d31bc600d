// Reading the text of many notes at once (search, tasks): `vault.cachedRead` (Obsidian's in-memory copy) a batch at a
// time, never a note whose real file is outside the vault. A note that is itself a symlink, or that changed on disk
// during its cached read, is read the verified way from then on: Obsidian's cached copy of such a note may be an
// earlier target's, and a check before or after a cached read cannot tell (the link can be swapped between any check
// and the read); a verified read opens first and judges what it opened.

import type { TFile } from "obsidian";
import type { VaultContext } from "./context";
import { insideVaultChecker, isSymlinkOnDisk, readVerified } from "./disk";
import type { Slices } from "./slices";

/** Notes seen as a symlink, or read again from disk in the middle of a cached read. */
const distrusted = new WeakSet<TFile>();

/** How many notes are read concurrently; enough to overlap disk reads without flooding memory. */
export const READ_BATCH = 48;

/**
 * Reads a batch of notes (at most READ_BATCH): each one's text, or null for a note that is not read (its real file is
 * outside the vault, it is gone, or a verified read refused it). `inside` is the caller's checker, so its verdicts
 * are cached across batches.
 */
export async function readNotes(ctx: VaultContext, batch: readonly TFile[], inside = insideVaultChecker(ctx)): Promise<(string | null)[]> {
  const judged = batch.map((file) => {
    if (!inside(file)) return null;
    const link = isSymlinkOnDisk(ctx, file);
    if (link === null) return null;
    if (link) distrusted.add(file);
    return { link: distrusted.has(file), mtime: file.stat.mtime, size: file.stat.size };
  });
  const texts = await Promise.all(
    batch.map((file, b) => {
      const judgement = judged[b];
      if (!judgement) return null;
      return judgement.link ? readVerified(ctx, file).catch(() => null) : ctx.app.vault.cachedRead(file);
    }),
  );
  for (let b = 0; b < batch.length; b++) {
    const file = batch[b];
    const before = judged[b];
    if (texts[b] !== null && before && !before.link && (file.stat.mtime !== before.mtime || file.stat.size !== before.size)) {
      distrusted.add(file);
      texts[b] = await readVerified(ctx, file).catch(() => null);
    }
    if (texts[b] !== null && !inside(file)) texts[b] = null;
  }
  return texts;
}

/**
 * Each of `files` with its text (null when it is not read, as `readNotes` says), in order, read a batch at a time
 * and in slices; a caller that stops early reads no further batch.
 */
export async function* eachText(
  ctx: VaultContext,
  files: readonly TFile[],
  slices: Slices,
  inside = insideVaultChecker(ctx),
): AsyncGenerator<{ file: TFile; text: string | null }> {
  for (let batchStart = 0; batchStart < files.length; batchStart += READ_BATCH) {
    slices.throwIfCancelled();
    if (slices.spent()) await slices.pause();
    const batch = files.slice(batchStart, batchStart + READ_BATCH);
    const texts = await readNotes(ctx, batch, inside);
    for (let b = 0; b < batch.length; b++) {
      if (slices.due()) await slices.pause();
      yield { file: batch[b], text: texts[b] };
    }
  }
}
