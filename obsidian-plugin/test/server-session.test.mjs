// Streamable HTTP behaviour the router owns: sessions (404 unknown, 400 missing), server/discover, body limits and
// parse errors, and that garbage never takes the plugin down.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import net from "node:net";
import { connect, connectModern } from "./lib/client.mjs";
import { startHost, tempDir, withTimeout } from "./lib/harness.mjs";

describe("Streamable HTTP sessions and bodies", () => {
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

  test("an unknown Mcp-Session-Id gets 404 on POST, GET and DELETE", async () => {
    const client = connect(host.url, host.token);
    client.sessionId = "00000000-0000-4000-8000-000000000000";
    const post = await client.raw({ body: { jsonrpc: "2.0", id: 7, method: "tools/list" } });
    assert.equal(post.status, 404);
    assert.equal(post.messages[0].id, 7);
    assert.equal(post.messages[0].error.code, -32001);
    assert.equal((await client.raw({ method: "GET" })).status, 404);
    assert.equal((await client.raw({ method: "DELETE" })).status, 404);
  });

  test("a request other than initialize without a session gets 400", async () => {
    const client = connect(host.url, host.token);
    const response = await client.raw({ body: { jsonrpc: "2.0", id: 3, method: "tools/list" } });
    assert.equal(response.status, 400);
    assert.equal(response.messages[0].id, 3);
    assert.match(response.messages[0].error.message, /initialize/);
    assert.equal((await client.raw({ method: "GET" })).status, 400);
  });

  test("server/discover with a 2026-07-28 envelope is answered for real, and initialize still opens a session", async () => {
    const modern = connectModern(host.url, host.token);
    const discovered = await modern.initialize();
    // Only the versions an envelope may name: the 2025 ones are reached through initialize.
    assert.deepEqual(discovered.supportedVersions, ["2026-07-28"]);
    assert.ok(discovered.capabilities.tools);
    assert.equal(discovered.serverInfo?.name ?? discovered._meta?.["io.modelcontextprotocol/serverInfo"]?.name, "obsmcp");
    const client = connect(host.url, host.token);
    const info = await client.initialize();
    assert.equal(info.protocolVersion, "2025-11-25");
    assert.ok(client.sessionId);
    await client.close();
  });

  test("server/discover without an envelope is a 2025-era request: inside a session it is answered, never left hanging", async () => {
    const client = connect(host.url, host.token);
    await client.initialize();
    const response = await withTimeout(
      client.raw({ body: { jsonrpc: "2.0", id: 9, method: "server/discover", params: {} } }),
      5000,
      "an answer to server/discover",
    );
    assert.equal(response.status, 200);
    assert.equal(response.messages[0].id, 9);
    await client.close();
  });

  test("a client asking for protocol 2026-07-28 in initialize is offered 2025-11-25", async () => {
    const client = connect(host.url, host.token, { protocolVersion: "2026-07-28" });
    const info = await client.initialize();
    assert.equal(info.protocolVersion, "2025-11-25");
    await client.close();
  });

  test("DELETE ends the session: its id then gets 404", async () => {
    const client = connect(host.url, host.token);
    await client.initialize();
    const id = client.sessionId;
    assert.equal((await client.raw({ method: "DELETE" })).status, 200);
    const after = await client.raw({ body: { jsonrpc: "2.0", id: 2, method: "tools/list" }, headers: { "mcp-session-id": id } });
    assert.equal(after.status, 404);
  });

  test("invalid JSON gets a JSON-RPC parse error (400), with or without a session", async () => {
    const client = connect(host.url, host.token);
    for (const body of ["{not json", "", "\u00ff\u00fe"]) {
      const response = await client.raw({ body });
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.equal(response.messages[0].error.code, -32700);
    }
    await client.initialize();
    const inSession = await client.raw({ body: '{"jsonrpc":"2.0","id":1,' });
    assert.equal(inSession.status, 400);
    assert.equal(inSession.messages[0].error.code, -32700);
    const invalidUtf8 = await client.raw({ body: new Uint8Array([0x7b, 0xc3, 0x28, 0x7d]) });
    assert.equal(invalidUtf8.status, 400);
    assert.match(invalidUtf8.messages[0].error.message, /UTF-8/);
    await client.close();
  });

  test("a declared body over the limit gets 413 at once, without the body being sent", async () => {
    const answered = new Promise((resolve, reject) => {
      const request = http.request(
        {
          host: "127.0.0.1",
          port: host.port,
          method: "POST",
          path: "/mcp",
          headers: {
            authorization: `Bearer ${host.token}`,
            "content-type": "application/json",
            "content-length": String(200 * 1024 * 1024),
          },
        },
        (answer) => {
          let text = "";
          answer.setEncoding("utf8");
          answer.on("data", (chunk) => (text += chunk));
          answer.on("end", () => resolve({ status: answer.statusCode, text }));
        },
      );
      request.on("error", reject);
      request.write("{");
    });
    const response = await withTimeout(answered, 30_000, "the answer to a declared oversized body");
    assert.equal(response.status, 413);
    assert.match(JSON.parse(response.text).error.message, /Payload Too Large: .*96 MiB/);
  });

  test("a streamed (chunked) body over the limit gets 413, the upload is not cut off by a reset, the server stays up", async () => {
    // 130 MiB against a 96 MiB limit: the 34 MiB sent after the refusal overflow any socket buffer, so a server that
    // closes at once resets the connection under the client's writes, and the reset can destroy the 413 unread.
    // A raw socket, because Node's own client stops sending once it has a whole answer.
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const outcome = new Promise((resolve) => {
      let answer = "";
      let written = false;
      const finish = () => {
        if (!written || !answer.includes("\r\n\r\n")) return;
        socket.destroy();
        resolve({ answer, written });
      };
      const socket = net.connect(host.port, "127.0.0.1", () => {
        socket.write(
          `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${host.token}\r\n` +
            "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
        );
        let sent = 0;
        const pump = () => {
          while (sent < 130) {
            sent += 1;
            socket.write(`${chunk.length.toString(16)}\r\n`);
            const roomLeft = socket.write(chunk);
            socket.write("\r\n");
            if (!roomLeft) return socket.once("drain", pump);
          }
          socket.write("0\r\n\r\n", () => {
            written = true;
            finish();
          });
        };
        pump();
      });
      socket.setEncoding("latin1");
      socket.on("data", (text) => {
        answer += text;
        finish();
      });
      socket.on("error", (error) => resolve({ answer, written, error: error.code }));
    });
    const { answer, written, error } = await withTimeout(outcome, 30_000, "the answer to an oversized streamed body");
    assert.equal(error, undefined, `the connection broke under the upload; answer so far: ${JSON.stringify(answer.slice(0, 80))}`);
    assert.equal(written, true);
    assert.match(answer, /^HTTP\/1\.1 413 /);
    assert.match(answer, /Payload Too Large: .*96 MiB/);
    const client = connect(host.url, host.token);
    await client.initialize();
    await client.close();
  });

  test("a 60 MB body of multi-byte UTF-8 passes the transport intact", async () => {
    const client = connect(host.url, host.token);
    await client.initialize();
    const text = "é✓".repeat(12_000_000);
    // An unknown tool is a protocol error (-32602) in every era; reaching that answer means the body arrived whole.
    await assert.rejects(client.callTool("no_such_tool", { content: text }), (error) => error.code === -32602 && /no_such_tool/.test(error.message));
    await client.close();
  });

  test("past 64 sessions the least recently used one is closed (404), the others keep working", async () => {
    const clients = [];
    for (let index = 0; index < 66; index += 1) {
      const client = connect(host.url, host.token);
      await client.initialize();
      clients.push(client);
    }
    const ping = (client) => client.raw({ body: { jsonrpc: "2.0", id: 1, method: "ping" } });
    assert.equal((await ping(clients[0])).status, 404);
    assert.equal((await ping(clients[1])).status, 404);
    assert.equal((await ping(clients[2])).status, 200);
    assert.equal((await ping(clients[65])).status, 200);
    for (const client of clients.slice(2)) await client.close();
  });

  test("wrong methods and paths get 405 and 404 with a JSON-RPC error", async () => {
    const client = connect(host.url, host.token);
    assert.equal((await client.raw({ method: "PUT", body: "{}" })).status, 405);
    const other = await fetch(`${host.baseUrl}/nothing`, { headers: { authorization: `Bearer ${host.token}` } });
    assert.equal(other.status, 404);
    assert.match((await other.json()).error.message, /\/mcp/);
  });

  test("garbage on the socket and aborted requests do not take the server down", async () => {
    const answer = await new Promise((resolve) => {
      let received = "";
      const socket = net.connect(host.port, "127.0.0.1", () => {
        socket.write("\x00\x01\x02 NOT HTTP AT ALL\r\n\r\n");
      });
      socket.setEncoding("utf8");
      socket.on("data", (chunk) => (received += chunk));
      socket.on("error", () => undefined);
      socket.on("end", () => socket.destroy());
      socket.on("close", () => resolve(received));
      socket.setTimeout(5000, () => socket.destroy());
    });
    assert.match(answer, /^HTTP\/1\.1 400/);
    await new Promise((resolve) => {
      const request = http.request({
        host: "127.0.0.1",
        port: host.port,
        method: "POST",
        path: "/mcp",
        headers: { authorization: `Bearer ${host.token}`, "content-type": "application/json", "content-length": "1000" },
      });
      request.on("error", () => resolve());
      request.write('{"jsonrpc":');
      setTimeout(() => {
        request.destroy();
        resolve();
      }, 100);
    });
    const client = connect(host.url, host.token);
    await client.initialize();
    assert.ok(Array.isArray(await client.listTools()));
    await client.close();
    assert.equal(host.child.exitCode, null, `host died; stderr:\n${host.stderr()}`);
  });
});
