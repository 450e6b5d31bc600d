// The fake `obsidian` module that the host hands to main.js in place of the real one: the plugin half
// (./plugin.cjs) and the app half (./app.cjs: vault, metadata cache, workspace, …) merged into one namespace.
"use strict";

const plugin = require("./plugin.cjs");

let app;
try {
  app = require("./app.cjs");
} catch (error) {
  // Until the app half exists, a bare App keeps the plugin's lifecycle testable; anything else is a real failure.
  if (!(error && error.code === "MODULE_NOT_FOUND" && String(error.message).includes("app.cjs"))) throw error;
  app = {
    createApp({ vaultDir, configDir = ".obsidian" }) {
      return {
        vault: {
          adapter: { basePath: vaultDir, getBasePath: () => vaultDir },
          configDir,
          getName: () => require("node:path").basename(vaultDir),
        },
      };
    },
  };
}

module.exports = { ...app, ...plugin };
