// The fake `Workspace`: one optional active Markdown view with an editor, set by tests rather than by a person.
//
// Test hooks (documented in app.cjs): `app.__test.setActive(path, selection)` opens `path` as the active note with
// `selection` selected (the first occurrence of that text in the note, else an empty selection at the start),
// `app.__test.setActive(null)` closes it. `OBSMCP_TEST_ACTIVE="path"` or `"path|selection"` does the same when
// the app is created, so a host started by Rust tests can be driven from the environment.
// The editor reads the note's text when it is opened (like an editor buffer), not on every call.

"use strict";

const fs = require("node:fs");
const path = require("node:path");
const { Events } = require("./events.cjs");

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

/** The part of Obsidian's `Editor` a plugin reads: text, lines, cursor and selection. */
class Editor {
  constructor(text, from, to) {
    this._text = text;
    this._from = from;
    this._to = to;
  }

  getValue() {
    return this._text;
  }

  getLine(line) {
    return this._text.split("\n")[line]?.replace(/\r$/, "") ?? "";
  }

  lineCount() {
    return this._text.split("\n").length;
  }

  getSelection() {
    return this._text.slice(this._from, this._to);
  }

  somethingSelected() {
    return this._to > this._from;
  }

  /** `from` / `anchor` is where the selection starts, `to` / `head` (the default) where it ends. */
  getCursor(which = "head") {
    const offset = which === "from" || which === "anchor" ? this._from : this._to;
    return offsetToPosition(this._text, offset);
  }

  listSelections() {
    return [{ anchor: this.getCursor("anchor"), head: this.getCursor("head") }];
  }

  posToOffset(position) {
    const lines = this._text.split("\n");
    let offset = 0;
    for (let i = 0; i < position.line && i < lines.length; i++) offset += lines[i].length + 1;
    return offset + position.ch;
  }

  offsetToPos(offset) {
    return offsetToPosition(this._text, offset);
  }
}

class View extends Events {
  constructor(leaf) {
    super();
    this.leaf = leaf;
    this.app = leaf?.app;
  }
}

class ItemView extends View {}

class TextFileView extends ItemView {
  constructor(leaf) {
    super(leaf);
    this.file = null;
    this.data = "";
  }
}

class MarkdownView extends TextFileView {
  constructor(leaf) {
    super(leaf);
    this.editor = new Editor("", 0, 0);
  }

  getViewType() {
    return "markdown";
  }

  getMode() {
    return "source";
  }

  getViewData() {
    return this.editor.getValue();
  }

  getDisplayText() {
    return this.file ? this.file.basename : "";
  }
}

class WorkspaceLeaf extends Events {
  constructor(app) {
    super();
    this.app = app;
    this.view = null;
  }
}

class Workspace extends Events {
  constructor(app) {
    super();
    this._app = app;
    this.layoutReady = false;
    this._layoutCallbacks = [];
    this.activeLeaf = null;
    this.activeEditor = null;
  }

  getActiveFile() {
    return this.activeLeaf?.view?.file ?? null;
  }

  getActiveViewOfType(type) {
    const view = this.activeLeaf?.view;
    return view instanceof type ? view : null;
  }

  getLeavesOfType(viewType) {
    return this.activeLeaf?.view?.getViewType() === viewType ? [this.activeLeaf] : [];
  }

  getMostRecentLeaf() {
    return this.activeLeaf;
  }

  /**
   * Paths of recently opened files, newest first. Obsidian keeps this list in `<configDir>/workspace.json` under
   * `lastOpenFiles` and puts a file in front when it is opened; the fake does the same.
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

  onLayoutReady(callback) {
    if (this.layoutReady) setImmediate(callback);
    else this._layoutCallbacks.push(callback);
  }

  _setLayoutReady() {
    this.layoutReady = true;
    const callbacks = this._layoutCallbacks;
    this._layoutCallbacks = [];
    for (const callback of callbacks) callback();
    this.trigger("layout-ready");
  }

  /** Test hook behind `app.__test.setActive`: opens a note as the active view, or closes it with `null`. */
  _setActive(path, selection) {
    if (path === null || path === undefined) {
      this.activeLeaf = null;
      this.activeEditor = null;
      this.trigger("active-leaf-change", null);
      this.trigger("file-open", null);
      return;
    }
    const file = this._app.vault.getFileByPath(path);
    if (!file) throw new Error(`setActive: no such file in the vault: ${path}`);
    const text = this._app.vault._readFresh(file);
    const leaf = new WorkspaceLeaf(this._app);
    const view = new MarkdownView(leaf);
    view.file = file;
    view.data = text;
    const found = selection ? text.indexOf(selection) : -1;
    view.editor = found === -1 ? new Editor(text, 0, 0) : new Editor(text, found, found + selection.length);
    leaf.view = view;
    this.activeLeaf = leaf;
    this.activeEditor = view;
    this._lastOpenFiles = [file.path, ...this.getLastOpenFiles().filter((p) => p !== file.path)];
    this.trigger("active-leaf-change", leaf);
    this.trigger("file-open", file);
  }
}

module.exports = { Workspace, WorkspaceLeaf, View, ItemView, TextFileView, MarkdownView, Editor };
