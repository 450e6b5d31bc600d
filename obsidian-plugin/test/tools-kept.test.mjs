// A large note's text kept until its edit is verified (src/vault/kept.ts), through the real main.js: Obsidian writes
// in place, so a crash during a big write can cut the note; the text before the edit and a record of both hashes sit
// in the plugin's folder while the write runs, for `obsmcp doctor` to offer back, and go once the edit is verified.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { makeVault, openSession, readDisk, sha256 } from "./tools-lib.mjs";

const BIG = `# Big\n${"a line of a large note, long enough to pass a mebibyte soon\n".repeat(24_000)}`;

describe("large notes are kept while they are edited", () => {
  let vault;
  let session;
  let kept;
  before(async () => {
    vault = makeVault({ files: { "Big.md": BIG, "Small.md": "# Small\nsmall\n" } });
    kept = path.join(vault.dir, ".obsidian", "plugins", "obsmcp", "kept");
    fs.mkdirSync(kept, { recursive: true });
    session = await openSession(vault.dir);
  });
  after(async () => {
    await session?.close();
    vault?.remove();
  });

  /** The names created in the kept folder while `run` runs. */
  async function createdDuring(run) {
    const seen = new Set();
    const watcher = fs.watch(kept, (_event, name) => name && seen.add(name));
    try {
      const result = await run();
      // Let the watcher's last events arrive.
      await new Promise((resolve) => setTimeout(resolve, 100));
      return { result, seen: [...seen] };
    } finally {
      watcher.close();
    }
  }

  it("keeps a note of a mebibyte or more, with its record, until the edit is verified, then removes both", async () => {
    assert.ok(Buffer.byteLength(BIG) >= 1024 * 1024);
    const { result, seen } = await createdDuring(() => session.ok("str_replace", { path: "Big.md", old_text: "# Big\n", new_text: "# Bigger\n" }));
    assert.ok(seen.some((name) => name.endsWith(".md")), `the text was kept: ${seen}`);
    assert.ok(seen.some((name) => name.endsWith(".json")), `with its record: ${seen}`);
    assert.deepEqual(fs.readdirSync(kept), [], "both are gone once the edit is verified");
    assert.equal(result.sha256, sha256(readDisk(vault.dir, "Big.md")));
  });

  it("writes a small note in one go, keeping nothing", async () => {
    const { seen } = await createdDuring(() => session.ok("append", { path: "Small.md", content: "more\n" }));
    assert.deepEqual(seen, []);
  });

  it("refuses a large edit when the text cannot be kept, and writes nothing", async () => {
    fs.rmSync(kept, { recursive: true });
    fs.writeFileSync(kept, "a file where the folder goes");
    try {
      const before = readDisk(vault.dir, "Big.md");
      await session.fails("append", { path: "Big.md", content: "more\n" }, /its text could not be kept before a large edit .*nothing was written/);
      assert.equal(readDisk(vault.dir, "Big.md"), before);
    } finally {
      fs.rmSync(kept);
      fs.mkdirSync(kept);
    }
  });
});
