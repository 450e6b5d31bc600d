// Long-lived streams: the legacy HTTP+SSE transport end to end, its session checks, and keep-alive comments on
// both the legacy stream and the Streamable HTTP GET stream (the interval is 15 s, so one test waits for it).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { connect, connectLegacySse, openEventStream, resultText, startHost, tempDir } from "./lib/harness.mjs";
import fs from "node:fs";
import path from "node:path";

describe("legacy SSE and streaming GET", () => {
  let vault;
  let host;
  before(async () => {
    vault = tempDir();
    fs.writeFileSync(path.join(vault.dir, "Note.md"), "# Title\nbody line\n");
    host = await startHost({ vaultDir: vault.dir });
  });
  after(async () => {
    await host?.stop();
    vault?.remove();
  });

  test("GET /sse + POST /messages: initialize, tools/list and a tool call", async () => {
    const client = await connectLegacySse(host.baseUrl, host.token);
    try {
      assert.match(client.endpoint, /\/messages\?sessionId=/);
      const info = await client.initialize("2024-11-05");
      assert.equal(info.protocolVersion, "2024-11-05");
      const { tools } = await client.request("tools/list", {});
      assert.ok(tools.some((tool) => tool.name === "read_note"));
      const result = await client.request("tools/call", { name: "read_note", arguments: { path: "Note.md" } });
      assert.match(resultText(result), /body line/);
    } finally {
      await client.close();
    }
  });

  test("POST /messages with an unknown or missing sessionId gets 404 or 400", async () => {
    const headers = { authorization: `Bearer ${host.token}`, "content-type": "application/json" };
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const unknown = await fetch(`${host.baseUrl}/messages?sessionId=nope`, { method: "POST", headers, body });
    assert.equal(unknown.status, 404);
    const missing = await fetch(`${host.baseUrl}/messages`, { method: "POST", headers, body });
    assert.equal(missing.status, 400);
  });

  test("a Streamable HTTP session id is not a legacy session id, and the reverse", async () => {
    const legacy = await connectLegacySse(host.baseUrl, host.token);
    const streamable = connect(host.url, host.token);
    await streamable.initialize();
    try {
      const legacyId = new URL(legacy.endpoint).searchParams.get("sessionId");
      const crossed = await streamable.raw({ body: { jsonrpc: "2.0", id: 1, method: "ping" }, headers: { "mcp-session-id": legacyId } });
      assert.equal(crossed.status, 404);
      const reverse = await fetch(`${host.baseUrl}/messages?sessionId=${streamable.sessionId}`, {
        method: "POST",
        headers: { authorization: `Bearer ${host.token}`, "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
      assert.equal(reverse.status, 404);
    } finally {
      await legacy.close();
      await streamable.close();
    }
  });

  test("idle streams get keep-alive comments (legacy SSE and Streamable HTTP GET)", { timeout: 40000 }, async () => {
    const legacy = await connectLegacySse(host.baseUrl, host.token);
    const streamable = connect(host.url, host.token);
    await streamable.initialize();
    const get = await openEventStream(host.url, streamable.headers({ accept: "text/event-stream", "content-type": null }));
    try {
      assert.equal(get.response.status, 200);
      await Promise.all([
        legacy.stream.waitFor((event) => event.comment === "keepalive", 20000, "a keep-alive on /sse"),
        get.waitFor((event) => event.comment !== undefined, 20000, "a keep-alive on GET /mcp"),
      ]);
    } finally {
      await get.close();
      await legacy.close();
      await streamable.close();
    }
  });
});
