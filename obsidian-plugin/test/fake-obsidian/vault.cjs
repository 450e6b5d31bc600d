// The fake `Vault`, its file tree (`TFile`, `TFolder`) and the desktop `FileSystemAdapter`, backed by a real folder:
// only the members the plugin calls, and what they need (the adapter only tells where the vault is on disk). It is
// over 400 lines and stays one file because it is one class: every read and write goes through the same private
// helpers that keep the tree, the kept texts and the disk in step, and they read best beside each other.
//
// Behaviour kept from Obsidian:
//  - Vault paths are relative, `/`-separated, case-sensitive; the root folder has path `/` and name ``.
//  - Files and folders whose name starts with `.` (so `.obsidian/`, `.trash/`, `.git/`) and the config folder are
//    not part of the vault's file list.
//  - Symbolic links are followed (Obsidian indexes symlinked files and folders); a folder reached twice through
//    links is listed once, so a loop cannot hang the scan.
//  - `create` fails when the file exists or its parent folder does not; `createFolder` creates missing parents and
//    fails when the folder exists; `rename` fails when the destination exists or its parent folder does not.
//  - `process` is atomic: the read, the callback and the write happen without yielding to other callers; `read`
//    reads the disk asynchronously, as Obsidian's does, so other callers run meanwhile.
//  - External changes are picked up lazily, standing in for Obsidian's file watcher: `read` and `cachedRead`
//    notice an edit (mtime or size changed) or a deletion; `getAbstractFileByPath` (and `getFileByPath`) finds
//    a file created behind the app's back. Listings (`getFiles`…) only change through the API.
//  - `cachedRead` serves the text kept from the last read or write unless the file changed on disk since.
//  - Trash: `trash(file)` cannot reach a system trash here, so, like Obsidian when that fails, it moves the
//    file into `.trash/` at the vault root (a name already taken there gets ` 1`, ` 2`… before the extension).

"use strict";

const fs = require("node:fs");
const nodePath = require("node:path");
const { Events } = require("./events.cjs");

/**
 * Obsidian's `normalizePath`: one `/` between segments, none at the ends, `/` for empty, NFC, plain spaces.
 * @type {typeof import("obsidian/obsidian").normalizePath}
 */
function normalizePath(path) {
  let normalized = String(path).replace(/([\\/])+/g, "/").replace(/(^\/+|\/+$)/g, "");
  if (normalized === "") normalized = "/";
  return normalized.replace(/[\u00A0\u202F]/g, " ").normalize("NFC");
}

function baseName(path) {
  return path.slice(path.lastIndexOf("/") + 1);
}

function parentPath(path) {
  const slash = path.lastIndexOf("/");
  return slash === -1 ? "/" : path.slice(0, slash);
}

// The members below carry the official typings' types (checked by conformance.ts); the fake objects stored in them
// stand in for the real ones, which is what the plugin sees.
class TAbstractFile {
  constructor(vault, path) {
    /** @type {import("obsidian/obsidian").TAbstractFile["vault"]} */
    this.vault = vault;
    /** @type {import("obsidian/obsidian").TAbstractFile["parent"]} */
    this.parent = null;
    /** @type {import("obsidian/obsidian").TAbstractFile["path"]} */
    this.path = "";
    /** @type {import("obsidian/obsidian").TAbstractFile["name"]} */
    this.name = "";
    this._setPath(path);
  }

  /** @param {string} path */
  _setPath(path) {
    this.path = path;
    this.name = path === "/" ? "" : baseName(path);
  }
}

class TFile extends TAbstractFile {
  constructor(vault, path) {
    super(vault, path);
    /** @type {import("obsidian/obsidian").TFile["basename"]} */
    this.basename = "";
    /** @type {import("obsidian/obsidian").TFile["extension"]} */
    this.extension = "";
    this._splitName();
    /**
     * Set by the vault from the file on disk (`statOf`).
     * @type {import("obsidian/obsidian").TFile["stat"]}
     */
    this.stat = { ctime: 0, mtime: 0, size: 0 };
  }

  /** @param {string} path */
  _setPath(path) {
    super._setPath(path);
    this._splitName();
  }

  _splitName() {
    const dot = this.name.lastIndexOf(".");
    this.basename = dot > 0 ? this.name.slice(0, dot) : this.name;
    this.extension = dot > 0 ? this.name.slice(dot + 1) : "";
  }
}

class TFolder extends TAbstractFile {
  constructor(vault, path) {
    super(vault, path);
    /** @type {import("obsidian/obsidian").TFolder["children"]} */
    this.children = [];
  }

  /** @type {import("obsidian/obsidian").TFolder["isRoot"]} */
  isRoot() {
    return this.path === "/";
  }
}

function statOf(fsStat) {
  // Obsidian takes the birth time where the OS has one and falls back to the change time.
  const ctime = fsStat.birthtimeMs > 0 ? fsStat.birthtimeMs : fsStat.ctimeMs;
  return { ctime: Math.round(ctime), mtime: Math.round(fsStat.mtimeMs), size: fsStat.size };
}

/** The desktop adapter, as far as the plugin asks it: where the vault is on disk. */
class FileSystemAdapter {
  constructor(basePath) {
    this.basePath = basePath;
  }

  /** @type {import("obsidian/obsidian").FileSystemAdapter["getName"]} */
  getName() {
    return nodePath.basename(this.basePath);
  }

  /** @type {import("obsidian/obsidian").FileSystemAdapter["getBasePath"]} */
  getBasePath() {
    return this.basePath;
  }

  /** @type {import("obsidian/obsidian").FileSystemAdapter["getFullPath"]} */
  getFullPath(normalizedPath) {
    return normalizedPath === "/" ? this.basePath : nodePath.join(this.basePath, normalizedPath);
  }
}

class Vault extends Events {

  constructor(basePath, configDir) {
    super();
    /** @type {import("obsidian/obsidian").Vault["configDir"]} */
    this.configDir = configDir;
    /**
     * The desktop adapter; typed as the typings type `vault.adapter` (a DataAdapter) and checked as a
     * FileSystemAdapter by conformance.ts.
     * @type {import("obsidian/obsidian").DataAdapter & FileSystemAdapter}
     */
    this.adapter = new FileSystemAdapter(basePath);
    /** @type {Map<string, TAbstractFile>} */
    this._files = new Map();
    /** @type {Map<string, {content: string, mtime: number, size: number}>} */
    this._contents = new Map();
    /** Internal listeners (the metadata cache) told about every change. */
    this._observers = [];
    this._root = new TFolder(this, "/");
    this._files.set("/", this._root);
  }

  /** Reads the whole folder; called once, by `createApp`. */
  _load() {
    const seen = new Set();
    const walk = (folder) => {
      let real;
      try {
        real = fs.realpathSync(this.adapter.getFullPath(folder.path));
      } catch {
        // A folder that vanished during the scan is simply not listed.
        return;
      }
      if (seen.has(real)) return;
      seen.add(real);
      let entries;
      try {
        entries = fs.readdirSync(this.adapter.getFullPath(folder.path), { withFileTypes: true });
      } catch (error) {
        // An unreadable folder is listed empty, as in Obsidian, rather than failing the whole vault.
        if (error.code === "EACCES" || error.code === "EPERM") return;
        throw error;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of entries) {
        const path = folder.isRoot() ? entry.name : `${folder.path}/${entry.name}`;
        if (this._isHidden(path)) continue;
        const full = this.adapter.getFullPath(path);
        let fsStat;
        try {
          fsStat = fs.statSync(full);
        } catch {
          // Dangling symlinks and files removed mid-scan are not part of the vault.
          continue;
        }
        if (fsStat.isDirectory()) {
          const child = this._addFolder(path, folder);
          walk(child);
        } else if (fsStat.isFile()) {
          this._addFile(path, folder, statOf(fsStat));
        }
      }
    };
    walk(this._root);
  }

  _isHidden(path) {
    if (path === this.configDir || path.startsWith(`${this.configDir}/`)) return true;
    return path.split("/").some((segment) => segment.startsWith("."));
  }

  _addFolder(path, parent) {
    const folder = new TFolder(this, path);
    folder.parent = parent;
    parent.children.push(folder);
    this._files.set(path, folder);
    return folder;
  }

  _addFile(path, parent, stat) {
    const file = new TFile(this, path);
    file.parent = parent;
    file.stat = stat;
    parent.children.push(file);
    this._files.set(path, file);
    return file;
  }

  _detach(file) {
    if (file.parent) file.parent.children = file.parent.children.filter((child) => child !== file);
    file.parent = null;
  }

  /** Internal observers (the metadata cache) first, then the public events Obsidian's vault triggers. */
  _notify(kind, file, oldPath) {
    for (const observer of this._observers) observer(kind, file, oldPath);
    if (kind === "rename") this.trigger(kind, file, oldPath);
    else this.trigger(kind, file);
  }

  /** Brings the tree in line with the disk at `path` (what Obsidian's file watcher does when the disk changes). */
  _syncPath(path) {
    const normalized = normalizePath(path);
    if (normalized === "/" || this._isHidden(normalized)) return;
    const known = this._files.get(normalized);
    const full = this.adapter.getFullPath(normalized);
    let fsStat = null;
    try {
      fsStat = fs.statSync(full);
    } catch (error) {
      if (error.code !== "ENOENT") throw error;
    }
    if (!fsStat) {
      if (known) this._removeTree(known);
      return;
    }
    if (fsStat.isDirectory()) {
      if (!known) this._ensureFolder(normalized);
      return;
    }
    if (known instanceof TFile) {
      known.stat = statOf(fsStat);
      this._contents.delete(normalized);
      this._notify("modify", known);
      return;
    }
    const parent = this._ensureFolder(parentPath(normalized));
    const file = this._addFile(normalized, parent, statOf(fsStat));
    this._notify("create", file);
  }

  _ensureFolder(path) {
    if (path === "/") return this._root;
    const existing = this._files.get(path);
    if (existing instanceof TFolder) return existing;
    const parent = this._ensureFolder(parentPath(path));
    const folder = this._addFolder(path, parent);
    this._notify("create", folder);
    return folder;
  }

  _removeTree(file) {
    if (file instanceof TFolder) for (const child of [...file.children]) this._removeTree(child);
    this._detach(file);
    this._files.delete(file.path);
    this._contents.delete(file.path);
    this._notify("delete", file);
  }

  _freeTrashPath(name) {
    const dot = name.lastIndexOf(".");
    const stem = dot > 0 ? name.slice(0, dot) : name;
    const extension = dot > 0 ? name.slice(dot) : "";
    let candidate = `.trash/${name}`;
    for (let counter = 1; fs.existsSync(this.adapter.getFullPath(candidate)); counter++) {
      candidate = `.trash/${stem} ${counter}${extension}`;
    }
    return candidate;
  }

  /** @type {import("obsidian/obsidian").Vault["getName"]} */
  getName() {
    return this.adapter.getName();
  }

  /** @type {import("obsidian/obsidian").Vault["getRoot"]} */
  getRoot() {
    return this._root;
  }

  /** @type {import("obsidian/obsidian").Vault["getAbstractFileByPath"]} */
  getAbstractFileByPath(path) {
    if (path === "") return this._root;
    const known = this._files.get(path);
    if (known) return known;
    // Obsidian's file watcher would have reported a file created behind its back; the fake looks on a miss.
    if (typeof path === "string" && path !== "" && !this._isHidden(path) && this._existsExactly(path)) {
      this._syncPath(path);
      return this._files.get(path) ?? null;
    }
    return null;
  }

  /** Whether `path` exists with exactly this spelling (a case-insensitive disk must not invent `home.md`). */
  _existsExactly(path) {
    const full = this.adapter.getFullPath(path);
    if (!fs.existsSync(full)) return false;
    try {
      return fs.readdirSync(nodePath.dirname(full)).includes(nodePath.basename(full));
    } catch {
      // The parent vanished between the two calls: nothing to find.
      return false;
    }
  }

  /** The indexed file at `path`, without looking at the disk (link resolution must not cost a syscall). */
  _indexedFile(path) {
    const file = this._files.get(path);
    return file instanceof TFile ? file : null;
  }

  /** @type {import("obsidian/obsidian").Vault["getFileByPath"]} */
  getFileByPath(path) {
    const file = this.getAbstractFileByPath(path);
    return file instanceof TFile ? file : null;
  }

  /** @type {import("obsidian/obsidian").Vault["getFolderByPath"]} */
  getFolderByPath(path) {
    const folder = this.getAbstractFileByPath(path);
    return folder instanceof TFolder ? folder : null;
  }

  /** @type {import("obsidian/obsidian").Vault["getAllLoadedFiles"]} */
  getAllLoadedFiles() {
    return [...this._files.values()];
  }

  /** @type {import("obsidian/obsidian").Vault["getFiles"]} */
  getFiles() {
    return [...this._files.values()].filter((file) => file instanceof TFile);
  }

  /** @type {import("obsidian/obsidian").Vault["getMarkdownFiles"]} */
  getMarkdownFiles() {
    return this.getFiles().filter((file) => file.extension === "md");
  }

  /** @type {typeof import("obsidian/obsidian").Vault.recurseChildren} */
  static recurseChildren(root, callback) {
    const stack = [root];
    while (stack.length) {
      const file = stack.pop();
      callback(file);
      if (file instanceof TFolder) stack.push(...file.children);
    }
  }

  getConfig(key) {
    const config = this._readConfig();
    return key in config ? config[key] : (CONFIG_DEFAULTS[key] ?? null);
  }

  _readConfig() {
    const full = this.adapter.getFullPath(`${this.configDir}/app.json`);
    try {
      const parsed = JSON.parse(fs.readFileSync(full, "utf8"));
      return parsed && typeof parsed === "object" ? parsed : {};
    } catch (error) {
      // Obsidian starts with default settings when app.json is missing or unreadable; so does the fake.
      if (error.code === "ENOENT" || error instanceof SyntaxError) return {};
      throw error;
    }
  }

  _checkWritableTarget(path) {
    if (this._isHidden(path)) {
      // Obsidian's vault API refuses paths it does not index; plugins must use the adapter for those.
      throw new Error(`Path is not in the vault's file list: ${path}`);
    }
  }

  /** @type {import("obsidian/obsidian").Vault["create"]} */
  async create(path, data) {
    const normalized = normalizePath(path);
    this._checkWritableTarget(normalized);
    const full = this.adapter.getFullPath(normalized);
    if (this._files.has(normalized) || fs.existsSync(full)) throw new Error("File already exists.");
    const parent = this.getFolderByPath(parentPath(normalized));
    if (!parent) throw new Error(`Folder does not exist: ${parentPath(normalized)}`);
    fs.writeFileSync(full, data, "utf8");
    const file = this._addFile(normalized, parent, statOf(fs.statSync(full)));
    this._remember(file, data);
    this._notify("create", file);
    return file;
  }

  /** @type {import("obsidian/obsidian").Vault["createFolder"]} */
  async createFolder(path) {
    const normalized = normalizePath(path);
    this._checkWritableTarget(normalized);
    if (this._files.has(normalized) || fs.existsSync(this.adapter.getFullPath(normalized))) {
      throw new Error("Folder already exists.");
    }
    fs.mkdirSync(this.adapter.getFullPath(normalized), { recursive: true });
    return this._ensureFolder(normalized);
  }

  _remember(file, content) {
    this._contents.set(file.path, { content, mtime: file.stat.mtime, size: file.stat.size });
  }

  _readFresh(file) {
    const full = this.adapter.getFullPath(file.path);
    let content;
    try {
      content = fs.readFileSync(full, "utf8");
    } catch (error) {
      this._readFailed(file, error);
    }
    return this._accept(file, full, content);
  }

  _readFailed(file, error) {
    // Deleted behind the app's back: forget it as the watcher would, then report the failure.
    if (error.code === "ENOENT") this._syncPath(file.path);
    throw error;
  }

  /** Takes in what a read found on disk: the file's new stat and kept text, re-indexed when it changed. */
  _accept(file, full, content) {
    const stat = statOf(fs.statSync(full));
    const changed = stat.mtime !== file.stat.mtime || stat.size !== file.stat.size;
    file.stat = stat;
    this._remember(file, content);
    if (changed) this._notify("modify", file);
    return content;
  }

  /** The text of a file for indexing: the copy kept from the last read or write, else read from disk. */
  _textOf(file) {
    const cached = this._contents.get(file.path);
    if (cached) return cached.content;
    const full = this.adapter.getFullPath(file.path);
    const content = fs.readFileSync(full, "utf8");
    this._remember(file, content);
    return content;
  }

  _assertLive(file) {
    if (this._files.get(file.path) !== file) throw new Error(`File does not exist: ${file.path}`);
  }

  /** @type {import("obsidian/obsidian").Vault["read"]} */
  async read(file) {
    this._assertLive(file);
    // Obsidian's read is an asynchronous disk read: other requests run before it returns, which is what lets two
    // writers interleave between a check and an act.
    const full = this.adapter.getFullPath(file.path);
    const content = await fs.promises.readFile(full, "utf8").catch((error) => this._readFailed(file, error));
    this._assertLive(file);
    return this._accept(file, full, content);
  }

  /** @type {import("obsidian/obsidian").Vault["cachedRead"]} */
  async cachedRead(file) {
    this._assertLive(file);
    const cached = this._contents.get(file.path);
    if (cached) {
      let fsStat = null;
      try {
        fsStat = fs.statSync(this.adapter.getFullPath(file.path));
      } catch (error) {
        if (error.code !== "ENOENT") throw error;
      }
      if (fsStat && Math.round(fsStat.mtimeMs) === cached.mtime && fsStat.size === cached.size) return cached.content;
    }
    return this._readFresh(file);
  }

  /** @type {import("obsidian/obsidian").Vault["process"]} */
  async process(file, fn) {
    this._assertLive(file);
    const full = this.adapter.getFullPath(file.path);
    const data = fn(fs.readFileSync(full, "utf8"));
    if (typeof data !== "string") throw new TypeError("vault.process callback must return a string");
    fs.writeFileSync(full, data, "utf8");
    file.stat = statOf(fs.statSync(full));
    this._remember(file, data);
    this._notify("modify", file);
    return data;
  }

  /** @type {import("obsidian/obsidian").Vault["delete"]} */
  async delete(file, force) {
    this._assertLive(file);
    if (file instanceof TFolder && file.isRoot()) throw new Error("Cannot delete the vault root.");
    const full = this.adapter.getFullPath(file.path);
    if (file instanceof TFolder) {
      const hidden = fs.readdirSync(full).some((name) => name.startsWith("."));
      if (hidden && !force) throw new Error(`Folder has hidden files: ${file.path}`);
      fs.rmSync(full, { recursive: true });
    } else {
      fs.unlinkSync(full);
    }
    this._removeTree(file);
  }

  /**
   * Obsidian's `trash(file, system)` without its `system`: no desktop trash can be reached from here.
   * @type {import("obsidian/obsidian").Vault["trash"]}
   */
  async trash(file) {
    this._assertLive(file);
    if (file instanceof TFolder && file.isRoot()) throw new Error("Cannot trash the vault root.");
    const target = this._freeTrashPath(file.name);
    fs.mkdirSync(this.adapter.getFullPath(".trash"), { recursive: true });
    fs.renameSync(this.adapter.getFullPath(file.path), this.adapter.getFullPath(target));
    this._removeTree(file);
  }

  /** @type {import("obsidian/obsidian").Vault["rename"]} */
  async rename(file, newPath) {
    this._assertLive(file);
    const normalized = normalizePath(newPath);
    if (normalized === file.path) return;
    this._checkWritableTarget(normalized);
    if (file instanceof TFolder && (file.isRoot() || normalized.startsWith(`${file.path}/`))) {
      throw new Error(`Cannot move ${file.path} into itself.`);
    }
    const target = this.adapter.getFullPath(normalized);
    const caseOnly = normalized.toLowerCase() === file.path.toLowerCase();
    if (!caseOnly && (this._files.has(normalized) || fs.existsSync(target))) {
      throw new Error("Destination file already exists!");
    }
    const newParent = this.getFolderByPath(parentPath(normalized));
    if (!newParent) throw new Error(`Folder does not exist: ${parentPath(normalized)}`);
    fs.renameSync(this.adapter.getFullPath(file.path), target);

    const oldRoot = file.path;
    const moved = [];
    Vault.recurseChildren(file, (child) => moved.push({ child, oldPath: child.path }));
    for (const { child, oldPath } of moved) {
      this._files.delete(oldPath);
      const newChildPath = normalized + oldPath.slice(oldRoot.length);
      child._setPath(newChildPath);
      this._files.set(newChildPath, child);
      const cached = this._contents.get(oldPath);
      this._contents.delete(oldPath);
      if (cached) this._contents.set(newChildPath, cached);
    }
    this._detach(file);
    file.parent = newParent;
    newParent.children.push(file);
    for (const { child, oldPath } of moved) this._notify("rename", child, oldPath);
  }
}

/** Defaults Obsidian reports from `getConfig`, for the keys the file manager reads, when app.json does not set them. */
const CONFIG_DEFAULTS = {
  useMarkdownLinks: false,
  newLinkFormat: "shortest",
  trashOption: "system",
};

module.exports = { Vault, FileSystemAdapter, TAbstractFile, TFile, TFolder, normalizePath, parentPath };
