// The vault's files in path order, kept between calls so that a page of resources/list or a completion does not sort
// the whole vault again. Obsidian's own events keep it true: a create, delete or rename drops the order (rebuilt on
// the next use), and a note's aliases are re-read after the metadata cache reports the note changed. Hidden paths and
// the config folder are left to each call (its rules may differ), so the index holds every file Obsidian lists.

import type { App, EventRef, TFile } from "obsidian";
import { fold } from "./hidden";
import { frontmatterAliases } from "./links";

/** A file with the folded forms that completion compares (see src/resources/README.md). */
export interface IndexedFile {
  file: TFile;
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
  private refs: { from: { offref(ref: EventRef): void }; ref: EventRef }[] = [];

  constructor(private readonly app: App) {}

  /** Starts following Obsidian's events; `stop` undoes it. */
  start(): void {
    if (this.refs.length > 0) return;
    const { vault, metadataCache } = this.app;
    const reorder = () => {
      this.ordered = null;
    };
    this.refs = [
      { from: vault, ref: vault.on("create", reorder) },
      { from: vault, ref: vault.on("delete", reorder) },
      { from: vault, ref: vault.on("rename", reorder) },
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
  }

  /** Every file, sorted by path in code-unit order. */
  files(): readonly IndexedFile[] {
    // Without events (not started) nothing would tell the index that it is out of date: build it for this call only.
    if (this.ordered && this.refs.length > 0) return this.ordered;
    const ordered = this.app.vault.getFiles().map((file) => {
      const name = file.extension.toLowerCase() === "md" ? file.basename : file.name;
      const foldedPath = fold(file.path);
      return { file, name, foldedName: fold(name), foldedPath, letters: letterMask(foldedPath), aliases: undefined };
    });
    ordered.sort((a, b) => (a.file.path < b.file.path ? -1 : a.file.path > b.file.path ? 1 : 0));
    this.ordered = ordered;
    return ordered;
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
    return entry?.file.path === path ? entry : undefined;
  }
}

/** The index of the first of `files` (in path order) whose path is `path` or sorts after it. */
export function firstAtOrAfter(files: readonly IndexedFile[], path: string): number {
  let low = 0;
  let high = files.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (files[middle].file.path < path) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The aliases in a note's frontmatter as note_metadata reports them. */
function aliasesOf(app: App, file: TFile): string[] {
  return frontmatterAliases(app.metadataCache.getFileCache(file)?.frontmatter);
}
