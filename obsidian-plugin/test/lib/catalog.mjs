// The tool catalog the Rust bridge embeds: `{ pluginVersion, tools }`, where `tools` is the plugin's live
// `tools/list` answer (read-only off) taken from the bundle hosted in this process on an empty temporary vault.
import fs from "node:fs";
import { connect } from "./client.mjs";
import { freePort, newToken, tempDir } from "./harness.mjs";
import { loadPlugin, readManifest, writeSettings } from "./load-plugin.mjs";

/** Hosts main.js in-process and returns the catalog object. */
export async function liveCatalog() {
  const vault = tempDir("obsmcp-catalog-");
  let plugin;
  try {
    const port = await freePort();
    const token = newToken();
    writeSettings(vault.dir, { port, token, readOnly: false });
    ({ plugin } = await loadPlugin({ vaultDir: vault.dir }));
    if (plugin.status.state !== "listening") throw new Error(`plugin did not start: ${plugin.status.lastError}`);
    const client = connect(`http://127.0.0.1:${port}/mcp`, token);
    await client.initialize();
    const tools = await client.listTools();
    await client.close();
    return { pluginVersion: readManifest().version, tools };
  } finally {
    plugin?.unload();
    vault.remove();
  }
}

/** The catalog as committed: two-space JSON with a final newline. */
export function renderCatalog(catalog) {
  return `${JSON.stringify(catalog, null, 2)}\n`;
}

export async function writeCatalog(file) {
  fs.writeFileSync(file, renderCatalog(await liveCatalog()));
}
