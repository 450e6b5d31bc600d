// Start, stop, restart and reload: the port is freed at once on unload, open streams do not hold it, stale
// sessions get 404 afterwards, and a busy port is reported clearly instead of crashing.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { connect, connectLegacySse, openEventStream, resultText } from "./lib/client.mjs";
import { freePort, startHost, tempDir } from "./lib/harness.mjs";
import { dataJsonPath, loadPlugin, obsidian, writeSettings } from "./lib/load-plugin.mjs";

const unhandled = [];
process.on("unhandledRejection", (reason) => unhandled.push(reason));

/** Listens on `port` with a plain TCP server (to hold it or to prove it is free). */
function occupy(port) {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

test("stop and start on the same port: the new host listens, old sessions get 404", async () => {
  const vault = tempDir();
  let host = await startHost({ vaultDir: vault.dir });
  try {
    const client = connect(host.url, host.token);
    await client.initialize();
    host = await host.restart();
    const stale = await client.raw({ body: { jsonrpc: "2.0", id: 5, method: "tools/list" } });
    assert.equal(stale.status, 404);
    client.sessionId = undefined;
    client.protocolVersion = undefined;
    await client.initialize();
    assert.ok((await client.listTools()).length > 0);
  } finally {
    await host.stop();
    vault.remove();
  }
});

test("a plugin reload with an open SSE stream and an open GET stream frees the port at once", async () => {
  const vault = tempDir();
  const host = await startHost({ vaultDir: vault.dir });
  try {
    const legacy = await connectLegacySse(host.baseUrl, host.token);
    const client = connect(host.url, host.token);
    await client.initialize();
    const get = await openEventStream(host.url, client.headers({ accept: "text/event-stream", "content-type": null }));
    assert.equal(get.response.status, 200);

    const started = Date.now();
    await host.reload();
    const reloadMs = Date.now() - started;
    assert.ok(reloadMs < 5000, `reload took ${reloadMs} ms`);

    await Promise.all([legacy.stream.waitEnd(5000), get.waitEnd(5000)]);
    const stale = await client.raw({ body: { jsonrpc: "2.0", id: 5, method: "tools/list" } });
    assert.equal(stale.status, 404);
    const fresh = connect(host.url, host.token);
    await fresh.initialize();
    await fresh.close();
    assert.deepEqual(await host.stop(), { code: 0, signal: null }, "SIGTERM must unload and exit 0");
  } finally {
    await host.stop();
    vault.remove();
  }
});

test("the host exits 1 with a clear message when the port is taken", async () => {
  const vault = tempDir();
  const port = await freePort();
  const blocker = await occupy(port);
  try {
    await assert.rejects(startHost({ vaultDir: vault.dir, port }), /port \d+ is already in use/);
  } finally {
    blocker.close();
    vault.remove();
  }
});

test("in-process: a busy port gives a Notice and status, no crash; unload frees the port synchronously", async () => {
  const vault = tempDir();
  const port = await freePort();
  const blocker = await occupy(port);
  writeSettings(vault.dir, { port, token: "a".repeat(64) });
  const noticesBefore = obsidian.shownNotices.length;
  let { plugin } = await loadPlugin({ vaultDir: vault.dir });
  try {
    assert.equal(plugin.status.state, "port-in-use");
    assert.match(plugin.status.lastError, new RegExp(`port ${port} is already in use`));
    const notices = obsidian.shownNotices.slice(noticesBefore).map((notice) => notice.message);
    assert.ok(notices.some((message) => message.includes(`port ${port} is already in use`)), notices.join("\n"));
    const tab = plugin.settingTabs[0];
    tab.display();
    const text = tab.containerEl.textContent;
    assert.match(text, new RegExp(`Not running: port ${port} is in use by another program`));
    assert.match(text, new RegExp(`Last error: port ${port} is already in use`));
    tab.hide();
    plugin.unload();

    await new Promise((resolve) => blocker.close(resolve));
    ({ plugin } = await loadPlugin({ vaultDir: vault.dir }));
    assert.equal(plugin.status.state, "listening");
    plugin.unload();
    // No await between unload and listen: the port must already be free.
    const again = await occupy(port);
    await new Promise((resolve) => again.close(resolve));
    assert.deepEqual(unhandled, []);
  } finally {
    plugin.unload();
    vault.remove();
  }
});

test("--config-dir: settings live in that folder's plugins/obsmcp/data.json", async () => {
  const vault = tempDir();
  const host = await startHost({ vaultDir: vault.dir, configDir: ".obsidian-laptop" });
  try {
    const data = JSON.parse(fs.readFileSync(dataJsonPath(vault.dir, ".obsidian-laptop"), "utf8"));
    assert.equal(data.port, host.port);
    assert.equal(data.token, host.token);
    assert.equal(fs.existsSync(path.join(vault.dir, ".obsidian")), false);
    const client = connect(host.url, host.token);
    await client.initialize();
    assert.match(resultText(await client.callTool("vault_info", {})), /\.obsidian-laptop/);
    await client.close();
  } finally {
    await host.stop();
    vault.remove();
  }
});

test("the host refuses a --token the plugin would replace, before writing anything; boundary tokens are kept", async () => {
  const refused = ["", "a".repeat(31), "a".repeat(513), `${"a".repeat(40)} b`, `${"a".repeat(40)}!`, `${"a".repeat(40)}é`];
  for (const token of refused) {
    const vault = tempDir();
    try {
      await assert.rejects(startHost({ vaultDir: vault.dir, port: await freePort(), token }), (error) => {
        assert.match(error.message, /host exited \(2\) before it was listening/);
        assert.match(error.message, /--token must be 32 to 512 characters/);
        assert.match(error.message, /usage: host\.mjs --vault DIR --port N --token T/);
        return true;
      });
      assert.equal(fs.existsSync(dataJsonPath(vault.dir)), false, "nothing is written before refusing");

      // The same token in data.json: the plugin replaces it, which is why the host must refuse it.
      writeSettings(vault.dir, { port: await freePort(), token });
      const { plugin } = await loadPlugin({ vaultDir: vault.dir });
      plugin.unload();
      assert.notEqual(JSON.parse(fs.readFileSync(dataJsonPath(vault.dir), "utf8")).token, token);
    } finally {
      vault.remove();
    }
  }

  for (const token of ["a".repeat(32), "A._~+/=-".repeat(64)]) {
    const vault = tempDir();
    const host = await startHost({ vaultDir: vault.dir, token });
    try {
      assert.equal(JSON.parse(fs.readFileSync(dataJsonPath(vault.dir), "utf8")).token, token);
      const client = connect(host.url, token);
      await client.initialize();
      await client.close();
    } finally {
      await host.stop();
      vault.remove();
    }
  }
});
