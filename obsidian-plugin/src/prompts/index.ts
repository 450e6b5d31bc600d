// prompts/list, prompts/get and the completion of prompt arguments: the built-in prompts and the vault's own (a vault
// note named like a built-in is listed as "vault-NAME" beside it, never in its place), sorted by name.

import { ProtocolError, ProtocolErrorCode, type CompleteResult, type GetPromptResult } from "@modelcontextprotocol/server";
import { completePath } from "../resources/complete";
import { BUILTINS } from "./builtin";
import type { PromptContext, PromptEntry } from "./types";
import { renderVaultPrompt, vaultPrompts } from "./vault";

/** Arguments whose values are vault files, completed like the file template's path. */
const FILE_ARGUMENTS = new Set(["path", "note"]);

export function listPrompts(p: PromptContext): { prompts: PromptEntry[] } {
  const prompts = [...BUILTINS, ...vaultPrompts(p).values()]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(({ name, title, description, arguments: args }) => ({ name, title, description, arguments: args }));
  return { prompts };
}

export async function getPrompt(p: PromptContext, name: string, given: Record<string, string> | undefined): Promise<GetPromptResult> {
  const builtin = BUILTINS.find((each) => each.name === name);
  const vault = builtin ? undefined : vaultPrompts(p).get(name);
  const prompt = builtin ?? vault;
  if (!prompt) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${name} not found`);
  // Own properties only, in an object without a prototype: an argument named `constructor` or `toString` that was
  // not sent is missing, as offline, not Object.prototype's function.
  const args: Record<string, string> = Object.assign(Object.create(null) as Record<string, string>, given);
  for (const argument of prompt.arguments) {
    if (argument.required && (args[argument.name] ?? "") === "") {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `prompt ${name} needs the argument ${argument.name}`);
    }
  }
  const text = vault ? await renderVaultPrompt(p, vault, args) : await (builtin as (typeof BUILTINS)[number]).render(p, args);
  return { description: prompt.description, messages: [{ role: "user", content: { type: "text", text } }] };
}

/** Completion of a prompt's argument: vault files for `path` and `note`, nothing for the others. */
export async function completePromptArgument(p: PromptContext, name: string, argument: string, typed: string): Promise<CompleteResult["completion"]> {
  const prompt = BUILTINS.find((each) => each.name === name) ?? vaultPrompts(p).get(name);
  if (!prompt) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${name} not found`);
  if (!prompt.arguments.some((each) => each.name === argument)) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `prompt ${name} has no argument ${argument}`);
  }
  if (!FILE_ARGUMENTS.has(argument)) return { values: [], total: 0, hasMore: false };
  return completePath(p.ctx, p.files, typed);
}
