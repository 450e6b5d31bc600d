// Loads the committed main.js the way Obsidian does: the CommonJS text is evaluated with a `require` that maps
// `obsidian` to the fake module and everything else to Node's own require, then the default export is constructed
// with (app, manifest) and loaded. Each call evaluates the file afresh, as a plugin reload does.
import fs from "node:fs";
import path from "node:path";
import vm from "node:vm";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

export const pluginDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const nodeRequire = createRequire(path.join(pluginDir, "main.js"));
/** The fake `obsidian` module (one instance per process, like the real one). */
export const obsidian = nodeRequire("./test/fake-obsidian/index.cjs");

/** The plugin manifest with `dir` set as Obsidian sets it for an installed plugin. */
export function readManifest(configDir = ".obsidian") {
  const manifest = JSON.parse(fs.readFileSync(path.join(pluginDir, "manifest.json"), "utf8"));
  return { ...manifest, dir: `${configDir}/plugins/${manifest.id}` };
}

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

/** Evaluates main.js and returns the plugin class it exports. */
export function evaluateBundle(mainJs = path.join(pluginDir, "main.js")) {
  const source = fs.readFileSync(mainJs, "utf8");
  const wrapper = vm.runInThisContext(`(function (require, module, exports) {${source}\n})`, { filename: mainJs });
  const module = { exports: {} };
  const requireForPlugin = (id) => (id === "obsidian" ? obsidian : nodeRequire(id));
  wrapper.call(module.exports, requireForPlugin, module, module.exports);
  const PluginClass = module.exports.default ?? module.exports;
  if (typeof PluginClass !== "function") throw new Error(`${mainJs} has no default export to construct`);
  return PluginClass;
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
