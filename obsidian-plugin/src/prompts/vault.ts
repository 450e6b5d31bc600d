// Vault prompts: the Markdown notes inside the prompts folder (subfolders included), each one prompt. Its name is the
// note's name with every run of characters other than A–Z a–z 0–9 _ . - made one "-", and "vault-" before it when
// that is a built-in's name (a note an agent can write must never take a built-in's place unseen); the first note in
// path order wins a name. Its title ends in " (vault)", so a person choosing a prompt sees where it comes from. Frontmatter gives `description` and `arguments` (names, or {name, description, required}); the text
// is the note after its frontmatter, trimmed, with {{argument}} filled in and up to MAX_EMBEDS `![[embeds]]`
// replaced by what read_note gives for them. One pass: nothing filled in or inlined is scanned again. The offline
// reader's twin is src/offline/prompts.rs; the rules are in ./README.md.

import { TFile } from "obsidian";
import { insideVaultChecker, readVerified } from "../vault/disk";
import { hiddenChecker } from "../vault/hidden";
import { splitLines } from "../vault/lines";
import { isInConfigDir } from "../vault/paths";
import { frontmatterRange } from "../vault/sections";
import { BUILTINS } from "./builtin";
import { ARGUMENT_NAME, type PromptArgument, type PromptContext, type PromptEntry } from "./types";

/** What a vault prompt's name gets before it when the note's name is a built-in's. */
export const VAULT_PREFIX = "vault-";

const BUILTIN_NAMES = new Set(BUILTINS.map((builtin) => builtin.name));

/** The most embeds one prompt inlines; later ones stay as written. */
export const MAX_EMBEDS = 10;

/** `{{argument}}` or `![[embed]]`. */
const TOKEN = /\{\{ *([A-Za-z0-9_-]+) *\}\}|!\[\[([^[\]\n]+)\]\]/g;

export interface VaultPrompt extends PromptEntry {
  file: TFile;
}

/** The prompt name a note's name gives, or "" when it has no usable character. */
export function promptName(basename: string): string {
  return basename.replace(/[^A-Za-z0-9_.-]+/g, "-").replace(/^-+|-+$/g, "");
}

/** The vault's prompts by name, from the notes under the prompts folder in path order. */
export function vaultPrompts(p: PromptContext): Map<string, VaultPrompt> {
  const found = new Map<string, VaultPrompt>();
  if (p.folder === "") return found;
  const prefix = `${p.folder}/`;
  const hidden = hiddenChecker(p.ctx);
  const inside = insideVaultChecker(p.ctx);
  for (const entry of p.files.from(prefix)) {
    const { file } = entry;
    if (!file.path.startsWith(prefix)) break;
    if (file.extension !== "md" || isInConfigDir(file.path, p.ctx) || hidden(file.path) || !inside(file)) continue;
    const own = promptName(file.basename);
    const name = BUILTIN_NAMES.has(own) ? `${VAULT_PREFIX}${own}` : own;
    if (own === "" || found.has(name)) continue;
    const frontmatter = p.ctx.app.metadataCache.getFileCache(file)?.frontmatter ?? {};
    found.set(name, {
      name,
      title: `${file.basename} (vault)`,
      description: typeof frontmatter.description === "string" ? frontmatter.description : `Prompt from the vault note ${file.path}`,
      arguments: argumentsOf(frontmatter.arguments),
      file,
    });
  }
  return found;
}

/** The `arguments` of a prompt's frontmatter: names, or mappings with name, description and required. */
function argumentsOf(value: unknown): PromptArgument[] {
  if (!Array.isArray(value)) return [];
  const seen = new Set<string>();
  const parsed: PromptArgument[] = [];
  for (const item of value) {
    const record = typeof item === "object" && item !== null && !Array.isArray(item) ? (item as Record<string, unknown>) : null;
    const name = typeof item === "string" ? item : typeof record?.name === "string" ? record.name : undefined;
    // `__proto__` is no argument: a client's request parser drops that key, so it could never be given.
    if (name === undefined || !ARGUMENT_NAME.test(name) || name === "__proto__" || seen.has(name)) continue;
    seen.add(name);
    const required = record?.required === true;
    parsed.push(typeof record?.description === "string" ? { name, description: record.description, required } : { name, required });
  }
  return parsed;
}

/** A vault prompt's text for these arguments. */
export async function renderVaultPrompt(p: PromptContext, prompt: VaultPrompt, args: Record<string, string>): Promise<string> {
  const lines = splitLines(await readVerified(p.ctx, prompt.file));
  const range = frontmatterRange(lines);
  const body = lines.slice(range ? range.end : 0).join("\n").trim();
  const declared = new Set(prompt.arguments.map((argument) => argument.name));
  const parts: string[] = [];
  let last = 0;
  let embeds = 0;
  for (const match of body.matchAll(TOKEN)) {
    const at = match.index ?? 0;
    parts.push(body.slice(last, at));
    last = at + match[0].length;
    const [whole, argument, embed] = match;
    if (argument !== undefined) {
      parts.push(declared.has(argument) ? (args[argument] ?? "") : whole);
    } else if (embeds < MAX_EMBEDS) {
      embeds += 1;
      const read = await p.runTool("read_note", { path: embed.split("|")[0].trim() });
      parts.push(read.isError ? whole : read.text);
    } else {
      parts.push(whole);
    }
  }
  parts.push(body.slice(last));
  return parts.join("");
}
