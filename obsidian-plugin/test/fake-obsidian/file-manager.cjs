// The fake `FileManager`: frontmatter edits, link-keeping renames and trash, the three members the plugin calls.
//
// Rules implemented (Obsidian's, with "Automatically update internal links" on):
//  - `processFrontMatter(file, fn)`: reads the note, parses its frontmatter (a YAML error is thrown and nothing
//    is written), passes the object to `fn` to mutate, then writes `---`, the YAML (2-space indented lists), `---`
//    and the body exactly as it was. A note without frontmatter gets one at the top; an object left empty removes
//    the block; a callback that changes nothing leaves the note untouched. A note with CRLF frontmatter gets CRLF
//    frontmatter back. YAML comments and quoting styles are not kept when the properties change (nor by Obsidian).
//  - `renameFile(file, newPath)`: moves the file (or folder) with `vault.rename`, then rewrites every link, embed
//    and frontmatter link, in any note, that resolved to a moved file before the move. The new link text follows
//    the vault's settings (`useMarkdownLinks` keeps each link's own style here; `newLinkFormat`: `shortest`
//    (default) = the name when unique else the full path, `absolute`, `relative`); the subpath (`#Heading`,
//    `#^block`), the display text, the `!` of an embed and a markdown link's `<…>` form or `.md` suffix are kept.
//    Only links that would no longer lead to their file are rewritten: one that still resolves to it after the
//    move (say `[[Name]]` when only the folder changed) is left exactly as written. That includes the moved
//    note's own links, such as relative markdown links (`./`, `../`) or a `[[Name]]` that its new folder would
//    resolve elsewhere. A note whose text changed since it was indexed is left as it is.
//  - `trashFile(file)`: per app.json `trashOption`: `system` (default; no system trash here, so `.trash/`),
//    `local` (`.trash/`), `none` (deleted for good).

"use strict";

const { TFile, Vault, parentPath } = require("./vault.cjs");
const { splitLines, splitWikilink, parseYaml, stringifyYaml } = require("./markdown.cjs");
const { getLinkpath, parseLinktext } = require("./metadata.cjs");

const MARKDOWN_LINK_PARTS = /^(!?)\[([\s\S]*)\]\(\s*(<[^<>]*>|[^\s]+?)(\s+(?:"[^"]*"|'[^']*'|\([^()]*\)))?\s*\)$/;

/** The path of `to` as seen from the folder `fromFolder`, with `../` as needed. */
function relativePath(fromFolder, to) {
  const from = fromFolder === "/" ? [] : fromFolder.split("/");
  const target = to.split("/");
  let common = 0;
  while (common < from.length && common < target.length - 1 && from[common] === target[common]) common++;
  const ups = from.length - common;
  return [...Array(ups).fill(".."), ...target.slice(common)].join("/");
}

/** Encodes a vault path for a markdown link target the way Obsidian writes them (spaces as %20). */
function encodeLinkPath(path) {
  return encodeURI(path).replace(/[()]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

class FileManager {
  constructor(app) {
    this._app = app;
  }

  /** The link path for `file` from `sourcePath` in the vault's `newLinkFormat`. */
  _linkPath(file, sourcePath, omitMdExtension) {
    const format = this._app.vault.getConfig("newLinkFormat");
    const dropMd = (text) => (omitMdExtension && file.extension === "md" ? text.slice(0, -3) : text);
    if (format === "absolute") return dropMd(file.path);
    if (format === "relative") return dropMd(relativePath(parentPath(sourcePath), file.path));
    return this._app.metadataCache.fileToLinktext(file, sourcePath, omitMdExtension);
  }

  /** @type {import("obsidian/obsidian").FileManager["trashFile"]} */
  async trashFile(file) {
    const option = this._app.vault.getConfig("trashOption");
    if (option === "none") return this._app.vault.delete(file, true);
    return this._app.vault.trash(file);
  }

  /** @type {import("obsidian/obsidian").FileManager["processFrontMatter"]} */
  async processFrontMatter(file, fn) {
    await this._app.vault.process(
      file,
      (content) => {
        const lines = splitLines(content);
        let closing = -1;
        if (lines.length > 1 && lines[0].text.trimEnd() === "---") {
          closing = lines.findIndex((line, index) => index > 0 && line.text.trimEnd() === "---");
        }
        const eol = closing !== -1 && content.slice(lines[0].end, lines[0].end + 2) === "\r\n" ? "\r\n" : "\n";
        let data = {};
        if (closing !== -1) {
          const yamlText = closing === 1 ? "" : content.slice(lines[1].start, lines[closing - 1].end);
          const parsed = yamlText.trim() === "" ? {} : parseYaml(yamlText);
          if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) data = parsed;
          else if (parsed !== null) throw new Error(`Frontmatter of ${file.path} is not a YAML mapping.`);
        }
        const before = JSON.stringify(data);
        fn(data);
        // Nothing changed: the note is left byte for byte (re-serialising would drop YAML comments and styling).
        if (JSON.stringify(data) === before) return content;
        const empty = Object.keys(data).length === 0;
        const yaml = empty ? "" : stringifyYaml(data).replace(/\n/g, eol);
        if (closing === -1) return empty ? content : `---${eol}${yaml}---${eol}${content}`;
        const rest = content.slice(lines[closing].end);
        if (empty) return rest.replace(/^\r?\n/, "");
        return `---${eol}${yaml}---${rest}`;
      },
    );
  }

  /** @type {import("obsidian/obsidian").FileManager["renameFile"]} */
  async renameFile(file, newPath) {
    const app = this._app;
    const moved = new Set();
    Vault.recurseChildren(file, (child) => {
      if (child instanceof TFile) moved.add(child);
    });

    // Read every affected link before the move, while the caches still describe the old paths.
    const edits = new Map(); // source TFile -> [{ reference, linkpath, target, inFrontmatter }]
    for (const source of app.vault.getMarkdownFiles()) {
      const cache = app.metadataCache.getFileCache(source);
      if (!cache) continue;
      const sourceMoves = moved.has(source);
      const consider = (reference, inFrontmatter) => {
        const linkpath = getLinkpath(reference.link);
        if (linkpath === "") return;
        const target = app.metadataCache.getFirstLinkpathDest(linkpath, source.path);
        if (!target || !(moved.has(target) || sourceMoves)) return;
        if (!edits.has(source)) edits.set(source, []);
        edits.get(source).push({ reference, linkpath, target, inFrontmatter });
      };
      for (const reference of [...(cache.links ?? []), ...(cache.embeds ?? [])]) consider(reference, false);
      for (const reference of cache.frontmatterLinks ?? []) consider(reference, true);
    }

    await app.vault.rename(file, newPath);

    for (const [source, list] of edits) {
      // Only links that no longer lead to their file are rewritten; one that still resolves is left as written.
      const needed = list.filter((edit) => app.metadataCache.getFirstLinkpathDest(edit.linkpath, source.path) !== edit.target);
      if (needed.length === 0) continue;
      await app.vault.process(source, (content) => this._applyLinkEdits(content, source, needed));
    }
  }

  _applyLinkEdits(content, source, list) {
    let text = content;
    const body = list.filter((edit) => !edit.inFrontmatter);
    body.sort((a, b) => b.reference.position.start.offset - a.reference.position.start.offset);
    for (const { reference, target } of body) {
      const { start, end } = reference.position;
      // The cache was read before the move; a note edited since is left as it is rather than corrupted.
      if (text.slice(start.offset, end.offset) !== reference.original) continue;
      const replacement = this._rewriteReference(reference.original, target, source.path);
      text = text.slice(0, start.offset) + replacement + text.slice(end.offset);
    }
    const frontmatterEdits = list.filter((edit) => edit.inFrontmatter);
    if (frontmatterEdits.length) {
      const lines = splitLines(text);
      const closing = lines.findIndex((line, index) => index > 0 && line.text.trimEnd() === "---");
      if (closing !== -1) {
        let frontmatter = text.slice(0, lines[closing].start);
        for (const { reference, target } of frontmatterEdits) {
          const replacement = this._rewriteReference(reference.original, target, source.path);
          frontmatter = frontmatter.split(reference.original).join(replacement);
        }
        text = frontmatter + text.slice(lines[closing].start);
      }
    }
    return text;
  }

  /** The text of one link after its target moved; `original` is the link exactly as written. */
  _rewriteReference(original, target, sourcePath) {
    const bang = original.startsWith("!") ? "!" : "";
    const inner = bang ? original.slice(1) : original;
    if (inner.startsWith("[[")) {
      const content = inner.slice(2, -2);
      const { linktext, display } = splitWikilink(content);
      const separator = content.includes("\\|") && content.indexOf("\\|") <= content.indexOf("|") ? "\\|" : "|";
      const { subpath } = parseLinktext(linktext.trim());
      const newLinktext = this._linkPath(target, sourcePath, true);
      return `${bang}[[${newLinktext}${subpath}${display === null ? "" : `${separator}${display}`}]]`;
    }
    const match = MARKDOWN_LINK_PARTS.exec(original);
    if (!match) return original;
    const [, , text, rawTarget, title = ""] = match;
    const angled = rawTarget.startsWith("<");
    const bare = angled ? rawTarget.slice(1, -1) : rawTarget;
    const hash = bare.indexOf("#");
    const pathPart = hash === -1 ? bare : bare.slice(0, hash);
    const subpath = hash === -1 ? "" : bare.slice(hash);
    let decodedPath = pathPart;
    try {
      decodedPath = decodeURIComponent(pathPart);
    } catch {
      // Kept raw when not valid percent-encoding, exactly as the parser does.
    }
    const keepMd = target.extension !== "md" || decodedPath.toLowerCase().endsWith(".md");
    let newPath = this._linkPath(target, sourcePath, !keepMd);
    if (decodedPath.startsWith("./") || decodedPath.startsWith("../")) {
      newPath = relativePath(parentPath(sourcePath), target.path);
      if (!keepMd) newPath = newPath.slice(0, -3);
      if (!newPath.startsWith("../")) newPath = `./${newPath}`;
    }
    const written = angled ? `<${newPath}${subpath}>` : `${encodeLinkPath(newPath)}${subpath}`;
    return `${bang}[${text}](${written}${title})`;
  }
}

module.exports = { FileManager };
