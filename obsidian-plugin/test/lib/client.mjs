// A tiny fetch-based MCP client for the host that ./harness.mjs starts: JSON-RPC over Streamable HTTP (JSON or SSE
// answers), the standalone GET event stream, and the legacy SSE transport. Plain ESM, no npm dependencies; every
// wait is bounded.
import { withTimeout } from "./harness.mjs";

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
    listTools: () => listAllTools(client),
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

/** The 2026-07-28 revision: stateless, every request carries its `_meta` envelope and routing headers. */
export const MODERN = "2026-07-28";

/** The `_meta` envelope of a 2026-07-28 request. */
export function envelope(protocolVersion = MODERN, clientCapabilities = {}) {
  return {
    "io.modelcontextprotocol/protocolVersion": protocolVersion,
    "io.modelcontextprotocol/clientCapabilities": clientCapabilities,
    "io.modelcontextprotocol/clientInfo": { name: "obsmcp-test", version: "0" },
  };
}

/** The routing headers a 2026-07-28 request must carry: `Mcp-Method`, and `Mcp-Name` where the method names one. */
export function routingHeaders(method, params) {
  const headers = { "mcp-protocol-version": MODERN, "mcp-method": method };
  const name = method === "resources/read" ? params?.uri : method === "tools/call" || method === "prompts/get" ? params?.name : undefined;
  if (typeof name === "string") headers["mcp-name"] = name;
  return headers;
}

/**
 * A 2026-07-28 client with the same face as `connect`: `initialize()` sends `server/discover` (there is no
 * handshake and no session), and every request is stateless. `raw` sends a body as given, with the auth header.
 */
export function connectModern(url, token, { timeoutMs = 30000 } = {}) {
  let nextId = 1;
  const auth = token === undefined ? {} : { authorization: `Bearer ${token}` };
  const client = {
    sessionId: undefined,
    protocolVersion: MODERN,
    async raw({ method = "POST", body, headers = {}, signal } = {}) {
      const init = {
        method,
        headers: { "content-type": "application/json", accept: ACCEPT_BOTH, ...auth, ...headers },
        signal: signal ?? AbortSignal.timeout(timeoutMs),
      };
      for (const [name, value] of Object.entries(init.headers)) if (value === null) delete init.headers[name];
      if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
      return readResponse(await fetch(url, init));
    },
    async request(method, params = {}, { capabilities } = {}) {
      const id = nextId++;
      const body = { jsonrpc: "2.0", id, method, params: { ...params, _meta: { ...params._meta, ...envelope(MODERN, capabilities) } } };
      const response = await client.raw({ body, headers: routingHeaders(method, params) });
      const answer = response.messages.find((message) => message.id === id);
      if (!answer) throw new Error(`${method}: HTTP ${response.status}, no answer in ${JSON.stringify(response.text).slice(0, 500)}`);
      if (answer.error) throw new RpcError(answer.error);
      if (response.status !== 200) throw new Error(`${method}: HTTP ${response.status}: ${response.text}`);
      return answer.result;
    },
    async initialize() {
      const result = await client.request("server/discover");
      if (!result.supportedVersions?.includes(MODERN)) throw new Error(`server/discover offers no ${MODERN}: ${JSON.stringify(result)}`);
      return result;
    },
    listTools: () => listAllTools(client),
    callTool(name, args = {}) {
      return client.request("tools/call", { name, arguments: args });
    },
    async close() {},
  };
  return client;
}

/** Every page of `tools/list`, through either era's client. */
async function listAllTools(client) {
  const tools = [];
  let cursor;
  do {
    const page = await client.request("tools/list", cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

/** Concatenates the text blocks of a tool result. */
export function resultText(result) {
  return result.content.filter((block) => block.type === "text").map((block) => block.text).join("");
}

/**
 * Opens a long-lived event stream (a GET, or a POST such as subscriptions/listen) and returns `{ response, events, waitFor(predicate, ms), close() }`;
 * events accumulate as they arrive, comments included as `{ comment }` entries.
 */
export async function openEventStream(url, headers, { timeoutMs = 10000, method = "GET", body } = {}) {
  const controller = new AbortController();
  const response = await withTimeout(fetch(url, { method, body, headers, signal: controller.signal }), timeoutMs, `${method} ${url}`);
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
