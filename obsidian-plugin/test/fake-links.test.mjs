// Link resolution in the fake metadata cache against the fixture vault: Obsidian's order (exact path, own folder,
// shortest path), relative paths, case-insensitivity, resolved/unresolved link maps, and the link text a rename
// writes.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const { createIndexedApp } = require("./fake-obsidian/app.cjs");
const { parseLinktext, getLinkpath } = require("./fake-obsidian/metadata.cjs");

const FIXTURE = fileURLToPath(new URL("./fixtures/vault", import.meta.url));
const app = await createIndexedApp({ vaultDir: FIXTURE });

function copyVault(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "obsmcp-fake-links-"));
  fs.cpSync(FIXTURE, dir, { recursive: true });
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function destination(linkpath, sourcePath) {
  return app.metadataCache.getFirstLinkpathDest(linkpath, sourcePath)?.path ?? null;
}

test("getFirstLinkpathDest follows Obsidian's order: exact path, own folder, shortest path", () => {
  assert.equal(destination("Note", "Home.md"), "Notes/Note.md", "shortest path wins from the root");
  assert.equal(destination("Note", "Archive/Old plan.md"), "Archive/Note.md", "the source's own folder wins");
  assert.equal(destination("Note", "Notes/Meeting notes 2026.md"), "Notes/Note.md");
  assert.equal(destination("Note", "Projekte/Über uns.md"), "Notes/Note.md");
  assert.equal(destination("Archive/Note", "Home.md"), "Archive/Note.md", "a path picks its file");
  assert.equal(destination("archive/note", "Home.md"), "Archive/Note.md", "paths compare case-insensitively");
  assert.equal(destination("Home", "Notes/Note.md"), "Home.md");
  assert.equal(destination("/Home", "Notes/Note.md"), "Home.md", "a leading slash is the vault root");
  assert.equal(destination("Home.md", "Notes/Note.md"), "Home.md");
  assert.equal(destination("orphan links out", "Home.md"), "Orphan links out.md");
  assert.equal(destination("Über uns", "Home.md"), "Projekte/Über uns.md");
  assert.equal(destination("Meeting notes 2026.md", "Home.md"), "Notes/Meeting notes 2026.md");
  assert.equal(destination("diagram.png", "Home.md"), "Attachments/diagram.png", "attachments resolve by name");
  assert.equal(destination("diagram", "Home.md"), null, "only notes may drop their extension");
  assert.equal(destination("", "Home.md"), "Home.md", "an empty linkpath is the source note");
  assert.equal(destination("Missing note", "Home.md"), null);
  assert.equal(destination("tes/Note", "Home.md"), null, "a suffix must start at a folder boundary");
});

test("relative links resolve against the source's folder and nowhere else", () => {
  assert.equal(destination("../Notes/Note.md", "Archive/Old plan.md"), "Notes/Note.md");
  assert.equal(destination("./Note", "Archive/Old plan.md"), "Archive/Note.md");
  assert.equal(destination("./Note.md", "Notes/Tables.md"), "Notes/Note.md");
  assert.equal(destination("../Projekte/Über uns.md", "Notes/Meeting notes 2026.md"), "Projekte/Über uns.md");
  assert.equal(destination("../../Home", "Notes/Note.md"), null, "climbing above the root resolves to nothing");
  assert.equal(destination("./Home", "Notes/Note.md"), null, "a relative link does not fall back to a name search");
});

test("resolvedLinks and unresolvedLinks have Obsidian's shape and counts", () => {
  const { resolvedLinks, unresolvedLinks } = app.metadataCache;
  const markdown = app.vault.getMarkdownFiles().map((file) => file.path).sort();
  assert.deepEqual(Object.keys(resolvedLinks).sort(), markdown, "every note has an entry, even without links");
  assert.deepEqual(Object.keys(unresolvedLinks).sort(), markdown);
  assert.deepEqual(resolvedLinks["Home.md"], {
    "Projekte/Über uns.md": 4,
    "Notes/Meeting notes 2026.md": 6,
    "Orphan links out.md": 2,
    "Home.md": 1,
    "Notes/Note.md": 1,
    "Archive/Note.md": 1,
    "Attachments/diagram.png": 2,
  });
  assert.deepEqual(unresolvedLinks["Home.md"], { "Missing note": 2, "Nowhere.md": 1, "Does not exist": 1 });
  assert.deepEqual(resolvedLinks["Orphan.md"], {});
  assert.deepEqual(resolvedLinks["Empty.md"], {});
  assert.deepEqual(resolvedLinks["Notes/Code samples.md"], { "Home.md": 1 }, "links in code are not counted");
  assert.equal(resolvedLinks["Attachments/diagram.png"], undefined, "only notes are link sources");
  assert.equal(resolvedLinks[".hidden/Secret.md"], undefined, "dot-folders are not indexed");

  const backlinksOfHome = Object.entries(resolvedLinks)
    .filter(([source, targets]) => source !== "Home.md" && targets["Home.md"])
    .map(([source]) => source)
    .sort();
  assert.deepEqual(backlinksOfHome, [
    "Invalid frontmatter.md",
    "Notes/Code samples.md",
    "Notes/Meeting notes 2026.md",
    "Notes/Tables.md",
    "Orphan links out.md",
    "Projekte/Über uns.md",
    "Windows CRLF.md",
  ]);
  const orphans = app.vault
    .getMarkdownFiles()
    .filter((file) => !Object.entries(resolvedLinks).some(([source, targets]) => source !== file.path && targets[file.path]))
    .filter((file) => Object.keys(resolvedLinks[file.path]).length === 0)
    .map((file) => file.path)
    .sort();
  assert.deepEqual(orphans, ["Empty.md", "Orphan.md", "Templates/Daily.md"]);
});

test("parseLinktext and getLinkpath split at the first #", () => {
  assert.deepEqual(parseLinktext("Note#Heading#Sub"), { path: "Note", subpath: "#Heading#Sub" });
  assert.deepEqual(parseLinktext("Note#^block"), { path: "Note", subpath: "#^block" });
  assert.deepEqual(parseLinktext("#Heading"), { path: "", subpath: "#Heading" });
  assert.deepEqual(parseLinktext("Folder/Note"), { path: "Folder/Note", subpath: "" });
  assert.equal(getLinkpath("Meeting notes 2026#Action items"), "Meeting notes 2026");
});

test("fileToLinktext uses the name when unique, the path otherwise", () => {
  const cache = app.metadataCache;
  const file = (vaultPath) => app.vault.getFileByPath(vaultPath);
  assert.equal(cache.fileToLinktext(file("Home.md"), "Notes/Note.md"), "Home");
  assert.equal(cache.fileToLinktext(file("Home.md"), "Notes/Note.md", false), "Home.md");
  assert.equal(cache.fileToLinktext(file("Notes/Note.md"), "Home.md"), "Notes/Note");
  assert.equal(cache.fileToLinktext(file("Attachments/diagram.png"), "Home.md"), "diagram.png");
});
