// The notes a vault-wide tool goes through: every visible Markdown note outside the config folder, in path order,
// taken from the kept file index (./file-index.ts) and gathered in slices (./slices.ts), so that neither sorting nor
// filtering 100,000 notes holds Obsidian's thread. The same set as `getMarkdownFiles()` filtered and sorted.

import type { TFile } from "obsidian";
import type { VaultContext } from "./context";
import type { FileIndex } from "./file-index";
import { firstAtOrAfter } from "./file-index";
import { visibleChecker } from "./hidden";
import { configDirChecker } from "./paths";
import type { Slices } from "./slices";

/** The visible notes whose path starts with `prefix` ("" for all), in path order; `from` skips those before it. */
export async function visibleNotes(ctx: VaultContext & { files: FileIndex }, slices: Slices, prefix = "", from = ""): Promise<TFile[]> {
  const files = await ctx.files.filesInSlices(slices);
  const start = firstAtOrAfter(files, from > prefix ? from : prefix);
  // A copy: the index changes in place when an event comes during a pause below.
  const range = files.slice(start);
  const visible = visibleChecker(ctx);
  const inConfigDir = configDirChecker(ctx);
  const notes: TFile[] = [];
  for (const { file } of range) {
    if (slices.due()) await slices.pause();
    if (!file.path.startsWith(prefix)) break;
    if (file.extension === "md" && !inConfigDir(file.path) && visible(file)) notes.push(file);
  }
  return notes;
}
