// Transport security: Host and Origin are checked on every route before auth (403), then the bearer token (401 with
// WWW-Authenticate). Runs against the real main.js in a child host.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHmac, randomBytes } from "node:crypto";
import http from "node:http";
import { connect } from "./lib/client.mjs";
import { startHost, tempDir } from "./lib/harness.mjs";

/** A raw HTTP request (fetch cannot set Host), returning status, headers and body text. */
function rawRequest(port, { method = "GET", path = "/mcp", headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: "127.0.0.1", port, method, path, headers, timeout: 10000 }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => {
        text += chunk;
        // Streams that stay open (SSE) are judged on their first bytes.
        if (response.headers["content-type"]?.includes("text/event-stream")) response.destroy();
      });
      response.on("close", () => resolve({ status: response.statusCode, headers: response.headers, text }));
    });
    request.on("timeout", () => request.destroy(new Error("request timed out")));
    request.on("error", reject);
    request.end(body);
  });
}

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } },
});

describe("Host, Origin and token checks", () => {
  let vault;
  let host;
  before(async () => {
    vault = tempDir();
    host = await startHost({ vaultDir: vault.dir });
  });
  after(async () => {
    await host?.stop();
    vault?.remove();
  });

  const post = (headers) =>
    rawRequest(host.port, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: initialize,
    });

  test("no token, a wrong token or another scheme gets 401 with WWW-Authenticate: Bearer", async () => {
    for (const authorization of [undefined, "Bearer wrong", `Basic ${host.token}`, `Bearer ${host.token}x`, "Bearer"]) {
      const headers = authorization === undefined ? {} : { authorization };
      const response = await post(headers);
      assert.equal(response.status, 401, `authorization ${authorization}`);
      assert.match(response.headers["www-authenticate"], /^Bearer/);
      assert.equal(JSON.parse(response.text).error.code, -32000);
    }
  });

  test("every route needs the token, legacy ones included", async () => {
    for (const [method, path] of [["GET", "/sse"], ["POST", "/messages?sessionId=x"], ["GET", "/mcp"], ["DELETE", "/mcp"], ["GET", "/other"]]) {
      const response = await rawRequest(host.port, { method, path });
      assert.equal(response.status, 401, `${method} ${path}`);
    }
  });

  test("the right token is accepted (scheme case-insensitive)", async () => {
    assert.equal((await post({ authorization: `Bearer ${host.token}` })).status, 200);
    assert.equal((await post({ authorization: `bearer ${host.token}` })).status, 200);
  });

  test("a foreign Host gets 403 even with the right token, and before auth without it", async () => {
    for (const hostHeader of ["evil.example", "evil.example:80", `attacker.test:${host.port}`, "127.0.0.1.evil.test", "localhost.evil"]) {
      const withToken = await post({ host: hostHeader, authorization: `Bearer ${host.token}` });
      assert.equal(withToken.status, 403, `Host ${hostHeader}`);
      const withoutToken = await post({ host: hostHeader });
      assert.equal(withoutToken.status, 403, `Host ${hostHeader} without token`);
      assert.match(JSON.parse(withoutToken.text).error.message, /Forbidden: Host/);
    }
    const sse = await rawRequest(host.port, { path: "/sse", headers: { host: "evil.example", authorization: `Bearer ${host.token}` } });
    assert.equal(sse.status, 403, "GET /sse with a foreign Host");
    assert.doesNotMatch(sse.text, /endpoint/);
  });

  // The Host check took everything up to "]" for the name, so `[::1].evil.com` passed as `[::1]` (and the
  // request then failed with 500). After the name only nothing or ":port" may follow.
  test("a Host with anything but a port after the loopback name gets 403 ([::1].evil.com, [::1]evil.com)", async () => {
    for (const hostHeader of ["[::1].evil.com", "[::1]evil.com", `[::1].evil.com:${host.port}`, "[::1]:80.evil.com", "[::1]:x", "localhost:80x"]) {
      const withToken = await post({ host: hostHeader, authorization: `Bearer ${host.token}` });
      assert.equal(withToken.status, 403, `Host ${hostHeader}`);
      assert.match(JSON.parse(withToken.text).error.message, /Forbidden: Host/);
    }
    for (const hostHeader of ["[::1]", "[::1]:", `[::1]:${host.port}`, "localhost", "127.0.0.1:"]) {
      assert.equal((await post({ host: hostHeader, authorization: `Bearer ${host.token}` })).status, 200, `Host ${hostHeader}`);
    }
  });

  test("a foreign or opaque Origin gets 403 on every route", async () => {
    for (const origin of ["http://evil.example", "https://evil.example:443", "null", "file://", "http://localhost.evil.test"]) {
      const response = await post({ origin, authorization: `Bearer ${host.token}` });
      assert.equal(response.status, 403, `Origin ${origin}`);
    }
    const sse = await rawRequest(host.port, { path: "/sse", headers: { origin: "http://evil.example", authorization: `Bearer ${host.token}` } });
    assert.equal(sse.status, 403);
    const messages = await rawRequest(host.port, { method: "POST", path: "/messages?sessionId=x", headers: { origin: "http://evil.example" } });
    assert.equal(messages.status, 403);
  });

  test("loopback Hosts and Origins, any case, and a missing Origin are accepted", async () => {
    const accepted = [
      { host: `127.0.0.1:${host.port}` },
      { host: `LOCALHOST:${host.port}` },
      { host: `localhost:${host.port}`, origin: `http://localhost:${host.port}` },
      { host: `127.0.0.1:${host.port}`, origin: `http://127.0.0.1:${host.port}` },
      { host: `[::1]:${host.port}`, origin: `HTTP://LocalHost:${host.port}` },
    ];
    for (const headers of accepted) {
      const response = await post({ ...headers, authorization: `Bearer ${host.token}` });
      assert.equal(response.status, 200, JSON.stringify(headers));
    }
  });

  test("the fetch client of the harness works end to end with the token", async () => {
    const client = connect(host.url, host.token);
    const info = await client.initialize();
    assert.equal(info.serverInfo.name, "obsmcp");
    assert.ok(client.sessionId);
    await client.close();
  });
});

// The bridge and doctor sent the bare token to whoever held the port. They now sign each request
// (src/plugin_auth.rs), and the plugin proves on every answer that it knows the token.
describe("signed requests and the plugin's proof", () => {
  let vault;
  let host;
  before(async () => {
    vault = tempDir();
    host = await startHost({ vaultDir: vault.dir });
  });
  after(async () => {
    await host?.stop();
    vault?.remove();
  });

  const hmac = (message, token = host.token) => createHmac("sha256", token).update(message).digest("hex");
  const signed = ({ ts = Math.floor(Date.now() / 1000), nonce = randomBytes(16).toString("hex"), token } = {}) => ({
    nonce,
    authorization: `obsmcp-v1 ts=${ts} nonce=${nonce} sig=${hmac(`obsmcp-v1 request ${ts} ${nonce}`, token)}`,
  });
  const post = (headers) =>
    rawRequest(host.port, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: initialize,
    });

  test("a signed request is served without the token ever being sent", async () => {
    const { nonce, authorization } = signed();
    const response = await post({ authorization, "obsmcp-challenge": nonce });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.headers["obsmcp-proof"], hmac(`obsmcp-v1 response ${nonce}`));
    assert.ok(!authorization.includes(host.token));
  });

  test("every answer to a challenge carries the proof, refusals included, and only for a well-formed challenge", async () => {
    const challenge = randomBytes(16).toString("hex");
    const refused = await post({ "obsmcp-challenge": challenge });
    assert.equal(refused.status, 401);
    assert.equal(refused.headers["obsmcp-proof"], hmac(`obsmcp-v1 response ${challenge}`));
    const malformed = await post({ "obsmcp-challenge": "not hex" });
    assert.equal(malformed.headers["obsmcp-proof"], undefined);
  });

  test("a replayed nonce, an old or future timestamp, another token or a bad signature gets 401", async () => {
    const once = signed();
    assert.equal((await post({ authorization: once.authorization })).status, 200);
    assert.equal((await post({ authorization: once.authorization })).status, 401, "replayed");
    const now = Math.floor(Date.now() / 1000);
    for (const [why, { authorization }] of [
      ["ten minutes old", signed({ ts: now - 600 })],
      ["ten minutes ahead", signed({ ts: now + 600 })],
      ["signed with another token", signed({ token: "f".repeat(64) })],
    ]) {
      assert.equal((await post({ authorization })).status, 401, why);
    }
    const tampered = signed().authorization.replace(/sig=([0-9a-f])/, (_, c) => `sig=${c === "0" ? "1" : "0"}`);
    assert.equal((await post({ authorization: tampered })).status, 401, "tampered");
  });
});

// 1,100 idle sockets without a token exhausted the process's descriptors, so create_note failed
// with EMFILE and new clients were reset (in Obsidian its own saves would fail too).
describe("a flood of idle connections", () => {
  let vault;
  let host;
  before(async () => {
    vault = tempDir();
    host = await startHost({ vaultDir: vault.dir, fdLimit: 1024 });
  });
  after(async () => {
    await host?.stop();
    vault?.remove();
  });

  test("cannot starve the plugin: the authenticated client is served and files can still be written", { timeout: 60_000 }, async () => {
    const net = await import("node:net");
    const idle = [];
    await Promise.all(
      Array.from({ length: 1100 }, () =>
        new Promise((resolve) => {
          const socket = net.connect(host.port, "127.0.0.1");
          idle.push(socket);
          socket.on("error", () => undefined);
          socket.on("connect", resolve);
          socket.on("close", resolve);
          setTimeout(resolve, 5000);
        }),
      ),
    );
    try {
      const client = connect(host.url, host.token);
      await client.initialize();
      const created = await client.callTool("create_note", { path: "After flood", content: "still writable\n" });
      assert.notEqual(created.isError, true, JSON.stringify(created));
      const alive = idle.filter((socket) => !socket.destroyed).length;
      assert.ok(alive <= 128, `${alive} idle sockets are still open`);
      await client.close();
    } finally {
      for (const socket of idle) socket.destroy();
    }
  });

  test("a silent connection is closed within a few seconds, before it ever authenticates", { timeout: 30_000 }, async () => {
    const net = await import("node:net");
    const socket = net.connect(host.port, "127.0.0.1");
    socket.on("error", () => undefined);
    const started = Date.now();
    await new Promise((resolve) => socket.on("close", resolve));
    assert.ok(Date.now() - started < 15_000, `closed after ${Date.now() - started} ms`);
  });
});
