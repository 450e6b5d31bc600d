// JSON Canvas 1.0 (`.canvas` files): reading one into nodes and edges an agent can follow, and adding a node or an
// edge without disturbing the rest. Pure text rules shared by the `canvas` and `edit_canvas` tools; the offline
// reader's twin is src/offline/plugin/vault/canvas.rs.
//
// A node belongs to the smallest group whose box holds its whole box (JSON Canvas stores no parent; Obsidian draws
// groups by their boxes). A file node whose file is hidden does not exist, nor do its edges. An edit keeps every
// field the file has, known or not, the order of nodes and edges and their positions, and the file's indentation
// (tabs, as Obsidian writes it, or spaces, or none).

import { ToolError } from "./errors";
import { cutChars } from "./limits";

/** Longest text of a node given in full; longer ones are cut and say so. */
export const NODE_TEXT_CHARS = 1000;

export type CanvasJson = { nodes?: unknown; edges?: unknown; [key: string]: unknown };
type Item = Record<string, unknown>;

/** The canvas's JSON, or a ToolError naming the file when it is not a JSON Canvas. */
export function parseCanvas(path: string, text: string): CanvasJson {
  let parsed: unknown;
  try {
    parsed = text.trim() === "" ? {} : JSON.parse(text);
  } catch {
    throw new ToolError(`${path} is not valid JSON, so not a JSON Canvas; open it in Obsidian to see what is wrong`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new ToolError(`${path} is not a JSON Canvas: its top level is not an object`);
  const canvas = parsed as CanvasJson;
  for (const key of ["nodes", "edges"] as const) {
    if (canvas[key] !== undefined && !Array.isArray(canvas[key])) throw new ToolError(`${path} is not a JSON Canvas: "${key}" is not a list`);
  }
  return canvas;
}

function items(list: unknown): Item[] {
  return Array.isArray(list) ? list.filter((item): item is Item => item !== null && typeof item === "object" && !Array.isArray(item)) : [];
}

const num = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : 0);
const str = (value: unknown) => (typeof value === "string" ? value : undefined);

/** One node as `canvas` reports it. */
export interface NodeRow {
  id: string;
  type: string;
  text?: string;
  text_cut?: true;
  file?: string;
  subpath?: string;
  url?: string;
  label?: string;
  group?: string;
  color?: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface EdgeRow {
  id: string;
  from: string;
  to: string;
  from_side?: string;
  to_side?: string;
  label?: string;
  color?: string;
}

/** The nodes (in file order) and edges of a canvas, as the agent sees them; `hidden` tells which file paths do not exist. */
export function canvasRows(canvas: CanvasJson, hidden: (path: string) => boolean): { nodes: NodeRow[]; edges: EdgeRow[] } {
  const nodes: NodeRow[] = [];
  for (const node of items(canvas.nodes)) {
    const id = str(node.id);
    if (id === undefined) continue;
    const file = str(node.file);
    if (file !== undefined && hidden(file)) continue;
    const row: NodeRow = { id, type: str(node.type) ?? "unknown", x: num(node.x), y: num(node.y), width: num(node.width), height: num(node.height) };
    const text = str(node.text);
    if (text !== undefined) {
      row.text = cutChars(text, NODE_TEXT_CHARS);
      if (row.text.length < text.length) row.text_cut = true;
    }
    if (file !== undefined) row.file = file;
    for (const key of ["subpath", "url", "label", "color"] as const) {
      const value = str(node[key]);
      if (value !== undefined && value !== "") row[key] = value;
    }
    nodes.push(row);
  }
  const groups = nodes.filter((node) => node.type === "group");
  for (const node of nodes) {
    let best: NodeRow | undefined;
    for (const group of groups) {
      if (group === node) continue;
      const holds = group.x <= node.x && group.y <= node.y && group.x + group.width >= node.x + node.width && group.y + group.height >= node.y + node.height;
      if (holds && (best === undefined || group.width * group.height < best.width * best.height)) best = group;
    }
    if (best) node.group = best.id;
  }
  const known = new Set(nodes.map((node) => node.id));
  const edges: EdgeRow[] = [];
  for (const edge of items(canvas.edges)) {
    const id = str(edge.id);
    const from = str(edge.fromNode);
    const to = str(edge.toNode);
    if (id === undefined || from === undefined || to === undefined || !known.has(from) || !known.has(to)) continue;
    const row: EdgeRow = { id, from, to };
    const fromSide = str(edge.fromSide);
    const toSide = str(edge.toSide);
    if (fromSide) row.from_side = fromSide;
    if (toSide) row.to_side = toSide;
    for (const key of ["label", "color"] as const) {
      const value = str(edge[key]);
      if (value !== undefined && value !== "") row[key] = value;
    }
    edges.push(row);
  }
  return { nodes, edges };
}

/** The indentation a canvas file is written with, so that an edit writes it back the same way. */
export function indentOf(text: string): string | number | undefined {
  const found = /\n([ \t]+)"/.exec(text);
  if (!found) return undefined;
  return found[1].startsWith("\t") ? "\t" : found[1].length;
}

/** Serializes an edited canvas in the file's own indentation (a final newline kept when it had one). */
export function writeCanvas(canvas: CanvasJson, original: string): string {
  const out = JSON.stringify(canvas, null, indentOf(original));
  return original.endsWith("\n") ? `${out}\n` : out;
}

/** A fresh 16-hex-digit id, as Obsidian gives nodes and edges, not used in the canvas yet. */
export function newId(canvas: CanvasJson, random: () => number = Math.random): string {
  const used = new Set([...items(canvas.nodes), ...items(canvas.edges)].map((item) => item.id));
  for (;;) {
    let id = "";
    for (let i = 0; i < 16; i++) id += Math.floor(random() * 16).toString(16);
    if (!used.has(id)) return id;
  }
}

/** Where a new node goes when no position is given: to the right of everything, top-aligned with the canvas. */
export function freeSpot(canvas: CanvasJson): { x: number; y: number } {
  const nodes = items(canvas.nodes);
  if (nodes.length === 0) return { x: 0, y: 0 };
  // A loop, not Math.max(...spread): spreading 150,000 nodes into a call overflows the stack (RangeError).
  let right = -Infinity;
  let top = Infinity;
  for (const node of nodes) {
    right = Math.max(right, num(node.x) + num(node.width));
    top = Math.min(top, num(node.y));
  }
  return { x: right + 40, y: top };
}

/** The ids of a canvas's nodes. */
export function nodeIds(canvas: CanvasJson): Set<string> {
  return new Set(items(canvas.nodes).map((node) => str(node.id)).filter((id): id is string => id !== undefined));
}
