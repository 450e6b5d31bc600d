#!/usr/bin/env node
// Runs the official MCP conformance suite (pinned in tests/peers) against the plugin hosted under Node: starts the
// host and the loopback auth proxy on free ports, runs every active server scenario with the expected-failures
// baseline, and exits non-zero on any unexpected failure or stale baseline entry. Everything it starts is stopped.
//   node obsidian-plugin/test/conformance.mjs [--scenario NAME] [-o DIR]
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startAuthProxy } from "./lib/auth-proxy.mjs";
import { startHost, tempDir } from "./lib/harness.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..", "..");
const suite = path.join(repo, "tests", "peers", "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const baseline = path.join(here, "conformance-expected-failures.yml");
const SUITE_TIMEOUT_MS = 10 * 60 * 1000;

if (!fs.existsSync(suite)) {
  process.stderr.write(`conformance: ${suite} is missing; run: npm ci --prefix tests/peers\n`);
  process.exit(2);
}

const vault = tempDir("obsmcp-conformance-");
fs.writeFileSync(path.join(vault.dir, "Welcome.md"), "# Welcome\n\nA note for the conformance run.\n");
let host;
let proxy;
let exitCode = 1;
try {
  host = await startHost({ vaultDir: vault.dir });
  proxy = await startAuthProxy({ targetPort: host.port, token: host.token });
  const args = [suite, "server", "--url", proxy.url, "--expected-failures", baseline, ...process.argv.slice(2)];
  exitCode = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "inherit", "inherit"] });
    const timer = setTimeout(() => {
      process.stderr.write(`conformance: no result after ${SUITE_TIMEOUT_MS / 1000} s, stopping it\n`);
      child.kill("SIGKILL");
    }, SUITE_TIMEOUT_MS);
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      resolve(signal ? 1 : code);
    });
  });
} catch (error) {
  process.stderr.write(`conformance: ${error.stack ?? error}\n`);
} finally {
  await proxy?.close();
  await host?.stop();
  vault.remove();
}
process.exit(exitCode);
