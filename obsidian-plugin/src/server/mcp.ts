// The vault's MCP server, built with the official SDK's low-level `Server` from the shared tool definitions. One is
// made per 2025-era session and one per 2026-07-28 request; both get the same handlers, so every tool, limit and
// refusal is the same in both eras. Each tool's `{text}` becomes a text block; a ToolError becomes `isError: true`
// with its message; any other failure becomes `isError: true` with a message that names the tool and the error kind
// but never leaks paths or stacks.
//
// Read-only mode is enforced here, in the plugin: tools/list leaves out the write tools (no `readOnlyHint`) while it
// is on, and a call to one is refused with a plain explanation. Toggling the setting tells connected clients the
// list changed (http.ts sends the notification to every session and listen stream).

import type { App } from "obsidian";
import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { completePromptArgument, getPrompt, listPrompts } from "../prompts/index";
import type { PromptContext } from "../prompts/types";
import { completePath } from "../resources/complete";
import { listPage, PATH_TEMPLATE_ENTRY } from "../resources/listing";
import { readResource } from "../resources/read";
import { PATH_TEMPLATE } from "../resources/uri";
import { ToolError, type CacheUse, type ToolContext, type ToolDef } from "../tools/types";
import type { FileIndex } from "../vault/file-index";
import type { HiddenRules } from "../vault/hidden";
import { INDEX_WAIT_MS, indexingNotice, type IndexingState, type IndexReadiness } from "../vault/indexing";

/** What a server instance needs from the plugin. */
export interface SessionDeps {
  app: App;
  tools: readonly ToolDef[];
  serverInfo: { name: string; version: string };
  isReadOnly(): boolean;
  /** The hidden-path rules in force now (settings and, when asked, Obsidian's excluded files). */
  hiddenRules(): HiddenRules;
  /** The vault's files in path order, for resources and completion. */
  files: FileIndex;
  /** The settings' prompts folder ("" when vault prompts are off). */
  promptsFolder(): string;
  /** Records an unexpected failure for the status line. */
  reportError(message: string): void;
  /** Whether Obsidian's metadata cache is complete, and how far its indexing is. */
  indexing: IndexReadiness;
}

/** Whether a tool may run while the plugin is read-only. */
export function isWriteTool(tool: ToolDef): boolean {
  return tool.annotations.readOnlyHint !== true;
}

/** The refusal a write tool gets in read-only mode. */
export function readOnlyRefusal(name: string): string {
  return `${name} is refused: the obsmcp plugin is in read-only mode for this vault (turn it off in Obsidian: Settings → obsmcp → Read-only)`;
}

const INSTRUCTIONS =
  "Tools for one Obsidian vault, served by the obsmcp plugin inside Obsidian: find with search, list_files or tags, " +
  "then read only what you need (outline, then read_note with a heading or line range; several reads in one batch), " +
  "and make a result's continue_with call when it says truncated. Paths are vault-relative; [[links]] and note names " +
  "work too. Every edit takes expected_hash, the sha256 of your last read, so a note changed meanwhile is never " +
  "overwritten; on a conflict, read again and redo the edit. search speaks Obsidian's syntax: words that must all " +
  'occur anywhere in a note, "an exact phrase", OR, -excluded, tag:#x, path:Folder, line:(a b), [status:done]; with ' +
  "rank: true the most relevant notes come first and any of the words may match.";

/** A tool as the server dispatches it: its definition, its listed form and its argument parser. */
interface Entry {
  def: ToolDef;
  listed: Tool;
  parser: z.ZodObject<z.ZodRawShape>;
}

/**
 * The tool table every server instance shares: schemas are converted once per plugin load, not per request (a
 * 2026-07-28 client gets a fresh instance for every request).
 */
export class ToolTable {
  private readonly entries = new Map<string, Entry>();

  constructor(tools: readonly ToolDef[]) {
    for (const def of tools) {
      const parser = z.object(def.input);
      const inputSchema = z.toJSONSchema(parser, { target: "draft-2020-12", io: "input" }) as Tool["inputSchema"];
      const listed: Tool = { name: def.name, title: def.title, description: def.description, inputSchema, annotations: def.annotations };
      this.entries.set(def.name, { def, listed, parser });
    }
  }

  get(name: string): Entry | undefined {
    return this.entries.get(name);
  }

  /** The listed tools, write tools left out while read-only. */
  list(readOnly: boolean): Tool[] {
    const tools: Tool[] = [];
    for (const entry of this.entries.values()) if (!readOnly || !isWriteTool(entry.def)) tools.push(entry.listed);
    return tools;
  }
}

/**
 * A new server instance for one 2025-era session (with the set its resource subscriptions go to) or one 2026-07-28
 * request (none: that revision subscribes through `subscriptions/listen`).
 */
export function buildServer(deps: SessionDeps, table: ToolTable, subscriptions?: Set<string>): Server {
  const server = new Server(deps.serverInfo, {
    capabilities: {
      logging: {},
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
    },
    instructions: INSTRUCTIONS,
  });
  server.setRequestHandler("tools/list", () => ({ tools: table.list(deps.isReadOnly()) }));
  server.setRequestHandler("tools/call", async (request, ctx) => {
    const { name } = request.params;
    const entry = table.get(name);
    if (!entry) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} not found`);
    return runTool(deps, entry, request.params.arguments, ctx.mcpReq.signal);
  });
  server.setRequestHandler("resources/list", (request, ctx) =>
    listPage(contextOf(deps, ctx.mcpReq.signal), deps.files, request.params?.cursor),
  );
  const subscribing = (uri: string, add: boolean) => {
    if (!subscriptions) {
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, "in 2026-07-28, subscribe with subscriptions/listen (resourceSubscriptions)");
    }
    if (add) subscriptions.add(uri);
    else subscriptions.delete(uri);
    return {};
  };
  server.setRequestHandler("resources/subscribe", (request) => subscribing(request.params.uri, true));
  server.setRequestHandler("resources/unsubscribe", (request) => subscribing(request.params.uri, false));
  server.setRequestHandler("resources/templates/list", () => ({ resourceTemplates: [PATH_TEMPLATE_ENTRY] }));
  server.setRequestHandler("resources/read", (request, ctx) => readResource(contextOf(deps, ctx.mcpReq.signal), request.params.uri));
  server.setRequestHandler("completion/complete", async (request, ctx) => {
    const { ref, argument } = request.params;
    if (ref.type === "ref/prompt") {
      return { completion: await completePromptArgument(promptContext(deps, table, ctx.mcpReq.signal), ref.name, argument.name, argument.value) };
    }
    if (ref.uri !== PATH_TEMPLATE) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `no resource template ${ref.uri}: the vault's is ${PATH_TEMPLATE}`);
    }
    if (argument.name !== "path") {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${PATH_TEMPLATE} has one argument, path, not ${argument.name}`);
    }
    return { completion: await completePath(contextOf(deps, ctx.mcpReq.signal), deps.files, argument.value) };
  });
  server.setRequestHandler("prompts/list", (_request, ctx) => listPrompts(promptContext(deps, table, ctx.mcpReq.signal)));
  server.setRequestHandler("prompts/get", (request, ctx) =>
    getPrompt(promptContext(deps, table, ctx.mcpReq.signal), request.params.name, request.params.arguments),
  );
  server.onerror = (error) => deps.reportError(`MCP transport: ${truncate(error.message, 200)}`);
  return server;
}

async function runTool(deps: SessionDeps, entry: Entry, args: unknown, signal: AbortSignal): Promise<CallToolResult> {
  const tool = entry.def;
  const readOnly = deps.isReadOnly();
  if (readOnly && isWriteTool(tool)) return errorResult(readOnlyRefusal(tool.name));
  const parsed = entry.parser.safeParse(args ?? {});
  // Worded as the SDK's own McpServer words it, which the bridge's offline answers mirror.
  if (!parsed.success) return errorResult(`MCP error -32602: Input validation error: Invalid arguments for tool ${tool.name}: ${issues(parsed.error)}`);
  // The state when the tool starts is what its answer reflects, even if indexing ends while it runs.
  const incomplete = tool.cache ? await incompleteIndex(deps.indexing, tool.cache, signal) : undefined;
  if (incomplete && tool.cache === "refuse") return errorResult(indexingRefusal(tool.name, incomplete));
  try {
    const output = await tool.run(parsed.data, contextOf(deps, signal));
    const text = incomplete ? withIndexingNotice(output.text, incomplete) : output.text;
    return { content: [{ type: "text", text }, ...(output.content ?? [])] };
  } catch (error) {
    if (error instanceof ToolError) return errorResult(error.message);
    const message = `${tool.name} failed unexpectedly (${errorKind(error)})`;
    deps.reportError(message);
    return errorResult(message);
  }
}

/** The indexing state when the cache is not complete (after the tool's wait), `undefined` when it is. */
async function incompleteIndex(indexing: IndexReadiness, use: CacheUse, signal: AbortSignal): Promise<IndexingState | undefined> {
  if (indexing.resolved) return undefined;
  if (use !== "report" && (await indexing.waitResolved(INDEX_WAIT_MS, signal))) return undefined;
  const state = indexing.state();
  return state.resolved ? undefined : state;
}

/**
 * A result with the indexing state at its start, where a client that cuts the end still shows it: the first key of
 * a JSON object, else a first line.
 */
export function withIndexingNotice(text: string, state: IndexingState): string {
  const notice = JSON.stringify(indexingNotice(state));
  if (text.startsWith("{")) return `{"indexing":${notice}${text === "{}" ? "" : ","}${text.slice(1)}`;
  return `indexing: ${notice}\n${text}`;
}

function indexingRefusal(name: string, state: IndexingState): string {
  return (
    `${name} is refused for now: Obsidian is still indexing this vault (${state.done} of ${state.total} notes), and ` +
    "done now it would miss links in notes not indexed yet; nothing was changed. Call again in a few seconds."
  );
}

/** What a prompt of one request is built with: read tools run as a client's call would run them. */
function promptContext(deps: SessionDeps, table: ToolTable, signal: AbortSignal): PromptContext {
  const ctx = contextOf(deps, signal);
  return {
    ctx,
    files: deps.files,
    folder: deps.promptsFolder(),
    async runTool(name, args) {
      const entry = table.get(name);
      if (!entry || isWriteTool(entry.def)) throw new Error(`a prompt may run read tools only, not ${name}`);
      const result = await runTool(deps, entry, args, signal);
      return { text: result.content.map((block) => (block.type === "text" ? block.text : "")).join(""), isError: result.isError === true };
    },
  };
}

/** What a tool, resource read or completion of one request runs with. */
function contextOf(deps: SessionDeps, signal: AbortSignal): ToolContext {
  return { app: deps.app, configDir: deps.app.vault.configDir, readOnly: deps.isReadOnly(), hidden: deps.hiddenRules(), signal, files: deps.files };
}

/** zod's issues, one per line: `message at path.to[0].field` (just the message at the root). */
function issues(error: z.ZodError): string {
  return error.issues.map((issue) => (issue.path.length === 0 ? issue.message : `${issue.message} at ${dotPath(issue.path)}`)).join("\n");
}

function dotPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, segment, index) => {
    if (index === 0) return String(segment);
    return typeof segment === "number" ? `${acc}[${segment}]` : `${acc}.${String(segment)}`;
  }, "");
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/** A description of an unexpected error safe to show: its class and code, never its message (which may hold paths). */
export function errorKind(error: unknown): string {
  if (!(error instanceof Error)) return typeof error;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? `${error.name} ${code}` : error.name;
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
