// The fake's startup, as Obsidian's (fake-obsidian/metadata.cjs, "Timing"): the cache starts empty and nothing is
// built on a read; notes are indexed in the background (`changed`, then `resolve`, per note) and `resolved` fires
// once at the end, and again after each burst of later changes; `indexHold` pauses the startup pass.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { createApp, whenResolved } = require("./fake-obsidian/app.cjs");

const FIXTURE = fileURLToPath(new URL("./fixtures/vault", import.meta.url));

function copyVault(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "obsmcp-fake-indexing-"));
  fs.cpSync(FIXTURE, dir, { recursive: true });
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

function countEvents(cache) {
  const counts = { changed: 0, resolve: 0, resolved: 0 };
  for (const name of Object.keys(counts)) cache.on(name, () => counts[name]++);
  return counts;
}

test("the cache is empty at load, fills in the background and fires resolved once", async (t) => {
  const app = createApp({ vaultDir: copyVault(t) });
  const cache = app.metadataCache;
  const counts = countEvents(cache);
  const home = app.vault.getFileByPath("Home.md");
  // Reads build nothing: a note not reached has no cache and no link entry, however often it is asked for.
  assert.equal(cache.getFileCache(home), null);
  assert.deepEqual(cache.resolvedLinks, {});
  assert.deepEqual(cache.unresolvedLinks, {});
  assert.equal(cache.getFileCache(home), null);
  assert.equal(app.workspace.layoutReady, false);
  let layout = false;
  app.workspace.onLayoutReady(() => (layout = true));

  await whenResolved(app);
  const notes = app.vault.getMarkdownFiles().length;
  assert.deepEqual(counts, { changed: notes, resolve: notes, resolved: 1 });
  assert.ok(layout && app.workspace.layoutReady);
  assert.notEqual(cache.getFileCache(home), null);
  assert.equal(Object.keys(cache.resolvedLinks).length, notes);

  // A later burst of changes ends with one more `resolved`, after the writes have updated the cache.
  await app.vault.process(home, (text) => `${text}\n[[Orphan]]\n`);
  await app.vault.create("New.md", "[[Home]]");
  assert.equal(cache.resolvedLinks["Home.md"]["Orphan.md"], 1);
  assert.deepEqual(cache.resolvedLinks["New.md"], { "Home.md": 1 });
  assert.equal(counts.resolved, 1);
  await turn();
  assert.equal(counts.resolved, 2);
});

test("indexHold pauses the startup pass where it says until it is resumed", async (t) => {
  const app = createApp({ vaultDir: copyVault(t), indexHold: 3 });
  const cache = app.metadataCache;
  const counts = countEvents(cache);
  for (let i = 0; i < 20; i++) await turn();
  assert.equal(Object.keys(cache.resolvedLinks).length, 3);
  assert.equal(counts.resolved, 0);
  assert.deepEqual(cache._progress(), { indexed: 3, total: app.vault.getMarkdownFiles().length, resolved: false });
  // A note edited while the pass is held is indexed at once, as Obsidian indexes a changed file.
  const later = app.vault.getMarkdownFiles().at(-1);
  await app.vault.process(later, (text) => `${text}\n`);
  assert.notEqual(cache.getFileCache(later), null);
  cache._resumeIndexing();
  await whenResolved(app);
  assert.equal(counts.resolved, 1);
  assert.equal(Object.keys(cache.resolvedLinks).length, app.vault.getMarkdownFiles().length);
});
