// What a prompt is made from and what making one may use. A prompt's text is built from notes and tool results,
// never run: no code in a note (Templater, DataviewJS, scripts) is executed.

import type { ToolContext } from "../tools/types";
import type { FileIndex } from "../vault/file-index";

/** One argument a prompt takes. */
export interface PromptArgument {
  name: string;
  description?: string;
  required: boolean;
}

/** A prompt as prompts/list shows it. */
export interface PromptEntry {
  name: string;
  title: string;
  description: string;
  arguments: PromptArgument[];
}

/** A tool's answer when a prompt runs it to build its text. */
export interface ToolAnswer {
  text: string;
  isError: boolean;
}

/** What building a prompt may use. */
export interface PromptContext {
  ctx: ToolContext;
  files: FileIndex;
  /** The settings' prompts folder ("" when vault prompts are off). */
  folder: string;
  /** Runs a read tool with these arguments (its schema's defaults filled), as a client's call would. */
  runTool(name: string, args: Record<string, unknown>): Promise<ToolAnswer>;
}

/** Argument names a vault prompt may declare: they appear as {{name}} in its text. */
export const ARGUMENT_NAME = /^[A-Za-z0-9_-]+$/;
