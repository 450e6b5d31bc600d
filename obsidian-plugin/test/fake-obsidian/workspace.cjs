// The fake `Workspace`: one optional active Markdown view with an editor, set by tests rather than by a person, and
// the list of recently opened files; only what the plugin's workspace tools read.
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

  getSelection() {
    return this._text.slice(this._from, this._to);
  }

  /** `from` / `anchor` is where the selection starts, `to` / `head` (the default) where it ends. */
  getCursor(which = "head") {
    const offset = which === "from" || which === "anchor" ? this._from : this._to;
    return offsetToPosition(this._text, offset);
  }
}

/** The view of an open note: its file and its editor. */
class MarkdownView {
  constructor(file, editor) {
    this.file = file;
    this.editor = editor;
  }
}

class Workspace {
  constructor(app) {
    this._app = app;
    this._activeView = null;
  }

  getActiveFile() {
    return this._activeView?.file ?? null;
  }

  /**
   * @template T
   * @param {abstract new (...args: any[]) => T} type
   * @returns {T | null}
   */
  getActiveViewOfType(type) {
    const view = this._activeView;
    return view instanceof type ? view : null;
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

  /** Opens a note as the active view, with `selection` selected (see the header); used by `createApp`. */
  _setActive(path, selection) {
    const file = this._app.vault.getFileByPath(path);
    if (!file) throw new Error(`setActive: no such file in the vault: ${path}`);
    const text = this._app.vault._readFresh(file);
    const found = selection ? text.indexOf(selection) : -1;
    const editor = found === -1 ? new Editor(text, 0, 0) : new Editor(text, found, found + selection.length);
    this._activeView = new MarkdownView(file, editor);
    this._lastOpenFiles = [file.path, ...this.getLastOpenFiles().filter((p) => p !== file.path)];
  }
}

module.exports = { Workspace, MarkdownView };
