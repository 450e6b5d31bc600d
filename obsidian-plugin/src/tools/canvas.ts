// Canvas tools over JSON Canvas files (rules in ../vault/canvas.ts): `canvas` reads one as nodes (with the group each
// sits in) and edges, a page of nodes at a time with the edges that leave them; `edit_canvas` adds a node and/or an
// edge through `vault.process`, guarded by the file's hash, keeping everything else as it was.

import { z } from "zod";
import { TFile } from "obsidian";
import { canvasRows, freeSpot, newId, nodeIds, parseCanvas, writeCanvas, type CanvasJson } from "../vault/canvas";
import { contentHash } from "../vault/hash";
import { hiddenChecker, visibleAt } from "../vault/hidden";
import { countWithinBudget, cursorArg, limitArg, maxCharsArg, offsetFromCursor } from "../vault/limits";
import { readVerified } from "../vault/disk";
import { cleanVaultPath } from "../vault/paths";
import { resolveNote } from "../vault/resolve";
import { expectedHashArg, json, pageHead, pathArg, writeTool } from "./common";
import { defineTool, ToolError, type ToolContext } from "./types";
import { editNote } from "./write";

function canvasFile(ctx: ToolContext, raw: string): TFile {
  const { file } = resolveNote(ctx, raw);
  if (file.extension.toLowerCase() !== "canvas") throw new ToolError(`${file.path} is not a canvas (.canvas file)`);
  return file;
}

export const canvas = defineTool({
  name: "canvas",
  title: "Read canvas",
  description:
    "A canvas (.canvas, JSON Canvas) as nodes (text, file, link, group; position, size, the group each sits in) and " +
    "edges, a page of nodes at a time with the edges leaving them, and the file's sha256 for edit_canvas.",
  input: {
    path: pathArg,
    limit: limitArg("nodes", 200),
    cursor: cursorArg(),
    max_chars: maxCharsArg(),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const file = canvasFile(ctx, args.path);
    const text = await readVerified(ctx, file);
    const hidden = hiddenChecker(ctx);
    const { nodes, edges } = canvasRows(parseCanvas(file.path, text), (path) => hidden(path.replace(/^\/+/, "")));
    const offset = offsetFromCursor(args.cursor);
    const window = nodes.slice(offset, offset + args.limit);
    // A node's cost includes the edges that leave it, which come with it.
    const leaving = (id: string) => edges.filter((edge) => edge.from === id);
    const costs = window.map((node) => ({ node, edges: leaving(node.id) }));
    const shown = costs.slice(0, countWithinBudget(costs, args.max_chars - 400));
    const next = offset + shown.length;
    return json({
      ...pageHead("canvas", args, next < nodes.length ? String(next) : null),
      path: file.path,
      sha256: contentHash(text),
      total_nodes: nodes.length,
      total_edges: edges.length,
      nodes: shown.map((entry) => entry.node),
      edges: shown.flatMap((entry) => entry.edges),
    });
  },
});

const SIDES = ["top", "right", "bottom", "left"] as const;

export const editCanvas = writeTool(
  defineTool({
    name: "edit_canvas",
    title: "Edit canvas",
    description:
      "Add a node (text, file, link or group) and/or an edge to a canvas, keeping every other node, edge and field. " +
      "The edge may join the new node (from or to \"new\"). expected_hash (from canvas) guards the edit.",
    input: {
      path: pathArg,
      node: z
        .object({
          type: z.enum(["text", "file", "link", "group"]).describe("The node's kind."),
          text: z.string().max(100_000).optional().describe("A text node's Markdown."),
          file: z.string().max(1024).optional().describe("A file node's vault path."),
          url: z.string().max(4096).optional().describe("A link node's URL."),
          label: z.string().max(1000).optional().describe("A group's label."),
          x: z.number().optional().describe("Left edge (default: right of everything)."),
          y: z.number().optional().describe("Top edge."),
          width: z.number().positive().default(400).describe("Width (default 400)."),
          height: z.number().positive().default(200).describe("Height (default 200)."),
          color: z.string().max(20).optional().describe('A preset "1"-"6" or a hex color such as "#ff8800".'),
        })
        .optional()
        .describe("The node to add."),
      edge: z
        .object({
          from: z.string().min(1).max(100).describe('The id of the node it leaves, or "new" for the node added here.'),
          to: z.string().min(1).max(100).describe('The id of the node it reaches, or "new".'),
          from_side: z.enum(SIDES).optional().describe("The side it leaves from."),
          to_side: z.enum(SIDES).optional().describe("The side it arrives at."),
          label: z.string().max(1000).optional().describe("The edge's label."),
        })
        .optional()
        .describe("The edge to add."),
      expected_hash: expectedHashArg,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async run(args, ctx) {
      if (args.node === undefined && args.edge === undefined) throw new ToolError("give a node, an edge or both: there is nothing to add");
      const file = canvasFile(ctx, args.path);
      const node = args.node;
      if (node) {
        const needs: Record<string, string> = { text: "text", file: "file", link: "url", group: "label" };
        const wanted = needs[node.type];
        if (node.type !== "group" && (node as Record<string, unknown>)[wanted] === undefined) throw new ToolError(`a ${node.type} node needs ${wanted}`);
        if (node.file !== undefined) {
          const target = cleanVaultPath(node.file, ctx, "node.file");
          if (!(visibleAt(ctx, target) instanceof TFile)) throw new ToolError(`node.file ${JSON.stringify(node.file)} is not a file of the vault`);
          node.file = target;
        }
      }
      let added: { node?: string; edge?: string } = {};
      const { sha256 } = await editNote(ctx, file, args.expected_hash, (current) => {
        const data: CanvasJson = parseCanvas(file.path, current);
        const nodes = Array.isArray(data.nodes) ? data.nodes : (data.nodes = []);
        const edges = Array.isArray(data.edges) ? data.edges : (data.edges = []);
        added = {};
        if (node) {
          const id = newId(data);
          const spot = freeSpot(data);
          const entry: Record<string, unknown> = { id, type: node.type };
          if (node.text !== undefined) entry.text = node.text;
          if (node.file !== undefined) entry.file = node.file;
          if (node.url !== undefined) entry.url = node.url;
          if (node.label !== undefined) entry.label = node.label;
          Object.assign(entry, { x: node.x ?? spot.x, y: node.y ?? spot.y, width: node.width, height: node.height });
          if (node.color !== undefined) entry.color = node.color;
          nodes.push(entry);
          added.node = id;
        }
        const edge = args.edge;
        if (edge) {
          const ids = nodeIds(data);
          const end = (raw: string, which: string) => {
            if (raw === "new") {
              if (added.node === undefined) throw new ToolError(`edge.${which} is "new" but no node is added in this call`);
              return added.node;
            }
            if (!ids.has(raw)) throw new ToolError(`edge.${which}: ${file.path} has no node ${JSON.stringify(raw)} (canvas lists the ids)`);
            return raw;
          };
          const entry: Record<string, unknown> = { id: newId(data), fromNode: end(edge.from, "from") };
          if (edge.from_side) entry.fromSide = edge.from_side;
          entry.toNode = end(edge.to, "to");
          if (edge.to_side) entry.toSide = edge.to_side;
          if (edge.label !== undefined) entry.label = edge.label;
          edges.push(entry);
          added.edge = entry.id as string;
        }
        return writeCanvas(data, current);
      });
      return json({ path: file.path, ...(added.node ? { node: added.node } : {}), ...(added.edge ? { edge: added.edge } : {}), sha256 });
    },
  }),
);

export const CANVAS_TOOLS = [canvas, editCanvas];
