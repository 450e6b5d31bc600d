// Link and tag tools through the real main.js, on the crafted vault of tools-lib.mjs: backlinks, outgoing_links,
// unresolved_links and orphans resolved as Obsidian resolves links, tags and files_by_tag (src/tools/links.ts,
// src/tools/tags.ts).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { sessionForFile } from "./tools-lib.mjs";

const { session } = await sessionForFile();

describe("link and tag tools", () => {
  it("backlinks lists linking notes with their linking lines, paged", async () => {
    const result = await session.ok("backlinks", { path: "Hub" });
    assert.equal(result.total, 2);
    assert.deepEqual(result.backlinks, [
      {
        path: "Notes/Alpha.md",
        count: 3,
        lines: [
          { line: 3, text: "Back to [[Hub]] and #project/alpha here." },
          { line: 4, text: "Also [[Hub#Section two]] and an embed ![[Hub]]." },
        ],
      },
      { path: "Notes/Sub/Gamma note.md", count: 1, lines: [{ line: 1, text: "Gamma points at [[Hub|the hub]]." }] },
    ]);
    const first = await session.ok("backlinks", { path: "Hub", limit: 1, snippets: false });
    assert.deepEqual(first.backlinks, [{ path: "Notes/Alpha.md", count: 3 }]);
    assert.equal(first.next_cursor, "1");
    const second = await session.ok("backlinks", { path: "Hub", limit: 1, snippets: false, cursor: first.next_cursor });
    assert.deepEqual(second.backlinks, [{ path: "Notes/Sub/Gamma note.md", count: 1 }]);
    assert.equal(second.next_cursor, null);
    const none = await session.ok("backlinks", { path: "Día/Ñandú" });
    assert.equal(none.total, 0);
  });

  it("outgoing_links resolves each link the way Obsidian does", async () => {
    const result = await session.ok("outgoing_links", { path: "Beta" });
    assert.deepEqual(result.links, [
      { link: "Alpha", line: 1, embed: false, resolved: "Notes/Alpha.md" },
      { link: "Missing note", line: 1, embed: false, resolved: null },
      { link: "Another missing", line: 1, embed: false, resolved: null },
    ]);
    assert.equal(result.unresolved, 2);
    const unresolved = await session.ok("outgoing_links", { path: "Beta", unresolved_only: true });
    assert.deepEqual(unresolved.links.map((link) => link.link), ["Missing note", "Another missing"]);
    const first = await session.ok("outgoing_links", { path: "Beta", limit: 2 });
    assert.equal(first.next_cursor, "2");
    const second = await session.ok("outgoing_links", { path: "Beta", limit: 2, cursor: first.next_cursor });
    assert.deepEqual(second.links.map((link) => link.link), ["Another missing"]);
    assert.equal(second.truncated, false);
  });

  it("unresolved_links groups missing targets across the vault, most linked first", async () => {
    const result = await session.ok("unresolved_links", {});
    assert.deepEqual(result.unresolved, [
      { link: "Missing note", count: 2, notes: 2, sources: ["Hub.md", "Notes/Beta.md"] },
      { link: "Another missing", count: 1, notes: 1, sources: ["Notes/Beta.md"] },
    ]);
    const page = await session.ok("unresolved_links", { limit: 1, max_sources: 1 });
    assert.deepEqual(page.unresolved, [{ link: "Missing note", count: 2, notes: 2, sources: ["Hub.md"] }]);
    assert.equal(page.next_cursor, "1");
  });

  it("orphans lists notes nothing links to", async () => {
    const result = await session.ok("orphans", {});
    assert.deepEqual(
      result.orphans,
      [
        { path: "CRLF.md", has_outgoing: false },
        { path: "Code.md", has_outgoing: false },
        { path: "Día/Ñandú.md", has_outgoing: false },
        { path: "Journal/2024/01/2024-01-05.md", has_outgoing: false },
        { path: "Notes/Sub/Gamma note.md", has_outgoing: true },
        { path: "Templates/Daily.md", has_outgoing: false },
      ],
    );
    const scoped = await session.ok("orphans", { folder: "Notes" });
    assert.deepEqual(scoped.orphans.map((orphan) => orphan.path), ["Notes/Sub/Gamma note.md"]);
  });

  it("tags counts notes per tag (case-insensitively) and files_by_tag includes nested tags", async () => {
    const result = await session.ok("tags", {});
    assert.deepEqual(result.tags, [
      { tag: "#project/alpha", count: 2 },
      { tag: "#todo", count: 2 },
      { tag: "#hub", count: 1 },
      { tag: "#project/beta", count: 1 },
    ]);
    const byName = await session.ok("tags", { sort: "name", prefix: "project" });
    assert.deepEqual(byName.tags.map((tag) => tag.tag), ["#project/alpha", "#project/beta"]);
    const project = await session.ok("files_by_tag", { tag: "#project" });
    assert.deepEqual(project.notes, [
      { path: "Hub.md", tags: ["#project/alpha"] },
      { path: "Notes/Alpha.md", tags: ["#project/alpha"] },
      { path: "Notes/Sub/Gamma note.md", tags: ["#project/beta"] },
    ]);
    const todo = await session.ok("files_by_tag", { tag: "todo" });
    assert.deepEqual(todo.notes.map((note) => note.path), ["Notes/Beta.md", "Notes/Sub/Gamma note.md"]);
    await session.fails("files_by_tag", { tag: "two words" }, /not a valid tag/);
  });
});
