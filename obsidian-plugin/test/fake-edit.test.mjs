// The fake FileManager's edits on a temporary copy of the fixture vault: renameFile rewriting every kind of link
// the way Obsidian does, and processFrontMatter round trips that keep the body byte for byte.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const { createIndexedApp } = require("./fake-obsidian/app.cjs");

const FIXTURE = fileURLToPath(new URL("./fixtures/vault", import.meta.url));

function copyVault(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "obsmcp-fake-edit-"));
  fs.cpSync(FIXTURE, dir, { recursive: true });
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function read(dir, vaultPath) {
  return fs.readFileSync(path.join(dir, vaultPath), "utf8");
}

/** Total resolved and unresolved link counts over the vault. */
function linkTotals(app) {
  const sum = (maps) => Object.values(maps).reduce((total, targets) => total + Object.values(targets).reduce((a, b) => a + b, 0), 0);
  return { resolved: sum(app.metadataCache.resolvedLinks), unresolved: sum(app.metadataCache.unresolvedLinks) };
}

test("renameFile moves a note and rewrites wikilinks, embeds, markdown links and property links to it", async (t) => {
  const dir = copyVault(t);
  const app = await createIndexedApp({ vaultDir: dir });
  const before = linkTotals(app);
  const homeBefore = read(dir, "Home.md");
  const note = app.vault.getFileByPath("Notes/Meeting notes 2026.md");

  await app.fileManager.renameFile(note, "Projekte/Protokoll 2026.md");

  assert.ok(!fs.existsSync(path.join(dir, "Notes/Meeting notes 2026.md")));
  const home = read(dir, "Home.md");
  const expectedHome = homeBefore
    .replace('"[[Meeting notes 2026]]"', '"[[Protokoll 2026]]"')
    .replace("[[Meeting notes 2026#Action items]]", "[[Protokoll 2026#Action items]]")
    .replace("[[Meeting notes 2026#^decision-1]]", "[[Protokoll 2026#^decision-1]]")
    .replace("[meeting](Notes/Meeting%20notes%202026.md)", "[meeting](Protokoll%202026.md)")
    .replace("[meeting again](<Notes/Meeting notes 2026.md>)", "[meeting again](<Protokoll 2026.md>)")
    .replace("![[Meeting notes 2026#Action items]]", "![[Protokoll 2026#Action items]]");
  assert.notEqual(expectedHome, homeBefore);
  assert.equal(home, expectedHome, "every link to the note changed and nothing else did");
  assert.equal(read(dir, "Daily/2026-03-14.md").includes("[[Protokoll 2026]]"), true);
  assert.equal(read(dir, "Notes/Note.md").includes("Back to [[Protokoll 2026]]."), true);

  const moved = read(dir, "Projekte/Protokoll 2026.md");
  assert.ok(moved.includes("[about](../Projekte/%C3%9Cber%20uns.md)"), "a relative link that still resolves is kept");
  assert.ok(moved.includes("Discussed [[Note]]"), "a name link that still resolves the same is left alone");

  assert.deepEqual(linkTotals(app), before, "no link was lost or broken by the move");
  assert.equal(app.metadataCache.resolvedLinks["Home.md"]["Projekte/Protokoll 2026.md"], 6);
  assert.equal(app.metadataCache.resolvedLinks["Projekte/Protokoll 2026.md"]["Projekte/Über uns.md"], 2);
});

test("renameFile keeps link text that stays valid and disambiguates names that become shared", async (t) => {
  const dir = copyVault(t);
  const app = await createIndexedApp({ vaultDir: dir });
  const homeBefore = read(dir, "Home.md");
  await app.fileManager.renameFile(app.vault.getFileByPath("Orphan links out.md"), "Archive/Orphan links out.md");
  assert.equal(read(dir, "Home.md"), homeBefore, "[[Orphan links out]] still resolves by its unique name");

  await app.vault.createFolder("Archive/Deep");
  await app.fileManager.renameFile(app.vault.getFileByPath("Archive/Old plan.md"), "Archive/Deep/Old plan.md");
  const plan = read(dir, "Archive/Deep/Old plan.md");
  assert.ok(plan.includes("From this folder [[Archive/Note]] resolves"), "a link that would now resolve elsewhere is made explicit");
  assert.ok(plan.includes("[the other note](../../Notes/Note.md)"), "a relative link is recomputed from the new folder");
  assert.deepEqual(app.metadataCache.resolvedLinks["Archive/Deep/Old plan.md"], { "Archive/Note.md": 1, "Notes/Note.md": 1 });
});

test("renameFile writes the links it must change in the vault's newLinkFormat", async (t) => {
  for (const [format, fromNotes] of [
    ["absolute", "[[Archive/Über uns#Team]]"],
    ["relative", "[[../Archive/Über uns#Team]]"],
  ]) {
    const dir = copyVault(t);
    const settings = JSON.parse(read(dir, ".obsidian/app.json"));
    fs.writeFileSync(path.join(dir, ".obsidian", "app.json"), JSON.stringify({ ...settings, newLinkFormat: format }));
    const app = await createIndexedApp({ vaultDir: dir });
    await app.fileManager.renameFile(app.vault.getFileByPath("Projekte/Über uns.md"), "Archive/Über uns.md");
    assert.ok(read(dir, "Notes/Tables.md").includes(`| Team | ${fromNotes} |`), format);
    assert.ok(read(dir, "Home.md").includes("- Heading with alias: [[Archive/Über uns#Team|the team]]"), format);
    const unchanged = read(dir, "Notes/Meeting notes 2026.md").includes("and [[Über uns]].");
    assert.ok(unchanged, `${format}: a link that still resolves is kept`);
  }
});

test("renameFile on a folder rewrites links to everything inside it", async (t) => {
  const dir = copyVault(t);
  const app = await createIndexedApp({ vaultDir: dir });
  const before = linkTotals(app);
  await app.vault.createFolder("Old");
  await app.fileManager.renameFile(app.vault.getFolderByPath("Archive"), "Old/Archive");
  assert.ok(fs.existsSync(path.join(dir, "Old/Archive/Note.md")));
  assert.ok(read(dir, "Home.md").includes("- Full path: [[Archive/Note]]"), "still a path suffix of the moved note");
  assert.ok(read(dir, "Old/Archive/Old plan.md").includes("[the other note](../../Notes/Note.md)"));
  assert.deepEqual(linkTotals(app), before);
  assert.equal(app.metadataCache.resolvedLinks["Home.md"]["Old/Archive/Note.md"], 1);
});

test("renameFile to a taken path or a missing folder fails and changes nothing", async (t) => {
  const dir = copyVault(t);
  const app = await createIndexedApp({ vaultDir: dir });
  const homeBefore = read(dir, "Home.md");
  const note = app.vault.getFileByPath("Orphan links out.md");
  await assert.rejects(app.fileManager.renameFile(note, "Home.md"), /already exists/);
  await assert.rejects(app.fileManager.renameFile(note, "No folder/x.md"), /Folder does not exist/);
  assert.equal(read(dir, "Home.md"), homeBefore);
  assert.equal(note.path, "Orphan links out.md");
});

test("processFrontMatter edits properties and keeps the body byte for byte", async (t) => {
  const dir = copyVault(t);
  const app = await createIndexedApp({ vaultDir: dir });
  const before = read(dir, "Home.md");
  const bodyStart = before.indexOf("---\n", 4) + 4;
  await app.fileManager.processFrontMatter(app.vault.getFileByPath("Home.md"), (frontmatter) => {
    frontmatter.status = "archived";
    delete frontmatter.rating;
    frontmatter.reviewers = ["Anna", "Bernd"];
  });
  const after = read(dir, "Home.md");
  assert.equal(after.slice(after.indexOf("---\n", 4) + 4), before.slice(bodyStart));
  const cache = app.metadataCache.getFileCache(app.vault.getFileByPath("Home.md"));
  assert.equal(cache.frontmatter.status, "archived");
  assert.equal(cache.frontmatter.rating, undefined);
  assert.deepEqual(cache.frontmatter.reviewers, ["Anna", "Bernd"]);
  assert.deepEqual(cache.frontmatter.aliases, ["Start", "Startseite"]);
  assert.ok(after.includes("reviewers:\n  - Anna\n  - Bernd\n"));
  assert.equal(cache.frontmatterLinks.length, 3, "property links survive the rewrite");
});

test("processFrontMatter creates frontmatter where there is none, and removes it when emptied", async (t) => {
  const dir = copyVault(t);
  const app = await createIndexedApp({ vaultDir: dir });
  const file = app.vault.getFileByPath("Orphan.md");
  const before = read(dir, "Orphan.md");
  await app.fileManager.processFrontMatter(file, (frontmatter) => {
    frontmatter.tags = ["new"];
  });
  assert.equal(read(dir, "Orphan.md"), `---\ntags:\n  - new\n---\n${before}`);
  await app.fileManager.processFrontMatter(file, (frontmatter) => {
    delete frontmatter.tags;
  });
  assert.equal(read(dir, "Orphan.md"), before);

  const empty = app.vault.getFileByPath("Empty.md");
  await app.fileManager.processFrontMatter(empty, (frontmatter) => {
    frontmatter.title = "Über";
  });
  assert.equal(read(dir, "Empty.md"), "---\ntitle: Über\n---\n");
});

test("processFrontMatter keeps CRLF notes CRLF and a missing final newline missing", async (t) => {
  const dir = copyVault(t);
  const app = await createIndexedApp({ vaultDir: dir });
  const before = read(dir, "Windows CRLF.md");
  await app.fileManager.processFrontMatter(app.vault.getFileByPath("Windows CRLF.md"), (frontmatter) => {
    frontmatter.status = "done";
  });
  const after = read(dir, "Windows CRLF.md");
  assert.equal(after, before.replace("---\r\ntags:\r\n", "").replace(/^---\r\ntags: \[crlf\]\r\n/, "---\r\ntags:\r\n  - crlf\r\nstatus: done\r\n"));
  assert.ok(!/[^\r]\n/.test(after), "no bare LF was introduced");

  const noNewline = read(dir, "No trailing newline.md");
  await app.fileManager.processFrontMatter(app.vault.getFileByPath("No trailing newline.md"), (frontmatter) => {
    frontmatter.a = 1;
  });
  assert.equal(read(dir, "No trailing newline.md"), `---\na: 1\n---\n${noNewline}`);
});

test("processFrontMatter that changes nothing leaves comments and styling alone", async (t) => {
  const dir = copyVault(t);
  const app = await createIndexedApp({ vaultDir: dir });
  const text = "---\n# a comment\ntitle:   'quoted'\n---\nBody\n";
  const file = await app.vault.create("Commented.md", text);
  await app.fileManager.processFrontMatter(file, (frontmatter) => {
    assert.equal(frontmatter.title, "quoted");
  });
  assert.equal(read(dir, "Commented.md"), text);
  const onlyComment = await app.vault.create("Only comment.md", "---\n# nothing else\n---\nBody\n");
  await app.fileManager.processFrontMatter(onlyComment, () => {});
  assert.equal(read(dir, "Only comment.md"), "---\n# nothing else\n---\nBody\n");
});

test("processFrontMatter on invalid YAML throws and writes nothing", async (t) => {
  const dir = copyVault(t);
  const app = await createIndexedApp({ vaultDir: dir });
  const before = read(dir, "Invalid frontmatter.md");
  let called = false;
  await assert.rejects(
    app.fileManager.processFrontMatter(app.vault.getFileByPath("Invalid frontmatter.md"), () => {
      called = true;
    }),
  );
  assert.equal(called, false);
  assert.equal(read(dir, "Invalid frontmatter.md"), before);
});
