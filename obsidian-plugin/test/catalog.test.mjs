// The committed catalog.json (embedded by the Rust bridge) must be exactly what the plugin serves: its `tools` equal
// a live tools/list from the hosted main.js with read-only off, and its version equals the manifest's.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { connect } from "./lib/client.mjs";
import { startHost, tempDir } from "./lib/harness.mjs";
import { pluginDir, readManifest } from "./lib/load-plugin.mjs";

test("catalog.json equals the live tools/list and names the manifest version", async () => {
  const catalog = JSON.parse(fs.readFileSync(path.join(pluginDir, "catalog.json"), "utf8"));
  assert.deepEqual(Object.keys(catalog).sort(), ["pluginVersion", "tools"]);
  assert.equal(catalog.pluginVersion, readManifest().version);

  const vault = tempDir();
  const host = await startHost({ vaultDir: vault.dir });
  try {
    const client = connect(host.url, host.token);
    await client.initialize();
    const live = await client.listTools();
    assert.ok(live.length > 0);
    assert.deepEqual(
      catalog.tools.map((tool) => tool.name),
      live.map((tool) => tool.name),
      "tool names or order differ: run npm run build",
    );
    assert.deepEqual(catalog.tools, live, "catalog.json is stale: run npm run build");
  } finally {
    await host.stop();
    vault.remove();
  }
});

test("every catalogued tool has a title, a description, an object schema and readOnlyHint", () => {
  const { tools } = JSON.parse(fs.readFileSync(path.join(pluginDir, "catalog.json"), "utf8"));
  for (const tool of tools) {
    assert.match(tool.name, /^[a-z][a-z0-9_]*$/, tool.name);
    assert.ok(tool.title && tool.description, tool.name);
    assert.equal(tool.inputSchema.type, "object", tool.name);
    assert.equal(typeof tool.annotations.readOnlyHint, "boolean", tool.name);
  }
});
