// How a case of obsidian-rules.json becomes tool calls and an answer, for the JavaScript runners: the plugin's test
// against the fake `obsidian` module (obsidian-plugin/test/obsidian-rules.test.mjs) and the real-Obsidian spec
// (tests/obsidian/). The Rust runner (tests/it/offline/vectors.rs) reads the same file with the same rules, written
// again in Rust; README.md in this folder states them once for both.
//
// Every check is answered through the plugin's MCP tools, never through the fake's internals, so the same code runs
// unchanged against real Obsidian, where only the tools can be reached.

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";

/** The vector file, next to this module. */
export const VECTORS_FILE = fileURLToPath(new URL("./obsidian-rules.json", import.meta.url));

/** The vault that holds every case given as `note` text, each at `noteCasePath(id)`. */
export const NOTES_VAULT = "notes";

/** The parsed vector file. */
export function loadVectors(file = VECTORS_FILE) {
  return JSON.parse(fs.readFileSync(file, "utf8"));
}

/** Where a `note` case's text is written in the notes vault. */
export function noteCasePath(id) {
  return `cases/${id}.md`;
}

/** Every vault the cases need, by name: `{ name: { vaultPath: text } }`, the notes vault included. */
export function vaultsOf(vectors) {
  const vaults = { ...vectors.vaults };
  const notes = {};
  for (const kase of vectors.cases) if (kase.note !== undefined) notes[noteCasePath(kase.id)] = kase.note;
  vaults[NOTES_VAULT] = notes;
  return vaults;
}

/** The vault a case runs in. */
export function vaultOf(kase) {
  return kase.note !== undefined ? NOTES_VAULT : kase.vault;
}

/** Writes a vault's files under `dir` (with an empty config folder when the vault has none). */
export function writeVault(dir, files) {
  fs.mkdirSync(path.join(dir, ".obsidian"), { recursive: true });
  for (const [file, text] of Object.entries(files)) {
    const full = path.join(dir, ...file.split("/"));
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, text);
  }
}

/**
 * Waits (at most `ms`) until Obsidian's metadata cache is complete, as the plugin reports it: `vault_info` leads
 * with an `indexing` state while Obsidian is still indexing (obsidian-plugin/src/tools/README.md) and has none, or
 * a complete one, once it is done. Answers judged before that could be short.
 */
export async function waitForIndex(call, ms = 30000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const result = await call("vault_info", {});
    if (result.isError) throw new Error(`vault_info failed: ${result.text}`);
    const { indexing } = JSON.parse(result.text);
    if (indexing === undefined || indexing.complete === true) return;
    if (Date.now() > deadline) throw new Error(`Obsidian still indexing after ${ms} ms: ${JSON.stringify(indexing)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The note a case is about: its `path`, or its own note in the notes vault. */
function subject(kase) {
  return kase.input?.path ?? noteCasePath(kase.id);
}

/**
 * The one tool call a case makes and how its result becomes the answer compared with `expect`. `call(name, args)`
 * must resolve to `{ text, isError }`, the tool result's text and error flag.
 */
export async function answer(kase, call) {
  const input = kase.input ?? {};
  const json = async (name, args) => {
    const result = await call(name, args);
    if (result.isError) throw new Error(`${name} ${JSON.stringify(args)} failed: ${result.text}`);
    return JSON.parse(result.text);
  };
  switch (kase.check) {
    case "resolve": {
      const { links } = await json("outgoing_links", { path: input.from, limit: 500 });
      const found = links.find((link) => link.link === input.link && (input.embed === undefined || link.embed === input.embed));
      return found === undefined ? "not a link" : found.resolved;
    }
    case "links": {
      const { links } = await json("outgoing_links", { path: subject(kase), limit: 500 });
      return links.map((link) => ({ link: link.link, embed: link.embed }));
    }
    case "tags":
      return (await json("note_metadata", { path: subject(kase) })).tags;
    case "aliases":
      return (await json("note_metadata", { path: subject(kase) })).aliases;
    case "frontmatter":
      return (await json("note_metadata", { path: subject(kase) })).frontmatter;
    case "blocks":
      return (await json("note_metadata", { path: subject(kase) })).blocks.map((block) => block.id);
    case "headings":
      return (await json("outline", { path: subject(kase) })).headings.map(({ level, heading }) => ({ level, heading }));
    case "tag_notes":
      return (await json("files_by_tag", { tag: input.tag })).notes.map((note) => note.path);
    case "tag_counts":
      return (await json("tags", { sort: "name" })).tags;
    case "property_type":
      return (await json("properties", { name: input.name })).type;
    case "tasks": {
      const { tasks } = await json("tasks", { path_prefix: subject(kase), status: "all", limit: 100 });
      return tasks.map((task) => ({ line: task.line, status: task.status, complete: COMPLETE.has(task.type) }));
    }
    case "bases": {
      const args = { base: input.base, limit: 100 };
      if (input.view !== undefined) args.view = input.view;
      const result = await call("bases", args);
      if (result.isError) return { error: true };
      const { rows, columns } = JSON.parse(result.text);
      const out = {};
      if ("columns" in kase.expect) out.columns = columns;
      if ("paths" in kase.expect) out.paths = rows.map((row) => row.path);
      if ("values" in kase.expect) out.values = rows.map((row) => row.values);
      return out;
    }
    default:
      throw new Error(`case ${kase.id}: unknown check ${JSON.stringify(kase.check)}`);
  }
}

/** The status types a task counts as complete with (Obsidian: a checked box). */
const COMPLETE = new Set(["done", "cancelled"]);

/**
 * Judges a case's answer: `{ ok, marked, message }`. A case marked `differs` must give its `differs.today` answer
 * (so that a fix, or a new difference, is noticed); any other must give `expect`.
 */
export function judge(kase, actual) {
  const marked = kase.differs !== undefined;
  const wanted = marked ? kase.differs.today : kase.expect;
  const ok = isDeepStrictEqual(actual, wanted);
  const message = ok
    ? ""
    : `${kase.id} (${kase.help}): ${marked ? "marked as differing, but its answer changed" : "documented"} ` +
      `${JSON.stringify(wanted)}, got ${JSON.stringify(actual)}`;
  return { ok, marked, message };
}

/** Cases counted by area (the part of the id before the first `/`). */
export function countByArea(cases) {
  const counts = {};
  for (const kase of cases) {
    const area = kase.id.split("/")[0];
    counts[area] = (counts[area] ?? 0) + 1;
  }
  return counts;
}
