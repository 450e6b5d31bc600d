// The fake `obsidian` module that the host hands to main.js in place of the real one: the plugin half
// (./plugin.cjs) and the app half (./app.cjs: vault, metadata cache, workspace, …) merged into one namespace.
"use strict";

const plugin = require("./plugin.cjs");
const app = require("./app.cjs");

module.exports = { ...app, ...plugin };
