// The fake `Workspace`: one optional active Markdown view with an editor, set by tests (or opened by the plugin in a
// tab, `getLeaf().openFile`) rather than by a person, and the list of recently opened files; only what the plugin's
// workspace tools use.
//
// The active note comes from the environment: `OBSMCP_TEST_ACTIVE="path"` or `"path|selection"` when the app is
// created (see app.cjs), so a host started by Rust tests can be driven too. The selection is the first occurrence of
// that text in the note, else an empty selection at the start. The editor reads the note's text when it is opened
// (like an editor buffer), not on every call.

"use strict";

const fs = require("node:fs");
const path = require("node:path");

/** Converts a string offset into the editor's `{ line, ch }` (ch counts UTF-16 units, as CodeMirror does). */
function offsetToPosition(text, offset) {
  let line = 0;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, ch: offset - lineStart };
}

/** The part of Obsidian's `Editor` the plugin reads: the selection and where it starts and ends. */
class Editor {
  constructor(text, from, to) {
    this._text = text;
    this._from = from;
    this._to = to;
  }

  /** @type {import("obsidian/obsidian").Editor["getSelection"]} */
  getSelection() {
    return this._text.slice(this._from, this._to);
  }

  /**
   * `from` / `anchor` is where the selection starts, `to` / `head` (the default) where it ends.
   * @type {import("obsidian/obsidian").Editor["getCursor"]}
   */
  getCursor(which = "head") {
    const offset = which === "from" || which === "anchor" ? this._from : this._to;
    return offsetToPosition(this._text, offset);
  }
}

/** The view of an open note: its file and its editor. */
class MarkdownView {
  constructor(file, editor) {
    /** @type {import("obsidian/obsidian").MarkdownView["file"]} */
    this.file = file;
    /** @type {import("obsidian/obsidian").MarkdownView["editor"]} */
    this.editor = editor;
  }
}

/** A tab of the main area; `openFile` shows a file in it and makes it the active view, as Obsidian does. */
class WorkspaceLeaf {
  constructor(workspace) {
    this._workspace = workspace;
    this.view = null;
  }

  /**
   * @type {import("obsidian/obsidian").WorkspaceLeaf["openFile"]}
   */
  async openFile(file, openState = {}) {
    const text = this._workspace._app.vault._readFresh(file);
    let offset = 0;
    for (let line = 0; line < (openState.eState?.line ?? 0); line++) {
      const next = text.indexOf("\n", offset);
      if (next < 0) break;
      offset = next + 1;
    }
    this.view = new MarkdownView(file, new Editor(text, offset, offset));
    if (openState.active !== false) this._workspace._activeView = this.view;
    this._workspace._opened(file.path);
  }
}

class Workspace {
  constructor(app) {
    this._app = app;
    this._activeView = null;
    /** The main area's tabs, the active one last opened; tests read how many there are. */
    this._leaves = [];
    /**
     * Set once the layout is restored (Obsidian does it after loading plugins, while the cache still indexes).
     * @type {import("obsidian/obsidian").Workspace["layoutReady"]}
     */
    this.layoutReady = false;
    this._layoutCallbacks = [];
  }

  /** Makes the layout ready on the next turn of the loop, after the plugins' `onload` began (see app.cjs). */
  _startLayout() {
    setImmediate(() => {
      this.layoutReady = true;
      for (const callback of this._layoutCallbacks.splice(0)) callback();
    });
  }

  /**
   * Runs `callback` at once when the layout is ready, else when it becomes ready.
   * @type {import("obsidian/obsidian").Workspace["onLayoutReady"]}
   */
  onLayoutReady(callback) {
    if (this.layoutReady) callback();
    else this._layoutCallbacks.push(callback);
  }

  /**
   * The leaf to open a file in: a new tab for `"tab"` (or `true`), else the active tab (a first one if none).
   * Typed by parameter: the typings' overloads cannot be given to one function.
   * @param {boolean | import("obsidian/obsidian").PaneType} [newLeaf]
   * @returns {import("obsidian/obsidian").WorkspaceLeaf}
   */
  getLeaf(newLeaf = false) {
    if (newLeaf || this._leaves.length === 0) this._leaves.push(new WorkspaceLeaf(this));
    return this._leaves[this._leaves.length - 1];
  }

  _opened(path) {
    this._lastOpenFiles = [path, ...this.getLastOpenFiles().filter((p) => p !== path)];
  }

  /** @type {import("obsidian/obsidian").Workspace["getActiveFile"]} */
  getActiveFile() {
    return this._activeView?.file ?? null;
  }

  /**
   * @type {import("obsidian/obsidian").Workspace["getActiveViewOfType"]}
   */
  getActiveViewOfType(type) {
    const view = this._activeView;
    return view instanceof type ? view : null;
  }

  /**
   * Paths of recently opened files, newest first. Obsidian keeps this list in `<configDir>/workspace.json` under
   * `lastOpenFiles` and puts a file in front when it is opened; the fake does the same.
   * @type {import("obsidian/obsidian").Workspace["getLastOpenFiles"]}
   */
  getLastOpenFiles() {
    if (this._lastOpenFiles === undefined) {
      const { adapter, configDir } = this._app.vault;
      let saved = [];
      try {
        const parsed = JSON.parse(fs.readFileSync(path.join(adapter.basePath, configDir, "workspace.json"), "utf8"));
        if (Array.isArray(parsed.lastOpenFiles)) saved = parsed.lastOpenFiles.filter((p) => typeof p === "string");
      } catch (error) {
        // A vault Obsidian never opened has no workspace.json; an unreadable one gives Obsidian an empty list too.
        if (error.code !== "ENOENT" && !(error instanceof SyntaxError)) throw error;
      }
      this._lastOpenFiles = saved;
    }
    return this._lastOpenFiles.slice();
  }

  /** Opens a note as the active view, with `selection` selected (see the header); used by `createApp`. */
  _setActive(path, selection) {
    const file = this._app.vault.getFileByPath(path);
    if (!file) throw new Error(`setActive: no such file in the vault: ${path}`);
    const text = this._app.vault._readFresh(file);
    const found = selection ? text.indexOf(selection) : -1;
    const editor = found === -1 ? new Editor(text, 0, 0) : new Editor(text, found, found + selection.length);
    this._activeView = new MarkdownView(file, editor);
    this._opened(file.path);
  }
}

module.exports = { Workspace, WorkspaceLeaf, MarkdownView };
