// One MCP server per session, built with the official SDK from the shared tool definitions. Each tool's `{text}`
// becomes a text block; a ToolError becomes `isError: true` with its message; any other failure becomes
// `isError: true` with a message that names the tool and the error kind but never leaks paths or stacks.
//
// Read-only mode is enforced here, in the plugin: write tools (no `readOnlyHint`) are disabled, which hides them
// from tools/list, and a gate in front of the session refuses calls to them with a plain explanation (the SDK's own
// answer for a disabled tool would only say "disabled"). Toggling the setting re-enables or disables them on live
// sessions, and the SDK then sends notifications/tools/list_changed.

import type { App } from "obsidian";
import { McpServer, type RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  isJSONRPCRequest,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
import { ToolError, type ToolDef } from "../tools/types";
import type { HiddenRules } from "../vault/hidden";

/** What a session server needs from the plugin. */
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

/** A session's MCP server plus the handles needed to apply read-only changes. */
export class SessionServer {
  readonly mcp: McpServer;
  private readonly writeTools = new Map<string, RegisteredTool>();

  constructor(private readonly deps: SessionDeps) {
    this.mcp = new McpServer(deps.serverInfo, {
      capabilities: { logging: {}, tools: { listChanged: true }, resources: {}, prompts: {} },
      instructions: INSTRUCTIONS,
    });
    for (const tool of deps.tools) {
      const registered = this.mcp.registerTool(
        tool.name,
        { title: tool.title, description: tool.description, inputSchema: tool.input, annotations: tool.annotations },
        (args: Record<string, unknown>, extra: { signal: AbortSignal }) => this.run(tool, args, extra.signal),
      );
      if (isWriteTool(tool)) this.writeTools.set(tool.name, registered);
    }
    // The SDK installs tools/list only with the first registered tool; an empty catalog must still be listable.
    if (deps.tools.length === 0) this.mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
    // The vault is offered through tools only; empty resource and prompt lists answer clients that ask anyway
    // instead of failing their listing with -32601.
    this.mcp.server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [] }));
    this.mcp.server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [] }));
    this.mcp.server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [] }));
    this.applyReadOnly(deps.isReadOnly());
  }

  /** Connects the server to a transport, with the read-only gate in front of it. */
  async connect(transport: Transport): Promise<void> {
    await this.mcp.connect(transport);
    const deliver = transport.onmessage;
    transport.onmessage = (message: JSONRPCMessage, extra) => {
      const refused = this.refusedCall(message);
      if (refused === undefined) {
        deliver?.(message, extra);
        return;
      }
      const result: CallToolResult = { content: [{ type: "text", text: refused.text }], isError: true };
      transport.send({ jsonrpc: "2.0", id: refused.id, result }, { relatedRequestId: refused.id }).catch((error) => {
        this.deps.reportError(`could not send a read-only refusal: ${errorKind(error)}`);
      });
    };
  }

  /** Hides (read-only) or shows the write tools; the SDK tells connected clients the list changed. */
  applyReadOnly(readOnly: boolean): void {
    for (const tool of this.writeTools.values()) {
      if (tool.enabled === !readOnly) continue;
      if (readOnly) tool.disable();
      else tool.enable();
    }
  }

  close(): Promise<void> {
    return this.mcp.close();
  }

  private refusedCall(message: JSONRPCMessage): { id: string | number; text: string } | undefined {
    if (!isJSONRPCRequest(message) || message.method !== "tools/call" || !this.deps.isReadOnly()) return undefined;
    const name = (message.params as { name?: unknown } | undefined)?.name;
    if (typeof name !== "string" || !this.writeTools.has(name)) return undefined;
    return { id: message.id, text: readOnlyRefusal(name) };
  }

  private async run(tool: ToolDef, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    const readOnly = this.deps.isReadOnly();
    if (readOnly && isWriteTool(tool)) return errorResult(readOnlyRefusal(tool.name));
    try {
      const ctx = { app: this.deps.app, configDir: this.deps.app.vault.configDir, readOnly, hidden: this.deps.hiddenRules(), signal };
      const output = await tool.run(args, ctx);
      return { content: [{ type: "text", text: output.text }] };
    } catch (error) {
      if (error instanceof ToolError) return errorResult(error.message);
      const message = `${tool.name} failed unexpectedly (${errorKind(error)})`;
      this.deps.reportError(message);
      return errorResult(message);
    }
  }
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
