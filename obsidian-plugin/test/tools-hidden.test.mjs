// Hidden paths in the plugin, for what the offline parity test (tests/it/offline/hidden.rs) cannot see: writes, the
// active note and daily notes. Writes never create or move anything into a hidden path and say so the same way
// whether or not something is there; edits of a hidden note fail exactly as for a note that does not exist; a
// move's linking_notes never counts a hidden note.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { writeSettings } from "./lib/load-plugin.mjs";
import { makeVault, openSession, readDisk } from "./tools-lib.mjs";

const SECRET = "Private/Secret.md";

describe("hidden paths", () => {
  let vault;
  let session;
  let before_;
  before(async () => {
    vault = makeVault();
    const write = (file, text) => {
      fs.mkdirSync(path.dirname(path.join(vault.dir, file)), { recursive: true });
      fs.writeFileSync(path.join(vault.dir, file), text);
    };
    write(SECRET, "SECRETWORD links [[Hub]] and [[Notes/Beta]]\n");
    write("Notes/Moving.md", "a note the hidden one links to\n");
    write("Private/Links.md", "[[Moving]]\n");
    fs.symlinkSync("Private", path.join(vault.dir, "Shortcut"));
    // A note that is a symlink to a hidden one, and one that is a symlink to a visible one.
    fs.symlinkSync(path.join("..", "Private", "Links.md"), path.join(vault.dir, "Notes", "Door.md"));
    fs.symlinkSync("Moving.md", path.join(vault.dir, "Notes", "Window.md"));
    // Journal is where the daily notes live; the active note is Notes/Alpha.md.
    writeSettings(vault.dir, { hiddenPaths: ["Private", "Journal", "notes/ALPHA"] });
    before_ = Object.fromEntries([SECRET, "Private/Links.md"].map((file) => [file, readDisk(vault.dir, file)]));
    session = await openSession(vault.dir);
  });
  after(async () => {
    await session?.close();
    vault?.remove();
  });

  const unchanged = () => {
    for (const [file, text] of Object.entries(before_)) assert.equal(readDisk(vault.dir, file), text, `${file} was changed`);
  };

  it("writes refuse a hidden path alike whether a note is there or not, in any case and through a symlink", async () => {
    const refused = /^(.*) is hidden by the obsmcp plugin's hidden paths; nothing was written$/;
    for (const target of ["Private/Secret", "Private/New", "private/NEW", "Shortcut/Other", "Elsewhere/Private/x"]) {
      const text = await session.fails("create_note", { path: target, content: "x", if_exists: "overwrite" }, refused);
      assert.ok(!text.includes("already exists") && !text.includes("sha256"), text);
    }
    await session.fails("move_note", { path: "Notes/Beta", new_path: "Private/Beta" }, refused);
    unchanged();
    assert.equal(fs.existsSync(path.join(vault.dir, "Private/New.md")), false);
    assert.equal(fs.existsSync(path.join(vault.dir, "Notes/Beta.md")), true);
  });

  it("edits, moves and deletes of a hidden note fail exactly as for a note that does not exist", async () => {
    const edits = [
      ["append", { content: "x" }],
      ["str_replace", { old_text: "SECRETWORD", new_text: "y" }],
      ["insert_at_line", { line: 1, content: "x" }],
      ["patch_section", { target: "frontmatter", operation: "append", content: "a: 1" }],
      ["set_property", { key: "a", value: 1 }],
      ["delete_property", { key: "a" }],
      ["move_note", { new_path: "Out.md" }],
      ["delete_note", {}],
      ["read_note", {}],
    ];
    for (const [tool, args] of edits) {
      for (const [hidden, missing] of [
        ["Private/Secret", "Nowhere/Secret"],
        ["Secret", "Nonesuch"],
        ["[[Shortcut/Secret]]", "[[Nowhere/Shortcut]]"],
      ]) {
        const a = await session.fails(tool, { path: hidden, ...args });
        const b = await session.fails(tool, { path: missing, ...args });
        assert.equal(a.replace(JSON.stringify(hidden), "X"), b.replace(JSON.stringify(missing), "X"), `${tool} ${hidden}`);
      }
    }
    unchanged();
    assert.equal(fs.existsSync(path.join(vault.dir, "Out.md")), false);
  });

  it("a move's linking_notes leaves out hidden notes that link to the moved one", async () => {
    const moved = await session.ok("move_note", { path: "Notes/Moving", new_path: "Notes/Moved" });
    assert.equal(moved.linking_notes, 0, "Private/Links.md links to it, and is hidden");
    const backlinks = await session.ok("backlinks", { path: "Notes/Moved" });
    assert.equal(backlinks.total, 0);
  });

  it("the active note, when hidden, is no active note; a hidden daily note does not exist and is not created", async () => {
    assert.deepEqual(await session.ok("active_note", {}), { path: null, selection: null });
    await session.fails("daily_note", { date: "2024-01-05" }, /^no daily note for 2024-01-05 .*create_daily_note creates it$/);
    await session.fails("create_daily_note", { date: "2024-01-06" }, /is hidden by the obsmcp plugin's hidden paths; nothing was written/);
    assert.equal(fs.existsSync(path.join(vault.dir, "Journal/2024/01/2024-01-06.md")), false);
    const info = await session.ok("vault_info", {});
    const listed = await session.ok("list_files", { include_folders: true, limit: 500 });
    assert.equal(info.files, listed.entries.filter((entry) => entry.type === "file").length);
    for (const entry of listed.entries) assert.doesNotMatch(entry.path, /^(Private|Journal|Shortcut)(\/|$)|Alpha|Door/);
    assert.ok(listed.entries.some((entry) => entry.path === "Notes/Window.md"), "a symlink to a visible note is listed");
  });
});
