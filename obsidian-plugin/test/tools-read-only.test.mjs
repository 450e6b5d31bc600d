// Read-only mode through the real main.js: every write tool hidden from tools/list and refused when called anyway
// (also inside batch), the vault left untouched, reads still served.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { makeVault, openSession, readDisk } from "./tools-lib.mjs";

const WRITE_TOOL_NAMES = [
  "create_note",
  "create_daily_note",
  "create_from_template",
  "str_replace",
  "patch_section",
  "append",
  "insert_at_line",
  "set_property",
  "delete_property",
  "set_task",
  "edit_canvas",
  "move_note",
  "delete_note",
  "open_note",
];

describe("read-only mode", () => {
  let vault;
  let session;
  before(async () => {
    vault = makeVault();
    session = await openSession(vault.dir, { readOnly: true });
  });
  after(async () => {
    await session?.close();
    vault?.remove();
  });

  it("hides every write tool from tools/list", async () => {
    const names = (await session.client.listTools()).map((tool) => tool.name);
    for (const name of WRITE_TOOL_NAMES) assert.ok(!names.includes(name), `${name} is hidden`);
    assert.deepEqual(names, [
      "vault_info",
      "list_files",
      "read_note",
      "read_attachment",
      "search",
      "note_metadata",
      "outline",
      "backlinks",
      "outgoing_links",
      "unresolved_links",
      "orphans",
      "tags",
      "files_by_tag",
      "tasks",
      "properties",
      "active_note",
      "daily_note",
      "recent_files",
      "bookmarks",
      "templates",
      "canvas",
      "bases",
      "batch",
    ]);
  });

  it("refuses write tools called anyway and leaves the vault untouched", async () => {
    const before = readDisk(vault.dir, "Hub.md");
    for (const [tool, args] of [
      ["create_note", { path: "New.md", content: "x" }],
      ["append", { path: "Hub", content: "x" }],
      ["set_property", { path: "Hub", key: "a", value: 1 }],
      ["delete_note", { path: "Hub" }],
      ["set_task", { path: "Hub", line: 1, status: "x", expected_text: "x" }],
      ["create_daily_note", { date: "2024-03-01" }],
    ]) {
      await session.fails(tool, args, /read-only/);
    }
    assert.equal(readDisk(vault.dir, "Hub.md"), before);
    assert.equal(fs.existsSync(path.join(vault.dir, "New.md")), false);
    assert.equal(fs.existsSync(path.join(vault.dir, "Journal", "2024", "03")), false);
  });

  it("still serves reads, and batch refuses write tools inside it", async () => {
    const result = await session.ok("batch", {
      calls: [
        { tool: "read_note", arguments: { path: "Hub", max_chars: 200 } },
        { tool: "append", arguments: { path: "Hub", content: "x" } },
      ],
    });
    assert.equal(result.results[0].ok, true);
    assert.equal(result.results[1].ok, false);
    assert.match(result.results[1].error, /not a read-only tool/);
  });
});
