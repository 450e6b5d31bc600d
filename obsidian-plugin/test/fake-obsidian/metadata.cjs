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
// `unresolvedLinks[source][linkpath as written]`. Every Markdown note has an entry in both, `{}` when empty.
// A self-link (`[[#Heading]]`) counts as a resolved link to the note itself.
//
// Timing: the cache is updated before a vault write's promise resolves (Obsidian does it a little later). Renames
// move the cache entry without parsing the note again, as in Obsidian.
// Obsidian indexes in the background at startup; the fake instead parses a note the first time anything asks
// for it, and builds `resolvedLinks` / `unresolvedLinks` the first time either is read (again after a create,
// delete or rename, which can change what other notes' links resolve to). Either way every answer is complete:
// nothing is ever returned half-indexed, and starting on a 10,000-note vault costs only the folder scan.

"use strict";

const { TFile, parentPath } = require("./vault.cjs");
const { parseMarkdown, keyedRecord } = require("./markdown.cjs");
const { Events } = require("./events.cjs");

/** Obsidian's `parseLinktext`: `path` before the first `#`, `subpath` from it (with the `#`). */
function parseLinktext(linktext) {
  const hash = linktext.indexOf("#");
  if (hash === -1) return { path: linktext, subpath: "" };
  return { path: linktext.slice(0, hash), subpath: linktext.slice(hash) };
}

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
    /** Parsed caches by path; a note missing here is parsed when first asked for. */
    this._caches = new Map();
    /** Files by lower-case name (with extension), for basename lookups. */
    this._byName = new Map();
    this._resolvedLinks = keyedRecord();
    this._unresolvedLinks = keyedRecord();
    /** Set when a create, delete or rename may have changed what other notes' links resolve to. */
    this._resolvedStale = true;
    vault._observers.push((kind, file, oldPath) => this._onVaultChange(kind, file, oldPath));
  }

  get resolvedLinks() {
    this._ensureResolved();
    return this._resolvedLinks;
  }

  get unresolvedLinks() {
    this._ensureResolved();
    return this._unresolvedLinks;
  }

  /** Builds the name index; notes themselves are parsed on first use (see "Timing" above). */
  _build() {
    this._caches.clear();
    this._byName.clear();
    for (const file of this._vault.getFiles()) this._addName(file);
    this._resolvedStale = true;
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
    if (kind === "create") {
      this._addName(file);
      if (file.extension === "md") this._reindex(file);
      this._resolvedStale = true;
    } else if (kind === "modify") {
      if (file.extension !== "md") return;
      this._reindex(file);
      if (!this._resolvedStale) this._resolveFile(file);
    } else if (kind === "delete") {
      this._removeName(file, file.name);
      this._caches.delete(file.path);
      this._resolvedStale = true;
    } else if (kind === "rename") {
      this._removeName(file, oldPath.slice(oldPath.lastIndexOf("/") + 1));
      this._addName(file);
      const cache = this._caches.get(oldPath);
      this._caches.delete(oldPath);
      if (cache && file.extension === "md") this._caches.set(file.path, cache);
      this._resolvedStale = true;
    }
  }

  /** The parsed cache of a note, parsing it now if it has not been yet. */
  _cacheFor(file) {
    let cache = this._caches.get(file.path);
    if (!cache) {
      cache = parseMarkdown(this._vault._textOf(file));
      this._caches.set(file.path, cache);
    }
    return cache;
  }

  /** Parses a note that changed and tells the `changed` listeners, as Obsidian does once it has re-read a note. */
  _reindex(file) {
    const text = this._vault._textOf(file);
    const cache = parseMarkdown(text);
    this._caches.set(file.path, cache);
    this.trigger("changed", file, text, cache);
  }

  /** Parses every note not parsed yet and recomputes both link maps when a change may have moved targets. */
  _ensureResolved() {
    if (!this._resolvedStale) return;
    this._resolvedLinks = keyedRecord();
    this._unresolvedLinks = keyedRecord();
    // Within one pass the answer depends only on the linkpath and the source's folder; thousands of notes link
    // the same few hubs, so remembering answers saves most lookups.
    const memo = new Map();
    for (const file of this._vault.getMarkdownFiles()) this._resolveFile(file, memo);
    this._resolvedStale = false;
  }

  _resolveFile(file, memo) {
    const resolved = keyedRecord();
    const unresolved = keyedRecord();
    const folder = parentPath(file.path);
    for (const reference of referencesOf(this._cacheFor(file))) {
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
      if (destination) resolved[destination.path] = (resolved[destination.path] ?? 0) + 1;
      else unresolved[linkpath] = (unresolved[linkpath] ?? 0) + 1;
    }
    this._resolvedLinks[file.path] = resolved;
    this._unresolvedLinks[file.path] = unresolved;
  }

  getFileCache(file) {
    // Looked up by path, as Obsidian's `getCache(file.path)`: a file object that is stale (deleted) has no cache.
    const indexed = file ? this._vault.getFileByPath(file.path) : null;
    if (!indexed || indexed.extension !== "md") return null;
    return this._cacheFor(indexed);
  }

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

  /** Obsidian's "shortest" linktext: the name when it is unique in the vault, else the full path. */
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

/** Every link-like reference of a note, in the order Obsidian counts them. */
function referencesOf(cache) {
  if (!cache) return [];
  return [...(cache.links ?? []), ...(cache.embeds ?? []), ...(cache.frontmatterLinks ?? [])];
}

module.exports = { MetadataCache, parseLinktext, getLinkpath };
