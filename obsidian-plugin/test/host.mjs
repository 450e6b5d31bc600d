#!/usr/bin/env node
// Hosts the committed main.js under Node with the fake `obsidian` module, as Obsidian would host it, so the Rust
// tests and outside checks can talk to the real plugin. Command line (fixed; others depend on it):
//   node obsidian-plugin/test/host.mjs --vault DIR --port N --token T [--read-only] [--config-dir NAME] [--stalls FILE]
//                                      [--index-hold N | --wait-indexed]
// Prints exactly one line `listening on N` on stdout when the plugin listens, which is, as in Obsidian, before the
// metadata cache is complete: the fake indexes the vault in the background (fake-obsidian/metadata.cjs, "Timing").
// With --index-hold, that indexing pauses after N notes until a line `resume-indexing` comes on stdin. With
// --wait-indexed the line comes only once the cache is complete, frontmatter parsed (an Obsidian that has been open a
// while: benchmarks).
// SIGTERM or SIGINT unloads the plugin and exits 0; SIGHUP unloads and loads it again in this process (a plugin reload) and prints `listening on N` again.
// With --stalls, an event-loop delay monitor runs (Obsidian's UI thread is this one loop): each SIGUSR2 writes
// `{"round":R,"max_ms":M}` to FILE, M being the longest the loop was held since the previous SIGUSR2, and starts over.
import fs from "node:fs";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { loadPlugin, obsidian, writeSettings } from "./lib/load-plugin.mjs";

const USAGE =
  "usage: host.mjs --vault DIR --port N --token T [--read-only] [--config-dir NAME] [--stalls FILE] " +
  "[--index-hold N | --wait-indexed]";

// The plugin's own rule (isValidToken in src/settings.ts): it replaces any other token with a new one, so data.json
// would no longer hold T and a client using T would be refused.
const TOKEN_RULE = /^[A-Za-z0-9._~+/=-]{32,512}$/;

function fail(message) {
  process.stderr.write(`host: ${message}\n`);
  process.exit(2);
}

let options;
try {
  ({ values: options } = parseArgs({
    options: {
      vault: { type: "string" },
      port: { type: "string" },
      token: { type: "string" },
      "read-only": { type: "boolean", default: false },
      "config-dir": { type: "string", default: ".obsidian" },
      stalls: { type: "string" },
      "index-hold": { type: "string" },
      "wait-indexed": { type: "boolean", default: false },
    },
    strict: true,
  }));
} catch (error) {
  fail(`${error.message}\n${USAGE}`);
}
if (options.token !== undefined && !TOKEN_RULE.test(options.token)) {
  fail(
    `--token must be 32 to 512 characters from A-Z a-z 0-9 . _ ~ + / = - (the plugin replaces any other token ` +
      `with a new one); the one given has ${options.token.length} characters\n${USAGE}`,
  );
}
if (!options.vault) fail("--vault DIR is required");
const vaultDir = path.resolve(options.vault);
if (!fs.statSync(vaultDir, { throwIfNoEntry: false })?.isDirectory()) fail(`vault folder ${vaultDir} does not exist`);
const configDir = options["config-dir"];
let indexHold;
if (options["index-hold"] !== undefined) {
  indexHold = Number(options["index-hold"]);
  if (!Number.isInteger(indexHold) || indexHold < 0) fail(`--index-hold ${options["index-hold"]} is not a number of notes`);
  if (options["wait-indexed"]) fail(`--index-hold and --wait-indexed exclude each other\n${USAGE}`);
}

// Obsidian keeps port and token in data.json; the command line stands in for what setup would have written there.
const settings = { readOnly: options["read-only"] };
if (options.port !== undefined) {
  const port = Number(options.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) fail(`--port ${options.port} is not a port number`);
  settings.port = port;
}
if (options.token !== undefined) settings.token = options.token;
writeSettings(vaultDir, settings, configDir);

let plugin;
let app;

async function start() {
  ({ plugin, app } = await loadPlugin({ vaultDir, configDir, indexHold }));
  const status = plugin.status;
  if (status.state !== "listening") {
    process.stderr.write(`host: plugin did not start: ${status.lastError ?? status.state}\n`);
    plugin.unload();
    process.exit(1);
  }
  if (options["wait-indexed"]) {
    await obsidian.whenResolved(app);
    obsidian.settleFrontmatter(app);
  }
  process.stdout.write(`listening on ${status.port}\n`);
}

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  plugin?.unload();
  process.exit(0);
}

process.on("SIGTERM", stop);
process.on("SIGINT", stop);
process.on("SIGHUP", () => {
  if (stopping || !plugin) return;
  plugin.unload();
  plugin = undefined;
  start().catch((error) => fail(`reload failed: ${error.stack ?? error}`));
});

if (options.stalls !== undefined) {
  const stallsFile = path.resolve(options.stalls);
  // A 5 ms timer: a held loop shows as that timer's delay; the resolution bounds what is seen from below.
  const delays = monitorEventLoopDelay({ resolution: 5 });
  delays.enable();
  let round = 0;
  process.on("SIGUSR2", () => {
    round += 1;
    const maxMs = delays.count === 0 ? 0 : delays.max / 1e6;
    fs.writeFileSync(stallsFile, `${JSON.stringify({ round, max_ms: Math.round(maxMs * 10) / 10 })}\n`);
    delays.reset();
  });
}

if (indexHold !== undefined) {
  let pending = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk) => {
    pending += chunk;
    let newline;
    while ((newline = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, newline).trim();
      pending = pending.slice(newline + 1);
      if (line === "resume-indexing") app?.metadataCache._resumeIndexing();
      else process.stderr.write(`host: unknown command on stdin: ${JSON.stringify(line)}\n`);
    }
  });
  // The test that holds indexing owns stdin; its end must not keep the host alive, nor stop it.
  process.stdin.on("end", () => undefined);
}

start().catch((error) => fail(`load failed: ${error.stack ?? error}`));
