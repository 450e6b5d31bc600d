// The contract between the MCP server (which registers, lists and dispatches tools) and the tool groups (which
// know the vault). A tool is plain data plus one async function, so the same definitions feed the live server and
// the generated catalog that the Rust bridge embeds.

import type { AudioContent, EmbeddedResource, ImageContent } from "@modelcontextprotocol/server";
import type { App } from "obsidian";
import type { z } from "zod";
import type { FileIndex } from "../vault/file-index";
import type { HiddenRules } from "../vault/hidden";

/** What every tool run may use. */
export interface ToolContext {
  app: App;
  /** The vault's config folder (`app.vault.configDir`); tools never read or write inside it. */
  configDir: string;
  /** The plugin's read-only setting; write tools are refused when it is on (also hidden from tools/list). */
  readOnly: boolean;
  /** The hidden-path rules in force for this call: what they hide does not exist for any tool. */
  hidden: HiddenRules;
  /** Aborted when the client cancels the request or the session ends. */
  signal: AbortSignal;
  /** The vault's files in path order, kept up to date by Obsidian's events (../vault/file-index.ts). */
  files: FileIndex;
}

/** MCP tool annotations; `readOnlyHint` is required so that policy never has to guess. */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** What a tool returns: the text shown to the agent, and for an attachment the block that carries it. */
export interface ToolOutput {
  text: string;
  /** Content after the text block (read_attachment's image, audio or embedded resource). */
  content?: (ImageContent | AudioContent | EmbeddedResource)[];
}

/**
 * How a tool's answer depends on Obsidian's metadata cache while Obsidian is still indexing (../vault/indexing.ts):
 * `wait` waits up to INDEX_WAIT_MS for it, then answers with the indexing state at the start of its result;
 * `report` answers at once, with the state at the start; `refuse` waits, then refuses (a write that would be done
 * wrong on an incomplete cache, such as a move that must update every link). Absent: the cache plays no part.
 */
export type CacheUse = "wait" | "report" | "refuse";

/** A tool definition. `input` is a zod object shape; the SDK turns it into the JSON schema with `required`. */
export interface ToolDef<Shape extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: Shape;
  annotations: ToolAnnotations;
  cache?: CacheUse;
  run(args: z.infer<z.ZodObject<Shape>>, ctx: ToolContext): Promise<ToolOutput>;
}

/** A failure the agent should see as a tool result with `isError: true` and this message. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolError";
  }
}

/** Identity helper that keeps each tool's argument type inferred from its own shape. */
export function defineTool<Shape extends z.ZodRawShape>(def: ToolDef<Shape>): ToolDef<Shape> {
  return def;
}
