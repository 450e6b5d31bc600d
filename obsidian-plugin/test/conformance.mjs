#!/usr/bin/env node
// Runs the official MCP conformance suite (pinned in tests/conformance) against the plugin hosted under Node: starts
// the host and the loopback auth proxy on free ports, runs every scenario of one era with that era's expected-failures
// baseline (fixture scenarios only), and exits non-zero on any unexpected failure or stale baseline entry. Everything
// it starts is stopped. Run it with Node 22 (conformance.sh does):
//   node obsidian-plugin/test/conformance.mjs --era 2025|2026 [--scenario NAME] [-o DIR]
// 2025: @modelcontextprotocol/conformance 0.1.16, its active server scenarios. 2026: 0.2.0-alpha.12 with
// `--requirements 2026-07-28`, exactly what that revision requires.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startAuthProxy } from "./lib/auth-proxy.mjs";
import { startHost, tempDir } from "./lib/harness.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..", "..");
const ERAS = {
  2025: { suite: "conformance-2025", args: [] },
  2026: { suite: "conformance-2026", args: ["--requirements", "2026-07-28"] },
};
const SUITE_TIMEOUT_MS = 10 * 60 * 1000;

const argv = process.argv.slice(2);
const eraAt = argv.indexOf("--era");
const era = ERAS[argv[eraAt + 1]];
if (eraAt < 0 || !era) {
  process.stderr.write("conformance: usage: conformance.mjs --era 2025|2026 [--scenario NAME] [-o DIR]\n");
  process.exit(2);
}
const passOn = argv.filter((_, index) => index !== eraAt && index !== eraAt + 1);
const suite = path.join(repo, "tests", "conformance", "node_modules", era.suite, "dist", "index.js");
const baseline = path.join(here, `conformance-expected-failures-${argv[eraAt + 1]}.yml`);
if (!fs.existsSync(suite)) {
  process.stderr.write(`conformance: ${suite} is missing; run: npm ci --prefix tests/conformance\n`);
  process.exit(2);
}
// A single scenario runs without the era's requirement set, which would otherwise replace it.
const scoped = passOn.includes("--scenario") ? [] : era.args;

const vault = tempDir("obsmcp-conformance-");
fs.writeFileSync(path.join(vault.dir, "Welcome.md"), "# Welcome\n\nA note for the conformance run.\n");
let host;
let proxy;
let exitCode = 1;
try {
  host = await startHost({ vaultDir: vault.dir });
  proxy = await startAuthProxy({ targetPort: host.port, token: host.token });
  const args = [suite, "server", "--url", proxy.url, "--expected-failures", baseline, ...scoped, ...passOn];
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
