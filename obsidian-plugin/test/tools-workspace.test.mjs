// Workspace tools through the real main.js, on the crafted vault of tools-lib.mjs with modification times in a
// known order, a recently-opened list in workspace.json and an active note set by OBSMCP_TEST_ACTIVE: active_note,
// recent_files and daily_note (src/tools/workspace.ts).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { NOTES, parseRead, sessionForFile } from "./tools-lib.mjs";

const markdownPaths = Object.keys(NOTES).sort();

const { session } = await sessionForFile({
  prepare(dir) {
    // Modification times in a known order, newest first: Hub, Alpha, then the rest.
    const now = Date.now() / 1000;
    for (const [index, file] of markdownPaths.entries()) {
      fs.utimesSync(path.join(dir, ...file.split("/")), now - 1000 - index, now - 1000 - index);
    }
    fs.utimesSync(path.join(dir, "Hub.md"), now, now);
    fs.utimesSync(path.join(dir, "Notes", "Alpha.md"), now - 10, now - 10);
    fs.mkdirSync(path.join(dir, ".obsidian"), { recursive: true });
    fs.writeFileSync(
      path.join(dir, ".obsidian", "workspace.json"),
      JSON.stringify({ lastOpenFiles: ["Hub.md", "Notes/Alpha.md", "Gone.md", ".obsidian/app.json", "Notes/Beta.md"] }),
    );
  },
  env: { OBSMCP_TEST_ACTIVE: "Notes/Alpha.md|Back to [[Hub]]" },
});

describe("workspace tools", () => {
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
