// Runs the built main.js under Node the way Obsidian loads a plugin, for the build (./catalog.mjs) and the tests
// (test/lib/load-plugin.mjs) alike: the CommonJS text is evaluated with a `require` that maps `obsidian` to the fake
// module (test/fake-obsidian/, a declared build input: see ./catalog.mjs) and everything else to Node's own require.
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import vm from "node:vm";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

export const pluginDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const nodeRequire = createRequire(path.join(pluginDir, "main.js"));
/** The fake `obsidian` module (one instance per process, like the real one). */
export const obsidian = nodeRequire("./test/fake-obsidian/index.cjs");

/** The plugin manifest with `dir` set as Obsidian sets it for an installed plugin. */
export function readManifest(configDir = ".obsidian") {
  const manifest = JSON.parse(fs.readFileSync(path.join(pluginDir, "manifest.json"), "utf8"));
  return { ...manifest, dir: `${configDir}/plugins/${manifest.id}` };
}

/** Evaluates main.js and returns the plugin class it exports. Each call evaluates the file afresh, as a reload does. */
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

/** A port that was free a moment ago (the kernel picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
