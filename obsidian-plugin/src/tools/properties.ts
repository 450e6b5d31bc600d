// Properties (frontmatter) across the vault, from the metadata cache: every property name with its type and how many
// notes have it; the distinct values of one property with counts; the notes whose property has a value. Types are
// Obsidian's own, from `<configDir>/types.json` (what the Properties view writes when a user picks a type), then its
// built-in ones (tags, aliases, cssclasses), else inferred from the first value and said so. One tool with three
// answers, chosen by which of `name` and `value` are given.

import { z } from "zod";
import { insideVaultChecker, readConfigJson } from "../vault/disk";
import { cursorArg, limitArg, maxCharsArg, pageOf } from "../vault/limits";
import { visibleNotes } from "../vault/notes";
import { Slices } from "../vault/slices";
import { json, pageHead } from "./common";
import { defineTool, ToolError, type ToolContext } from "./types";

/** The types Obsidian gives these properties without a types.json entry. */
const BUILT_IN: Record<string, string> = { tags: "tags", aliases: "aliases", cssclasses: "multitext" };

/** types.json's `types`, keyed by lower-cased property name (the first spelling wins). */
function declaredTypes(ctx: ToolContext): Map<string, string> {
  const types = new Map<string, string>();
  // No types.json (a vault whose properties were never given a type) or not JSON: every type is inferred.
  const declared = (readConfigJson(ctx, "types.json") as { types?: unknown } | null)?.types;
  if (declared && typeof declared === "object" && !Array.isArray(declared)) {
    for (const [name, type] of Object.entries(declared)) {
      if (typeof type === "string" && !types.has(name.toLowerCase())) types.set(name.toLowerCase(), type);
    }
  }
  return types;
}

/** The type Obsidian would guess for a value: a list is multitext, a YYYY-MM-DD string a date, and so on. */
function inferredType(value: unknown): string {
  if (Array.isArray(value)) return "multitext";
  if (typeof value === "boolean") return "checkbox";
  if (typeof value === "number") return "number";
  if (typeof value === "string") {
    if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return "date";
    if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value)) return "datetime";
  }
  return "text";
}

interface NoteProperties {
  path: string;
  frontmatter: Record<string, unknown>;
}

/** Every visible Markdown note (real file inside the vault) with frontmatter, in path order, gathered in slices. */
async function notesWithProperties(ctx: ToolContext, slices: Slices): Promise<NoteProperties[]> {
  const inside = insideVaultChecker(ctx);
  const notes: NoteProperties[] = [];
  for (const file of await visibleNotes(ctx, slices)) {
    if (slices.due()) await slices.pause();
    const frontmatter = ctx.app.metadataCache.getFileCache(file)?.frontmatter;
    if (!frontmatter || Object.keys(frontmatter).length === 0 || !inside(file)) continue;
    notes.push({ path: file.path, frontmatter });
  }
  return notes;
}

/** The note's value of `name`, matched case-insensitively as Obsidian matches property names. */
function valueOf(frontmatter: Record<string, unknown>, name: string): { found: boolean; value?: unknown } {
  const wanted = name.toLowerCase();
  for (const key of Object.keys(frontmatter)) if (key.toLowerCase() === wanted) return { found: true, value: frontmatter[key] };
  return { found: false };
}

/** A scalar as text for matching: strings as they are, anything else as JSON. */
function scalarText(value: unknown): string {
  return (typeof value === "string" ? value : JSON.stringify(value)).toLowerCase();
}

function typeOf(declared: Map<string, string>, key: string, first: unknown): { type: string; inferred?: true } {
  const type = declared.get(key) ?? BUILT_IN[key];
  return type !== undefined ? { type } : { type: inferredType(first), inferred: true };
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export const properties = defineTool({
  name: "properties",
  cache: "wait",
  title: "Properties",
  description:
    "Frontmatter properties across the vault. Without name: every property with its type and note count. With " +
    "name: its distinct values with counts (list items counted one by one). With name and value: the notes whose " +
    "property has that value (or a list holding it).",
  input: {
    name: z.string().min(1).max(200).optional().describe('A property name, e.g. "status" (matched case-insensitively).'),
    value: z
      .union([z.string().max(1000), z.number(), z.boolean()])
      .optional()
      .describe('With name: the value to find, e.g. "done" (case-insensitive; a number or boolean matches as written).'),
    sort: z.enum(["count", "name"]).default("count").describe('Names and values: "count" (most first, default) or "name".'),
    limit: limitArg("entries", 200),
    cursor: cursorArg(),
    max_chars: maxCharsArg(),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const slices = new Slices(ctx.signal, "properties");
    const notes = await notesWithProperties(ctx, slices);
    const declared = declaredTypes(ctx);
    if (args.name === undefined) {
      if (args.value !== undefined) throw new ToolError("value needs name: the property whose value to find");
      const names = new Map<string, { name: string; count: number; first: unknown }>();
      for (const note of notes) {
        if (slices.due()) await slices.pause();
        for (const [key, value] of Object.entries(note.frontmatter)) {
          const entry = names.get(key.toLowerCase());
          if (entry) {
            entry.count++;
            if (entry.first === null) entry.first = value;
          } else names.set(key.toLowerCase(), { name: key, count: 1, first: value });
        }
      }
      const all = [...names.entries()]
        .map(([key, entry]) => ({ name: entry.name, ...typeOf(declared, key, entry.first), count: entry.count }))
        .sort((a, b) => (args.sort === "count" && a.count !== b.count ? b.count - a.count : byText(a.name.toLowerCase(), b.name.toLowerCase())));
      const { page: shown, next } = pageOf(all, args, 300);
      return json({ ...pageHead("properties", args, next), total: all.length, properties: shown });
    }
    const key = args.name.trim().toLowerCase();
    if (key === "") throw new ToolError(`name ${JSON.stringify(args.name)} is not a property name`);
    // One sliced pass that keeps only the notes having it: a map then a filter allocated an object per note and filtered
    // all of them in one piece, which at 100,000 notes held the thread past 50 ms.
    const having: { path: string; value?: unknown }[] = [];
    for (const note of notes) {
      if (slices.due()) await slices.pause();
      const found = valueOf(note.frontmatter, key);
      if (found.found) having.push({ path: note.path, value: found.value });
    }
    const first = having.find((note) => note.value !== null)?.value ?? null;
    const type = typeOf(declared, key, first);
    if (args.value === undefined) {
      const values = new Map<string, { value: unknown; count: number }>();
      for (const note of having) {
        if (slices.due()) await slices.pause();
        // A note counts once per distinct value; an empty property counts as null.
        const items = Array.isArray(note.value) ? note.value : [note.value ?? null];
        const seen = new Set<string>();
        for (const item of items) {
          const id = JSON.stringify(item ?? null);
          if (seen.has(id)) continue;
          seen.add(id);
          const entry = values.get(id);
          if (entry) entry.count++;
          else values.set(id, { value: item ?? null, count: 1 });
        }
      }
      const all = [...values.entries()]
        .sort(([x, a], [y, b]) => (args.sort === "count" && a.count !== b.count ? b.count - a.count : byText(x, y)))
        .map(([, entry]) => entry);
      const { page: shown, next } = pageOf(all, args, 300);
      return json({ ...pageHead("properties", args, next), property: args.name, ...type, notes: having.length, total: all.length, values: shown });
    }
    const wanted = scalarText(args.value);
    const matches = (value: unknown) =>
      Array.isArray(value) ? value.some((item) => item !== null && typeof item !== "object" && scalarText(item) === wanted) : value !== null && typeof value !== "object" && scalarText(value) === wanted;
    const all = (await slices.filter(having, (note) => matches(note.value))).map((note) => ({ path: note.path, value: note.value }));
    const { page: shown, next } = pageOf(all, args, 300);
    return json({ ...pageHead("properties", args, next), property: args.name, value: args.value, total: all.length, notes: shown });
  },
});

export const PROPERTY_TOOLS = [properties];
