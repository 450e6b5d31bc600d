// canvas and edit_canvas through the real main.js (src/tools/canvas.ts, src/vault/canvas.ts): nodes with the group
// each sits in, edges, long text cut and said so, hidden files' nodes gone; an edit adds a node and an edge and keeps
// every other byte's meaning, the fields it does not know and the file's indentation. Runs in both protocol eras.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { writeSettings } from "./lib/load-plugin.mjs";
import { makeVault, openSession, readDisk, sessionForFile, sha256 } from "./tools-lib.mjs";

const PLAN = "Boards/Plan.canvas";

const { vault, session } = await sessionForFile({
  fixture: "canvas",
  files: { "Private/Diary.md": "# Diary\n", "Home.md": "# Home\n" },
  prepare: (dir) => writeSettings(dir, { hiddenPaths: ["Private"] }),
});

describe("canvas", () => {
  it("reads nodes with their groups and the edges between them", async () => {
    const result = await session.ok("canvas", { path: PLAN });
    assert.equal(result.sha256, sha256(readDisk(vault.dir, PLAN)));
    assert.deepEqual(
      result.nodes.map((node) => [node.id, node.type, node.group ?? null]),
      [
        ["g1", "group", null],
        ["g2", "group", "g1"],
        ["t1", "text", "g2"],
        ["f1", "file", "g1"],
        ["l1", "link", null],
        ["t2", "text", null],
        ["p1", "file", null],
      ],
      "the hidden file's node is gone; each node sits in the smallest group holding it",
    );
    assert.deepEqual(result.nodes[3], { id: "f1", type: "file", file: "Home.md", subpath: "#Links", group: "g1", x: 460, y: 20, width: 400, height: 400 });
    assert.deepEqual(result.edges, [
      { id: "e1", from: "t1", to: "f1", from_side: "right", to_side: "left", label: "see" },
      { id: "e2", from: "f1", to: "l1", color: "2" },
    ]);
    assert.equal(result.total_nodes, 7);
    assert.equal(result.total_edges, 2, "edges of the hidden node and to a missing node are not there");
    const long = result.nodes.find((node) => node.id === "t2");
    assert.equal(long.text_cut, true);
    assert.equal(long.text.length, 1000);
  });

  it("pages nodes with the edges that leave them", async () => {
    const first = await session.ok("canvas", { path: PLAN, limit: 3 });
    assert.equal(first.truncated, true);
    assert.deepEqual(first.nodes.map((node) => node.id), ["g1", "g2", "t1"]);
    assert.deepEqual(first.edges.map((edge) => edge.id), ["e1"]);
    const second = await session.ok("canvas", { path: PLAN, limit: 3, cursor: first.next_cursor });
    assert.deepEqual(second.edges.map((edge) => edge.id), ["e2"]);
  });

  it("refuses what is not a canvas", async () => {
    await session.fails("canvas", { path: "Boards/Broken.canvas" }, /Broken\.canvas is not valid JSON/);
    await session.fails("canvas", { path: "Hub" }, /is not a canvas/);
    assert.deepEqual((await session.ok("canvas", { path: "Boards/Empty.canvas" })).nodes, []);
  });
});

describe("edit_canvas", () => {
  it("adds a node and an edge to it, keeping the rest of the file and its tabs", async () => {
    const before = JSON.parse(readDisk(vault.dir, PLAN));
    const { sha256: hash } = await session.ok("canvas", { path: PLAN, limit: 1 });
    const result = await session.ok("edit_canvas", {
      path: PLAN,
      node: { type: "text", text: "Next step", color: "3" },
      edge: { from: "t1", to: "new", from_side: "bottom", label: "then" },
      expected_hash: hash,
    });
    assert.match(result.node, /^[0-9a-f]{16}$/);
    const text = readDisk(vault.dir, PLAN);
    assert.equal(result.sha256, sha256(text));
    assert.match(text, /^\{\n\t"nodes": \[\n\t\t\{/, "tab indentation kept");
    const after = JSON.parse(text);
    assert.deepEqual(after.nodes.slice(0, before.nodes.length), before.nodes, "every node, unknown fields included, unchanged");
    assert.deepEqual(after.metadata, before.metadata);
    assert.deepEqual(after.nodes.at(-1), { id: result.node, type: "text", text: "Next step", x: 1240, y: -40, width: 400, height: 200, color: "3" });
    assert.deepEqual(after.edges.at(-1), { id: result.edge, fromNode: "t1", fromSide: "bottom", toNode: result.node, label: "then" });
    assert.deepEqual(after.edges.slice(0, before.edges.length), before.edges);
  });

  it("keeps a compact file compact and adds a file node", async () => {
    const result = await session.ok("edit_canvas", { path: "Boards/Compact.canvas", node: { type: "file", file: "Home.md", x: 10, y: 20 } });
    const text = readDisk(vault.dir, "Boards/Compact.canvas");
    assert.ok(!text.slice(0, -1).includes("\n") && text.endsWith("\n"), text);
    assert.deepEqual(JSON.parse(text).nodes[1], { id: result.node, type: "file", file: "Home.md", x: 10, y: 20, width: 400, height: 200 });
  });

  it("refuses what it cannot add, and writes nothing then", async () => {
    const before = readDisk(vault.dir, PLAN);
    await session.fails("edit_canvas", { path: PLAN }, /nothing to add/);
    await session.fails("edit_canvas", { path: PLAN, edge: { from: "t1", to: "zz" } }, /has no node "zz"/);
    await session.fails("edit_canvas", { path: PLAN, edge: { from: "new", to: "t1" } }, /"new" but no node is added/);
    await session.fails("edit_canvas", { path: PLAN, node: { type: "text" } }, /a text node needs text/);
    await session.fails("edit_canvas", { path: PLAN, node: { type: "file", file: "Private/Diary.md" } }, /is not a file of the vault/);
    await session.fails("edit_canvas", { path: PLAN, node: { type: "link", url: "https://x" }, expected_hash: "0".repeat(64) }, /conflict/);
    await session.fails("edit_canvas", { path: "Boards/Broken.canvas", node: { type: "text", text: "x" } }, /not valid JSON/);
    assert.equal(readDisk(vault.dir, PLAN), before);
  });
});

// edit_canvas found the free spot with Math.max(...nodes), which throws a RangeError (the call's arguments
// overflow the stack) from about 120,000 nodes on.
describe("edit_canvas on a canvas of 150,000 nodes", () => {
  it("adds the node right of everything instead of failing with a RangeError", { timeout: 60_000 }, async () => {
    const count = 150_000;
    const nodes = Array.from({ length: count }, (_, i) => ({ id: `n${i}`, type: "text", text: "x", x: i, y: (i % 7) - 3, width: 10, height: 10 }));
    const big = makeVault({ files: { "Big.canvas": JSON.stringify({ nodes, edges: [] }) } });
    const bigSession = await openSession(big.dir);
    try {
      const result = await bigSession.ok("edit_canvas", { path: "Big.canvas", node: { type: "text", text: "last" } });
      const after = JSON.parse(readDisk(big.dir, "Big.canvas"));
      assert.equal(after.nodes.length, count + 1);
      assert.deepEqual(after.nodes.at(-1), { id: result.node, type: "text", text: "last", x: count - 1 + 10 + 40, y: -3, width: 400, height: 200 });
    } finally {
      await bigSession.close();
      big.remove();
    }
  });
});
