// Vault-wide tools leave Obsidian's thread free while they run (src/vault/slices.ts): on a generated 25,000-note
// vault, pings sent while a long tool call is in flight are answered before it ends, and the call's result is the
// same as when nothing else runs. Without slicing, the host's one event loop would answer the pings only after the
// call (its notes are in the fake's cache by then, so nothing in the call waits on the disk).

import { test, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { generateVault } from "./gen-vault.mjs";
import { connect, resultText } from "./lib/client.mjs";
import { startHost, tempDir, untilIndexed } from "./lib/harness.mjs";

const { dir: root, remove } = tempDir("obsmcp-slices-");
after(remove);
const vaultDir = path.join(root, "vault");
generateVault(vaultDir, { notes: 25000, seed: 1 });
const stalls = path.join(root, "stalls.json");
const host = await startHost({ vaultDir, stalls, timeoutMs: 60000 });
after(() => host.stop());
const client = connect(host.url, host.token, { timeoutMs: 120000 });
await client.initialize();
// The host listens while Obsidian (the fake) still indexes; what is measured here is the tools on a complete cache.
await untilIndexed(client);
const pinger = connect(host.url, host.token, { timeoutMs: 120000 });
await pinger.initialize();

/** The tool's text with the pings answered while it ran. */
async function callWhilePinging(name, args) {
  let done = false;
  let answered = 0;
  const call = client.callTool(name, args).finally(() => {
    done = true;
  });
  const started = performance.now();
  while (!done) {
    await pinger.request("ping", {});
    if (!done) answered++;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return { text: resultText(await call), answered, ms: Math.round(performance.now() - started) };
}

/** Calls that take well over five slices here (150 ms and more on two cores), so pings get in between them. */
const LONG = [
  ["search", { query: "zqxjv absent" }],
  ["search", { query: "zqx[0-9]+jv", regex: true }],
  ["tags", {}],
  ["tasks", {}],
];

/** Calls of a few slices only (under 100 ms here, so a ping may not get in): only their results are compared. */
const SHORT = [
  ["orphans", { limit: 500 }],
  ["properties", { name: "status" }],
  ["unresolved_links", {}],
  ["list_files", { limit: 500 }],
  ["list_files", { include_folders: true, limit: 500, cursor: "500" }],
  ["backlinks", { path: "Hub" }],
  ["bases", {}],
  ["recent_files", {}],
];

for (const [name, args] of LONG) {
  test(`${name} ${JSON.stringify(args)} answers pings while it runs, and its result does not change`, async () => {
    const alone = resultText(await client.callTool(name, args));
    const { text, answered, ms } = await callWhilePinging(name, args);
    assert.equal(text, alone);
    // One ping may be answered before the call starts; more can only come from pauses within it.
    assert.ok(answered >= 2, `only ${answered} pings were answered while ${name} ran (${ms} ms)`);
  });
}

for (const [name, args] of SHORT) {
  test(`${name} ${JSON.stringify(args)} gives the same result with pings beside it`, async () => {
    const alone = resultText(await client.callTool(name, args));
    const { text } = await callWhilePinging(name, args);
    assert.equal(text, alone);
  });
}

test("the host's stall monitor reports how long its loop was held, round by round", async () => {
  await host.longestStall();
  await client.callTool("search", { query: "zqxjv absent" });
  const busy = await host.longestStall();
  assert.ok(busy > 0, `a search of 10,000 notes held the loop ${busy} ms`);
  assert.equal(JSON.parse(fs.readFileSync(stalls, "utf8")).round, 2);
});
