// Obsidian's startup, as clients meet it: the plugin listens before the metadata cache is complete (the fake, like
// Obsidian, indexes the vault in the background and fires `resolved` at the end), so a call that depends on the
// cache either waits for it or says at its start that the index is incomplete and how to get the whole answer.
//
// On a generated 10,000-note vault, the host holds the fake's indexing after 2,000 notes (--index-hold), so the
// "before resolved" call is made at a known point whatever the machine's speed: nothing here depends on a clock.
// Against the old fake (which built the link maps on the first read) this test fails at its first assertion, and
// against a plugin that does not follow the cache, the held backlinks call answers short with nothing saying so.

import { test, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { generateVault } from "./gen-vault.mjs";
import { connect, resultText } from "./lib/client.mjs";
import { startHost, tempDir, untilIndexed } from "./lib/harness.mjs";

const NOTES = 10000;
const HOLD = 2000;

const { dir: root, remove } = tempDir("obsmcp-startup-");
after(remove);
const vaultDir = path.join(root, "vault");
const stats = generateVault(vaultDir, { notes: NOTES, seed: 1 });

/** The leading `indexing` object of a result, or undefined when the result has none. */
function indexingOf(text) {
  if (!text.startsWith('{"indexing":')) return undefined;
  return JSON.parse(text).indexing;
}

test("before `resolved` backlinks says the index is incomplete; after it the answer is complete", async () => {
  const host = await startHost({ vaultDir, indexHold: HOLD, timeoutMs: 60000 });
  after(() => host.stop());
  const client = connect(host.url, host.token, { timeoutMs: 60000 });
  await client.initialize();

  // The held cache cannot finish, so the bounded wait ends and the result says where indexing stands, first.
  const early = resultText(await client.callTool("backlinks", { path: "Hub", snippets: false, limit: 1 }));
  const indexing = indexingOf(early);
  assert.ok(indexing, `a backlinks call before resolved must say the index is incomplete: ${early.slice(0, 200)}`);
  assert.equal(indexing.complete, false);
  assert.equal(indexing.total, NOTES);
  assert.ok(indexing.done <= HOLD, `done ${indexing.done} of ${indexing.total}`);
  assert.match(indexing.retry, /still indexing .* again in a few seconds/);
  const partial = JSON.parse(early);
  assert.ok(partial.total < stats.hubLinks, `${partial.total} linking notes of ${stats.hubLinks} while indexing`);

  // vault_info reports the state without waiting; a move, which must see every link to update, is refused.
  assert.equal(indexingOf(resultText(await client.callTool("vault_info", {})))?.done, indexing.done);
  const move = await client.callTool("move_note", { path: "Hub", new_path: "Moved Hub" });
  assert.equal(move.isError, true);
  assert.match(resultText(move), /^move_note is refused for now: Obsidian is still indexing .*nothing was changed/);

  host.resumeIndexing();
  await untilIndexed(client);
  const complete = resultText(await client.callTool("backlinks", { path: "Hub", snippets: false, limit: 1 }));
  assert.equal(indexingOf(complete), undefined, "no indexing notice once resolved");
  assert.equal(JSON.parse(complete).total, stats.hubLinks, "every note linking Hub is counted");
  assert.equal(indexingOf(resultText(await client.callTool("vault_info", {}))), undefined);
  await host.stop();
});

test("unheld, the first call after listening waits for the cache or says it is incomplete; never answers short", async (t) => {
  const started = performance.now();
  const host = await startHost({ vaultDir, timeoutMs: 60000 });
  after(() => host.stop());
  const listening = performance.now();
  const client = connect(host.url, host.token, { timeoutMs: 60000 });
  await client.initialize();
  const first = resultText(await client.callTool("backlinks", { path: "Hub", snippets: false, limit: 1 }));
  const answered = performance.now();
  const indexing = indexingOf(first);
  if (indexing) assert.ok(JSON.parse(first).total <= stats.hubLinks && indexing.done < indexing.total);
  else assert.equal(JSON.parse(first).total, stats.hubLinks, "a result without a notice is complete");
  await untilIndexed(client);
  t.diagnostic(
    `host listening ${Math.round(listening - started)} ms after spawn; first backlinks answered ` +
      `${Math.round(answered - listening)} ms later (${indexing ? `incomplete, ${indexing.done} of ${indexing.total}` : "complete"}); ` +
      `cache resolved ${Math.round(performance.now() - listening)} ms after listening`,
  );
  await host.stop();
});
