// Output bounds and batch, on a temp copy of the fixture vault plus its 20 MB note: every read stays within its
// max_chars and says how to continue; batch runs calls in order under one shared budget; every read tool works on
// every fixture note.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { tempDir } from "./lib/harness.mjs";
import { BIG_NOTE_PATH, makeBigNote } from "./fixtures/make-big-note.mjs";
import { openSession, parseRead, readDisk, sha256 } from "./tools-lib.mjs";

const fixtureVault = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "vault");

function lineCount(text) {
  if (text === "") return 0;
  const lines = text.split("\n");
  return text.endsWith("\n") ? lines.length - 1 : lines.length;
}

describe("limits on the fixture vault and its 20 MB note", () => {
  let vault;
  let session;
  let big;
  let bigText;
  before(async () => {
    vault = tempDir("obsmcp-limits-");
    fs.cpSync(fixtureVault, vault.dir, { recursive: true });
    big = makeBigNote(vault.dir);
    bigText = readDisk(vault.dir, BIG_NOTE_PATH);
    session = await openSession(vault.dir);
  });
  after(async () => {
    await session?.close();
    vault?.remove();
  });

  it("every read tool works on every fixture note, and read hashes match the disk", async () => {
    const listing = await session.ok("list_files", { extension: "md", limit: 500 });
    const notes = listing.entries.map((entry) => entry.path).filter((note) => note !== BIG_NOTE_PATH);
    assert.ok(notes.length >= 10, `${notes.length} fixture notes`);
    for (const note of notes) {
      const read = parseRead(await session.text("read_note", { path: note }));
      const disk = readDisk(vault.dir, note);
      assert.equal(read.sha256, sha256(disk), note);
      assert.equal(read.total, lineCount(disk), note);
      const meta = await session.ok("note_metadata", { path: note });
      assert.equal(meta.sha256, read.sha256, note);
      await session.ok("outline", { path: note });
      await session.ok("outgoing_links", { path: note });
      await session.ok("backlinks", { path: note });
    }
    for (const tool of ["vault_info", "unresolved_links", "orphans", "tags", "recent_files", "active_note"]) {
      await session.ok(tool, {});
    }
    const hidden = await session.ok("search", { query: "secret", limit: 500 });
    assert.ok(!hidden.results.some((file) => file.path.startsWith(".")), "hidden folders are not searched");
  });

  it("tools refuse missing notes, non-notes and bad arguments with a clear error", async () => {
    const png = "Attachments/diagram.png";
    await session.fails("read_note", { path: png }, /not a text note \(extension \.png\)/);
    for (const tool of ["note_metadata", "outline", "backlinks", "outgoing_links"]) {
      await session.fails(tool, { path: png }, /not a text note/);
      await session.fails(tool, { path: "No such note" }, /note not found/);
    }
    for (const [tool, args] of [
      ["append", { content: "x" }],
      ["insert_at_line", { line: 1, content: "x" }],
      ["str_replace", { old_text: "a", new_text: "b" }],
      ["patch_section", { target: "frontmatter", operation: "append", content: "a: 1" }],
      ["set_property", { key: "a", value: 1 }],
      ["delete_property", { key: "a" }],
    ]) {
      await session.fails(tool, { path: png, ...args }, /not a text note/);
      await session.fails(tool, { path: "No such note", ...args }, /note not found/);
    }
    await session.fails("move_note", { path: png, new_path: "Attachments/diagram.jpg" }, /keep the file's extension \.png/);
    const moved = await session.ok("move_note", { path: png, new_path: "Attachments/Moved diagram.png" });
    assert.equal(moved.to, "Attachments/Moved diagram.png");
    assert.equal(moved.sha256, null);
    await session.fails("tags", { cursor: "x1" }, /invalid cursor/);
    await session.fails("unresolved_links", { cursor: "-1" }, /invalid cursor/);
    await session.fails("orphans", { folder: "../x" }, /"\.\." segment/);
    await session.fails("recent_files", { source: "sometime" }, /source/);
    await session.fails("list_files", { limit: 501 }, /limit/);
    await session.fails("patch_section", { path: "Home", target: "section", operation: "append", content: "x" }, /target/);
  });

  it("read_note of the 20 MB note returns at most max_chars and continues where it stopped", async () => {
    assert.ok(big.bytes >= 20 * 1024 * 1024);
    const first = parseRead(await session.text("read_note", { path: BIG_NOTE_PATH }));
    assert.ok(first.content.length <= 20000 && first.content.length > 19000, `${first.content.length} chars`);
    assert.equal(first.sha256, sha256(bigText));
    assert.equal(first.total, lineCount(bigText));
    assert.equal(first.truncated, true);
    assert.deepEqual(first.continueWith, {
      tool: "read_note",
      arguments: { path: BIG_NOTE_PATH, start_line: first.to + 1, end_line: first.total, max_chars: 20000 },
    });
    const second = parseRead(await session.text("read_note", { ...first.continueWith.arguments, max_chars: 200000 }));
    assert.equal(second.from, first.to + 1);
    assert.ok(second.content.length <= 200000 && second.content.length > 199000);
    const lines = bigText.split("\n");
    assert.equal(first.content + "\n" + second.content, lines.slice(0, second.to).join("\n"));
    await session.fails("read_note", { path: BIG_NOTE_PATH, max_chars: 200001 }, /200000/);
  });

  it("a heading's section of the 20 MB note is read exactly", async () => {
    const read = parseRead(await session.text("read_note", { path: BIG_NOTE_PATH, heading: "Abschnitt 1234 – Übersicht 📦" }));
    const lines = bigText.split("\n");
    const start = lines.indexOf("## Abschnitt 1234 – Übersicht 📦");
    const end = lines.indexOf("## Abschnitt 1235 – Übersicht 📦");
    assert.ok(start > 0 && end > start);
    assert.equal(read.from, start + 1);
    assert.equal(read.to, end);
    assert.equal(read.content, lines.slice(start, end).join("\n"));
  });

  it("search, metadata and outline of the 20 MB note stay bounded and say they were cut", async () => {
    const found = await session.call("search", { query: "🦊", max_per_file: 100, limit: 500, context_lines: 5 });
    assert.equal(found.isError, false, found.text);
    assert.ok(found.text.length <= 20000, `search gave ${found.text.length} chars`);
    const parsed = JSON.parse(found.text);
    assert.equal(parsed.truncated, true);
    assert.match(parsed.next_cursor, /^\d+:/);
    const meta = await session.call("note_metadata", { path: BIG_NOTE_PATH });
    assert.ok(meta.text.length < 200000, `note_metadata gave ${meta.text.length} chars`);
    assert.deepEqual(JSON.parse(meta.text).truncated_lists, ["headings", "links"], "the 11 distinct tags fit; the section headings and links do not");
    const outline = await session.ok("outline", { path: BIG_NOTE_PATH, limit: 500 });
    assert.equal(outline.headings.length, 500);
    assert.equal(outline.total, big.sections + 1);
    assert.equal(outline.truncated, true);
  });

  it("writes to the 20 MB note keep every other byte", async () => {
    const unique = "1234.5 ";
    assert.equal(bigText.split(unique).length, 2, "the marker occurs once");
    const result = await session.ok("str_replace", { path: BIG_NOTE_PATH, old_text: unique, new_text: "1234.5 (edited) " });
    const disk = readDisk(vault.dir, BIG_NOTE_PATH);
    assert.equal(disk, bigText.replace(unique, "1234.5 (edited) "));
    assert.equal(result.sha256, sha256(disk));
  });

  it("set_property on a note whose YAML does not parse says so and writes nothing", async () => {
    const before = readDisk(vault.dir, "Invalid frontmatter.md");
    await session.fails("set_property", { path: "Invalid frontmatter", key: "x", value: 1 }, /could not edit the frontmatter of Invalid frontmatter.md: .*nothing was written/);
    assert.equal(readDisk(vault.dir, "Invalid frontmatter.md"), before);
  });

  it("batch runs calls in order under one shared budget", async () => {
    const result = await session.ok("batch", {
      max_chars: 30000,
      calls: [
        { tool: "read_note", arguments: { path: BIG_NOTE_PATH } },
        { tool: "read_note", arguments: { path: BIG_NOTE_PATH, start_line: 5000 } },
        { tool: "read_note", arguments: { path: "Home" } },
        { tool: "vault_info" },
      ],
    });
    assert.deepEqual(result.results.map((entry) => [entry.tool, entry.ok, entry.error]), [["read_note", true, undefined], ["read_note", true, undefined], ["read_note", true, undefined], ["vault_info", false, "not run: the batch's max_chars budget is used up"]]);
    const [first, second, third, fourth] = result.results;
    assert.ok(first.text.length > 20000 && first.text.length < 20400, "the first call gets its own max_chars");
    const rest = 30000 - first.text.length;
    assert.ok(second.text.length <= rest && second.text.length > rest - 400, "the second fills the rest of the budget");
    assert.equal(second.truncated, undefined, "asked for less, it fits without being cut");
    const secondRead = parseRead(second.text);
    assert.equal(secondRead.from, 5000);
    assert.equal(secondRead.truncated, true);
    assert.equal(secondRead.continueWith.arguments.start_line, secondRead.to + 1);
    // The third gets what is left: its own max_chars lowered to the minimum, and cut by the batch if still too long.
    assert.ok(third.truncated === true || parseRead(third.text).truncated, "the third is limited and says so");
    assert.ok(first.text.length + second.text.length + third.text.length <= 30000);
    assert.match(fourth.error, /budget is used up/);
    assert.equal(result.truncated, true);
    const cut = await session.ok("batch", {
      max_chars: 1000,
      calls: [{ tool: "read_note", arguments: { path: "Home" } }, { tool: "note_metadata", arguments: { path: BIG_NOTE_PATH } }],
    });
    assert.equal(cut.results[0].text.length + cut.results[1].text.length, 1000);
    assert.equal(cut.results[1].truncated, true, "a result without max_chars is cut to the budget left");
  });

  it("batch keeps each call's error to itself and refuses more than 8 calls", async () => {
    const result = await session.ok("batch", {
      calls: [
        { tool: "outline", arguments: { path: "Home" } },
        { tool: "read_note", arguments: { path: "Does not exist" } },
        { tool: "search", arguments: { query: "(", regex: true } },
        { tool: "list_files", arguments: { limit: 0 } },
        { tool: "tags" },
        { tool: "nope" },
      ],
    });
    assert.deepEqual(result.results.map((entry) => entry.tool), ["outline", "read_note", "search", "list_files", "tags", "nope"]);
    assert.deepEqual(result.results.map((entry) => entry.ok), [true, false, false, false, true, false]);
    assert.equal(JSON.parse(result.results[0].text).path, "Home.md");
    assert.match(result.results[1].error, /note not found/);
    assert.match(result.results[2].error, /invalid regular expression/);
    assert.match(result.results[3].error, /invalid arguments: limit/);
    assert.match(result.results[5].error, /not a read-only tool/);
    assert.equal(result.truncated, false);
    const calls = Array.from({ length: 9 }, () => ({ tool: "vault_info" }));
    await session.fails("batch", { calls }, /8/);
  });
});
