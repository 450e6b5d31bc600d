// The vaults of the vector file written for real Obsidian: each one as tests/vectors/run.mjs writes it, plus what
// Obsidian needs to load the plugin at start (its id in community-plugins.json, a data.json with a port and token
// of this run). wdio-obsidian-service copies each vault to a sandbox before opening it and installs the plugin's
// manifest.json and main.js from obsidian-plugin/ into it.

import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { VECTORS_FILE, loadVectors, vaultsOf, writeVault } from "../vectors/run.mjs";

/** Where the vaults are written (ignored by git). */
export const VAULTS_DIR = fileURLToPath(new URL("./.vaults", import.meta.url));

/** The plugin folder wdio-obsidian-service installs from. */
export const PLUGIN_DIR = fileURLToPath(new URL("../../obsidian-plugin", import.meta.url));

/** The vector file this suite runs: the one both other runners read, unless OBSMCP_VECTORS names another. */
export const vectorsFile = process.env.OBSMCP_VECTORS ? path.resolve(process.env.OBSMCP_VECTORS) : VECTORS_FILE;

/** Writes every vault of `file` under `root` (emptied first); returns `{ name: { dir, port, token } }`. */
export function writeVaults(root = VAULTS_DIR, file = vectorsFile) {
  fs.rmSync(root, { recursive: true, force: true });
  const written = {};
  let port = 22450;
  for (const [name, files] of Object.entries(vaultsOf(loadVectors(file)))) {
    const dir = path.join(root, name);
    writeVault(dir, files);
    const token = crypto.randomBytes(32).toString("hex");
    const pluginDir = path.join(dir, ".obsidian", "plugins", "obsmcp");
    fs.mkdirSync(pluginDir, { recursive: true });
    fs.writeFileSync(path.join(pluginDir, "data.json"), JSON.stringify({ port, token }));
    fs.writeFileSync(path.join(dir, ".obsidian", "community-plugins.json"), JSON.stringify(["obsmcp"]));
    written[name] = { dir, port, token };
    port += 1;
  }
  return written;
}
