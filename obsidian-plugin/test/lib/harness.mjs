// Test harness shared by the plugin's tests (and usable by anyone): start the host as a child process on a free
// port, and speak MCP over HTTP to it with a tiny fetch-based client. Plain ESM, no npm dependencies. Every wait is
// bounded and every child is reaped, even when a test fails half-way.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const hostScript = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "host.mjs");
const liveChildren = new Set();
process.on("exit", () => {
  for (const child of liveChildren) child.kill("SIGKILL");
});

/** A port that was free a moment ago (the kernel picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** A fresh token of the shape the plugin generates (256 random bits, hex). */
export function newToken() {
  return randomBytes(32).toString("hex");
}

/** A fresh empty folder under the OS temp dir; removed by the returned `remove()`. */
export function tempDir(prefix = "obsmcp-test-") {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Resolves with `promise`, or rejects after `ms` with a message naming `what`. */
export function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Starts `host.mjs` on `vaultDir` and waits (bounded) for its `listening on N` line. Without a port it picks a free
 * one, and retries with another when that port was taken in between. Returns
 * `{ port, token, url, baseUrl, child, stderr(), stop(), restart(), reload() }`.
 */
export async function startHost({ vaultDir, port, token = newToken(), readOnly = false, configDir, timeoutMs = 15000, fdLimit }) {
  if (!vaultDir) throw new Error("startHost needs a vaultDir");
  const attempts = port === undefined ? 3 : 1;
  let lastError;
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const chosenPort = port ?? (await freePort());
    try {
      return await spawnHost({ vaultDir, port: chosenPort, token, readOnly, configDir, timeoutMs, fdLimit });
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

async function spawnHost(options) {
  const { vaultDir, port, token, readOnly, configDir, timeoutMs, fdLimit } = options;
  const args = [hostScript, "--vault", vaultDir, "--port", String(port), "--token", token];
  if (readOnly) args.push("--read-only");
  if (configDir) args.push("--config-dir", configDir);
  // `fdLimit` runs the host with that many file descriptors at most, as a desktop app may have.
  const child =
    fdLimit === undefined
      ? spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] })
      : spawn("/bin/sh", ["-c", `ulimit -n ${Number(fdLimit)} && exec "$0" "$@"`, process.execPath, ...args], {
          stdio: ["ignore", "pipe", "pipe"],
        });
  liveChildren.add(child);
  let stderr = "";
  let stdout = "";
  const readyWaiters = [];
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
    let newline;
    while ((newline = stdout.indexOf("\n")) >= 0) {
      const line = stdout.slice(0, newline);
      stdout = stdout.slice(newline + 1);
      const waiter = readyWaiters.shift();
      if (waiter) waiter(line);
    }
  });
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  exited.then(() => liveChildren.delete(child));

  const nextLine = (what) =>
    withTimeout(
      Promise.race([
        new Promise((resolve) => readyWaiters.push(resolve)),
        exited.then(({ code, signal }) => {
          throw new Error(`host exited (${signal ?? code}) before ${what}; stderr:\n${stderr}`);
        }),
      ]),
      timeoutMs,
      `${what}; stderr:\n${stderr}`,
    );

  const expectListening = async (what) => {
    const line = await nextLine(what);
    if (line !== `listening on ${port}`) throw new Error(`host printed ${JSON.stringify(line)}, not "listening on ${port}"`);
  };

  try {
    await expectListening("it was listening");
  } catch (error) {
    child.kill("SIGKILL");
    await exited;
    throw error;
  }

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return exited;
    child.kill("SIGTERM");
    try {
      return await withTimeout(exited, 5000, "host exit after SIGTERM");
    } catch (error) {
      child.kill("SIGKILL");
      await exited;
      throw error;
    }
  };

  const url = `http://127.0.0.1:${port}/mcp`;
  return {
    port,
    token,
    url,
    baseUrl: `http://127.0.0.1:${port}`,
    child,
    exited,
    stderr: () => stderr,
    stop,
    /** Stops this host and starts a new one on the same port, vault and token (an Obsidian restart). */
    restart: async () => {
      await stop();
      return spawnHost(options);
    },
    /** Unloads and reloads the plugin inside the same process (a plugin reload); resolves when it listens again. */
    reload: async () => {
      child.kill("SIGHUP");
      await expectListening("it was listening again after reload");
    },
  };
}

const ACCEPT_BOTH = "application/json, text/event-stream";

/** Splits an SSE body into events `{ event, data, id }` (comments dropped). */
export function parseSse(text) {
  const events = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (!block.trim()) continue;
    const event = { event: "message", data: "", id: undefined };
    const data = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "data") data.push(value);
      else if (field === "event") event.event = value;
      else if (field === "id") event.id = value;
    }
    if (data.length === 0) continue;
    event.data = data.join("\n");
    events.push(event);
  }
  return events;
}

/** Reads a fetch Response as `{ status, headers, text, messages }`; messages are parsed JSON-RPC from JSON or SSE. */
export async function readResponse(response) {
  const text = await response.text();
  const type = response.headers.get("content-type") ?? "";
  let messages = [];
  if (type.includes("text/event-stream")) {
    messages = parseSse(text).map((event) => JSON.parse(event.data));
  } else if (type.includes("application/json") && text) {
    const parsed = JSON.parse(text);
    messages = Array.isArray(parsed) ? parsed : [parsed];
  }
  return { status: response.status, headers: response.headers, text, messages };
}

/** A JSON-RPC error answer, thrown by the client helpers. */
export class RpcError extends Error {
  constructor(error) {
    super(`JSON-RPC error ${error.code}: ${error.message}`);
    this.code = error.code;
    this.data = error.data;
  }
}

/**
 * A minimal MCP client over Streamable HTTP. `initialize()` opens a session; `request`, `listTools`, `callTool`
 * return the JSON-RPC result (a JSON-RPC error is thrown as RpcError); `raw(...)` sends anything and returns the
 * plain response for tests of the transport itself.
 */
export function connect(url, token, { protocolVersion = "2025-11-25", timeoutMs = 30000 } = {}) {
  let nextId = 1;
  const client = {
    sessionId: undefined,
    protocolVersion: undefined,
    headers(extra = {}) {
      const headers = { "content-type": "application/json", accept: ACCEPT_BOTH };
      if (token !== undefined) headers.authorization = `Bearer ${token}`;
      if (client.sessionId) headers["mcp-session-id"] = client.sessionId;
      if (client.protocolVersion) headers["mcp-protocol-version"] = client.protocolVersion;
      return { ...headers, ...extra };
    },
    /** Sends one HTTP request; `body` (an object) is JSON-encoded; a string is sent as is. */
    async raw({ method = "POST", body, headers = {}, signal } = {}) {
      const init = { method, headers: client.headers(headers), signal: signal ?? AbortSignal.timeout(timeoutMs) };
      for (const [name, value] of Object.entries(init.headers)) if (value === null) delete init.headers[name];
      if (body !== undefined) init.body = typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body);
      return readResponse(await fetch(url, init));
    },
    async request(method, params) {
      const id = nextId++;
      const response = await client.raw({ body: { jsonrpc: "2.0", id, method, params } });
      if (response.status !== 200) throw new Error(`${method}: HTTP ${response.status}: ${response.text}`);
      const answer = response.messages.find((message) => message.id === id);
      if (!answer) throw new Error(`${method}: no answer in ${JSON.stringify(response.text).slice(0, 500)}`);
      if (answer.error) throw new RpcError(answer.error);
      return answer.result;
    },
    async notify(method, params) {
      const response = await client.raw({ body: { jsonrpc: "2.0", method, params } });
      if (response.status !== 202) throw new Error(`${method}: HTTP ${response.status}: ${response.text}`);
    },
    async initialize(clientInfo = { name: "obsmcp-test", version: "0" }) {
      const id = nextId++;
      const response = await client.raw({
        body: { jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion, capabilities: {}, clientInfo } },
      });
      if (response.status !== 200) throw new Error(`initialize: HTTP ${response.status}: ${response.text}`);
      const answer = response.messages.find((message) => message.id === id);
      if (!answer || answer.error) throw new Error(`initialize failed: ${response.text}`);
      client.sessionId = response.headers.get("mcp-session-id") ?? undefined;
      client.protocolVersion = answer.result.protocolVersion;
      await client.notify("notifications/initialized");
      return answer.result;
    },
    async listTools() {
      const tools = [];
      let cursor;
      do {
        const page = await client.request("tools/list", cursor ? { cursor } : {});
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      return tools;
    },
    callTool(name, args = {}) {
      return client.request("tools/call", { name, arguments: args });
    },
    /** Ends the session (DELETE); ignores a session the server already forgot. */
    async close() {
      if (!client.sessionId) return;
      await client.raw({ method: "DELETE" });
      client.sessionId = undefined;
    },
  };
  return client;
}

/** Concatenates the text blocks of a tool result. */
export function resultText(result) {
  return result.content.filter((block) => block.type === "text").map((block) => block.text).join("");
}

/**
 * Opens a long-lived streaming GET (SSE) and returns `{ response, events, waitFor(predicate, ms), close() }`;
 * events accumulate as they arrive, comments included as `{ comment }` entries.
 */
export async function openEventStream(url, headers, { timeoutMs = 10000 } = {}) {
  const controller = new AbortController();
  const response = await withTimeout(fetch(url, { headers, signal: controller.signal }), timeoutMs, `GET ${url}`);
  const events = [];
  const waiters = new Set();
  const notify = () => {
    for (const waiter of waiters) waiter();
  };
  let ended = false;
  const pump = (async () => {
    if (!response.body) return;
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk, { stream: true });
        let boundary;
        while ((boundary = buffer.search(/\r?\n\r?\n/)) >= 0) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary).replace(/^\r?\n\r?\n/, "");
          for (const line of block.split(/\r?\n/)) if (line.startsWith(":")) events.push({ comment: line.slice(1).trim() });
          events.push(...parseSse(block));
          notify();
        }
      }
    } catch (error) {
      if (error.name !== "AbortError") events.push({ error: String(error) });
    } finally {
      ended = true;
      notify();
    }
  })();
  return {
    response,
    events,
    get ended() {
      return ended;
    },
    waitFor(predicate, ms = timeoutMs, what = "an event") {
      return withTimeout(
        new Promise((resolve, reject) => {
          const check = () => {
            const found = events.find(predicate);
            if (found) {
              waiters.delete(check);
              resolve(found);
            } else if (ended) {
              waiters.delete(check);
              reject(new Error(`stream ended before ${what}`));
            }
          };
          waiters.add(check);
          check();
        }),
        ms,
        what,
      );
    },
    /** Resolves when the server ends the stream (bounded). */
    waitEnd(ms = timeoutMs) {
      return withTimeout(pump, ms, "the stream to end");
    },
    async close() {
      controller.abort();
      await pump;
    },
  };
}

/**
 * A minimal client of the legacy HTTP+SSE transport: opens `GET /sse`, reads the endpoint event, POSTs requests to
 * it and reads the answers from the stream.
 */
export async function connectLegacySse(baseUrl, token, { timeoutMs = 10000 } = {}) {
  const auth = token === undefined ? {} : { authorization: `Bearer ${token}` };
  const stream = await openEventStream(`${baseUrl}/sse`, { accept: "text/event-stream", ...auth }, { timeoutMs });
  if (stream.response.status !== 200) {
    const status = stream.response.status;
    await stream.close();
    throw new Error(`GET /sse answered ${status}`);
  }
  const endpointEvent = await stream.waitFor((event) => event.event === "endpoint", timeoutMs, "the endpoint event");
  const endpoint = new URL(endpointEvent.data, baseUrl).toString();
  let nextId = 1;
  const post = (message) =>
    fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json", ...auth },
      body: JSON.stringify(message),
      signal: AbortSignal.timeout(timeoutMs),
    });
  const client = {
    stream,
    endpoint,
    async request(method, params) {
      const id = nextId++;
      const response = await post({ jsonrpc: "2.0", id, method, params });
      if (response.status !== 202) throw new Error(`${method}: HTTP ${response.status}: ${await response.text()}`);
      const event = await stream.waitFor((each) => each.event === "message" && JSON.parse(each.data).id === id, timeoutMs, `answer to ${method}`);
      const answer = JSON.parse(event.data);
      if (answer.error) throw new RpcError(answer.error);
      return answer.result;
    },
    async notify(method, params) {
      const response = await post({ jsonrpc: "2.0", method, params });
      if (response.status !== 202) throw new Error(`${method}: HTTP ${response.status}: ${await response.text()}`);
    },
    async initialize(protocolVersion = "2024-11-05") {
      const result = await client.request("initialize", {
        protocolVersion,
        capabilities: {},
        clientInfo: { name: "obsmcp-test", version: "0" },
      });
      await client.notify("notifications/initialized");
      return result;
    },
    close: () => stream.close(),
  };
  return client;
}
