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
  ResourceNotFoundError,
  Server,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { ToolError, type ToolDef } from "../tools/types";
import type { HiddenRules } from "../vault/hidden";

/** What a server instance needs from the plugin. */
export interface SessionDeps {
  app: App;
  tools: readonly ToolDef[];
  serverInfo: { name: string; version: string };
  isReadOnly(): boolean;
  /** The hidden-path rules in force now (settings and, when asked, Obsidian's excluded files). */
  hiddenRules(): HiddenRules;
  /** Records an unexpected failure for the status line. */
  reportError(message: string): void;
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
  "overwritten; on a conflict, read again and redo the edit.";

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

/** A new server instance for one 2025-era session or one 2026-07-28 request. */
export function buildServer(deps: SessionDeps, table: ToolTable): Server {
  const server = new Server(deps.serverInfo, {
    capabilities: { logging: {}, tools: { listChanged: true }, resources: {}, prompts: {} },
    instructions: INSTRUCTIONS,
  });
  server.setRequestHandler("tools/list", () => ({ tools: table.list(deps.isReadOnly()) }));
  server.setRequestHandler("tools/call", async (request, ctx) => {
    const { name } = request.params;
    const entry = table.get(name);
    if (!entry) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} not found`);
    return runTool(deps, entry, request.params.arguments, ctx.mcpReq.signal);
  });
  // The vault is offered through tools only; empty resource and prompt lists answer clients that ask anyway
  // instead of failing their listing with -32601, and a read or get names what it did not find.
  server.setRequestHandler("resources/list", () => ({ resources: [] }));
  server.setRequestHandler("resources/templates/list", () => ({ resourceTemplates: [] }));
  server.setRequestHandler("resources/read", (request) => {
    throw new ResourceNotFoundError(request.params.uri);
  });
  server.setRequestHandler("prompts/list", () => ({ prompts: [] }));
  server.setRequestHandler("prompts/get", (request) => {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${request.params.name} not found`);
  });
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
  try {
    const ctx = { app: deps.app, configDir: deps.app.vault.configDir, readOnly, hidden: deps.hiddenRules(), signal };
    const output = await tool.run(parsed.data, ctx);
    return { content: [{ type: "text", text: output.text }] };
  } catch (error) {
    if (error instanceof ToolError) return errorResult(error.message);
    const message = `${tool.name} failed unexpectedly (${errorKind(error)})`;
    deps.reportError(message);
    return errorResult(message);
  }
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
