// Both protocol eras on one `/mcp`: 2026-07-28 stateless requests (server/discover, the per-request envelope, -32022
// for a version it does not speak, the routing headers, cache hints, resultType, subscriptions/listen) next to
// 2025-era sessions, with the same auth, Host checks, limits and read-only rule. The tools themselves run in both
// eras through the tool tests (npm test runs them a second time with OBSMCP_TEST_ERA=2026-07-28).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { connect, connectModern, envelope, MODERN, resultText, routingHeaders } from "./lib/client.mjs";
import { freePort, newToken, tempDir } from "./lib/harness.mjs";
import { loadPlugin, writeSettings } from "./lib/load-plugin.mjs";

const SERVER_INFO = "io.modelcontextprotocol/serverInfo";

describe("both protocol eras on /mcp", () => {
  let vault;
  let plugin;
  let url;
  let token;

  before(async () => {
    vault = tempDir("obsmcp-eras-");
    fs.writeFileSync(path.join(vault.dir, "Note.md"), "# Note\n\nfirst line\n");
    const port = await freePort();
    token = newToken();
    writeSettings(vault.dir, { port, token, readOnly: false });
    ({ plugin } = await loadPlugin({ vaultDir: vault.dir }));
    assert.equal(plugin.status.state, "listening", plugin.status.lastError);
    url = `http://127.0.0.1:${port}/mcp`;
  });

  after(() => {
    plugin?.unload();
    vault?.remove();
  });

  /** Sends one 2026-07-28 request as given (envelope and headers are the caller's) and returns the raw answer. */
  const send = (body, headers) => connectModern(url, token).raw({ body, headers });
  const request = (method, params = {}) => ({
    jsonrpc: "2.0",
    id: 1,
    method,
    params: { ...params, _meta: envelope() },
  });

  test("server/discover names the version, the capabilities and the server, with resultType and cache fields", async () => {
    const client = connectModern(url, token);
    const discovered = await client.initialize();
    assert.deepEqual(discovered.supportedVersions, [MODERN]);
    assert.equal(discovered.capabilities.tools.listChanged, true);
    assert.equal(discovered.resultType, "complete");
    assert.equal(discovered._meta[SERVER_INFO].name, "obsmcp");
    assert.equal(typeof discovered.ttlMs, "number");
    assert.match(discovered.instructions ?? "", /expected_hash/);
  });

  test("a 2026 client, which opens no session, counts as a connected client in the status", async () => {
    const before = plugin.status.clients;
    const body = request("tools/list");
    body.params._meta["io.modelcontextprotocol/clientInfo"] = { name: "status-check", version: "1" };
    assert.equal((await send(body, routingHeaders("tools/list"))).status, 200);
    assert.equal(plugin.status.clients, before + 1);
    assert.equal((await send(body, routingHeaders("tools/list"))).status, 200);
    assert.equal(plugin.status.clients, before + 1, "the same client counts once");
  });

  test("tools/list is the same in both eras and carries ttlMs, cacheScope and resultType in 2026-07-28", async () => {
    const legacy = connect(url, token);
    await legacy.initialize();
    const old = await legacy.listTools();
    await legacy.close();
    const page = await connectModern(url, token).request("tools/list");
    assert.deepEqual(page.tools, old);
    assert.equal(page.resultType, "complete");
    assert.ok(page.ttlMs >= 0);
    assert.ok(["private", "public"].includes(page.cacheScope));
  });

  test("a tool call gives the same answer in both eras", async () => {
    const legacy = connect(url, token);
    await legacy.initialize();
    const before = await legacy.callTool("read_note", { path: "Note.md" });
    await legacy.close();
    const now = await connectModern(url, token).callTool("read_note", { path: "Note.md" });
    assert.equal(resultText(now), resultText(before));
    assert.equal(now.resultType, "complete");
    assert.equal(now._meta[SERVER_INFO].name, "obsmcp");
  });

  test("an envelope naming a version the plugin does not speak gets -32022 with the supported list (HTTP 400)", async () => {
    const body = request("tools/list");
    body.params._meta = envelope("2099-01-01");
    const answer = await send(body, { ...routingHeaders("tools/list"), "mcp-protocol-version": "2099-01-01" });
    assert.equal(answer.status, 400);
    assert.equal(answer.messages[0].error.code, -32022);
    assert.deepEqual(answer.messages[0].error.data.supported, [MODERN]);
    assert.equal(answer.messages[0].id, 1);
  });

  test("missing or mismatched routing headers and a missing envelope field are refused, naming the problem", async () => {
    const noMethod = await send(request("tools/list"), { "mcp-protocol-version": MODERN });
    assert.equal(noMethod.status, 400);
    assert.ok(noMethod.messages[0].error, noMethod.text);
    const mismatch = await send(request("tools/list"), routingHeaders("prompts/list"));
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.messages[0].error.code, -32020);
    const wrongName = await send(request("tools/call", { name: "read_note", arguments: { path: "Note.md" } }), {
      ...routingHeaders("tools/call", { name: "search" }),
    });
    assert.equal(wrongName.status, 400);
    assert.equal(wrongName.messages[0].error.code, -32020);
    const body = request("tools/list");
    delete body.params._meta["io.modelcontextprotocol/clientCapabilities"];
    const noCapabilities = await send(body, routingHeaders("tools/list"));
    assert.equal(noCapabilities.status, 400);
    assert.equal(noCapabilities.messages[0].error.code, -32602);
  });

  test("the 2025-era handshake methods do not exist in 2026-07-28", async () => {
    for (const method of ["initialize", "ping", "logging/setLevel"]) {
      const answer = await send(request(method, method === "logging/setLevel" ? { level: "info" } : {}), routingHeaders(method));
      assert.equal(answer.messages[0].error.code, -32601, `${method}: ${answer.text}`);
    }
  });

  test("auth, Host and the body limit hold in 2026-07-28 as in 2025", async () => {
    const unsigned = await connectModern(url, undefined).raw({ body: request("server/discover"), headers: routingHeaders("server/discover") });
    assert.equal(unsigned.status, 401);
    const wrong = await connectModern(url, "0".repeat(64)).raw({ body: request("server/discover"), headers: routingHeaders("server/discover") });
    assert.equal(wrong.status, 401);
    const evil = await connectModern(url, token).raw({
      body: request("server/discover"),
      headers: { ...routingHeaders("server/discover"), origin: "http://evil.example" },
    });
    assert.equal(evil.status, 403);
    const huge = await connectModern(url, token).raw({
      body: JSON.stringify(request("tools/call", { name: "search", arguments: { query: "x".repeat(97 * 1024 * 1024) } })),
      headers: routingHeaders("tools/call", { name: "search" }),
    });
    assert.equal(huge.status, 413);
  });

  test("a listen stream hears tools/list_changed when read-only turns on, and 2026 calls then meet the same refusal", async () => {
    const client = connectModern(url, token);
    // The listen request is a POST whose answer is an event stream that stays open.
    const controller = new AbortController();
    const response = await fetch(url, {
      method: "POST",
      signal: controller.signal,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${token}`,
        ...routingHeaders("subscriptions/listen"),
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "listen",
        method: "subscriptions/listen",
        params: { notifications: { toolsListChanged: true }, _meta: envelope() },
      }),
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type"), /text\/event-stream/);
    const heard = [];
    const reader = (async () => {
      const decoder = new TextDecoder();
      let buffer = "";
      try {
        for await (const chunk of response.body) {
          buffer += decoder.decode(chunk, { stream: true });
          for (const line of buffer.split("\n")) if (line.startsWith("data: ")) heard.push(JSON.parse(line.slice(6)));
          buffer = buffer.slice(buffer.lastIndexOf("\n") + 1);
        }
      } catch (error) {
        if (error.name !== "AbortError") throw error;
      }
    })();
    const waitFor = async (method) => {
      const deadline = Date.now() + 5000;
      while (!heard.some((message) => message.method === method)) {
        if (Date.now() > deadline) throw new Error(`no ${method} on the listen stream within 5 s; heard ${JSON.stringify(heard)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    try {
      await waitFor("notifications/subscriptions/acknowledged");
      await plugin.setReadOnly(true);
      await waitFor("notifications/tools/list_changed");
      const listed = (await client.listTools()).map((tool) => tool.name);
      assert.ok(listed.includes("read_note"));
      assert.ok(!listed.includes("create_note"), "a write tool is still listed in read-only mode");
      const refusal = await client.callTool("create_note", { path: "New.md", content: "x" });
      assert.equal(refusal.isError, true);
      assert.match(resultText(refusal), /read-only mode/);
      assert.equal(fs.existsSync(path.join(vault.dir, "New.md")), false);
    } finally {
      await plugin.setReadOnly(false);
      controller.abort();
      await reader;
    }
    const created = await client.callTool("create_note", { path: "New.md", content: "x" });
    assert.notEqual(created.isError, true, resultText(created));
  });

  test("a 2025 session and 2026 requests interleave on one endpoint without touching each other", async () => {
    const legacy = connect(url, token);
    await legacy.initialize();
    const modern = connectModern(url, token);
    const [a, b, c] = await Promise.all([
      legacy.callTool("read_note", { path: "Note.md" }),
      modern.callTool("read_note", { path: "Note.md" }),
      modern.request("tools/list"),
    ]);
    assert.equal(resultText(a), resultText(b));
    assert.ok(c.tools.length > 0);
    // A 2026 request never gets a session, and the 2025 session still works after it.
    const raw = await modern.raw({ body: request("tools/list"), headers: routingHeaders("tools/list") });
    assert.equal(raw.headers.get("mcp-session-id"), null);
    assert.ok((await legacy.listTools()).length > 0);
    await legacy.close();
  });
});
