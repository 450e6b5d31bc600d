// The fake Obsidian app: the one stand-in this project allows, so the plugin's real `main.js` can run under Node.
//
// It follows the official typings (npm `obsidian` 1.13.1): every member the plugin calls carries the typings' own
// type in JSDoc, and conformance.ts checks them (`npm run typecheck`). It holds only the members the plugin calls or
// its tests read, and what those need, backed by a real vault folder. The rules for each part live
// at the top of its file:
//   markdown.cjs      how a note becomes `CachedMetadata` (frontmatter, links, embeds, tags, headings, blocks…)
//   metadata.cjs      `MetadataCache`: link resolution, resolved/unresolved links, when they are built
//   indexer.cjs       the startup indexing, in slices, that ends with `resolved`
//   vault.cjs         `Vault`, `TFile`, `TFolder`, `FileSystemAdapter`
//   file-manager.cjs  `FileManager`: processFrontMatter, renameFile (links kept), trashFile
//   workspace.cjs     `Workspace`, `WorkspaceLeaf`, `MarkdownView`, `Editor` (active note and selection, tabs a
//                     note is opened in, recent files)
//
// `createApp({ vaultDir, configDir = ".obsidian", indexHold })` scans the vault folder synchronously and returns
// the app as Obsidian's startup leaves it to plugins: the file list complete, the metadata cache still empty. On the
// next turns of the event loop the workspace's layout becomes ready (`workspace.onLayoutReady`) and the cache
// indexes every note in slices, then fires `resolved` (metadata.cjs, "Timing"; `indexHold` pauses it).
//
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
/** Obsidian re-exports the moment package; so does the fake, the same version. @type {typeof import("obsidian/obsidian").moment} */
const moment = require("moment");
const { Vault, FileSystemAdapter, TAbstractFile, TFile, TFolder, normalizePath } = require("./vault.cjs");
const { MetadataCache } = require("./metadata.cjs");
const { FileManager } = require("./file-manager.cjs");
const { Workspace, MarkdownView } = require("./workspace.cjs");
const markdown = require("./markdown.cjs");

/** Obsidian's `parseYaml` (markdown.cjs), under the typings' type. @type {typeof import("obsidian/obsidian").parseYaml} */
const parseYaml = markdown.parseYaml;
/** Obsidian's `getFrontMatterInfo` (markdown.cjs), typed. @type {typeof import("obsidian/obsidian").getFrontMatterInfo} */
const getFrontMatterInfo = markdown.getFrontMatterInfo;

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
}

class App {
  constructor(vaultDir, configDir) {
    this.vault = new Vault(vaultDir, configDir);
    this.metadataCache = new MetadataCache(this.vault);
    this.fileManager = new FileManager(this);
    this.workspace = new Workspace(this);
    this.internalPlugins = new InternalPlugins(this);
  }
}

/**
 * Builds an app over `vaultDir`, its metadata indexed in the background; see the header.
 * @param {{ vaultDir: string, configDir?: string, indexHold?: number }} options
 */
function createApp({ vaultDir, configDir = ".obsidian", indexHold }) {
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
  app.metadataCache._startIndexing(indexHold);
  app.workspace._startLayout();
  return app;
}

/** Resolves with `app` once its startup indexing has fired `resolved` (at once if it has). For tests, not Obsidian's. */
function whenResolved(app) {
  const cache = app.metadataCache;
  if (cache._progress().resolved) return Promise.resolve(app);
  return new Promise((resolve) => {
    const ref = cache.on("resolved", () => {
      cache.offref(ref);
      resolve(app);
    });
  });
}

/**
 * Parses every indexed note's frontmatter that the fake left for its first access (see `readFrontmatter` in
 * markdown.cjs). Obsidian parses it in its worker as it indexes each file, so an Obsidian that has been open a while
 * has it all; the host's `--wait-indexed` (benchmarks) calls this, so that a tool's first call does not pay for it
 * (2 s at 100,000 notes). For tests, not Obsidian's.
 */
function settleFrontmatter(app) {
  for (const cache of app.metadataCache._caches.values()) void cache.frontmatter;
}

/** `createApp`, resolved once its startup indexing is done. For tests, not Obsidian's. */
function createIndexedApp(options) {
  return whenResolved(createApp(options));
}

module.exports = {
  createApp,
  createIndexedApp,
  whenResolved,
  settleFrontmatter,
  FileSystemAdapter,
  TAbstractFile,
  TFile,
  TFolder,
  MarkdownView,
  parseYaml,
  getFrontMatterInfo,
  moment,
};
