// The vault's files in path order, kept between calls so that a search, a listing, a page of resources/list or a
// completion does not sort the whole vault again. Obsidian's own events keep it true: a file created, deleted or
// renamed is put in or taken out at its place (a folder deleted or renamed drops the order, rebuilt on the next use),
// and a note's aliases are re-read after the metadata cache reports the note changed. Hidden paths and the config
// folder are left to each call (its rules may differ), so the index holds every file Obsidian lists. Tools build it
// through `filesInSlices`, so that the first build at 100,000 files does not hold Obsidian's thread either.

import { TFile, type App, type EventRef, type TAbstractFile } from "obsidian";
import { fold } from "./hidden";
import { frontmatterAliases } from "./links";
import { byPath, type Slices } from "./slices";

/** A file with the folded forms that completion compares (see src/resources/README.md). */
export interface IndexedFile {
  file: TFile;
  /** The file's path when it was indexed. Obsidian renames a `TFile` in place before its "rename" event, so the
   * order is kept by this copy: `file.path` may already be the new path when the event comes. */
  path: string;
  /** The note's name without ".md"; other files keep their extension. */
  name: string;
  foldedName: string;
  foldedPath: string;
  /** The characters of the folded path, one bit per `code & 31` (see `letterMask`). */
  letters: number;
  /** The note's aliases, folded, once read (see `FileIndex.foldedAliases`); kept on the entry, as a lookup by path
   * for each of 100,000 files would cost a completion more than its matching does. */
  aliases: readonly string[] | undefined;
}

/** A set of a text's characters as 32 bits, one per `code & 31`: a text lacking a bit lacks a character of it. */
export function letterMask(text: string): number {
  let mask = 0;
  for (let i = 0; i < text.length; i++) mask |= 1 << (text.charCodeAt(i) & 31);
  return mask;
}

export class FileIndex {
  private ordered: IndexedFile[] | null = null;
  /** Counts events, so that a build in slices knows whether one came while it ran. */
  private generation = 0;
  private refs: { from: { offref(ref: EventRef): void }; ref: EventRef }[] = [];

  constructor(private readonly app: App) {}

  /** Starts following Obsidian's events; `stop` undoes it. */
  start(): void {
    if (this.refs.length > 0) return;
    const { vault, metadataCache } = this.app;
    this.refs = [
      { from: vault, ref: vault.on("create", (entry) => this.changed(entry, null, true)) },
      { from: vault, ref: vault.on("delete", (entry) => this.changed(entry, entry.path, false)) },
      { from: vault, ref: vault.on("rename", (entry, oldPath) => this.changed(entry, oldPath, true)) },
      {
        from: metadataCache,
        ref: metadataCache.on("changed", (file) => {
          const entry = this.ordered && this.entryAt(this.ordered, file.path);
          if (entry) entry.aliases = undefined;
        }),
      },
    ];
  }

  stop(): void {
    for (const { from, ref } of this.refs) from.offref(ref);
    this.refs = [];
    this.ordered = null;
    this.generation++;
  }

  /** Every file, sorted by path in code-unit order. */
  files(): readonly IndexedFile[] {
    // Without events (not started) nothing would tell the index that it is out of date: build it for this call only.
    if (this.ordered && this.refs.length > 0) return this.ordered;
    const ordered = this.app.vault.getFiles().map(indexed);
    ordered.sort(byEntryPath);
    if (this.refs.length > 0) this.ordered = ordered;
    return ordered;
  }

  /** `files()`, built (when it must be) in slices. */
  async filesInSlices(slices: Slices): Promise<readonly IndexedFile[]> {
    if (this.ordered && this.refs.length > 0) return this.ordered;
    const generation = this.generation;
    const entries = await slices.map(this.app.vault.getFiles(), indexed);
    const ordered = await slices.sort(entries, byEntryPath);
    // An event during the build may have been missed by it: keep the result for this call only.
    if (generation === this.generation && this.refs.length > 0) this.ordered = ordered;
    return ordered;
  }

  /** Keeps the order through one vault event: `entry` left `oldPath` (null: it is new) and is there now (`present`). */
  private changed(entry: TAbstractFile, oldPath: string | null, present: boolean): void {
    this.generation++;
    const ordered = this.ordered;
    if (!ordered) return;
    if (!(entry instanceof TFile)) {
      // A folder's files move with it; rather than trust that each sends its own event, sort again when next used.
      if (oldPath !== null) this.ordered = null;
      return;
    }
    if (oldPath !== null) {
      const at = firstAtOrAfter(ordered, oldPath);
      if (ordered[at]?.path === oldPath) ordered.splice(at, 1);
    }
    if (present) {
      const at = firstAtOrAfter(ordered, entry.path);
      if (ordered[at]?.path === entry.path) ordered[at] = indexed(entry);
      else ordered.splice(at, 0, indexed(entry));
    }
  }

  /** The files from the first whose path is `path` or sorts after it, in path order. */
  *from(path: string): Generator<IndexedFile> {
    const files = this.files();
    for (let at = firstAtOrAfter(files, path); at < files.length; at++) yield files[at];
  }

  /** A note's aliases, folded (none for other files). */
  foldedAliases(entry: IndexedFile): readonly string[] {
    entry.aliases ??= entry.file.extension.toLowerCase() === "md" ? aliasesOf(this.app, entry.file).map(fold) : [];
    return entry.aliases;
  }

  private entryAt(files: readonly IndexedFile[], path: string): IndexedFile | undefined {
    const entry = files[firstAtOrAfter(files, path)];
    return entry?.path === path ? entry : undefined;
  }
}

function indexed(file: TFile): IndexedFile {
  const name = file.extension.toLowerCase() === "md" ? file.basename : file.name;
  const foldedPath = fold(file.path);
  return { file, path: file.path, name, foldedName: fold(name), foldedPath, letters: letterMask(foldedPath), aliases: undefined };
}

function byEntryPath(a: IndexedFile, b: IndexedFile): number {
  return byPath(a.path, b.path);
}

/** The index of the first of `files` (in path order) whose path is `path` or sorts after it. */
export function firstAtOrAfter(files: readonly IndexedFile[], path: string): number {
  let low = 0;
  let high = files.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (files[middle].path < path) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The aliases in a note's frontmatter as note_metadata reports them. */
function aliasesOf(app: App, file: TFile): string[] {
  return frontmatterAliases(app.metadataCache.getFileCache(file)?.frontmatter);
}
