// The plugin's HTTP server: one loopback listener for both MCP protocol eras. `/mcp` serves 2026-07-28 requests
// statelessly (each one gets a fresh server instance from the SDK's createMcpHandler) and 2025-era clients
// (2025-03-26, 2025-06-18, 2025-11-25) with sessions, as the SDK's own classification tells them apart; `/sse` +
// `/messages` serve the legacy HTTP+SSE transport. The router does what the SDK leaves to its host: Host/Origin
// checks and bearer auth on every route, body size limit and JSON parsing (the parsed body is always handed on),
// 404 for unknown sessions, 400 for 2025-era requests without one, and a stop that frees the port at once.

import { randomUUID } from "crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "http";
import type { Socket } from "net";
import type { App } from "obsidian";
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type McpHttpHandler,
} from "@modelcontextprotocol/server";
import type { ToolDef } from "../tools/types";
import { FileIndex } from "../vault/file-index";
import { IndexReadiness } from "../vault/indexing";
import { mib } from "../vault/limits";
import { ChangeNotices } from "./changes";
import { basePathOf, rulesFor, type HiddenSettings } from "../vault/hidden";
import { BodyNotJson, BodyTooLarge, discardRest, MAX_BODY_BYTES, parseJson, readBody } from "./body";
import { CONNECTION_CHECK_MS, Connections, HEADERS_TIMEOUT_MS } from "./connections";
import { challengeProof, Credentials, refuseHostOrOrigin } from "./guard";
import { LegacySseTransport } from "./legacy-sse";
import { buildServer, errorKind, ToolTable, truncate, type SessionDeps } from "./mcp";
import { RpcCode, sendRpcError } from "./respond";
import { RecentClients, RECENT_MS } from "./recent";
import { SessionRegistry } from "./sessions";
import { StatusBoard, type ServerStatus } from "./status";
import { MAX_UNREAD_BYTES } from "./unread";
import { sendWebResponse, toWebRequest } from "./web";


export interface VaultServerOptions {
  app: App;
  tools: readonly ToolDef[];
  serverInfo: { name: string; version: string };
  port: number;
  token: string;
  readOnly: boolean;
  hiddenPaths: readonly string[];
  hideExcludedFiles: boolean;
  promptsFolder: string;
}

const ENDPOINTS_HINT = "obsmcp serves /mcp (Streamable HTTP) and /sse + /messages (legacy HTTP+SSE)";

/** The vault's MCP endpoint on 127.0.0.1. */
export class VaultMcpServer {
  private http: Server | undefined;
  private port: number;
  private token: string;
  private readOnly: boolean;
  private hidden: HiddenSettings;
  private promptsFolder: string;
  private readonly board: StatusBoard;
  private readonly sessions: SessionRegistry;
  private readonly recent: RecentClients;
  private forgetting: ReturnType<typeof setInterval> | undefined;
  private readonly deps: SessionDeps;
  /** Resource and prompt list changes and resource updates, told to every client. */
  private readonly notices: ChangeNotices;
  private readonly table: ToolTable;
  /** The 2026-07-28 leg while listening: stateless, one server instance per request. */
  private modern: McpHttpHandler | undefined;
  private readonly credentials = new Credentials();
  private readonly connections = new Connections();

  constructor(options: VaultServerOptions) {
    this.port = options.port;
    this.token = options.token;
    this.readOnly = options.readOnly;
    this.promptsFolder = options.promptsFolder;
    this.hidden = { hiddenPaths: options.hiddenPaths, hideExcludedFiles: options.hideExcludedFiles };
    this.board = new StatusBoard(options.port, options.readOnly, () => ({ indexing: this.deps.indexing.state() }));
    // Connected clients: the 2025-era sessions, and the 2026-07-28 clients heard from lately.
    const countClients = () => this.board.update({ clients: this.sessions.size + this.recent.size });
    this.sessions = new SessionRegistry(countClients);
    this.recent = new RecentClients(countClients);
    this.deps = {
      app: options.app,
      tools: options.tools,
      serverInfo: options.serverInfo,
      isReadOnly: () => this.readOnly,
      hiddenRules: () => rulesFor(this.hidden, basePathOf(options.app), options.app.vault.configDir),
      reportError: (message) => this.board.recordError(message),
      files: new FileIndex(options.app),
      promptsFolder: () => this.promptsFolder,
      // The settings tab and the host hear when the cache becomes complete through the status.
      indexing: new IndexReadiness(options.app, () => this.board.update({})),
    };
    this.table = new ToolTable(options.tools);
    this.notices = new ChangeNotices(options.app, {
      sessions: () => this.sessions.all(),
      modern: () => this.modern,
      hidden: () => this.deps.hiddenRules(),
      promptsFolder: () => this.promptsFolder,
    });
  }

  get status(): ServerStatus {
    return this.board.status;
  }

  /** Calls `listener` on every status change; returns the function that stops it. */
  subscribe(listener: (status: ServerStatus) => void): () => void {
    return this.board.subscribe(listener);
  }

  /** Starts listening; never rejects: a busy port or another failure is reported in the returned status. */
  start(): Promise<ServerStatus> {
    if (this.http) return Promise.resolve(this.status);
    const server = createServer({ connectionsCheckingInterval: CONNECTION_CHECK_MS }, (request, response) => {
      this.route(request, response).catch((error) => this.answerFailure(response, error));
    });
    server.headersTimeout = HEADERS_TIMEOUT_MS;
    server.requestTimeout = 60_000;
    server.keepAliveTimeout = 5_000;
    server.on("connection", (socket: Socket) => this.connections.admit(socket));
    this.http = server;
    this.deps.files.start();
    this.deps.indexing.start();
    this.notices.start();
    this.forgetting = setInterval(() => this.recent.forgetIdle(), RECENT_MS / 4);
    this.modern = createMcpHandler(() => buildServer(this.deps, this.table), {
      legacy: "reject",
      onerror: (error) => this.board.recordError(`MCP: ${truncate(error.message, 200)}`),
    });
    const port = this.port;
    this.board.update({ state: "starting", port });
    return new Promise((resolve) => {
      const onStartError = (error: NodeJS.ErrnoException) => {
        if (this.http === server) this.http = undefined;
        const inUse = error.code === "EADDRINUSE";
        this.board.update({
          state: inUse ? "port-in-use" : "failed",
          lastError: inUse ? `port ${port} is already in use by another program` : `could not listen on port ${port}: ${errorKind(error)}`,
          lastErrorAt: Date.now(),
        });
        resolve(this.status);
      };
      server.once("error", onStartError);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", onStartError);
        server.on("error", (error) => this.board.recordError(`HTTP server: ${errorKind(error)}`));
        if (this.http === server) this.board.update({ state: "listening" });
        resolve(this.status);
      });
    });
  }

  /** Stops at once: ends every session and stream, drops every connection and frees the port before returning. */
  stop(): void {
    const server = this.http;
    this.http = undefined;
    void this.sessions.closeAll();
    void this.modern?.close();
    this.modern = undefined;
    this.deps.files.stop();
    this.deps.indexing.stop();
    this.notices.stop();
    clearInterval(this.forgetting);
    this.recent.clear();
    if (server) {
      // The callback only receives "not running" when stop() comes before listening finished: nothing to free then.
      server.close(() => undefined);
      server.closeAllConnections();
    }
    this.board.update({ state: "stopped", clients: 0 });
  }

  /** Moves to another port: stop, then start there. */
  async restart(port: number): Promise<ServerStatus> {
    this.stop();
    this.port = port;
    return this.start();
  }

  /** New requests must carry this token from now on; open sessions stay but their next request needs it too. */
  setToken(token: string): void {
    this.token = token;
  }

  /** Applies changed hidden-path settings; the next call of every session meets them. */
  setHidden(hidden: HiddenSettings): void {
    this.hidden = { hiddenPaths: [...hidden.hiddenPaths], hideExcludedFiles: hidden.hideExcludedFiles };
    this.notices.listsChanged();
  }

  /** Serves the prompts of another folder ("" for none) from the next request on. */
  setPromptsFolder(folder: string): void {
    if (folder === this.promptsFolder) return;
    this.promptsFolder = folder;
    this.notices.listsChanged();
  }

  /** How many hidden-path rules are in force now, for the settings tab and the status. */
  hiddenRuleCount(): number {
    return this.deps.hiddenRules().count;
  }

  /** Applies the read-only setting (hiding or showing write tools) and tells every client that the list changed. */
  setReadOnly(readOnly: boolean): void {
    if (readOnly === this.readOnly) return;
    this.readOnly = readOnly;
    // A session whose stream is already gone cannot be told; its next tools/list shows the change anyway.
    for (const session of this.sessions.all()) void session.server.sendToolListChanged().catch(() => undefined);
    this.modern?.notify.toolsChanged();
    this.board.update({ readOnly });
  }

  private async route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // Set before anything is answered, refusals included: the bridge reads no answer that lacks it.
    const proof = challengeProof(request, this.token);
    if (proof !== undefined) response.setHeader("obsmcp-proof", proof);
    const refusal = refuseHostOrOrigin(request);
    if (refusal) {
      sendRpcError(response, 403, RpcCode.Refused, `Forbidden: ${refusal}`);
      return;
    }
    if (!this.credentials.allows(request, this.token)) {
      sendRpcError(
        response,
        401,
        RpcCode.Refused,
        "Unauthorized: send the header Authorization: Bearer <token> with the token from the obsmcp plugin settings",
        null,
        { "www-authenticate": 'Bearer realm="obsmcp"' },
      );
      return;
    }
    this.connections.authenticated(request.socket);
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const method = request.method ?? "GET";
    switch (url.pathname) {
      case "/mcp":
        return this.routeStreamable(request, response, method);
      case "/sse":
        if (method === "GET") return this.openLegacyStream(request, response);
        return methodNotAllowed(response, "GET");
      case "/messages":
        if (method === "POST") return this.postLegacyMessage(request, response, url);
        return methodNotAllowed(response, "POST");
      default:
        sendRpcError(response, 404, RpcCode.InvalidRequest, `Not found: ${ENDPOINTS_HINT}`);
    }
  }

  private async routeStreamable(request: IncomingMessage, response: ServerResponse, method: string): Promise<void> {
    const sessionId = headerValue(request, "mcp-session-id");
    if (method === "POST") {
      const body = await this.readJsonBody(request, response);
      if (body === undefined) return;
      const webRequest = toWebRequest(request, response);
      if (!(await isLegacyRequest(webRequest, body))) return this.serveModern(webRequest, response, body);
      if (sessionId !== undefined) {
        const session = this.sessions.find("streamable", sessionId);
        if (!session) return sessionNotFound(response, requestId(body));
        return this.answer(response, await session.transport.handleRequest(webRequest, { parsedBody: body }));
      }
      if (Array.isArray(body) ? body.some((message) => isInitializeRequest(message)) : isInitializeRequest(body)) {
        return this.openStreamableSession(webRequest, response, body);
      }
      sendRpcError(response, 400, RpcCode.Refused, "Bad Request: no Mcp-Session-Id header; send initialize first", requestId(body));
      return;
    }
    if (method === "GET" || method === "DELETE") {
      if (sessionId === undefined) {
        sendRpcError(response, 400, RpcCode.Refused, "Bad Request: the Mcp-Session-Id header is required");
        return;
      }
      const session = this.sessions.find("streamable", sessionId);
      if (!session) return sessionNotFound(response, null);
      return this.answer(response, await session.transport.handleRequest(toWebRequest(request, response)));
    }
    methodNotAllowed(response, "GET, POST, DELETE");
  }

  /** A 2026-07-28 request (or one that claims to be): the SDK's modern leg answers it, errors included. */
  private async serveModern(webRequest: Request, response: ServerResponse, body: unknown): Promise<void> {
    const modern = this.modern;
    if (!modern) {
      sendRpcError(response, 503, RpcCode.Refused, "Service Unavailable: the obsmcp plugin is stopping", requestId(body));
      return;
    }
    this.recent.touch(body);
    return this.answer(response, await modern.fetch(webRequest, { parsedBody: body }));
  }

  private async openStreamableSession(webRequest: Request, response: ServerResponse, body: unknown): Promise<void> {
    const subscriptions = new Set<string>();
    const server = buildServer(this.deps, this.table, subscriptions);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.sessions.add({ kind: "streamable", id, transport, server, lastUsed: Date.now(), subscriptions });
      },
      onsessionclosed: (id) => this.sessions.remove(id),
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.remove(transport.sessionId);
    };
    await server.connect(transport);
    const answer = await transport.handleRequest(webRequest, { parsedBody: body });
    // An initialize the SDK refused leaves a transport without a session: nothing will ever reach it again.
    if (transport.sessionId === undefined) await transport.close();
    return this.answer(response, answer);
  }

  private answer(response: ServerResponse, answer: Response): Promise<void> {
    return sendWebResponse(response, answer, (unread) =>
      this.board.recordError(`closed an event stream whose client stopped reading (${mib(unread)} MiB unread, limit ${mib(MAX_UNREAD_BYTES)} MiB)`),
    );
  }

  private async openLegacyStream(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const subscriptions = new Set<string>();
    const server = buildServer(this.deps, this.table, subscriptions);
    const transport = new LegacySseTransport("/messages", response, (unread) =>
      this.board.recordError(
        `closed a legacy SSE session whose client stopped reading (${mib(unread)} MiB unread, limit ${mib(MAX_UNREAD_BYTES)} MiB)`,
      ),
    );
    const id = transport.sessionId;
    transport.onclose = () => this.sessions.remove(id);
    this.sessions.add({ kind: "sse", id, transport, server, lastUsed: Date.now(), subscriptions });
    try {
      await server.connect(transport);
    } catch (error) {
      this.sessions.remove(id);
      throw error;
    }
    // A client that hung up while the stream was being set up leaves nothing to keep.
    if (request.destroyed || response.writableEnded) await transport.close();
  }

  private async postLegacyMessage(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    const id = url.searchParams.get("sessionId");
    if (!id) {
      sendRpcError(response, 400, RpcCode.Refused, "Bad Request: the sessionId query parameter is required");
      return;
    }
    const session = this.sessions.find("sse", id);
    if (!session) return sessionNotFound(response, null);
    const body = await this.readJsonBody(request, response);
    if (body === undefined) return;
    const refusal = session.transport.receive(body);
    if (refusal !== undefined) {
      sendRpcError(response, 400, RpcCode.InvalidRequest, `Invalid Request: ${refusal}`, requestId(body));
      return;
    }
    response.writeHead(202, { "content-type": "text/plain" });
    response.end("Accepted");
  }

  /** Reads and parses the body; on failure answers (413 or 400) and returns undefined. */
  private async readJsonBody(request: IncomingMessage, response: ServerResponse): Promise<unknown> {
    try {
      return parseJson(await readBody(request, MAX_BODY_BYTES));
    } catch (error) {
      if (error instanceof BodyTooLarge) {
        // The rest of the upload is read and dropped for a moment, so that the 413 reaches the client (see discardRest).
        sendRpcError(response, 413, RpcCode.Refused, `Payload Too Large: ${error.message}`);
        discardRest(request);
        return undefined;
      }
      if (error instanceof BodyNotJson) {
        sendRpcError(response, 400, RpcCode.ParseError, `Parse error: ${error.message}`);
        return undefined;
      }
      throw error;
    }
  }

  private answerFailure(response: ServerResponse, error: unknown): void {
    // A client that went away mid-request is not a failure of the plugin; there is nobody left to answer.
    if (response.destroyed) return;
    this.board.recordError(`request failed: ${errorKind(error)}`);
    if (response.headersSent) response.destroy();
    else sendRpcError(response, 500, -32603, "Internal error");
  }
}

function headerValue(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The id of a single JSON-RPC request, for echoing in an error; null when there is none. */
function requestId(body: unknown): string | number | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return null;
  const id = (body as { id?: unknown }).id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

function sessionNotFound(response: ServerResponse, id: string | number | null): void {
  sendRpcError(response, 404, RpcCode.SessionNotFound, "Session not found: it ended or the plugin restarted; initialize a new session", id);
}

function methodNotAllowed(response: ServerResponse, allow: string): void {
  sendRpcError(response, 405, RpcCode.Refused, `Method not allowed here; allowed: ${allow}`, null, { allow });
}

