#!/usr/bin/env node
// The obsmcp bridge as the client of the official MCP conformance suite's client scenarios:
//   node bridge-client.mjs SERVER_URL        (the suite runs it with MCP_CONFORMANCE_SCENARIO set)
// It starts `obsmcp bridge --url SERVER_URL` (OBSMCP_BIN, default target/debug/obsmcp), speaks MCP to it over stdio
// as an AI client would, and makes the calls the scenario asks of a client; the suite's server judges what the bridge
// sent upstream. Exits 0 when every call was answered without error.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const binary = process.env.OBSMCP_BIN ?? path.join(repo, "target", "debug", "obsmcp");
const [url] = process.argv.slice(2);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
/** What each scenario asks the client to call: tool name and arguments. */
const CALLS = {
  initialize: [],
  tools_call: [["add_numbers", { a: 2, b: 3 }]],
  "sse-retry": [["test_reconnection", {}]],
  "request-metadata": [],
};
if (!url || !(scenario in CALLS)) {
  process.stderr.write(`bridge-client: usage: MCP_CONFORMANCE_SCENARIO=${Object.keys(CALLS).join("|")} node bridge-client.mjs URL\n`);
  process.exit(2);
}

// Each run gets a home of its own: the bridge caches a URL's catalog and lists it at once on the next start, and the
// suite's servers reuse ports, so a shared cache let a scenario be answered from another one's catalog before the
// bridge had spoken to its server at all.
const home = mkdtempSync(path.join(os.tmpdir(), "obsmcp-conformance-"));
const env = { ...process.env, HOME: home, XDG_CACHE_HOME: path.join(home, "cache"), XDG_STATE_HOME: path.join(home, "state"), XDG_CONFIG_HOME: path.join(home, "config") };
const bridge = spawn(binary, ["bridge", "--url", url, "--log-level", "warn"], { stdio: ["pipe", "pipe", "inherit"], env });
const waiting = new Map();
readline.createInterface({ input: bridge.stdout }).on("line", (line) => {
  const message = JSON.parse(line);
  const resolve = waiting.get(message.id);
  if (resolve) {
    waiting.delete(message.id);
    resolve(message);
  }
});
let nextId = 1;
function request(method, params) {
  const id = nextId++;
  bridge.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
  return new Promise((resolve) => waiting.set(id, resolve));
}

let failed = false;
const init = await request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "conformance-via-obsmcp", version: "1" } });
if (!init.result) failed = true;
bridge.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
const list = await request("tools/list", {});
process.stderr.write(`bridge-client: ${list.result?.tools?.length ?? 0} tools listed\n`);
for (const [name, args] of CALLS[scenario]) {
  const answer = await request("tools/call", { name, arguments: args });
  const text = answer.result?.content?.map((block) => block.text).join("") ?? JSON.stringify(answer.error);
  process.stderr.write(`bridge-client: ${name}: ${text}\n`);
  if (!answer.result || answer.result.isError) failed = true;
}
bridge.stdin.end();
await new Promise((resolve) => bridge.on("exit", resolve));
rmSync(home, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
