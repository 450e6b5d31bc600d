// The fake at benchmark scale: the 10,000-note generator (deterministic, realistic link graph) indexed in the
// background after createApp within a bound, and the 20 MB multi-byte note read, indexed and written back intact.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { generateVault } from "./gen-vault.mjs";
import { makeBigNote, BIG_NOTE_PATH } from "./fixtures/make-big-note.mjs";

const require = createRequire(import.meta.url);
const { createApp, createIndexedApp, whenResolved } = require("./fake-obsidian/app.cjs");

/**
 * CPU time, not wall time, so a busy machine (two cores shared with other jobs) cannot fail the test by making it
 * wait; on a quiet machine scan and full index take 1-2 s. Generous, to catch only real regressions.
 */
const INDEX_CPU_LIMIT_MS = 8_000;

function cpuMilliseconds() {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

function tempDir(t, label) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `obsmcp-${label}-`));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function snapshot(dir) {
  const files = {};
  const walk = (folder) => {
    for (const entry of fs.readdirSync(path.join(dir, folder), { withFileTypes: true })) {
      const relative = folder ? `${folder}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(relative);
      else files[relative] = fs.readFileSync(path.join(dir, relative), "utf8");
    }
  };
  walk("");
  return files;
}

test("gen-vault is deterministic per seed and refuses a folder that is not empty", (t) => {
  const first = path.join(tempDir(t, "gen-a"), "vault");
  const second = path.join(tempDir(t, "gen-b"), "vault");
  const other = path.join(tempDir(t, "gen-c"), "vault");
  generateVault(first, { notes: 300, seed: 7 });
  generateVault(second, { notes: 300, seed: 7 });
  generateVault(other, { notes: 300, seed: 8 });
  assert.deepEqual(snapshot(first), snapshot(second));
  assert.notDeepEqual(snapshot(first), snapshot(other));
  const before = snapshot(first);
  assert.throws(() => generateVault(first, { notes: 10 }), /not empty/);
  assert.deepEqual(snapshot(first), before, "a refused run writes nothing");
  assert.throws(() => generateVault(path.join(other, "x"), { notes: 0 }), /positive integer/);
});

test("gen-vault's command line prints one summary line and rejects bad arguments", (t) => {
  const script = fileURLToPath(new URL("./gen-vault.mjs", import.meta.url));
  // The test runner marks its children with NODE_TEST_CONTEXT, which the script takes as "run as a test file".
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const run = (...args) => spawnSync(process.execPath, [script, ...args], { env, encoding: "utf8" });
  const dir = path.join(tempDir(t, "gen-cli"), "vault");
  const ok = run(dir, "--notes", "40", "--seed", "3");
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /^generated 40 notes in \d+ folders under .+: \d+ links \(\d+ to Hub, \d+ unresolved\), [\d.]+ MB, [\d.]+ s\n$/);
  assert.ok(fs.existsSync(path.join(dir, "Hub.md")));
  for (const args of [[], [dir], [path.join(dir, "x"), "--notes", "many"], [path.join(dir, "y"), "--bogus"]]) {
    const bad = run(...args);
    assert.equal(bad.status, 2, `exit status for ${JSON.stringify(args)}`);
    assert.match(bad.stderr, /^gen-vault: .+\nusage: node test\/gen-vault\.mjs DIR/);
    assert.equal(bad.stdout, "");
  }
});

test("a generated 10,000-note vault is indexed within the bound, with its hub, duplicates and unresolved links", async (t) => {
  const dir = path.join(tempDir(t, "gen-10k"), "vault");
  const stats = generateVault(dir, { notes: 10000, seed: 1 });
  assert.equal(stats.notes, 10000);

  const started = performance.now();
  const startedCpu = cpuMilliseconds();
  const app = createApp({ vaultDir: dir });
  const scanned = performance.now();
  // Nothing is indexed until the background pass gets its turns: the link maps are empty, not built on this read.
  assert.deepEqual(Object.keys(app.metadataCache.resolvedLinks), []);
  assert.equal(app.metadataCache.getFileCache(app.vault.getFileByPath("Hub.md")), null);
  let changed = 0;
  app.metadataCache.on("changed", () => changed++);
  await whenResolved(app);
  const indexed = performance.now();
  assert.equal(changed, 10000, "one changed event per note");
  const { resolvedLinks, unresolvedLinks } = app.metadataCache;
  const cpu = cpuMilliseconds() - startedCpu;
  t.diagnostic(
    `createApp (folder scan) ${Math.round(scanned - started)} ms; background index to resolved of ` +
      `${app.vault.getMarkdownFiles().length} notes ${Math.round(indexed - scanned)} ms; CPU ${Math.round(cpu)} ms`,
  );
  assert.ok(cpu < INDEX_CPU_LIMIT_MS, `scan and index took ${Math.round(cpu)} ms of CPU`);
  assert.equal(app.vault.getMarkdownFiles().length, 10000);
  const hubBacklinks = Object.values(resolvedLinks).filter((targets) => targets["Hub.md"]).length;
  assert.equal(hubBacklinks, stats.hubLinks, "every generated hub link resolves");
  let unresolved = 0;
  for (const targets of Object.values(unresolvedLinks)) for (const count of Object.values(targets)) unresolved += count;
  assert.equal(unresolved, stats.unresolved);
  let resolved = 0;
  for (const targets of Object.values(resolvedLinks)) for (const count of Object.values(targets)) resolved += count;
  assert.equal(resolved + unresolved, stats.links, "every generated link is counted once");

  const indexes = app.vault.getMarkdownFiles().filter((file) => file.basename === "Index");
  assert.ok(indexes.length > 1, "duplicate basenames exist");
  const [someIndex] = indexes;
  assert.equal(app.metadataCache.fileToLinktext(someIndex, "Hub.md"), someIndex.path.slice(0, -3));
});

test("the 20 MB multi-byte note is read, indexed and written back intact", async (t) => {
  const dir = tempDir(t, "big-note");
  const big = makeBigNote(dir);
  assert.equal(big.path, BIG_NOTE_PATH);
  assert.ok(big.bytes >= 20 * 1024 * 1024);
  assert.equal(fs.statSync(path.join(dir, big.path)).size, big.bytes);

  const app = await createIndexedApp({ vaultDir: dir });
  const file = app.vault.getFileByPath(big.path);
  assert.equal(file.stat.size, big.bytes);
  const text = await app.vault.read(file);
  assert.equal(Buffer.byteLength(text), big.bytes);
  assert.ok(text.includes("🦊") && text.includes("日本語") && text.includes("Übungen"));

  const started = performance.now();
  const cache = app.metadataCache.getFileCache(file);
  t.diagnostic(`parsed the ${(big.bytes / 1e6).toFixed(1)} MB note in ${Math.round(performance.now() - started)} ms`);
  assert.equal(cache.headings.length, big.sections + 1);
  const last = cache.headings.at(-1);
  assert.equal(last.heading, `Abschnitt ${big.sections} – Übersicht 📦`);
  assert.equal(text.slice(last.position.start.offset, last.position.end.offset), `## ${last.heading}`);
  assert.equal(cache.links.length, big.sections);
  assert.equal(app.metadataCache.unresolvedLinks[big.path].Home, big.sections);

  const appended = await app.vault.process(file, (data) => `${data}Schluss. ✓\n`);
  const onDisk = fs.readFileSync(path.join(dir, big.path), "utf8");
  assert.equal(onDisk, appended);
  assert.equal(onDisk.slice(0, text.length), text);
  assert.equal(Buffer.byteLength(onDisk), big.bytes + Buffer.byteLength("Schluss. ✓\n"));
});
