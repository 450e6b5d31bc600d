// Transport security: Host and Origin are checked on every route before auth (403), then the bearer token (401 with
// WWW-Authenticate). Runs against the real main.js in a child host.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { connect, startHost, tempDir } from "./lib/harness.mjs";

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
