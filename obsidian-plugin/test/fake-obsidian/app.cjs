// The fake Obsidian app: the one stand-in this project allows, so the plugin's real `main.js` can run under Node.
//
// It follows the official typings (npm `obsidian` 1.13.1) and only as much of Obsidian as the plugin uses, backed
// by a real vault folder. The rules for each part live at the top of its file:
//   markdown.cjs      how a note becomes `CachedMetadata` (frontmatter, links, embeds, tags, headings, blocks…)
//   metadata.cjs      `MetadataCache`, link resolution, resolved/unresolved links, frontmatter tag/alias helpers
//   vault.cjs         `Vault`, `TFile`, `TFolder`, `FileSystemAdapter`, `normalizePath`
//   file-manager.cjs  `FileManager`: processFrontMatter, renameFile (links kept), trashFile, link generation
//   workspace.cjs     `Workspace`, `MarkdownView`, `Editor` (active note and selection)
//
// `createApp({ vaultDir, configDir = ".obsidian" })` scans the vault folder synchronously; notes are parsed on
// first use and the link maps built on first read (metadata.cjs, "Timing"), so every answer is complete and
// startup costs only the scan. `workspace.onLayoutReady` callbacks run on the next turn, and `metadataCache`
// fires `resolved` then (Obsidian fires it once its first indexing is done).
//
// Test hooks, on `app.__test` (never used by the plugin itself):
//   setActive(path, selection?)  make `path` the active note, with `selection` selected (see workspace.cjs);
//                                `setActive(null)` closes it. Returns a promise.
//   rescan()                     re-read the vault folder and rebuild every cache after changes made behind
//                                the app's back (otherwise they are picked up lazily on read).
// Environment: `OBSMCP_TEST_ACTIVE="path"` or `"path|selection"` sets the active note when the app is created.
//
// Core plugins: `app.internalPlugins.getPluginById("daily-notes")` gives `{ enabled, instance: { options } }`
// with `options` = `{ format, folder, template }` read from `<configDir>/daily-notes.json` on each call (absent
// keys are absent, as in Obsidian, whose defaults are format `YYYY-MM-DD`, folder and template empty); `enabled`
// comes from `<configDir>/core-plugins.json` (an object `{ id: boolean }`, or the older array of enabled ids; no
// file means Obsidian's defaults, which enable daily notes).

"use strict";

const fs = require("node:fs");
const nodePath = require("node:path");
const moment = require("moment");
const { Events } = require("./events.cjs");
const { Vault, TAbstractFile, TFile, TFolder, FileSystemAdapter, normalizePath } = require("./vault.cjs");
const {
  MetadataCache,
  parseLinktext,
  getLinkpath,
  getAllTags,
  parseFrontMatterAliases,
  parseFrontMatterTags,
  parseFrontMatterEntry,
  parseFrontMatterStringArray,
} = require("./metadata.cjs");
const { FileManager } = require("./file-manager.cjs");
const { Workspace, WorkspaceLeaf, View, ItemView, TextFileView, MarkdownView, Editor } = require("./workspace.cjs");
const { parseYaml, stringifyYaml, getFrontMatterInfo } = require("./markdown.cjs");

/** Core plugins that Obsidian enables in a new vault (those the plugin may ask about). */
const DEFAULT_CORE_PLUGINS = { "daily-notes": true, "file-explorer": true, "global-search": true, backlink: true };

function readJson(fullPath) {
  try {
    return JSON.parse(fs.readFileSync(fullPath, "utf8"));
  } catch (error) {
    // A missing or unreadable settings file means Obsidian's defaults; callers treat `null` that way.
    if (error.code === "ENOENT" || error instanceof SyntaxError) return null;
    throw error;
  }
}

class InternalPlugins {
  constructor(app) {
    this._app = app;
  }

  _configPath(name) {
    const vault = this._app.vault;
    return vault.adapter.getFullPath(`${vault.configDir}/${name}`);
  }

  _isEnabled(id) {
    const config = readJson(this._configPath("core-plugins.json"));
    if (Array.isArray(config)) return config.includes(id);
    if (config && typeof config === "object") return config[id] === true;
    return DEFAULT_CORE_PLUGINS[id] === true;
  }

  _options(id) {
    const options = readJson(this._configPath(`${id}.json`));
    return options && typeof options === "object" && !Array.isArray(options) ? options : {};
  }

  getPluginById(id) {
    if (id !== "daily-notes") return null;
    return { id, enabled: this._isEnabled(id), instance: { id, options: this._options(id) } };
  }

  getEnabledPluginById(id) {
    const plugin = this.getPluginById(id);
    return plugin && plugin.enabled ? plugin.instance : null;
  }

  get plugins() {
    return { "daily-notes": this.getPluginById("daily-notes") };
  }
}

class App {
  constructor(vaultDir, configDir) {
    this.vault = new Vault(vaultDir, configDir);
    this.metadataCache = new MetadataCache(this.vault);
    this.fileManager = new FileManager(this);
    this.workspace = new Workspace(this);
    this.internalPlugins = new InternalPlugins(this);
    this.lastEvent = null;
    this._localStorage = new Map();
    this.__test = {
      setActive: async (path, selection) => this.workspace._setActive(path, selection),
      rescan: () => this._rescan(),
    };
  }

  _rescan() {
    const vault = this.vault;
    vault._files.clear();
    vault._contents.clear();
    vault._root.children = [];
    vault._files.set("/", vault._root);
    vault._load();
    this.metadataCache._rebuild();
  }

  isDarkMode() {
    return false;
  }

  loadLocalStorage(key) {
    return this._localStorage.has(key) ? this._localStorage.get(key) : null;
  }

  saveLocalStorage(key, data) {
    if (data === null || data === undefined) this._localStorage.delete(key);
    else this._localStorage.set(key, data);
  }
}

/**
 * Builds an app over `vaultDir`, fully indexed; see the header for the test hooks.
 * @param {{ vaultDir: string, configDir?: string }} options
 */
function createApp({ vaultDir, configDir = ".obsidian" }) {
  if (!vaultDir) throw new Error("createApp: vaultDir is required");
  const base = nodePath.resolve(vaultDir);
  if (!fs.statSync(base).isDirectory()) throw new Error(`createApp: not a folder: ${vaultDir}`);
  const app = new App(base, normalizePath(configDir));
  app.vault._load();
  app.metadataCache._build();
  const active = process.env.OBSMCP_TEST_ACTIVE;
  if (active) {
    const bar = active.indexOf("|");
    const path = bar === -1 ? active : active.slice(0, bar);
    const selection = bar === -1 ? undefined : active.slice(bar + 1);
    const file = app.vault.getFileByPath(normalizePath(path));
    if (!file) throw new Error(`OBSMCP_TEST_ACTIVE names a file that is not in the vault: ${path}`);
    app.workspace._setActive(file.path, selection);
  }
  setImmediate(() => {
    app.workspace._setLayoutReady();
    app.metadataCache.trigger("resolved");
  });
  return app;
}

module.exports = {
  createApp,
  App,
  Events,
  Vault,
  FileSystemAdapter,
  TAbstractFile,
  TFile,
  TFolder,
  MetadataCache,
  FileManager,
  Workspace,
  WorkspaceLeaf,
  View,
  ItemView,
  TextFileView,
  MarkdownView,
  Editor,
  normalizePath,
  parseYaml,
  stringifyYaml,
  getFrontMatterInfo,
  getAllTags,
  parseFrontMatterAliases,
  parseFrontMatterTags,
  parseFrontMatterEntry,
  parseFrontMatterStringArray,
  parseLinktext,
  getLinkpath,
  moment,
};
