// Loads the committed main.js the way Obsidian does (../../scripts/bundle.mjs evaluates it, the build uses the same
// loader for the catalog), constructs the default export with (app, manifest) and loads it.
import fs from "node:fs";
import path from "node:path";
import { evaluateBundle, obsidian, readManifest } from "../../scripts/bundle.mjs";

export { evaluateBundle, obsidian, pluginDir, readManifest } from "../../scripts/bundle.mjs";

/** Path of the plugin's data.json inside a vault. */
export function dataJsonPath(vaultDir, configDir = ".obsidian") {
  return path.join(vaultDir, configDir, "plugins", readManifest(configDir).id, "data.json");
}

/** Merges `settings` into the vault's data.json (creating it), keeping keys it does not name. */
export function writeSettings(vaultDir, settings, configDir = ".obsidian") {
  const file = dataJsonPath(vaultDir, configDir);
  let current = {};
  try {
    current = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (error) {
    if (error.code !== "ENOENT") throw new Error(`cannot read ${file}: ${error.message}`);
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ ...current, ...settings }, null, 2));
}

/**
 * Creates an app over `vaultDir`, constructs the plugin and loads it. Resolves once onload has finished (the cache
 * may still be indexing: `obsidian.whenResolved(app)` waits for it); the caller owns the returned plugin and must
 * call `unload()`.
 */
export async function loadPlugin({ vaultDir, configDir = ".obsidian", app, mainJs, indexHold } = {}) {
  // As in Obsidian, the plugin loads while the metadata cache is still indexing (see fake-obsidian/metadata.cjs).
  const theApp = app ?? obsidian.createApp({ vaultDir, configDir, indexHold });
  const PluginClass = evaluateBundle(mainJs);
  const plugin = new PluginClass(theApp, readManifest(configDir));
  await plugin.load();
  return { plugin, app: theApp };
}
