#!/usr/bin/env node
// A stdio MCP server that floods its client with notifications, for tests of a client that stops reading:
//   node flood.mjs DONEFILE
// Its one tool, `flood` {count, size, progress}, sends `count` notifications of about `size` bytes each (log
// messages, or progress notifications for the call's progress token when `progress` is true) and then answers
// "flooded <count>". It honours back-pressure on its stdout, and writes DONEFILE once the answer is written.
import fs from "node:fs";
import readline from "node:readline";

const [doneFile] = process.argv.slice(2);

function write(message) {
  const line = JSON.stringify(message) + "\n";
  if (process.stdout.write(line)) return Promise.resolve();
  return new Promise((resolve) => process.stdout.once("drain", resolve));
}

const TOOL = {
  name: "flood",
  description: "Sends many notifications, then answers.",
  inputSchema: {
    type: "object",
    properties: { count: { type: "integer" }, size: { type: "integer" }, progress: { type: "boolean" } },
  },
  annotations: { readOnlyHint: true },
};

async function call(message) {
  const { count = 100, size = 1000, progress = false } = message.params?.arguments ?? {};
  const token = message.params?._meta?.progressToken;
  const filler = "f".repeat(size);
  for (let index = 1; index <= count; index += 1) {
    if (progress && token !== undefined) {
      await write({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: index, total: count, message: filler } });
    } else {
      await write({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: `${index} ${filler}` } });
    }
  }
  await write({ jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text: `flooded ${count}` }] } });
  fs.writeFileSync(doneFile, String(count));
}

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (message.id === undefined) return;
  switch (message.method) {
    case "initialize":
      void write({
        jsonrpc: "2.0",
        id: message.id,
        result: { protocolVersion: message.params?.protocolVersion ?? "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "flood", version: "1" } },
      });
      break;
    case "tools/list":
      void write({ jsonrpc: "2.0", id: message.id, result: { tools: [TOOL] } });
      break;
    case "tools/call":
      void call(message);
      break;
    case "ping":
      void write({ jsonrpc: "2.0", id: message.id, result: {} });
      break;
    default:
      void write({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: `no ${message.method}` } });
  }
});
lines.on("close", () => process.exit(0));
