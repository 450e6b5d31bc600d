// The contract between the MCP server (which registers, lists and dispatches tools) and the tool groups (which
// know the vault). A tool is plain data plus one async function, so the same definitions feed the live server and
// the generated catalog that the Rust bridge embeds.

import type { AudioContent, EmbeddedResource, ImageContent } from "@modelcontextprotocol/server";
import type { z } from "zod";
import type { FileIndex } from "../vault/file-index";
import type { VaultContext } from "../vault/context";

export { ToolError } from "../vault/errors";

/** What every tool run may use: what the vault layer may (../vault/context.ts), the read-only setting and the file
 * index. */
export interface ToolContext extends VaultContext {
  /** The plugin's read-only setting; write tools are refused when it is on (also hidden from tools/list). */
  readOnly: boolean;
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

/** Identity helper that keeps each tool's argument type inferred from its own shape. */
export function defineTool<Shape extends z.ZodRawShape>(def: ToolDef<Shape>): ToolDef<Shape> {
  return def;
}
