// The expression language of Obsidian Bases (filters and formulas in `.base` files), the common subset obsmcp
// evaluates: literals (strings in single or double quotes, numbers, true, false, null, lists `[a, b]`); properties
// (`status`, `note.status`, `note["two words"]`), the file's own (`file.name`, `file.basename`, `file.path`,
// `file.folder`, `file.ext`, `file.size`, `file.ctime`, `file.mtime`, `file.tags`) and formulas (`formula.x`); the
// operators `!`, unary `-`, `* / %`, `+ -`, `== != < <= > >=`, `&&`, `||` and parentheses; the functions `if(c, a,
// b)`, `now()`, `today()`, `date("YYYY-MM-DD…")`, `file.hasTag(…)`, `file.inFolder(f)`, `file.hasLink(n)`,
// `file.hasProperty(p)`, and the methods `.contains(x)`, `.startsWith(s)`, `.endsWith(s)`, `.isEmpty()`,
// `.lower()`, `.upper()`, `.length`. Anything else is refused with an error naming it, never guessed: a row set is
// right or the query fails. Evaluation never runs code. The syntax is ./bases-parse.ts; the offline twin is
// src/offline/plugin/vault/bases/eval.rs; the rules are in ../tools/README.md (bases).

import { ToolError } from "./errors";
import type { Expr } from "./bases-parse";
import { parseDuration, shiftDate } from "./bases-duration";
import type { Value } from "./bases-value";

export type { Value };

/** What an expression is evaluated against: one file and what the vault knows of it. */
export interface Row {
  path: string;
  name: string;
  basename: string;
  folder: string;
  ext: string;
  size: number;
  ctime: number;
  mtime: number;
  /** Tags without "#" (frontmatter and inline), as written. */
  tags: string[];
  /** Link targets (resolved paths, or link paths when unresolved). */
  links: string[];
  properties: Record<string, unknown>;
  /** The formulas of the base, evaluated on demand (and cycles refused). */
  formula: (name: string) => Value;
  /** The time the query started (now() and today() are the same for every row). */
  now: number;
}

/** A property's value as an expression value: dates in YYYY-MM-DD[THH:mm[:ss]] stay text, as Bases compares them. */
export function toValue(raw: unknown): Value {
  if (raw === undefined || raw === null) return null;
  if (typeof raw === "string" || typeof raw === "number" || typeof raw === "boolean") return raw;
  if (Array.isArray(raw)) return raw.map(toValue);
  return JSON.stringify(raw);
}

const isDate = (value: Value): value is { date: number } => value !== null && typeof value === "object" && !Array.isArray(value);

export function truthy(value: Value): boolean {
  if (value === null || value === false || value === 0 || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

function text(value: Value): string {
  if (value === null) return "";
  if (isDate(value)) return new Date(value.date).toISOString();
  if (Array.isArray(value)) return value.map(text).join(", ");
  return String(value);
}

/** Parses `date("…")`'s argument: YYYY-MM-DD, optionally with THH:mm or THH:mm:ss, in UTC. */
function parseDate(raw: string): number {
  const found = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(raw.trim());
  if (!found) throw new ToolError(`date(${JSON.stringify(raw)}) is not YYYY-MM-DD or YYYY-MM-DDTHH:mm[:ss]`);
  const [, y, mo, d, h = "0", mi = "0", s = "0"] = found;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(ms)) throw new ToolError(`date(${JSON.stringify(raw)}) is not a date`);
  return ms;
}

function equal(a: Value, b: Value): boolean {
  if (isDate(a) && isDate(b)) return a.date === b.date;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => equal(item, b[i]));
  return a === b;
}

function compare(op: string, a: Value, b: Value): boolean {
  let x: number | string;
  let y: number | string;
  if (typeof a === "number" && typeof b === "number") [x, y] = [a, b];
  else if (typeof a === "string" && typeof b === "string") [x, y] = [a, b];
  else if (isDate(a) && isDate(b)) [x, y] = [a.date, b.date];
  else if (a === null || b === null) return false;
  else throw new ToolError(`cannot compare ${kindOf(a)} with ${kindOf(b)} (${op})`);
  return op === "<" ? x < y : op === "<=" ? x <= y : op === ">" ? x > y : x >= y;
}

function kindOf(value: Value): string {
  if (value === null) return "null";
  if (isDate(value)) return "a date";
  if (Array.isArray(value)) return "a list";
  return `a ${typeof value}`;
}

const folded = (value: string) => value.toLowerCase();

/** Evaluates `expr` for `row`; unknown names, functions and type mismatches are ToolErrors naming them. */
export function evaluate(expr: Expr, row: Row): Value {
  switch (expr.kind) {
    case "lit":
      return expr.value;
    case "list":
      return expr.items.map((item) => evaluate(item, row));
    case "name":
      return nameValue(expr.path, row);
    case "unary": {
      const value = evaluate(expr.operand, row);
      if (expr.op === "!") return !truthy(value);
      if (value === null) return null;
      if (typeof value !== "number") throw new ToolError(`cannot negate ${kindOf(value)}`);
      return -value;
    }
    case "binary":
      return binaryValue(expr, row);
    case "call":
      return callValue(expr, row);
    case "member": {
      const target = evaluate(expr.target, row);
      if (expr.name === "length" && (typeof target === "string" || Array.isArray(target))) return target.length;
      if (expr.name === "length" && target === null) return null;
      throw new ToolError(`unknown member .${expr.name} of ${kindOf(target)} (bases knows .length)`);
    }
    case "method":
      return methodValue(expr, row);
    case "index": {
      const target = evaluate(expr.target, row);
      const index = evaluate(expr.index, row);
      if (target === null) return null;
      if (!Array.isArray(target) || typeof index !== "number" || !Number.isInteger(index)) {
        throw new ToolError(`cannot index ${kindOf(target)} with ${kindOf(index)} (bases indexes lists with whole numbers)`);
      }
      return index >= 0 && index < target.length ? target[index] : null;
    }
  }
}

function nameValue(path: string[], row: Row): Value {
  const [head, field] = path;
  if (path.length > 1 && head === "formula") return row.formula(field);
  if (path.length === 1 || head === "note") {
    const key = path.length === 1 ? head : field;
    const wanted = key.toLowerCase();
    const properties = row.properties;
    // The first key that matches, in key order (without copying the keys into an array for every row).
    for (const candidate in properties) {
      // A key spelled as asked matches without being lower-cased.
      if (candidate === key || candidate.toLowerCase() === wanted) return toValue(properties[candidate]);
    }
    return null;
  }
  switch (field) {
    case "name":
      return row.name;
    case "basename":
      return row.basename;
    case "path":
      return row.path;
    case "folder":
      return row.folder;
    case "ext":
      return row.ext;
    case "size":
      return row.size;
    case "ctime":
      return { date: row.ctime };
    case "mtime":
      return { date: row.mtime };
    case "tags":
      return row.tags.map((tag) => `#${tag}`);
  }
  throw new ToolError(`unknown file property file.${field} (bases knows name, basename, path, folder, ext, size, ctime, mtime, tags)`);
}

function binaryValue(expr: Extract<Expr, { kind: "binary" }>, row: Row): Value {
  if (expr.op === "&&") return truthy(evaluate(expr.left, row)) && truthy(evaluate(expr.right, row));
  if (expr.op === "||") return truthy(evaluate(expr.left, row)) || truthy(evaluate(expr.right, row));
  const a = evaluate(expr.left, row);
  const b = evaluate(expr.right, row);
  switch (expr.op) {
    case "==":
      return equal(a, b);
    case "!=":
      return !equal(a, b);
    case "<":
    case "<=":
    case ">":
    case ">=":
      return compare(expr.op, a, b);
    case "+":
      if (typeof a === "number" && typeof b === "number") return a + b;
      if (isDate(a) && typeof b === "string") {
        const duration = parseDuration(b);
        if (duration) return { date: shiftDate(a.date, duration, 1) };
      }
      if (typeof a === "string" || typeof b === "string") return text(a) + text(b);
      // An empty property makes the sum empty, as Bases shows it.
      if (a === null || b === null) return null;
      throw new ToolError(`cannot add ${kindOf(a)} and ${kindOf(b)}`);
  }
  if (expr.op === "-" && isDate(a)) {
    // A date minus a date is the milliseconds between them; minus a duration, an earlier date.
    if (isDate(b)) return a.date - b.date;
    const duration = typeof b === "string" ? parseDuration(b) : null;
    if (duration) return { date: shiftDate(a.date, duration, -1) };
  }
  if (a === null || b === null) return null;
  if (typeof a !== "number" || typeof b !== "number") throw new ToolError(`"${expr.op}" needs numbers, not ${kindOf(a)} and ${kindOf(b)}`);
  if (expr.op === "-") return a - b;
  if (expr.op === "*") return a * b;
  if (b === 0) return null;
  return expr.op === "/" ? a / b : a % b;
}

function one(expr: Extract<Expr, { kind: "call" | "method" }>, row: Row, count: number): Value[] {
  if (expr.args.length !== count) {
    const name = expr.kind === "call" ? expr.callee.join(".") : `.${expr.name}`;
    throw new ToolError(`${name}() takes ${count} argument${count === 1 ? "" : "s"}, not ${expr.args.length}`);
  }
  return expr.args.map((arg) => evaluate(arg, row));
}

function callValue(expr: Extract<Expr, { kind: "call" }>, row: Row): Value {
  const name = expr.callee.join(".");
  switch (name) {
    case "if": {
      if (expr.args.length < 2 || expr.args.length > 3) throw new ToolError(`if() takes 2 or 3 arguments, not ${expr.args.length}`);
      if (truthy(evaluate(expr.args[0], row))) return evaluate(expr.args[1], row);
      return expr.args.length === 3 ? evaluate(expr.args[2], row) : null;
    }
    case "now":
      one(expr, row, 0);
      return { date: row.now };
    case "today": {
      one(expr, row, 0);
      const day = new Date(row.now);
      return { date: Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate()) };
    }
    case "date": {
      const [raw] = one(expr, row, 1);
      if (typeof raw !== "string") throw new ToolError(`date() takes a text, not ${kindOf(raw)}`);
      return { date: parseDate(raw) };
    }
    case "file.hasTag": {
      if (expr.args.length === 0) throw new ToolError("file.hasTag() takes at least one tag");
      const wanted = expr.args.map((arg) => evaluate(arg, row)).map((tag) => folded(text(tag)).replace(/^#/, ""));
      return row.tags.some((tag) => wanted.some((want) => folded(tag) === want || folded(tag).startsWith(`${want}/`)));
    }
    case "file.inFolder": {
      const [folder] = one(expr, row, 1);
      const wanted = text(folder).replace(/^\/+|\/+$/g, "");
      return wanted === "" || row.folder === wanted || row.folder.startsWith(`${wanted}/`);
    }
    case "file.hasLink": {
      const [target] = one(expr, row, 1);
      const wanted = folded(text(target).replace(/^\[\[|\]\]$/g, "").replace(/\.md$/i, ""));
      return row.links.some((link) => {
        const bare = folded(link.replace(/\.md$/i, ""));
        return bare === wanted || bare.endsWith(`/${wanted}`);
      });
    }
    case "file.hasProperty": {
      const [property] = one(expr, row, 1);
      const wanted = folded(text(property));
      return Object.keys(row.properties).some((key) => folded(key) === wanted);
    }
    case "list": {
      const [item] = one(expr, row, 1);
      return Array.isArray(item) ? item : [item];
    }
    case "max":
    case "min": {
      if (expr.args.length === 0) throw new ToolError(`${name}() takes at least one number`);
      const values = expr.args.map((arg) => evaluate(arg, row));
      if (values.some((value) => value === null)) return null;
      const bad = values.find((value) => typeof value !== "number");
      if (bad !== undefined) throw new ToolError(`${name}() takes numbers, not ${kindOf(bad)}`);
      return name === "max" ? Math.max(...(values as number[])) : Math.min(...(values as number[]));
    }
    case "number": {
      const [value] = one(expr, row, 1);
      if (value === null || typeof value === "number") return value;
      if (typeof value === "boolean") return value ? 1 : 0;
      if (isDate(value)) return value.date;
      if (typeof value === "string" && NUMBER_TEXT.test(value.trim())) return Number(value.trim());
      throw new ToolError(`number() cannot read ${JSON.stringify(text(value))} as a number`);
    }
  }
  throw new ToolError(`unknown function ${name}() (bases knows if, now, today, date, list, max, min, number, file.hasTag, file.inFolder, file.hasLink, file.hasProperty)`);
}

function methodValue(expr: Extract<Expr, { kind: "method" }>, row: Row): Value {
  const target = evaluate(expr.target, row);
  switch (expr.name) {
    case "contains": {
      const [item] = one(expr, row, 1);
      if (Array.isArray(target)) return target.some((candidate) => equal(candidate, item) || (typeof candidate === "string" && typeof item === "string" && folded(candidate) === folded(item)));
      if (typeof target === "string") return folded(target).includes(folded(text(item)));
      if (target === null) return false;
      break;
    }
    case "startsWith":
    case "endsWith": {
      const [part] = one(expr, row, 1);
      if (target === null) return false;
      if (typeof target === "string") return expr.name === "startsWith" ? target.startsWith(text(part)) : target.endsWith(text(part));
      break;
    }
    case "isEmpty":
      one(expr, row, 0);
      return target === null || target === "" || (Array.isArray(target) && target.length === 0);
    case "lower":
    case "upper":
      one(expr, row, 0);
      if (typeof target === "string") return expr.name === "lower" ? target.toLowerCase() : target.toUpperCase();
      if (target === null) return null;
      break;
    case "abs":
    case "ceil":
    case "floor":
      one(expr, row, 0);
      if (typeof target === "number") return Math[expr.name](target);
      if (target === null) return null;
      break;
    case "round": {
      if (expr.args.length > 1) throw new ToolError(`.round() takes 0 or 1 argument, not ${expr.args.length}`);
      const digits = expr.args.length === 1 ? evaluate(expr.args[0], row) : 0;
      if (target === null) return null;
      if (typeof target === "number" && typeof digits === "number" && Number.isInteger(digits) && digits >= 0 && digits <= 15) {
        const scale = 10 ** digits;
        return Math.round(target * scale) / scale;
      }
      break;
    }
    case "toFixed": {
      const [precision] = one(expr, row, 1);
      if (target === null) return null;
      if (typeof target === "number" && typeof precision === "number" && Number.isInteger(precision) && precision >= 0 && precision <= 20 && Math.abs(target) < 1e21) {
        return target.toFixed(precision);
      }
      break;
    }
    case "trim":
    case "title":
      one(expr, row, 0);
      if (target === null) return null;
      if (typeof target === "string") return expr.name === "trim" ? target.trim() : titleCase(target);
      break;
    case "join": {
      const [separator] = one(expr, row, 1);
      if (target === null) return null;
      if (Array.isArray(target)) return target.map(text).join(text(separator));
      break;
    }
    default:
      throw new ToolError(
        `unknown method .${expr.name}() (bases knows contains, startsWith, endsWith, isEmpty, lower, upper, abs, ceil, floor, round, toFixed, trim, title, join)`,
      );
  }
  throw new ToolError(`.${expr.name}() does not apply to ${kindOf(target)}`);
}

/** Text `number()` reads: decimal digits with an optional sign, fraction and exponent (no hex, no `Infinity`). */
const NUMBER_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** `.title()`: the first character of each run of non-whitespace upper-cased, the rest as written. */
function titleCase(value: string): string {
  return value.replace(/(^|\s)(\S)/gu, (_, space: string, first: string) => space + first.toUpperCase());
}

/** A value as a result shows it: dates as ISO text, everything else as it is. */
export function shown(value: Value): unknown {
  if (isDate(value)) return new Date(value.date).toISOString();
  if (Array.isArray(value)) return value.map(shown);
  return value;
}

/** Orders two values for sorting: nulls last, numbers and dates numerically, anything else as text. */
export function order(a: Value, b: Value): number {
  if (a === null || b === null) return a === null ? (b === null ? 0 : 1) : -1;
  const x = isDate(a) ? a.date : a;
  const y = isDate(b) ? b.date : b;
  if (typeof x === "number" && typeof y === "number") return x - y;
  const sx = typeof x === "string" ? x : text(a);
  const sy = typeof y === "string" ? y : text(b);
  return sx < sy ? -1 : sx > sy ? 1 : 0;
}
