#!/usr/bin/env node
// A Streamable HTTP MCP server that closes a call's answer stream before the answer, as the spec lets a 2025 server
// do, for tests of a client's resumption:
//   node resumable.mjs PORT LOGFILE [ERA]
// ERA 2025 (the default): `server/discover` is unknown, `initialize` and `tools/list` are answered with JSON.
// ERA 2026: `server/discover` offers 2026-07-28 only, so a client speaks to it statelessly, where a stream cannot be
// resumed. Either way `tools/call` gets an SSE stream that sends one priming event (`id: call-1`, `retry: 500`, empty
// data) and then ends, and a GET carrying `Last-Event-ID: call-1` gets the answer as event `call-2` on a stream that
// stays open. Any other GET gets 405. Appends one JSON line per request to LOGFILE: method, MCP method, the
// Last-Event-ID header, and milliseconds since the call's stream was closed. Prints "up".
import fs from "node:fs";
import http from "node:http";

const [port, logFile, era = "2025"] = process.argv.slice(2);
const log = fs.openSync(logFile, "a");
const SESSION = "resumable-session";
let closedAt = null;
let pendingCall = null;

function record(entry) {
  fs.writeSync(log, `${JSON.stringify(entry)}\n`);
}

function json(response, status, body) {
  response.writeHead(status, { "content-type": "application/json", "mcp-session-id": SESSION }).end(JSON.stringify(body));
}

const server = http.createServer((request, response) => {
  let body = "";
  request.on("data", (chunk) => (body += chunk));
  request.on("end", () => {
    const lastEventId = request.headers["last-event-id"] ?? null;
    const sinceClose = closedAt === null ? null : Date.now() - closedAt;
    if (request.method === "GET") {
      record({ http: "GET", lastEventId, sinceClose });
      if (lastEventId !== "call-1" || pendingCall === null) {
        response.writeHead(405).end();
        return;
      }
      response.writeHead(200, { "content-type": "text/event-stream", "mcp-session-id": SESSION });
      const answer = { jsonrpc: "2.0", id: pendingCall, result: { content: [{ type: "text", text: "resumed answer" }] } };
      response.write(`id: call-2\ndata: ${JSON.stringify(answer)}\n\n`);
      pendingCall = null;
      return; // left open, as a server's stream may be
    }
    if (request.method === "DELETE") {
      response.writeHead(200).end();
      return;
    }
    let message;
    try {
      message = JSON.parse(body);
    } catch {
      json(response, 400, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
      return;
    }
    record({ http: "POST", method: message.method ?? null, lastEventId, sinceClose });
    if (message.id === undefined) {
      response.writeHead(202, { "mcp-session-id": SESSION }).end();
      return;
    }
    switch (message.method) {
      case "server/discover":
        if (era !== "2026") break;
        json(response, 200, {
          jsonrpc: "2.0",
          id: message.id,
          result: {
            resultType: "complete",
            supportedVersions: ["2026-07-28"],
            capabilities: { tools: {} },
            _meta: { "io.modelcontextprotocol/serverInfo": { name: "resumable-2026", version: "1" } },
          },
        });
        return;
      case "initialize":
        json(response, 200, {
          jsonrpc: "2.0",
          id: message.id,
          result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "resumable", version: "1" } },
        });
        return;
      case "tools/list":
        json(response, 200, {
          jsonrpc: "2.0",
          id: message.id,
          result: { tools: [{ name: "slow", description: "Answered on a resumed stream.", inputSchema: { type: "object" } }] },
        });
        return;
      case "tools/call":
        pendingCall = message.id;
        response.writeHead(200, { "content-type": "text/event-stream", "mcp-session-id": SESSION });
        response.end("id: call-1\nretry: 500\ndata: \n\n", () => (closedAt = Date.now()));
        return;
      case "ping":
        json(response, 200, { jsonrpc: "2.0", id: message.id, result: {} });
        return;
      default:
    }
    json(response, 200, { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } });
  });
});
server.listen(Number(port), "127.0.0.1", () => console.log("up"));
for (const name of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(name, () => process.exit(0));
