// bookmarks through the real main.js (src/tools/bookmarks.ts): the core Bookmarks plugin's saved items flattened in
// pane order with their group paths, missing targets marked, hidden and config-folder bookmarks left out, paging, and
// a vault without bookmarks or with a broken bookmarks.json. Runs in both protocol eras (npm test).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { writeSettings } from "./lib/load-plugin.mjs";
import { sessionForFile } from "./tools-lib.mjs";

const { vault, session } = await sessionForFile({
  fixture: "bookmarks",
  files: Object.fromEntries(
    ["Home.md", "Notes/Note.md", "Notes/Meeting notes 2026.md", "Private/Diary.md", "Projekte/Plan.md"].map((file) => [file, "# note\n"]),
  ),
  prepare: (dir) => writeSettings(dir, { hiddenPaths: ["Private"] }),
});

describe("bookmarks", () => {
  it("lists every bookmark in pane order with its group path", async () => {
    const result = await session.ok("bookmarks", {});
    assert.equal(result.truncated, false);
    assert.deepEqual(result.bookmarks, [
      { type: "file", group: "", path: "Home.md" },
      { type: "file", group: "", title: "The main note", path: "Notes/Note.md" },
      { type: "group", group: "", title: "Work" },
      { type: "heading", group: "Work", path: "Notes/Meeting notes 2026.md", subpath: "#Decisions" },
      { type: "block", group: "Work", path: "Notes/Meeting notes 2026.md", subpath: "#^decision-1" },
      { type: "group", group: "Work", title: "Reading" },
      { type: "url", group: "Work/Reading", title: "Bookmarks help", url: "https://obsidian.md/help/plugins/bookmarks" },
      { type: "file", group: "Work/Reading", path: "Archive/Deleted long ago.md", missing: true },
      { type: "folder", group: "", path: "Projekte" },
      { type: "search", group: "", query: "tag:#meeting" },
      { type: "graph", group: "", title: "Local graph" },
      { type: "file", group: "", path: "Attachments/diagram.png", missing: true },
    ]);
    assert.equal(result.total, 12, "the hidden note and the config file are not bookmarks at all");
  });

  it("pages", async () => {
    const first = await session.ok("bookmarks", { limit: 5 });
    assert.equal(first.truncated, true);
    const rest = await session.ok("bookmarks", { limit: 500, cursor: first.next_cursor });
    assert.equal(first.bookmarks.length + rest.bookmarks.length, first.total);
    assert.equal(rest.bookmarks[0].title, "Reading");
  });

  it("says so when the vault has no bookmarks, and refuses a broken or unreadable bookmarks.json", async () => {
    const file = path.join(vault.dir, ".obsidian", "bookmarks.json");
    const saved = fs.readFileSync(file, "utf8");
    try {
      fs.rmSync(file);
      const none = await session.ok("bookmarks", {});
      assert.equal(none.total, 0);
      assert.match(none.note, /no bookmarks\.json/);
      fs.writeFileSync(file, "{ not json");
      await session.fails("bookmarks", {}, /bookmarks\.json is not valid JSON/);
      fs.rmSync(file);
      fs.mkdirSync(file);
      await session.fails("bookmarks", {}, /bookmarks\.json cannot be read \(EISDIR\)/);
      fs.rmdirSync(file);
    } finally {
      fs.writeFileSync(file, saved);
    }
  });
});
