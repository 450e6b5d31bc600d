// `.base` files (Obsidian Bases): the YAML a base is saved as, its views, and a view's query evaluated over the
// vault's files with ./bases-expr.ts. Pure rules over plain data (the files and what the metadata cache knows of
// them), so the offline reader (src/offline/plugin/vault/bases/) follows them exactly; stated in ../tools/README.md (bases).

import { ToolError } from "./errors";
import { evaluate, order, shown, truthy, type Row, type Value } from "./bases-expr";
import { MAX_NESTING, parseExpr, type Expr, type Node } from "./bases-parse";
import type { Slices } from "./slices";

export interface BaseView {
  name: string;
  type: string;
  raw: Record<string, unknown>;
}

export interface BaseFile {
  filters: unknown;
  formulas: Record<string, string>;
  views: BaseView[];
}

/** Reads a base's parsed YAML; a ToolError names what is not a base. */
export function baseOf(path: string, yaml: unknown): BaseFile {
  if (yaml === null || yaml === undefined) return { filters: undefined, formulas: {}, views: [] };
  if (typeof yaml !== "object" || Array.isArray(yaml)) throw new ToolError(`${path} is not a base: its top level is not a mapping`);
  const data = yaml as Record<string, unknown>;
  const formulas: Record<string, string> = {};
  if (data.formulas !== undefined && data.formulas !== null) {
    if (typeof data.formulas !== "object" || Array.isArray(data.formulas)) throw new ToolError(`${path}: "formulas" is not a mapping`);
    for (const [name, source] of Object.entries(data.formulas as Record<string, unknown>)) {
      if (typeof source !== "string") throw new ToolError(`${path}: formula ${name} is not an expression (text)`);
      formulas[name] = source;
    }
  }
  const views: BaseView[] = [];
  const list = data.views ?? [];
  if (!Array.isArray(list)) throw new ToolError(`${path}: "views" is not a list`);
  list.forEach((view, index) => {
    if (view === null || typeof view !== "object" || Array.isArray(view)) throw new ToolError(`${path}: view ${index + 1} is not a mapping`);
    const raw = view as Record<string, unknown>;
    views.push({ name: typeof raw.name === "string" ? raw.name : `View ${index + 1}`, type: typeof raw.type === "string" ? raw.type : "table", raw });
  });
  return { filters: data.filters, formulas, views };
}

/** One file of the vault as a query sees it. */
export type FileFacts = Omit<Row, "formula" | "now">;

/** A filter (a text expression, or `and` / `or` / `not` of filters) compiled to a test; unknown shapes refused. */
function compileFilter(filter: unknown, where: string): (row: Row) => boolean {
  if (filter === undefined || filter === null) return () => true;
  if (typeof filter === "string") {
    const expr = parsed(filter, where).expr;
    return (row) => truthy(evaluating(expr, row, filter));
  }
  if (typeof filter === "object" && !Array.isArray(filter)) {
    const entries = Object.entries(filter as Record<string, unknown>);
    if (entries.length !== 1 || !["and", "or", "not"].includes(entries[0][0])) {
      throw new ToolError(`${where}: a filter is a text expression or a mapping with one key, and, or or not`);
    }
    const [key, list] = entries[0];
    if (!Array.isArray(list)) throw new ToolError(`${where}: "${key}" takes a list of filters`);
    const parts = list.map((part) => compileFilter(part, where));
    if (key === "and") return (row) => parts.every((part) => part(row));
    if (key === "or") return (row) => parts.some((part) => part(row));
    return (row) => !parts.some((part) => part(row));
  }
  throw new ToolError(`${where}: a filter is a text expression or a mapping with one key, and, or or not`);
}

function parsed(source: string, where: string): Node {
  try {
    return parseExpr(source);
  } catch (error) {
    if (error instanceof ToolError) throw new ToolError(`${where}: cannot read ${JSON.stringify(shownSource(source))}: ${error.message}`);
    throw error;
  }
}

/** How much of an expression a refusal quotes: a refusal of a 100 KB formula should not cost the agent 100 KB. */
const SHOWN_SOURCE = 200;

/** The expression whole up to SHOWN_SOURCE UTF-16 units, else its start (never half a surrogate pair) and "…". */
function shownSource(source: string): string {
  let units = 0;
  let shown = "";
  for (const c of source) {
    units += c.length;
    if (units > SHOWN_SOURCE) return `${shown}…`;
    shown += c;
  }
  return shown;
}

function evaluating(expr: Expr, row: Row, source: string): Value {
  try {
    return evaluate(expr, row);
  } catch (error) {
    if (error instanceof ToolError && !error.message.startsWith("in ")) throw new ToolError(`in ${JSON.stringify(source)} (${row.path}): ${error.message}`);
    throw error;
  }
}

/** A column id of `order` (or a sort or group property) as an expression: `file.x`, `note.x`, `formula.x` or `x`. */
function columnExpr(id: string, where: string): Expr {
  const dot = id.indexOf(".");
  const head = dot < 0 ? "" : id.slice(0, dot);
  if (head === "file" || head === "formula" || head === "note") return { kind: "name", path: [head, id.slice(dot + 1)] };
  if (id === "") throw new ToolError(`${where}: an empty property name`);
  return { kind: "name", path: ["note", id] };
}

/** A file's facts with the query's time and formulas; one shape for every row, facts read only when asked for. */
class QueryRow implements Row {
  constructor(
    private readonly facts: FileFacts,
    readonly now: number,
    readonly formula: (name: string) => Value,
  ) {}
  get path() {
    return this.facts.path;
  }
  get name() {
    return this.facts.name;
  }
  get basename() {
    return this.facts.basename;
  }
  get folder() {
    return this.facts.folder;
  }
  get ext() {
    return this.facts.ext;
  }
  get size() {
    return this.facts.size;
  }
  get ctime() {
    return this.facts.ctime;
  }
  get mtime() {
    return this.facts.mtime;
  }
  get tags() {
    return this.facts.tags;
  }
  get links() {
    return this.facts.links;
  }
  get properties() {
    return this.facts.properties;
  }
}

export interface ViewResult {
  columns: string[];
  rows: { path: string; group?: unknown; values: unknown[] }[];
  total: number;
  /** What the view asks for that the answer does not show (summaries), to say so. */
  unshown: string[];
}

/** Runs a view of a base over `files` (in path order): the base's filters, the view's, sort, group and limit. */
export async function runView(base: BaseFile, view: BaseView, files: FileFacts[], now: number, where: string, slices: Slices): Promise<ViewResult> {
  const passes = [compileFilter(base.filters, `${where} filters`), compileFilter(view.raw.filters, `${where} view "${view.name}" filters`)];
  const formulas = new Map(Object.entries(base.formulas).map(([name, source]) => [name, { source, ...parsed(source, `${where} formula ${name}`) }]));
  const order_ = Array.isArray(view.raw.order) ? view.raw.order : [];
  const columns = order_.filter((item): item is string => typeof item === "string");
  const columnExprs = columns.map((id) => columnExpr(id, `${where} view "${view.name}" order`));
  const sorts = (Array.isArray(view.raw.sort) ? view.raw.sort : []).map((item) => {
    const entry = item as { property?: unknown; direction?: unknown } | null;
    if (!entry || typeof entry.property !== "string") throw new ToolError(`${where} view "${view.name}" sort: each entry needs a property`);
    return { expr: columnExpr(entry.property, `${where} view "${view.name}" sort`), descending: String(entry.direction ?? "ASC").toUpperCase() === "DESC" };
  });
  const groupBy = view.raw.groupBy as { property?: unknown; direction?: unknown } | undefined;
  const group =
    groupBy && typeof groupBy.property === "string"
      ? { expr: columnExpr(groupBy.property, `${where} view "${view.name}" groupBy`), descending: String(groupBy.direction ?? "ASC").toUpperCase() === "DESC" }
      : null;

  const rows: { path: string; group: Value; values: Value[]; keys: Value[] }[] = [];
  for (const facts of files) {
    if (slices.due()) await slices.pause();
    // The formulas being computed, with their depths: a chain whose depths add up past MAX_NESTING is refused, since
    // each link deepens the evaluator's stack.
    const computing = new Map<string, number>();
    const cache = new Map<string, Value>();
    const row: Row = new QueryRow(facts, now, (name: string): Value => {
      const known = cache.get(name);
      if (known !== undefined) return known;
      const formula = formulas.get(name);
      if (!formula) throw new ToolError(`unknown formula formula.${name}`);
      if (computing.has(name)) throw new ToolError(`formula.${name} depends on itself`);
      let chained = 0;
      for (const depth of computing.values()) chained += depth;
      if (chained + formula.depth > MAX_NESTING) throw new ToolError(`formula.${name}: the formulas it is used through nest deeper than ${MAX_NESTING} levels`);
      computing.set(name, formula.depth);
      const value = evaluating(formula.expr, row, formula.source);
      computing.delete(name);
      cache.set(name, value);
      return value;
    });
    if (!passes.every((pass) => pass(row))) continue;
    rows.push({
      path: facts.path,
      group: group ? evaluating(group.expr, row, "groupBy") : null,
      values: columnExprs.map((expr, i) => evaluating(expr, row, columns[i])),
      keys: sorts.map((sort) => evaluating(sort.expr, row, "sort")),
    });
  }
  // Empty values go last in either direction; equal rows keep path order (the sort is stable).
  const by = (x: Value, y: Value, descending: boolean) => (x === null || y === null || !descending ? order(x, y) : -order(x, y));
  const sorted = await slices.sort(rows, (a, b) => {
    if (group) {
      const byGroup = by(a.group, b.group, group.descending);
      if (byGroup !== 0) return byGroup;
    }
    for (let i = 0; i < sorts.length; i++) {
      const byKey = by(a.keys[i], b.keys[i], sorts[i].descending);
      if (byKey !== 0) return byKey;
    }
    return 0;
  });
  const limit = typeof view.raw.limit === "number" && view.raw.limit > 0 ? Math.floor(view.raw.limit) : rows.length;
  const kept = sorted.slice(0, limit);
  const unshown = view.raw.summaries !== undefined ? ["summaries"] : [];
  return {
    columns,
    rows: kept.map((row) => ({ path: row.path, ...(group ? { group: shown(row.group) } : {}), values: row.values.map(shown) })),
    total: kept.length,
    unshown,
  };
}
