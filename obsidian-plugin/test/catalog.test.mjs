// The tool catalog. The committed catalog.json (embedded by the Rust bridge) must be exactly what the plugin serves:
// its `tools` equal a live tools/list from the hosted main.js with read-only off, and its version equals the
// manifest's. And every served tool is fully described: title, short description, described and bounded arguments,
// complete annotations.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { connect } from "./lib/client.mjs";
import { startHost, tempDir } from "./lib/harness.mjs";
import { pluginDir, readManifest } from "./lib/load-plugin.mjs";
import { makeVault, openSession } from "./tools-lib.mjs";

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

test("every served tool has a title, a short description, described arguments and complete annotations", async () => {
  const vault = makeVault();
  const session = await openSession(vault.dir);
  try {
    const tools = await session.client.listTools();
    assert.equal(tools.length, 37);
    for (const tool of tools) {
      assert.ok(tool.title, `${tool.name} has a title`);
      assert.ok(tool.description.length > 20 && tool.description.length <= 300, `${tool.name} description length ${tool.description.length}`);
      assert.equal(typeof tool.annotations.readOnlyHint, "boolean", `${tool.name} readOnlyHint`);
      assert.equal(tool.annotations.openWorldHint, false, `${tool.name} openWorldHint`);
      if (!tool.annotations.readOnlyHint) {
        assert.equal(typeof tool.annotations.destructiveHint, "boolean", `${tool.name} destructiveHint`);
        assert.equal(typeof tool.annotations.idempotentHint, "boolean", `${tool.name} idempotentHint`);
      }
      assert.equal(tool.inputSchema.type, "object");
      for (const [name, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
        assert.ok(schema.description, `${tool.name}.${name} has a description`);
        if (schema.type === "integer" && (name === "limit" || name === "max_chars")) {
          assert.ok(schema.maximum !== undefined && schema.default !== undefined, `${tool.name}.${name} has a default and a maximum`);
        }
      }
      if (Object.keys(tool.inputSchema.properties ?? {}).includes("path")) {
        assert.ok(tool.inputSchema.required.includes("path"), `${tool.name} requires path`);
      }
    }
    const limits = tools.flatMap((tool) => Object.entries(tool.inputSchema.properties ?? {})).filter(([name]) => name === "limit");
    assert.ok(limits.every(([, schema]) => schema.maximum <= 500));
    const maxChars = tools.flatMap((tool) => Object.entries(tool.inputSchema.properties ?? {})).filter(([name]) => name === "max_chars");
    assert.ok(maxChars.every(([, schema]) => schema.default === 20000 && schema.maximum === 200000));
  } finally {
    await session.close();
    vault.remove();
  }
});
