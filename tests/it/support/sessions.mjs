#!/usr/bin/env node
// A 2025-11-25 Streamable HTTP server with sessions and nothing else, as an MCP server of that era that forgets its
// sessions when it restarts:
//   node sessions.mjs PORT
// `server/discover` is unknown (-32601), so a client settles on `initialize`, which opens a session with a fresh
// random id. Inside a session: `tools/list` lists one tool, `echo`, and `tools/call` of it answers its `message`.
// A request naming any other session gets 404, as the 2025 transport rules say. Prints "up" once listening.
import { randomUUID } from "node:crypto";
import http from "node:http";

const [port] = process.argv.slice(2);
const sessions = new Set();

function answer(response, status, body, headers = {}) {
  response.writeHead(status, { "content-type": "application/json", ...headers }).end(body === undefined ? undefined : JSON.stringify(body));
}

const server = http.createServer((request, response) => {
  let body = "";
  request.on("data", (chunk) => (body += chunk));
  request.on("end", () => {
    if (request.method !== "POST") return answer(response, 405, undefined);
    const message = JSON.parse(body);
    const session = request.headers["mcp-session-id"];
    const reply = (result) => answer(response, 200, { jsonrpc: "2.0", id: message.id, result }, session ? { "mcp-session-id": session } : {});
    if (message.method === "initialize") {
      const id = randomUUID();
      sessions.add(id);
      const result = { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "sessions", version: "1" } };
      return answer(response, 200, { jsonrpc: "2.0", id: message.id, result }, { "mcp-session-id": id });
    }
    if (session === undefined) {
      return answer(response, 200, { jsonrpc: "2.0", id: message.id ?? null, error: { code: -32601, message: "Method not found" } });
    }
    if (!sessions.has(session)) return answer(response, 404, { jsonrpc: "2.0", id: message.id ?? null, error: { code: -32001, message: "Session not found" } });
    if (message.id === undefined) return answer(response, 202, undefined);
    if (message.method === "tools/list") {
      return reply({ tools: [{ name: "echo", inputSchema: { type: "object", properties: { message: { type: "string" } } } }] });
    }
    if (message.method === "tools/call") return reply({ content: [{ type: "text", text: `Echo: ${message.params.arguments?.message}` }] });
    if (message.method === "ping") return reply({});
    answer(response, 200, { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } });
  });
});
server.listen(Number(port), "127.0.0.1", () => console.log("up"));
