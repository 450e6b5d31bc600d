// WebdriverIO with wdio-obsidian-service: downloads the latest Obsidian (the network must allow it; GitHub's
// runners do), installs the plugin from obsidian-plugin/ (its committed main.js) and runs specs/rules.e2e.mjs,
// which opens each vault of the vector file in turn.

import path from "node:path";
import { PLUGIN_DIR, writeVaults } from "./vaults.mjs";

writeVaults();

export const config = {
  runner: "local",
  framework: "mocha",
  specs: ["./specs/rules.e2e.mjs"],
  maxInstances: 1,
  capabilities: [
    {
      browserName: "obsidian",
      browserVersion: "latest",
      "wdio:obsidianOptions": {
        installerVersion: "latest",
        plugins: [PLUGIN_DIR],
      },
    },
  ],
  services: ["obsidian"],
  reporters: ["obsidian"],
  cacheDir: path.resolve(".obsidian-cache"),
  mochaOpts: { ui: "bdd", timeout: 300000 },
  logLevel: "warn",
};
