// The fake Vault, workspace and core-plugin settings on a temporary copy of the fixture vault: what is listed, reads,
// writes and what the metadata cache makes of them, errors that leave the disk untouched, trash, external edits.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const { createApp, createIndexedApp, TFile, TFolder, MarkdownView, moment } = require("./fake-obsidian/app.cjs");
const { normalizePath } = require("./fake-obsidian/vault.cjs");

const FIXTURE = fileURLToPath(new URL("./fixtures/vault", import.meta.url));

function copyVault(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "obsmcp-fake-vault-"));
  fs.cpSync(FIXTURE, dir, { recursive: true });
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("the file list leaves out the config folder and dot-folders and mirrors the disk", async (t) => {
  const dir = copyVault(t);
  const app = await createIndexedApp({ vaultDir: dir });
  const paths = app.vault.getFiles().map((file) => file.path);
  assert.ok(paths.includes("Attachments/diagram.png"));
  assert.ok(paths.includes("Projekte/Über uns.md"));
  assert.ok(!paths.some((p) => p.startsWith(".obsidian") || p.startsWith(".hidden")));
  assert.equal(app.vault.getAbstractFileByPath(".obsidian/app.json"), null);
  assert.equal(app.vault.getMarkdownFiles().length, paths.filter((p) => p.endsWith(".md")).length);

  const root = app.vault.getRoot();
  assert.ok(root instanceof TFolder && root.isRoot());
  assert.equal(root.path, "/");
  assert.equal(app.vault.getAbstractFileByPath("/"), root);
  const about = app.vault.getFileByPath("Projekte/Über uns.md");
  assert.ok(about instanceof TFile);
  assert.equal(about.basename, "Über uns");
  assert.equal(about.extension, "md");
  assert.equal(about.parent, app.vault.getFolderByPath("Projekte"));
  assert.ok(about.parent.children.includes(about));
  assert.equal(about.stat.size, fs.statSync(path.join(dir, "Projekte/Über uns.md")).size);
  assert.ok(about.stat.mtime > 0 && about.stat.ctime > 0);
  assert.equal(app.vault.getFolderByPath("Projekte/Über uns.md"), null);
  assert.equal(app.vault.getFileByPath("Projekte"), null);
  const loaded = app.vault.getAllLoadedFiles();
  assert.ok(loaded.includes(root) && loaded.includes(about));
  assert.equal(app.vault.configDir, ".obsidian");
  assert.equal(app.vault.adapter.getBasePath(), dir);
  assert.equal(app.vault.adapter.basePath, dir);
  assert.equal(app.vault.getName(), path.basename(dir));
});

test("read, cachedRead and external edits picked up lazily", async (t) => {
  const dir = copyVault(t);
  const app = await createIndexedApp({ vaultDir: dir });
  const file = app.vault.getFileByPath("Orphan.md");
  const onDisk = fs.readFileSync(path.join(dir, "Orphan.md"), "utf8");
  assert.equal(await app.vault.read(file), onDisk);
  assert.equal(await app.vault.cachedRead(file), onDisk);

  const changed = "# Orphan\n\nEdited outside Obsidian, now links to [[Home]].\n";
  fs.writeFileSync(path.join(dir, "Orphan.md"), changed);
  const later = new Date(Date.now() + 5000);
  fs.utimesSync(path.join(dir, "Orphan.md"), later, later);
  assert.equal(await app.vault.cachedRead(file), changed);
  assert.deepEqual(app.metadataCache.resolvedLinks["Orphan.md"], { "Home.md": 1 });
  assert.equal(file.stat.size, Buffer.byteLength(changed));

  fs.writeFileSync(path.join(dir, "Notes/Dropped in.md"), "[[Home]]");
  const dropped = app.vault.getFileByPath("Notes/Dropped in.md");
  assert.ok(dropped, "a file created behind the app's back is found on lookup");
  assert.deepEqual(app.metadataCache.resolvedLinks["Notes/Dropped in.md"], { "Home.md": 1 });

  fs.rmSync(path.join(dir, "Orphan.md"));
  await assert.rejects(app.vault.read(file), { code: "ENOENT" });
  assert.equal(app.vault.getFileByPath("Orphan.md"), null, "a file deleted behind the app's back is forgotten");
  assert.equal(app.metadataCache.resolvedLinks["Orphan.md"], undefined);
});

test("create: new notes are indexed at once; existing paths and missing folders are refused", async (t) => {
  const dir = copyVault(t);
  const app = await createIndexedApp({ vaultDir: dir });
  const file = await app.vault.create("Notes/New.md", "# New\n\nSee [[Orphan]] #fresh\n");
  assert.equal(file.path, "Notes/New.md");
  assert.equal(fs.readFileSync(path.join(dir, "Notes/New.md"), "utf8"), "# New\n\nSee [[Orphan]] #fresh\n");
  assert.ok(app.vault.getFiles().includes(file), "listed");
  assert.deepEqual(app.metadataCache.resolvedLinks["Notes/New.md"], { "Orphan.md": 1 });
  assert.deepEqual(
    app.metadataCache.getFileCache(file).tags.map((tag) => tag.tag),
    ["#fresh"],
  );

  await assert.rejects(app.vault.create("Home.md", "clobber"), /already exists/);
  assert.notEqual(fs.readFileSync(path.join(dir, "Home.md"), "utf8"), "clobber");
  await assert.rejects(app.vault.create("No/Such/Folder/x.md", ""), /Folder does not exist/);
  assert.ok(!fs.existsSync(path.join(dir, "No")));
  await assert.rejects(app.vault.create(".obsidian/evil.md", ""), /not in the vault/);

  const folder = await app.vault.createFolder("Deep/Er/Folder");
  assert.ok(folder instanceof TFolder);
  assert.ok(app.vault.getFolderByPath("Deep/Er"));
  assert.ok(fs.statSync(path.join(dir, "Deep/Er/Folder")).isDirectory());
  await assert.rejects(app.vault.createFolder("Deep/Er"), /already exists/);
  await app.vault.create("Deep/Er/Folder/Inside.md", "x");
  assert.ok(app.vault.getFileByPath("Deep/Er/Folder/Inside.md"));
});

test("a note created later turns an unresolved link into a resolved one", async (t) => {
  const dir = copyVault(t);
  const app = await createIndexedApp({ vaultDir: dir });
  assert.equal(app.metadataCache.unresolvedLinks["Home.md"]["Missing note"], 2);
  await app.vault.create("Missing note.md", "now here");
  assert.equal(app.metadataCache.unresolvedLinks["Home.md"]["Missing note"], undefined);
  assert.equal(app.metadataCache.resolvedLinks["Home.md"]["Missing note.md"], 2);
});

test("process writes through and updates the cache; a failing callback writes nothing", async (t) => {
  const dir = copyVault(t);
  const app = await createIndexedApp({ vaultDir: dir });
  const file = app.vault.getFileByPath("Orphan.md");

  await app.vault.process(file, () => "# Orphan\n\nNow [[Home]].\n");
  assert.deepEqual(app.metadataCache.resolvedLinks["Orphan.md"], { "Home.md": 1 });
  const returned = await app.vault.process(file, (text) => `${text.replace("Now", "Then")}More [[Empty]].\n`);
  assert.equal(returned, "# Orphan\n\nThen [[Home]].\nMore [[Empty]].\n");
  assert.equal(fs.readFileSync(path.join(dir, "Orphan.md"), "utf8"), returned);
  assert.equal(await app.vault.read(file), returned);
  assert.deepEqual(app.metadataCache.resolvedLinks["Orphan.md"], { "Home.md": 1, "Empty.md": 1 });
  assert.equal(file.stat.size, Buffer.byteLength(returned));

  await assert.rejects(
    app.vault.process(file, () => {
      throw new Error("callback failed");
    }),
    /callback failed/,
  );
  assert.equal(await app.vault.read(file), returned, "a failing callback writes nothing");
});

test("process is atomic: concurrent read-modify-writes lose nothing", async (t) => {
  const dir = copyVault(t);
  const app = await createIndexedApp({ vaultDir: dir });
  const file = app.vault.getFileByPath("Empty.md");
  await Promise.all(Array.from({ length: 25 }, (_, i) => app.vault.process(file, (text) => `${text}line ${i}\n`)));
  const lines = (await app.vault.read(file)).trim().split("\n");
  assert.equal(lines.length, 25);
  assert.deepEqual(new Set(lines).size, 25);
});

test("delete, trash and rename keep the tree, the link maps and the disk in step", async (t) => {
  const dir = copyVault(t);
  const app = await createIndexedApp({ vaultDir: dir });

  await app.vault.delete(app.vault.getFileByPath("Orphan links out.md"));
  assert.ok(!fs.existsSync(path.join(dir, "Orphan links out.md")));
  assert.equal(app.vault.getFileByPath("Orphan links out.md"), null);
  assert.equal(app.metadataCache.resolvedLinks["Orphan links out.md"], undefined);
  assert.equal(app.metadataCache.unresolvedLinks["Home.md"]["Orphan links out"], 1);
  assert.equal(app.metadataCache.unresolvedLinks["Home.md"]["orphan links out"], 1);

  await app.fileManager.trashFile(app.vault.getFileByPath("Orphan.md"));
  assert.ok(fs.existsSync(path.join(dir, ".trash/Orphan.md")), "trashOption local moves it into .trash/");
  fs.writeFileSync(path.join(dir, "Orphan.md"), "again");
  await app.vault.trash(app.vault.getFileByPath("Orphan.md"));
  assert.equal(fs.readFileSync(path.join(dir, ".trash/Orphan 1.md"), "utf8"), "again");
  assert.equal(app.vault.getAbstractFileByPath(".trash/Orphan.md"), null, ".trash is not part of the vault");

  const note = app.vault.getFileByPath("Notes/Note.md");
  await app.vault.rename(note, "Archive/Notes note.md");
  assert.equal(note.path, "Archive/Notes note.md");
  assert.equal(note.basename, "Notes note");
  assert.equal(note.parent, app.vault.getFolderByPath("Archive"));
  assert.ok(fs.existsSync(path.join(dir, "Archive/Notes note.md")));
  await assert.rejects(app.vault.rename(note, "Home.md"), /already exists/);
  await assert.rejects(app.vault.rename(note, "Nowhere/x.md"), /Folder does not exist/);
  assert.ok(fs.existsSync(path.join(dir, "Archive/Notes note.md")), "a refused rename moves nothing");

  const folder = app.vault.getFolderByPath("Projekte");
  await app.vault.rename(folder, "Projects");
  assert.equal(app.vault.getFileByPath("Projects/Über uns.md").parent, folder);
  assert.equal(app.vault.getFolderByPath("Projekte"), null);
  assert.ok(fs.existsSync(path.join(dir, "Projects/Über uns.md")));
  assert.ok(app.metadataCache.getFileCache(app.vault.getFileByPath("Projects/Über uns.md")), "the cache moved along");
});

test("getConfig reads app.json and falls back to Obsidian's defaults", async (t) => {
  const dir = copyVault(t);
  const app = await createIndexedApp({ vaultDir: dir });
  assert.equal(app.vault.getConfig("trashOption"), "local");
  assert.equal(app.vault.getConfig("newLinkFormat"), "shortest");
  assert.equal(app.vault.getConfig("useMarkdownLinks"), false);
  assert.equal(app.vault.getConfig("noSuchSetting"), null);
  fs.rmSync(path.join(dir, ".obsidian/app.json"));
  assert.equal(app.vault.getConfig("trashOption"), "system");
});

test("daily notes settings come from daily-notes.json and core-plugins.json", async (t) => {
  const dir = copyVault(t);
  const app = await createIndexedApp({ vaultDir: dir });
  const plugin = app.internalPlugins.getPluginById("daily-notes");
  assert.equal(plugin.enabled, true);
  assert.deepEqual(plugin.instance.options, { format: "YYYY-MM-DD", folder: "Daily", template: "Templates/Daily" });
  const daily = `${plugin.instance.options.folder}/${moment("2026-03-14", "YYYY-MM-DD", true).format(plugin.instance.options.format)}.md`;
  assert.ok(app.vault.getFileByPath(daily), "the fixture's daily note follows the settings");

  fs.writeFileSync(path.join(dir, ".obsidian/core-plugins.json"), JSON.stringify({ "daily-notes": false }));
  assert.equal(app.internalPlugins.getPluginById("daily-notes").enabled, false);
  fs.writeFileSync(path.join(dir, ".obsidian/core-plugins.json"), JSON.stringify(["file-explorer", "daily-notes"]));
  assert.equal(app.internalPlugins.getPluginById("daily-notes").enabled, true, "the older array form");
  fs.rmSync(path.join(dir, ".obsidian/daily-notes.json"));
  assert.deepEqual(app.internalPlugins.getPluginById("daily-notes").instance.options, {});
});

test("OBSMCP_TEST_ACTIVE sets the active note, its selection and the recent files at startup", async (t) => {
  const dir = copyVault(t);
  const app = await createIndexedApp({ vaultDir: dir });
  assert.equal(app.workspace.getActiveFile(), null, "no active note without the variable");
  assert.equal(app.workspace.getActiveViewOfType(MarkdownView), null);

  const appModule = fileURLToPath(new URL("./fake-obsidian/app.cjs", import.meta.url));
  const script = `
    const { createApp, MarkdownView } = require(${JSON.stringify(appModule)});
    const app = createApp({ vaultDir: ${JSON.stringify(dir)} });
    const view = app.workspace.getActiveViewOfType(MarkdownView);
    const editor = view?.editor;
    process.stdout.write(JSON.stringify([app.workspace.getActiveFile()?.path, editor?.getSelection(),
      editor?.getCursor("from"), editor?.getCursor("to"), app.workspace.getLastOpenFiles()[0]]));`;
  const run = (value) =>
    spawnSync(process.execPath, ["-e", script], { env: { ...process.env, OBSMCP_TEST_ACTIVE: value }, encoding: "utf8" });
  assert.deepEqual(JSON.parse(run("Projekte/Über uns.md|kleines Team").stdout), [
    "Projekte/Über uns.md",
    "kleines Team",
    { line: 6, ch: 13 },
    { line: 6, ch: 25 },
    "Projekte/Über uns.md",
  ]);
  const start = { line: 0, ch: 0 };
  assert.deepEqual(JSON.parse(run("Home.md").stdout).slice(0, 4), ["Home.md", "", start, start], "no selection");
  const missing = run("Nope.md");
  assert.notEqual(missing.status, 0);
  assert.match(missing.stderr, /OBSMCP_TEST_ACTIVE names a file that is not in the vault/);
});

test("paths are normalized as Obsidian's normalizePath does, and moment is the real one", () => {
  assert.equal(normalizePath("//a\\b///c/"), "a/b/c");
  assert.equal(normalizePath(""), "/");
  assert.equal(normalizePath("/"), "/");
  assert.equal(normalizePath("a\u00A0b"), "a b");
  assert.equal(normalizePath("U\u0308ber"), "Über", "NFC");
  assert.equal(moment("2026-03-14", "YYYY-MM-DD", true).format("dddd, D. MMMM YYYY"), "Saturday, 14. March 2026");
  assert.equal(moment("2026-02-30", "YYYY-MM-DD", true).isValid(), false);
});

test("createApp refuses a missing vault folder", () => {
  assert.throws(() => createApp({ vaultDir: path.join(os.tmpdir(), "obsmcp-no-such-vault-here") }), /ENOENT|not a folder/);
  assert.throws(() => createApp({}), /vaultDir is required/);
});

test("a renamed config folder is honoured: hidden from the vault, read for settings", async (t) => {
  const dir = copyVault(t);
  fs.renameSync(path.join(dir, ".obsidian"), path.join(dir, "_config"));
  const app = await createIndexedApp({ vaultDir: dir, configDir: "_config" });
  assert.equal(app.vault.configDir, "_config");
  assert.equal(app.vault.getAbstractFileByPath("_config/app.json"), null);
  assert.ok(!app.vault.getFiles().some((file) => file.path.startsWith("_config/")));
  assert.equal(app.vault.getConfig("trashOption"), "local");
  assert.equal(app.internalPlugins.getPluginById("daily-notes").instance.options.folder, "Daily");
});

test("symlinks are followed as Obsidian does, and a symlink loop cannot hang the scan", async (t) => {
  const dir = copyVault(t);
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), "obsmcp-fake-outside-"));
  t.after(() => fs.rmSync(outside, { recursive: true, force: true }));
  fs.writeFileSync(path.join(outside, "Secret.md"), "[[Home]]");
  fs.symlinkSync(outside, path.join(dir, "Linked"));
  fs.symlinkSync(dir, path.join(dir, "Notes", "Loop"));
  fs.symlinkSync(path.join(dir, "nowhere"), path.join(dir, "Dangling.md"));
  const app = await createIndexedApp({ vaultDir: dir });
  const linked = app.vault.getFileByPath("Linked/Secret.md");
  assert.ok(linked, "a symlinked folder is part of the vault (the plugin must check real paths itself)");
  assert.equal(fs.realpathSync(app.vault.adapter.getFullPath(linked.path)), fs.realpathSync(path.join(outside, "Secret.md")));
  assert.deepEqual(app.metadataCache.resolvedLinks["Linked/Secret.md"], { "Home.md": 1 });
  assert.ok(app.vault.getFolderByPath("Notes/Loop"), "the looping link is listed once");
  assert.ok(!app.vault.getFiles().some((file) => file.path.startsWith("Notes/Loop/")), "but the scan does not walk into it");
  assert.equal(app.vault.getFileByPath("Dangling.md"), null);
});

