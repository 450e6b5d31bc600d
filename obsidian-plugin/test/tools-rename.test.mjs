// Renames through Obsidian keep every listing whole. Obsidian gives a `TFile` its new path before it sends the
// "rename" event, so the plugin's path-ordered index of files (src/vault/file-index.ts) must find the entry it is
// moving by the path it indexed: a note moved far from its place in path order was once listed twice (at its new
// place and, under its new name, at its old one) by list_files, search and resources/list.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { makeVault, openSession } from "./tools-lib.mjs";

const files = { "Zeta/last.md": "The last note, kiwiword.\n" };
for (let i = 0; i < 40; i++) files[`Bulk/n${String(i).padStart(2, "0")}.md`] = `Note ${i}, kiwiword.\n`;

const vault = makeVault({ files });
const session = await openSession(vault.dir);
after(async () => {
  try {
    await session.close();
  } finally {
    vault.remove();
  }
});

/** Every file list_files lists, page after page. */
async function listed() {
  const paths = [];
  let cursor;
  do {
    const page = await session.ok("list_files", { limit: 20, ...(cursor ? { cursor } : {}) });
    paths.push(...page.entries.map((entry) => entry.path));
    cursor = page.next_cursor;
  } while (cursor);
  return paths;
}

describe("renames through Obsidian", () => {
  it("a note moved far from its place in path order is listed and found once, in order", async () => {
    const before = await listed();
    assert.ok(before.includes("Zeta/last.md") && before.includes("Bulk/n20.md"));
    await session.ok("move_note", { path: "Zeta/last.md", new_path: "Alpha/first.md" });
    await session.ok("move_note", { path: "Bulk/n20.md", new_path: "Zed/n20.md" });

    const expected = before
      .map((file) => ({ "Zeta/last.md": "Alpha/first.md", "Bulk/n20.md": "Zed/n20.md" })[file] ?? file)
      .sort();
    assert.deepEqual(await listed(), expected);
    const found = await session.ok("search", { query: "kiwiword", limit: 500 });
    const kiwi = expected.filter((file) => file === "Alpha/first.md" || file === "Zed/n20.md" || file.startsWith("Bulk/"));
    assert.deepEqual(
      found.results.map((result) => result.path),
      kiwi,
    );
    assert.equal(found.notes_searched, expected.filter((file) => file.endsWith(".md")).length);
  });
});
