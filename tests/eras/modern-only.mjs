#!/usr/bin/env node
// An MCP server that speaks 2026-07-28 only, on the official TypeScript SDK v2 (the plugin's own copy, from
// obsidian-plugin/node_modules): `initialize` and any request without the per-request envelope are refused with
// -32022. One tool, `echo`. The upstream of the bridge's `--` and `--url` modes in check.sh.
//   node modern-only.mjs              (stdio)
//   node modern-only.mjs --http PORT  (Streamable HTTP on 127.0.0.1:PORT/mcp; prints "up" once listening)
import http from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const plugin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "obsidian-plugin", "package.json");
const require = createRequire(plugin);
const { McpServer, createMcpHandler } = require("@modelcontextprotocol/server");
const { serveStdio } = require("@modelcontextprotocol/server/stdio");
const { z } = require("zod");

function build() {
  const server = new McpServer({ name: "ts-sdk-modern-only", version: "1" });
  server.registerTool("echo", { description: "Says the text back.", inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: "text", text: `echo: ${text}` }],
  }));
  return server;
}

const [flag, port] = process.argv.slice(2);
if (flag === "--http") {
  const handler = createMcpHandler(build, { legacy: "reject" });
  http
    .createServer(async (request, response) => {
      const chunks = [];
      for await (const chunk of request) chunks.push(chunk);
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === "string") headers.set(name, value);
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      const answer = await handler.fetch(new Request(`http://127.0.0.1:${port}${request.url}`, { method: request.method, headers, body }));
      response.writeHead(answer.status, Object.fromEntries(answer.headers));
      if (answer.body) for await (const chunk of answer.body) response.write(chunk);
      response.end();
    })
    .listen(Number(port), "127.0.0.1", () => console.log("up"));
} else {
  serveStdio(build, { legacy: "reject" });
}
