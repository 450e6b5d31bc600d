// The fake Obsidian app: the one stand-in this project allows, so the plugin's real `main.js` can run under Node.
//
// It follows the official typings (npm `obsidian` 1.13.1, checked by conformance.ts) and holds only the members the
// plugin calls or its tests read, and what those need, backed by a real vault folder. The rules for each part live
// at the top of its file:
//   markdown.cjs      how a note becomes `CachedMetadata` (frontmatter, links, embeds, tags, headings, blocks…)
//   metadata.cjs      `MetadataCache`: link resolution, resolved/unresolved links
//   vault.cjs         `Vault`, `TFile`, `TFolder`, `FileSystemAdapter`
//   file-manager.cjs  `FileManager`: processFrontMatter, renameFile (links kept), trashFile
//   workspace.cjs     `Workspace`, `WorkspaceLeaf`, `MarkdownView`, `Editor` (active note and selection, tabs a
//                     note is opened in, recent files)
//
// `createApp({ vaultDir, configDir = ".obsidian" })` scans the vault folder synchronously; notes are parsed on
// first use and the link maps built on first read (metadata.cjs, "Timing"), so every answer is complete and
// startup costs only the scan.
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
const moment = require("moment");
const { Vault, FileSystemAdapter, TAbstractFile, TFile, TFolder, normalizePath } = require("./vault.cjs");
const { MetadataCache } = require("./metadata.cjs");
const { FileManager } = require("./file-manager.cjs");
const { Workspace, MarkdownView } = require("./workspace.cjs");
const { parseYaml, getFrontMatterInfo } = require("./markdown.cjs");

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
 * Builds an app over `vaultDir`, fully indexed; see the header for the environment it reads.
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
  return app;
}

module.exports = {
  createApp,
  FileSystemAdapter,
  TAbstractFile,
  TFile,
  TFolder,
  MarkdownView,
  parseYaml,
  getFrontMatterInfo,
  moment,
};
