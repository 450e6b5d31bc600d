// Read tools through the real main.js: listing, note reads and sections, metadata, search, links, tags, workspace
// and daily notes, on a crafted vault whose content the assertions know byte for byte.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { makeVault, NOTES, openSession, parseRead, sha256 } from "./tools-lib.mjs";

const markdownPaths = Object.keys(NOTES).sort();

describe("read tools", () => {
  let vault;
  let session;
  before(async () => {
    vault = makeVault();
    // Modification times in a known order, newest first: Hub, Alpha, then the rest.
    const now = Date.now() / 1000;
    for (const [index, file] of markdownPaths.entries()) {
      fs.utimesSync(path.join(vault.dir, ...file.split("/")), now - 1000 - index, now - 1000 - index);
    }
    fs.utimesSync(path.join(vault.dir, "Hub.md"), now, now);
    fs.utimesSync(path.join(vault.dir, "Notes", "Alpha.md"), now - 10, now - 10);
    fs.mkdirSync(path.join(vault.dir, ".obsidian"), { recursive: true });
    fs.writeFileSync(
      path.join(vault.dir, ".obsidian", "workspace.json"),
      JSON.stringify({ lastOpenFiles: ["Hub.md", "Notes/Alpha.md", "Gone.md", ".obsidian/app.json", "Notes/Beta.md"] }),
    );
    session = await openSession(vault.dir, { env: { OBSMCP_TEST_ACTIVE: "Notes/Alpha.md|Back to [[Hub]]" } });
  });
  after(async () => {
    await session?.close();
    vault?.remove();
  });

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

  it("search finds text case-insensitively by default, with lines, context and a path prefix", async () => {
    const result = await session.ok("search", { query: "needle" });
    assert.deepEqual(
      result.results.map((file) => [file.path, file.matches.map((match) => match.line)]),
      [["Día/Ñandú.md", [2]], ["Notes/Alpha.md", [5, 6]]],
    );
    assert.equal(result.total_matches, 3);
    assert.equal(result.truncated, false);
    const exact = await session.ok("search", { query: "Needle", case_sensitive: true });
    assert.deepEqual(exact.results.map((file) => file.matches.map((match) => match.text)), [["Needle line one"]]);
    const scoped = await session.ok("search", { query: "needle", path_prefix: "Notes/", context_lines: 1 });
    assert.equal(scoped.results.length, 1);
    assert.deepEqual(scoped.results[0].matches[0], {
      line: 5,
      text: "Needle line one",
      before: ["Also [[Hub#Section two]] and an embed ![[Hub]]."],
      after: ["needle line two"],
    });
    const literal = await session.ok("search", { query: "[[hub|THE HUB]]." });
    assert.deepEqual(literal.results.map((file) => [file.path, file.matches[0].line]), [["Notes/Sub/Gamma note.md", 1]], "regex characters are literal in text mode");
    const accents = await session.ok("search", { query: "CAFÉ" });
    assert.equal(accents.results[0].path, "Día/Ñandú.md");
  });

  it("search takes regular expressions and rejects invalid ones clearly", async () => {
    const result = await session.ok("search", { query: "^needle line \\w+$", regex: true });
    assert.equal(result.total_matches, 2);
    const sensitive = await session.ok("search", { query: "[A-Z]EEDLE", regex: true, case_sensitive: true });
    assert.deepEqual(sensitive.results.map((file) => file.path), ["Día/Ñandú.md"]);
    const crlf = await session.ok("search", { query: "line$", regex: true, path_prefix: "CRLF" });
    assert.deepEqual(crlf.results[0].matches.map((match) => match.line), [3, 4], "$ matches before a CRLF line end");
    // RE2 syntax, as offline: lookaround and backreferences have no linear-time match, so both readers refuse them.
    await session.fails("search", { query: "(?<=^)Back to", regex: true }, /invalid regular expression.*\(\?<=/);
    await session.fails("search", { query: "(a)\\1", regex: true }, /invalid regular expression/);
    const anchored = await session.ok("search", { query: "^needle line two$", regex: true });
    assert.deepEqual(anchored.results.map((file) => [file.path, file.matches[0].line]), [["Notes/Alpha.md", 6]]);
    await session.fails("search", { query: "(unclosed", regex: true }, /invalid regular expression/);
    await session.fails("search", { query: "line one\nneedle" }, /one line at a time/);
    for (const fine of ["(ab)+", "[(a+)]+", "\\(a+\\)+", "(a{2})+", "(?:Needle|needle) line", "(a+)+$"]) {
      await session.ok("search", { query: fine, regex: true });
    }
  });

  it("search limits matches per note and in total, and the cursor resumes after the last match", async () => {
    const perFile = await session.ok("search", { query: "e", max_per_file: 1 });
    for (const file of perFile.results) assert.equal(file.matches.length, 1);
    assert.ok(perFile.results.some((file) => file.more_in_file === true));

    const everything = await session.ok("search", { query: "e", max_per_file: 100, limit: 500 });
    const flat = (result) => result.results.flatMap((file) => file.matches.map((match) => `${file.path}:${match.line}`));
    const expected = flat(everything);
    assert.ok(expected.length > 10);
    const paged = [];
    let cursor;
    for (let guard = 0; guard < 50; guard++) {
      const page = await session.ok("search", { query: "e", max_per_file: 100, limit: 4, ...(cursor ? { cursor } : {}) });
      assert.ok(page.total_matches <= 4);
      paged.push(...flat(page));
      cursor = page.next_cursor;
      if (!cursor) break;
      assert.equal(page.truncated, true);
    }
    assert.deepEqual(paged, expected);
    await session.fails("search", { query: "e", cursor: "garbage" }, /invalid cursor/);
  });

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

  it("active_note gives the open note and the editor selection", async () => {
    const result = await session.ok("active_note", {});
    assert.deepEqual(result, {
      path: "Notes/Alpha.md",
      selection: { text: "Back to [[Hub]]", truncated: false, from: { line: 3, ch: 0 }, to: { line: 3, ch: 15 } },
    });
  });

  it("recent_files with source opened follows Obsidian's recently opened list", async () => {
    // workspace.json was written before the host started; the active note was opened after it, so it comes first.
    const result = await session.ok("recent_files", { source: "opened" });
    assert.deepEqual(
      result.files.map((file) => file.path),
      ["Notes/Alpha.md", "Hub.md", "Notes/Beta.md"],
      "missing files and the config folder are left out",
    );
  });

  it("recent_files lists the most recently modified notes first", async () => {
    const result = await session.ok("recent_files", { limit: 3 });
    assert.deepEqual(result.files.map((file) => file.path).slice(0, 2), ["Hub.md", "Notes/Alpha.md"]);
    assert.equal(result.files.length, 3);
    assert.equal(result.truncated, true);
  });

  it("daily_note reads the note for a date from the configured folder and format", async () => {
    const read = parseRead(await session.text("daily_note", { date: "2024-01-05" }));
    assert.equal(read.path, "Journal/2024/01/2024-01-05.md");
    assert.equal(read.content, "# 2024-01-05\n\nA day.");
    await session.fails("daily_note", { date: "2024-02-30" }, /not YYYY-MM-DD/);
    await session.fails("daily_note", { date: "2024-02-03" }, /no daily note for 2024-02-03 \(it would be "Journal\/2024\/02\/2024-02-03.md"\); create_daily_note creates it/);
  });
});

describe("regular expressions from agents", () => {
  // Issue 12, finding 2: V8's backtracking engine ran `(a|a)*$` for minutes on Obsidian's UI thread, and
  // `(.*){1,32000}[bc]` for 5.4 s on four notes; the nested-quantifier guard missed alternation and bounded repeats.
  it("search runs every pattern in linear time: runaway patterns answer at once", { timeout: 30_000 }, async () => {
    const runaway = `${"a".repeat(40)}!`;
    const vault = makeVault();
    fs.writeFileSync(path.join(vault.dir, "Runaway.md"), `${runaway}\n${"x".repeat(5000)}\n`);
    const session = await openSession(vault.dir);
    try {
      for (const pattern of ["(a|a)*$", "(a|aa)*!$", "(a+)+b", "(x+x+)+y", "(\\w*\\s?)*z"]) {
        const started = Date.now();
        await session.ok("search", { query: pattern, regex: true });
        assert.ok(Date.now() - started < 10_000, `${pattern} took ${Date.now() - started} ms`);
      }
      const anchored = await session.ok("search", { query: "(a|a)*!$", regex: true, path_prefix: "Runaway" });
      assert.deepEqual(anchored.results[0].matches.map((match) => match.line), [1]);
      await session.fails("search", { query: "(.*){1,32000}[bc]", regex: true }, /invalid regular expression/);
    } finally {
      await session.close();
      vault.remove();
    }
  });
});
