// Read tools through the real main.js on a crafted vault whose content the assertions know byte for byte:
// vault_info, list_files, read_note (sections, blocks, line ranges, cuts), note_metadata and outline
// (src/tools/read.ts). Search, links and tags, and the workspace tools have their own test files.
import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { NOTES, parseRead, sessionForFile, sha256 } from "./tools-lib.mjs";

const markdownPaths = Object.keys(NOTES).sort();

const { session } = await sessionForFile();

describe("read tools: the vault, its files and its notes", () => {
  it("vault_info counts notes, files and folders and reports the daily-note settings", async () => {
    const info = await session.ok("vault_info", {});
    assert.equal(info.notes, markdownPaths.length);
    assert.equal(info.files, markdownPaths.length);
    // Notes, Notes/Sub, Día, Templates, Journal, Journal/2024, Journal/2024/01
    assert.equal(info.folders, 7);
    assert.equal(info.config_dir, ".obsidian");
    assert.equal(info.read_only, false);
    assert.deepEqual(info.daily_notes, { enabled: true, format: "YYYY/MM/YYYY-MM-DD", folder: "Journal", template: "Templates/Daily" });
  });

  it("list_files lists every file in path order and pages through them with the cursor", async () => {
    const all = await session.ok("list_files", {});
    assert.deepEqual(all.entries.map((entry) => entry.path), markdownPaths);
    assert.equal(all.total, markdownPaths.length);
    assert.equal(all.truncated, false);
    assert.equal(all.next_cursor, null);
    const hub = all.entries.find((entry) => entry.path === "Hub.md");
    assert.equal(hub.size, Buffer.byteLength(NOTES["Hub.md"]));
    assert.match(hub.mtime, /^\d{4}-\d\d-\d\dT/);

    const paged = [];
    let cursor;
    let pages = 0;
    do {
      const page = await session.ok("list_files", { limit: 3, ...(cursor ? { cursor } : {}) });
      assert.ok(page.entries.length <= 3);
      paged.push(...page.entries.map((entry) => entry.path));
      assert.equal(page.truncated, page.next_cursor !== null);
      cursor = page.next_cursor;
      pages++;
    } while (cursor && pages < 20);
    assert.deepEqual(paged, markdownPaths);
    assert.equal(pages, Math.ceil(markdownPaths.length / 3));
  });

  it("list_files filters by folder, depth and extension and can list folders", async () => {
    const notes = await session.ok("list_files", { folder: "Notes", recursive: false, include_folders: true });
    assert.deepEqual(
      notes.entries.map((entry) => [entry.path, entry.type]),
      [["Notes/Alpha.md", "file"], ["Notes/Beta.md", "file"], ["Notes/Sub", "folder"]],
    );
    const root = await session.ok("list_files", { folder: "/" });
    assert.deepEqual(root.entries.map((entry) => entry.path), markdownPaths, '"/" is the vault root');
    const none = await session.ok("list_files", { extension: "canvas" });
    assert.equal(none.total, 0);
    await session.fails("list_files", { folder: "Nope" }, /folder not found/);
    await session.fails("list_files", { cursor: "abc" }, /invalid cursor/);
  });

  it("list_files keeps a page within max_chars and says how to continue", async () => {
    const page = await session.ok("list_files", { max_chars: 400 });
    assert.ok(page.entries.length >= 1 && page.entries.length < markdownPaths.length);
    assert.ok(JSON.stringify(page).length <= 400 + 200, `page of ${JSON.stringify(page).length} chars`);
    assert.equal(page.truncated, true);
    assert.equal(page.next_cursor, String(page.entries.length));
  });

  it("read_note returns the header with line range, path and the sha256 of the whole note", async () => {
    const read = parseRead(await session.text("read_note", { path: "Hub.md" }));
    assert.equal(read.content, NOTES["Hub.md"].replace(/\n$/, ""));
    assert.equal(read.from, 1);
    assert.equal(read.to, 20);
    assert.equal(read.total, 20);
    assert.equal(read.path, "Hub.md");
    assert.equal(read.sha256, sha256(NOTES["Hub.md"]));
    assert.equal(read.truncated, false);
  });

  it("read_note accepts a path without .md, a wikilink, an alias-less link name and Note#Heading", async () => {
    for (const ref of ["Hub", "[[Hub]]", "[[Hub|shown]]", "Alpha", "Notes/Alpha", "Gamma note", "Día/Ñandú"]) {
      const read = parseRead(await session.text("read_note", { path: ref }));
      assert.ok(read.path.endsWith(".md"), ref);
    }
    const section = parseRead(await session.text("read_note", { path: "[[Hub#Section two]]" }));
    assert.equal(section.content.split("\n")[0], "## Section two");
    assert.equal(section.from, 10);
    assert.equal(section.to, 18, "a level-2 section runs to the next level-2 heading, deeper headings included");
    const block = parseRead(await session.text("read_note", { path: "Hub#^li1" }));
    assert.equal(block.content, "- item one ^li1");
  });

  it("read_note reads a heading's section, a nested heading, a block and a line range", async () => {
    const deeper = parseRead(await session.text("read_note", { path: "Hub", heading: "section two#deeper" }));
    assert.deepEqual(deeper.content.split("\n"), ["### Deeper", "deep line", ""]);
    assert.equal(deeper.from, 16);
    const block = parseRead(await session.text("read_note", { path: "Hub", block: "^blk1" }));
    assert.equal(block.content, "Some text in section two ^blk1");
    assert.equal(block.from, 11);
    const range = parseRead(await session.text("read_note", { path: "Hub", start_line: 6, end_line: 8 }));
    assert.deepEqual(range.content.split("\n"), NOTES["Hub.md"].split("\n").slice(5, 8));
    assert.equal(range.sha256, sha256(NOTES["Hub.md"]), "a partial read still hashes the whole note");
    const code = await session.fails("read_note", { path: "Code", heading: "not a heading" }, /not found/);
    assert.match(code, /"Real heading", "After code"/, "a # line in fenced code is not a heading");
  });

  it("read_note counts CRLF lines like LF lines", async () => {
    const read = parseRead(await session.text("read_note", { path: "CRLF.md" }));
    assert.equal(read.total, 4);
    assert.equal(read.sha256, sha256(NOTES["CRLF.md"]));
  });

  it("read_note errors are clear", async () => {
    await session.fails("read_note", { path: "Nope" }, /note not found/);
    await session.fails("read_note", { path: "Notes" }, /is a folder/);
    await session.fails("read_note", { path: "Hub", heading: "Nope" }, /heading "Nope" not found; headings: "Hub", "Section two"/);
    await session.fails("read_note", { path: "Hub", block: "nope" }, /block \^nope not found/);
    await session.fails("read_note", { path: "Hub", start_line: 99 }, /past the end: Hub.md has 20 lines/);
    await session.fails("read_note", { path: "Hub", start_line: 5, end_line: 2 }, /end_line/);
    await session.fails("read_note", { path: "Hub", heading: "Hub", block: "blk1" }, /not both/);
    await session.fails("read_note", { path: "Hub", max_chars: 10 }, /max_chars|100/);
  });

  it("read_note cuts at max_chars on a line boundary and continue_with reads the rest", async () => {
    const pieces = [];
    let args = { path: "Hub", max_chars: 100 };
    for (let guard = 0; guard < 20; guard++) {
      const read = parseRead(await session.text("read_note", args));
      assert.ok(read.content.length <= 100);
      pieces.push(read.content);
      if (!read.truncated) break;
      assert.equal(read.continueWith.tool, "read_note");
      assert.equal(read.continueWith.arguments.start_line, read.to + 1);
      // The exact call that reads the rest: the resolved path, the same max_chars.
      args = read.continueWith.arguments;
      assert.deepEqual([args.path, args.max_chars], ["Hub.md", 100]);
    }
    assert.ok(pieces.length > 2);
    assert.equal(pieces.join("\n"), NOTES["Hub.md"].replace(/\n$/, ""));
  });

  it("note_metadata reports frontmatter, tags, aliases, headings, links, embeds, blocks and backlinks", async () => {
    const meta = await session.ok("note_metadata", { path: "Hub" });
    assert.equal(meta.path, "Hub.md");
    assert.equal(meta.sha256, sha256(NOTES["Hub.md"]));
    assert.equal(meta.lines, 20);
    assert.equal(meta.size, Buffer.byteLength(NOTES["Hub.md"]));
    assert.deepEqual(meta.frontmatter, { tags: ["hub", "project/alpha"], aliases: ["Center"], status: "active" });
    assert.deepEqual(meta.tags, ["#hub", "#project/alpha"]);
    assert.deepEqual(meta.aliases, ["Center"]);
    assert.deepEqual(
      meta.headings.map((heading) => [heading.level, heading.heading, heading.line]),
      [[1, "Hub", 6], [2, "Section two", 10], [3, "Deeper", 16], [2, "Section three", 19]],
    );
    assert.deepEqual(meta.links, [
      { link: "Notes/Alpha", line: 8, resolved: "Notes/Alpha.md" },
      { link: "Beta", line: 8, resolved: "Notes/Beta.md" },
      { link: "Missing note", line: 8, resolved: null },
    ]);
    assert.deepEqual(meta.blocks, [{ id: "blk1", line: 11 }, { id: "li1", line: 13 }]);
    assert.equal(meta.backlinks, 2, "Alpha and Gamma note link to Hub");
    const alpha = await session.ok("note_metadata", { path: "Alpha", limit: 1 });
    assert.deepEqual(alpha.embeds, [{ link: "Hub", line: 4, resolved: "Hub.md" }]);
    assert.equal(alpha.links.length, 1);
    assert.equal(alpha.truncated, true);
    assert.deepEqual(alpha.truncated_lists, ["links"]);
  });

  it("outline lists headings with 1-based lines", async () => {
    const outline = await session.ok("outline", { path: "Code" });
    assert.deepEqual(outline.headings, [
      { level: 1, heading: "Real heading", line: 1 },
      { level: 2, heading: "After code", line: 7 },
    ]);
    const cut = await session.ok("outline", { path: "Hub", limit: 3 });
    assert.equal(cut.headings.length, 3);
    assert.equal(cut.total, 4);
    assert.equal(cut.truncated, true);
    const rest = await session.ok("outline", { path: "Hub", limit: 3, cursor: cut.next_cursor });
    assert.deepEqual(rest.headings, [{ level: 2, heading: "Section three", line: 19 }]);
    assert.equal(rest.next_cursor, null);
  });
});
