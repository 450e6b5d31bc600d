// The fake `MetadataCache`: per-note `CachedMetadata` (see markdown.cjs for the parsing rules), link resolution
// and the vault-wide `resolvedLinks` / `unresolvedLinks` maps, the members the plugin reads.
//
// Link resolution (`getFirstLinkpathDest(linkpath, sourcePath)`), as observed in Obsidian 1.13:
//  1. `""` (a link such as `[[#Heading]]`) is the source note itself.
//  2. A leading `/` means the vault root. `./x` and `../x` are resolved against the source note's folder and then
//     looked up exactly (`x`, then `x.md`); nothing else is tried for them.
//  3. An exact vault path wins: the file at `linkpath`, else at `linkpath.md`.
//  4. Otherwise every file whose path, compared case-insensitively, equals `linkpath` or ends with `/linkpath`
//     (with or without the `.md` of a note) is a candidate. A candidate in the source note's own folder wins;
//     otherwise the shortest path string; equal lengths: the smaller path in code-unit order.
//
// Resolved and unresolved links: every link, embed and frontmatter link of every Markdown note counts, after
// `getLinkpath` (the subpath is dropped): `resolvedLinks[source][destination path]` or
// `unresolvedLinks[source][linkpath as written]`. Every indexed Markdown note has an entry in both, `{}` when empty.
// A self-link (`[[#Heading]]`) counts as a resolved link to the note itself.
//
// Timing, as Obsidian does it (the typings: `changed` "when a file has been indexed", `resolve` "when a file has
// been resolved", `resolved` "when all files has been resolved ... each time files get modified after the initial
// load"):
//  - When the app is created the cache is empty: no note has a file cache (`getFileCache` gives null) or an entry
//    in the link maps. Indexing starts on the next turn of the event loop (./indexer.cjs) and works in slices of a
//    few milliseconds, yielding between them so that requests are served meanwhile, as Obsidian's window stays
//    responsive while it indexes. Each note is parsed (`changed`, with its text and cache) and its links resolved
//    (`resolve`); when the last note is done, `resolved` fires once. Nothing is ever built on a read.
//  - After that, an edit is indexed before the write's promise resolves (Obsidian does it a few milliseconds
//    later); a create, delete or rename re-resolves the notes whose links name that file (they may now lead
//    elsewhere); renames move the cache entry without parsing the note again, as in Obsidian. Each burst of changes
//    is followed by one `resolved` on the next turn of the loop.
//  - `createApp({ indexHold: N })` pauses the startup indexing after N notes until `_resumeIndexing()`, so that a
//    test can call the plugin at a known point of Obsidian's startup without depending on the clock.

"use strict";

const { TFile, parentPath } = require("./vault.cjs");
const { parseMarkdown, keyedRecord } = require("./markdown.cjs");
const { Events } = require("./events.cjs");
const { Indexer } = require("./indexer.cjs");

/**
 * Obsidian's `parseLinktext`: `path` before the first `#`, `subpath` from it (with the `#`).
 * @type {typeof import("obsidian/obsidian").parseLinktext}
 */
function parseLinktext(linktext) {
  const hash = linktext.indexOf("#");
  if (hash === -1) return { path: linktext, subpath: "" };
  return { path: linktext.slice(0, hash), subpath: linktext.slice(hash) };
}

/** @type {typeof import("obsidian/obsidian").getLinkpath} */
function getLinkpath(linktext) {
  return parseLinktext(linktext).path;
}

/** Resolves `./` and `../` against a folder; `null` when it climbs above the vault root. */
function joinRelative(folder, relative) {
  const segments = folder === "/" ? [] : folder.split("/");
  for (const segment of relative.split("/")) {
    if (segment === "." || segment === "") continue;
    if (segment === "..") {
      if (segments.length === 0) return null;
      segments.pop();
    } else {
      segments.push(segment);
    }
  }
  return segments.join("/");
}

class MetadataCache extends Events {
  constructor(vault) {
    super();
    this._vault = vault;
    /** Parsed caches by path: only notes indexed so far. */
    this._caches = new Map();
    /** Files by lower-case name (with extension), for basename lookups. */
    this._byName = new Map();
    /** @type {import("obsidian/obsidian").MetadataCache["resolvedLinks"]} */
    this.resolvedLinks = keyedRecord();
    /** @type {import("obsidian/obsidian").MetadataCache["unresolvedLinks"]} */
    this.unresolvedLinks = keyedRecord();
    /** Which notes' links name a file, by `linkKey`: the notes to re-resolve when such a file comes or goes. */
    this._linkers = new Map();
    /** The keys each indexed note's links have, to take it out of `_linkers` again. */
    this._keysOf = new Map();
    /** Answers of `getFirstLinkpathDest` during the startup pass (see `_resolveFile`); dropped on every change. */
    this._memo = new Map();
    this._indexer = new Indexer(this);
    this._resolvedScheduled = false;
    vault._observers.push((kind, file, oldPath) => this._onVaultChange(kind, file, oldPath));
  }

  /** Builds the name index, synchronously, from the vault's file list; notes are indexed later (`_startIndexing`). */
  _build() {
    this._caches.clear();
    this._byName.clear();
    for (const file of this._vault.getFiles()) this._addName(file);
  }

  /** Starts the startup indexing (see "Timing"); `hold` pauses it after that many notes. */
  _startIndexing(hold) {
    this._indexer.start(hold);
  }

  /** Lets a held startup indexing go on. */
  _resumeIndexing() {
    this._indexer.resume();
  }

  /** How far the startup indexing is: notes indexed, notes to index, and whether `resolved` has fired. */
  _progress() {
    return this._indexer.progress();
  }

  _addName(file) {
    const key = file.name.toLowerCase();
    if (!this._byName.has(key)) this._byName.set(key, []);
    this._byName.get(key).push(file);
  }

  _removeName(file, name) {
    const key = name.toLowerCase();
    const list = this._byName.get(key);
    if (!list) return;
    const rest = list.filter((other) => other !== file);
    if (rest.length) this._byName.set(key, rest);
    else this._byName.delete(key);
  }

  _onVaultChange(kind, file, oldPath) {
    if (!(file instanceof TFile)) return;
    if (kind !== "modify") this._memo.clear();
    if (kind === "create") {
      this._addName(file);
      if (file.extension === "md") this._index(file);
      this._resolveLinkersOf(linkKeyOfFile(file.name, file.extension));
    } else if (kind === "modify") {
      if (file.extension !== "md") return;
      this._index(file);
    } else if (kind === "delete") {
      this._removeName(file, file.name);
      const previous = this._caches.get(file.path) ?? null;
      this._forget(file.path);
      if (file.extension === "md") this.trigger("deleted", file, previous);
      this._resolveLinkersOf(linkKeyOfFile(file.name, file.extension));
    } else if (kind === "rename") {
      const oldName = oldPath.slice(oldPath.lastIndexOf("/") + 1);
      this._removeName(file, oldName);
      this._addName(file);
      const cache = this._caches.get(oldPath);
      this._forget(oldPath);
      if (cache && file.extension === "md") {
        this._caches.set(file.path, cache);
        this._resolveFile(file);
      }
      this._resolveLinkersOf(linkKeyOfFile(oldName, file.extension));
      this._resolveLinkersOf(linkKeyOfFile(file.name, file.extension));
    }
    this._scheduleResolved();
  }

  /** Drops everything kept about the note at `path`. */
  _forget(path) {
    this._caches.delete(path);
    delete this.resolvedLinks[path];
    delete this.unresolvedLinks[path];
    for (const key of this._keysOf.get(path) ?? []) this._linkers.get(key)?.delete(path);
    this._keysOf.delete(path);
  }

  /** Re-resolves every indexed note whose links name a file with this key. */
  _resolveLinkersOf(key) {
    for (const path of [...(this._linkers.get(key) ?? [])]) {
      const source = this._vault._indexedFile(path);
      if (source && this._caches.has(path)) this._resolveFile(source);
    }
  }

  /** After-load changes end with one `resolved`, on the next turn of the loop (the startup pass fires its own). */
  _scheduleResolved() {
    if (!this._indexer.progress().resolved || this._resolvedScheduled) return;
    this._resolvedScheduled = true;
    setImmediate(() => {
      this._resolvedScheduled = false;
      this.trigger("resolved");
    });
  }

  /** Parses a note, tells the `changed` listeners, then resolves its links (`resolve`), as Obsidian does. */
  _index(file) {
    const text = this._vault._textOf(file);
    const cache = parseMarkdown(text);
    this._caches.set(file.path, cache);
    this.trigger("changed", file, text, cache);
    this._resolveFile(file);
  }

  _resolveFile(file) {
    const resolved = keyedRecord();
    const unresolved = keyedRecord();
    const folder = parentPath(file.path);
    const keys = new Set();
    // While the startup pass runs the answer depends only on the linkpath and the source's folder; thousands of
    // notes link the same few hubs, so remembering answers saves most lookups. Any create, delete or rename clears it.
    const memo = this._indexer.progress().resolved ? null : this._memo;
    for (const reference of referencesOf(this._caches.get(file.path))) {
      const linkpath = getLinkpath(reference.link);
      let destination;
      // A self-link depends on the note itself, not only on its folder, so it bypasses the memo.
      if (memo && linkpath !== "") {
        const key = `${folder}\u0000${linkpath}`;
        destination = memo.get(key);
        if (destination === undefined) {
          destination = this.getFirstLinkpathDest(linkpath, file.path);
          memo.set(key, destination);
        }
      } else {
        destination = this.getFirstLinkpathDest(linkpath, file.path);
      }
      if (linkpath !== "") keys.add(linkKey(linkpath));
      if (destination) resolved[destination.path] = (resolved[destination.path] ?? 0) + 1;
      else unresolved[linkpath] = (unresolved[linkpath] ?? 0) + 1;
    }
    for (const key of this._keysOf.get(file.path) ?? []) if (!keys.has(key)) this._linkers.get(key)?.delete(file.path);
    for (const key of keys) {
      if (!this._linkers.has(key)) this._linkers.set(key, new Set());
      this._linkers.get(key).add(file.path);
    }
    this._keysOf.set(file.path, [...keys]);
    this.resolvedLinks[file.path] = resolved;
    this.unresolvedLinks[file.path] = unresolved;
    this.trigger("resolve", file);
  }

  /** @type {import("obsidian/obsidian").MetadataCache["getFileCache"]} */
  getFileCache(file) {
    // Looked up by path, as Obsidian's `getCache(file.path)`: a file object that is stale (deleted) has no cache,
    // nor has a note not indexed yet.
    const indexed = file ? this._vault.getFileByPath(file.path) : null;
    if (!indexed || indexed.extension !== "md") return null;
    return this._caches.get(indexed.path) ?? null;
  }

  /** @type {import("obsidian/obsidian").MetadataCache["getFirstLinkpathDest"]} */
  getFirstLinkpathDest(linkpath, sourcePath) {
    if (linkpath === "") return this._vault._indexedFile(sourcePath);
    const path = linkpath.startsWith("/") ? linkpath.replace(/^\/+/, "") : linkpath;
    const sourceFolder = parentPath(sourcePath);
    if (path.startsWith("./") || path.startsWith("../")) {
      const joined = joinRelative(sourceFolder, path);
      if (joined === null) return null;
      return this._vault._indexedFile(joined) ?? this._vault._indexedFile(`${joined}.md`);
    }
    const exact = this._vault._indexedFile(path) ?? this._vault._indexedFile(`${path}.md`);
    if (exact) return exact;

    const lower = path.toLowerCase();
    const name = lower.slice(lower.lastIndexOf("/") + 1);
    let best = null;
    let bestLocal = false;
    const consider = (file) => {
      if (!matchesLinkpath(file, lower)) return;
      const local = parentPath(file.path) === sourceFolder;
      if (best === null || (local && !bestLocal) || (local === bestLocal && isShorter(file.path, best.path))) {
        best = file;
        bestLocal = local;
      }
    };
    for (const file of this._byName.get(name) ?? []) consider(file);
    for (const file of this._byName.get(`${name}.md`) ?? []) consider(file);
    return best;
  }

  /**
   * Obsidian's "shortest" linktext: the name when it is unique in the vault, else the full path.
   * @type {import("obsidian/obsidian").MetadataCache["fileToLinktext"]}
   */
  fileToLinktext(file, sourcePath, omitMdExtension = true) {
    const dropMd = omitMdExtension && file.extension === "md";
    const unique = (this._byName.get(file.name.toLowerCase()) ?? []).length === 1;
    const text = unique ? file.name : file.path;
    return dropMd ? text.slice(0, -3) : text;
  }
}

function isShorter(path, than) {
  return path.length < than.length || (path.length === than.length && path < than);
}

/** Whether a file's path, lower-cased, is `lowerLinkpath` or ends with `/lowerLinkpath` (`.md` optional for notes). */
function matchesLinkpath(file, lowerLinkpath) {
  const full = file.path.toLowerCase();
  if (full === lowerLinkpath || full.endsWith(`/${lowerLinkpath}`)) return true;
  if (file.extension !== "md") return false;
  const withoutMd = full.slice(0, -3);
  return withoutMd === lowerLinkpath || withoutMd.endsWith(`/${lowerLinkpath}`);
}

/** What a link names, for `_linkers`: its last segment, lower-cased, without a final `.md`. */
function linkKey(linkpath) {
  const name = linkpath.slice(linkpath.lastIndexOf("/") + 1).toLowerCase();
  return name.endsWith(".md") ? name.slice(0, -3) : name;
}

/** The `linkKey` every link that can reach this file has. */
function linkKeyOfFile(name, extension) {
  const lower = name.toLowerCase();
  return extension === "md" ? lower.slice(0, -3) : lower;
}

/** Every link-like reference of a note, in the order Obsidian counts them. */
function referencesOf(cache) {
  if (!cache) return [];
  return [...(cache.links ?? []), ...(cache.embeds ?? []), ...(cache.frontmatterLinks ?? [])];
}

module.exports = { MetadataCache, parseLinktext, getLinkpath };
