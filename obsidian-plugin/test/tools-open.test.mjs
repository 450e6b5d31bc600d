// open_note through the real main.js (src/tools/workspace.ts): the note becomes the active one at its heading, block
// or line (active_note and recent_files see it), in the current tab or a new one; bad headings, lines and files are
// refused, hidden notes do not exist, and read-only mode refuses it. Runs in both protocol eras (npm test).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { writeSettings } from "./lib/load-plugin.mjs";
import { makeVault, NOTES, openSession, sessionForFile } from "./tools-lib.mjs";

const { session } = await sessionForFile({
  prepare(dir) {
    fs.mkdirSync(path.join(dir, "Private"), { recursive: true });
    fs.writeFileSync(path.join(dir, "Private", "Diary.md"), "# Diary\n");
    fs.writeFileSync(path.join(dir, "picture.png"), "not really a png");
    writeSettings(dir, { hiddenPaths: ["Private"] });
  },
});

/** The 1-based line of the first line of Hub.md that starts with `text`. */
const hubLine = (text) => NOTES["Hub.md"].split("\n").findIndex((line) => line.startsWith(text)) + 1;

describe("open_note", () => {
  it("opens a note at a heading, a block or a line, and it becomes the active note", async () => {
    const opened = await session.ok("open_note", { path: "Hub", heading: "section TWO" });
    assert.deepEqual(opened, { path: "Hub.md", tab: "current", line: hubLine("## Section two") });
    const active = await session.ok("active_note", {});
    assert.equal(active.path, "Hub.md");
    assert.equal(active.selection.from.line, hubLine("## Section two"), "the cursor is on the heading");

    assert.equal((await session.ok("open_note", { path: "Hub#^blk1" })).line, hubLine("Some text in section two"));
    assert.equal((await session.ok("open_note", { path: "Notes/Alpha", line: 2, new_tab: true })).tab, "new");
    const now = await session.ok("active_note", {});
    assert.deepEqual([now.path, now.selection.from.line], ["Notes/Alpha.md", 2]);
    const recent = await session.ok("recent_files", { source: "opened" });
    assert.equal(recent.files[0].path, "Notes/Alpha.md", "opened files go to the front of the recent list");
    assert.equal((await session.ok("open_note", { path: "picture.png" })).line, null, "any vault file opens");
  });

  it("refuses what it cannot open and leaves the active note as it was", async () => {
    await session.ok("open_note", { path: "Hub" });
    await session.fails("open_note", { path: "Hub", heading: "Nope" }, /heading "Nope" not found in Hub\.md; its headings: "Hub"/);
    await session.fails("open_note", { path: "Hub#^nope" }, /block \^nope not found/);
    await session.fails("open_note", { path: "Hub", heading: "Hub", line: 1 }, /a heading or a line, not both/);
    await session.fails("open_note", { path: "Hub", line: 999 }, /line 999 is past the end/);
    await session.fails("open_note", { path: "picture.png", line: 1 }, /not a Markdown note/);
    await session.fails("open_note", { path: "Private/Diary" }, /not found/);
    await session.fails("open_note", { path: "Missing" }, /not found/);
    assert.equal((await session.ok("active_note", {})).path, "Hub.md");
  });
});

describe("open_note in read-only mode", () => {
  it("is refused and not listed", async () => {
    const vault = makeVault();
    const readOnly = await openSession(vault.dir, { readOnly: true });
    try {
      const names = (await readOnly.client.listTools()).map((tool) => tool.name);
      assert.ok(!names.includes("open_note"));
      await readOnly.fails("open_note", { path: "Hub" }, /read-only/);
    } finally {
      await readOnly.close();
      vault.remove();
    }
  });
});
