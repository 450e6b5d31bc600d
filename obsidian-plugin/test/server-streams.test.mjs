// Long-lived streams: the legacy HTTP+SSE transport end to end, its session checks, and keep-alive comments on
// both the legacy stream and the Streamable HTTP GET stream (the interval is 15 s, so one test waits for it).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { connect, connectLegacySse, openEventStream, resultText } from "./lib/client.mjs";
import { startHost, tempDir } from "./lib/harness.mjs";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

describe("legacy SSE and streaming GET", () => {
  let vault;
  let host;
  before(async () => {
    vault = tempDir();
    fs.writeFileSync(path.join(vault.dir, "Note.md"), "# Title\nbody line\n");
    fs.writeFileSync(path.join(vault.dir, "Wide.md"), "語".repeat(200_000));
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

  test("a legacy SSE client that stops reading is closed instead of buffered without end", { timeout: 60000 }, async () => {
    const stream = await openStalledSse(host.port, host.token);
    const headers = { authorization: `Bearer ${host.token}`, "content-type": "application/json" };
    const post = (id, message) =>
      fetch(`${host.baseUrl}${stream.endpoint}`, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id, ...message }) });
    try {
      const init = { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "stalled", version: "0" } };
      assert.equal((await post(0, { method: "initialize", params: init })).status, 202);
      // Each answer is about 600 KB; 200 of them (120 MB) would all be held in memory without the bound.
      const read = { name: "read_note", arguments: { path: "Wide.md", max_chars: 200000 } };
      let accepted = 0;
      let lastStatus;
      for (let id = 1; id <= 200; id += 1) {
        const response = await post(id, { method: "tools/call", params: read });
        await response.arrayBuffer();
        lastStatus = response.status;
        if (lastStatus !== 202) break;
        accepted += 1;
        // Let the answers be written before the next request, as a slow stream of calls would.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(lastStatus, 404, `the session should be gone once its unread output passed the bound (${accepted} calls accepted)`);
      assert.ok(accepted >= 10, `a few MB of unread answers are allowed before the session is closed (only ${accepted} were)`);
      assert.ok(await stream.closedByServer(), "the plugin should close the stream's connection");
    } finally {
      stream.destroy();
    }
    // The plugin keeps serving everyone else.
    const client = await connectLegacySse(host.baseUrl, host.token);
    try {
      await client.initialize();
      const result = await client.request("tools/call", { name: "read_note", arguments: { path: "Note.md" } });
      assert.match(resultText(result), /body line/);
    } finally {
      await client.close();
    }
  });
});

/** Opens GET /sse on a raw socket, reads the endpoint event, then stops reading (as a stuck client would). */
function openStalledSse(port, token) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let text = "";
    let ended = false;
    const ended$ = new Promise((done) => socket.once("close", () => done((ended = true))));
    socket.setEncoding("utf8");
    socket.on("error", () => undefined);
    socket.on("connect", () =>
      socket.write(`GET /sse HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\nAuthorization: Bearer ${token}\r\n\r\n`),
    );
    const onData = (chunk) => {
      text += chunk;
      const match = /event: endpoint\r?\ndata: (\S+)/.exec(text);
      if (!match) return;
      socket.off("data", onData);
      socket.pause();
      resolve({
        endpoint: match[1],
        destroy: () => socket.destroy(),
        // Reading again lets a close the plugin made show up after the buffered bytes.
        closedByServer: async () => {
          socket.on("data", () => undefined);
          socket.resume();
          return Promise.race([ended$, new Promise((done) => setTimeout(() => done(ended), 10000))]);
        },
      });
    };
    socket.on("data", onData);
    setTimeout(() => reject(new Error(`no endpoint event on GET /sse; got ${JSON.stringify(text.slice(0, 300))}`)), 10000);
  });
}

