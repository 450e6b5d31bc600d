// Write tools through the real main.js on a fresh crafted vault: every result's sha256 is checked against the bytes
// on disk, conflicts must leave the file byte-identical, and moves must rewrite links in other notes.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { makeVault, NOTES, openSession, parseRead, readDisk, sha256 } from "./tools-lib.mjs";

const STALE = "0".repeat(64);

describe("write tools", () => {
  let vault;
  let session;
  before(async () => {
    vault = makeVault();
    session = await openSession(vault.dir);
  });
  after(async () => {
    await session?.close();
    vault?.remove();
  });

  /** Asserts the result's hash is the hash of the file on disk, and returns the disk text. */
  const assertHashOnDisk = (result, file = result.path) => {
    const disk = readDisk(vault.dir, file);
    assert.equal(result.sha256, sha256(disk), `hash of ${file}`);
    return disk;
  };

  it("create_note creates parent folders, adds .md and reports the hash", async () => {
    const result = await session.ok("create_note", { path: "Projects/2025/Plan", content: "# Plan\n\n## Tasks\n- one\n" });
    assert.deepEqual({ ...result, sha256: undefined }, { path: "Projects/2025/Plan.md", created: true, overwritten: false, sha256: undefined });
    assert.equal(assertHashOnDisk(result), "# Plan\n\n## Tasks\n- one\n");
    const listed = await session.ok("list_files", { folder: "Projects" });
    assert.deepEqual(listed.entries.map((entry) => entry.path), ["Projects/2025/Plan.md"]);
  });

  it("create_note refuses an existing note unless if_exists is overwrite, guarded by expected_hash", async () => {
    const original = readDisk(vault.dir, "Projects/2025/Plan.md");
    const refusal = await session.fails("create_note", { path: "Projects/2025/Plan.md", content: "x" }, /already exists/);
    assert.ok(refusal.includes(sha256(original)), "the refusal gives the current hash");
    await session.fails(
      "create_note",
      { path: "Projects/2025/Plan.md", content: "x", if_exists: "overwrite", expected_hash: STALE },
      new RegExp(`conflict: .*current hash ${sha256(original)}.*nothing was written`),
    );
    assert.equal(readDisk(vault.dir, "Projects/2025/Plan.md"), original);
    const replaced = await session.ok("create_note", {
      path: "Projects/2025/Plan.md",
      content: "# Plan v2\n",
      if_exists: "overwrite",
      expected_hash: sha256(original),
    });
    assert.equal(replaced.overwritten, true);
    assert.equal(assertHashOnDisk(replaced), "# Plan v2\n");
    await session.fails("create_note", { path: "Nope/New.md", content: "x", expected_hash: STALE }, /does not exist/);
    assert.equal(fs.existsSync(path.join(vault.dir, "Nope")), false);
    await session.fails("create_note", { path: "Bad#name", content: "x" }, /cannot contain/);
    await session.fails("create_note", { path: "Projects/", content: "x" }, /ends with "\/"/);
    for (const name of ["Notes/a:b", "What?", "Folder|x/Note", "quote\"d"]) {
      await session.fails("create_note", { path: name, content: "x" }, /cannot contain \* " < > : \| \?/);
    }
  });

  it("str_replace replaces exactly one occurrence and says how many it found otherwise", async () => {
    const result = await session.ok("str_replace", { path: "Notes/Alpha", old_text: "Needle line one", new_text: "Pin line one" });
    assert.equal(result.line, 5);
    const disk = assertHashOnDisk(result);
    assert.equal(disk, NOTES["Notes/Alpha.md"].replace("Needle line one", "Pin line one"));
    await session.fails("str_replace", { path: "Notes/Alpha", old_text: "Hub", new_text: "X" }, /occurs 3 times/);
    await session.fails("str_replace", { path: "Notes/Alpha", old_text: "absent", new_text: "X" }, /not found/);
    assert.equal(readDisk(vault.dir, "Notes/Alpha.md"), disk);
  });

  it("str_replace matches \\n against a CRLF note and keeps its line endings", async () => {
    const result = await session.ok("str_replace", { path: "CRLF", old_text: "first line\nsecond line", new_text: "one\ntwo\nthree" });
    assert.equal(assertHashOnDisk(result), "# Windows\r\n\r\none\r\ntwo\r\nthree\r\n");
  });

  it("an expected_hash conflict writes nothing on every editing tool", async () => {
    const before = readDisk(vault.dir, "Hub.md");
    const calls = [
      ["str_replace", { old_text: "Start here.", new_text: "x" }],
      ["patch_section", { target: "heading", name: "Section two", operation: "append", content: "x" }],
      ["append", { content: "x" }],
      ["insert_at_line", { line: 1, content: "x" }],
      ["set_property", { key: "status", value: "x" }],
      ["delete_property", { key: "status" }],
      ["move_note", { new_path: "Elsewhere.md" }],
      ["delete_note", {}],
    ];
    for (const [tool, args] of calls) {
      const text = await session.fails(tool, { path: "Hub", expected_hash: STALE, ...args }, /conflict/);
      assert.ok(text.includes(sha256(before)), `${tool} gives the current hash`);
      assert.equal(readDisk(vault.dir, "Hub.md"), before, `${tool} wrote nothing`);
    }
    const read = parseRead(await session.text("read_note", { path: "Hub" }));
    const ok = await session.ok("append", { path: "Hub", content: "appended line", expected_hash: read.sha256 });
    assert.ok(assertHashOnDisk(ok).endsWith("last words\nappended line"));
  });

  it("patch_section appends, prepends and replaces inside a heading's section", async () => {
    await session.ok("create_note", { path: "Patch.md", content: "# Top\nintro\n\n## A\na1\n\n## B\nb1\n" });
    await session.ok("patch_section", { path: "Patch", target: "heading", name: "A", operation: "append", content: "a2" });
    await session.ok("patch_section", { path: "Patch", target: "heading", name: "A", operation: "prepend", content: "a0" });
    let result = await session.ok("patch_section", { path: "Patch", target: "heading", name: "B", operation: "replace", content: "new b\n" });
    assert.equal(assertHashOnDisk(result), "# Top\nintro\n\n## A\na0\na1\na2\n\n## B\nnew b\n");
    result = await session.ok("patch_section", { path: "Patch", target: "heading", name: "Top#B", operation: "append", content: "b2" });
    assert.equal(assertHashOnDisk(result), "# Top\nintro\n\n## A\na0\na1\na2\n\n## B\nnew b\nb2\n");
    await session.fails("patch_section", { path: "Patch", target: "heading", name: "C", operation: "append", content: "x" }, /heading "C" not found/);
    await session.fails("patch_section", { path: "Patch", target: "heading", operation: "append", content: "x" }, /name is required/);
  });

  it("patch_section replaces a block keeping its id, and edits or creates the frontmatter", async () => {
    await session.ok("create_note", { path: "Blocks.md", content: "para one\npara two ^p1\n\n- item ^i1\n- other\n" });
    let result = await session.ok("patch_section", { path: "Blocks", target: "block", name: "^p1", operation: "replace", content: "fresh text" });
    assert.equal(assertHashOnDisk(result), "fresh text ^p1\n\n- item ^i1\n- other\n");
    result = await session.ok("patch_section", { path: "Blocks", target: "block", name: "i1", operation: "append", content: "- after item" });
    assert.equal(assertHashOnDisk(result), "fresh text ^p1\n\n- item ^i1\n- after item\n- other\n");
    result = await session.ok("patch_section", { path: "Blocks", target: "frontmatter", operation: "replace", content: "kind: test" });
    assert.equal(assertHashOnDisk(result), "---\nkind: test\n---\nfresh text ^p1\n\n- item ^i1\n- after item\n- other\n");
    result = await session.ok("patch_section", { path: "Blocks", target: "frontmatter", operation: "append", content: "more: 1" });
    assert.ok(assertHashOnDisk(result).startsWith("---\nkind: test\nmore: 1\n---\n"));
    const meta = await session.ok("note_metadata", { path: "Blocks" });
    assert.deepEqual(meta.frontmatter, { kind: "test", more: 1 });
    await session.fails("patch_section", { path: "Blocks", target: "block", name: "zz", operation: "append", content: "x" }, /block \^zz not found/);
  });

  it("append and insert_at_line add lines where asked", async () => {
    await session.ok("create_note", { path: "Lines.md", content: "one\ntwo" });
    let result = await session.ok("append", { path: "Lines", content: "three\n" });
    assert.equal(assertHashOnDisk(result), "one\ntwo\nthree\n");
    assert.equal(result.lines, 3);
    result = await session.ok("insert_at_line", { path: "Lines", line: 2, content: "one and a half" });
    assert.equal(assertHashOnDisk(result), "one\none and a half\ntwo\nthree\n");
    result = await session.ok("insert_at_line", { path: "Lines", line: 5, content: "four" });
    assert.equal(assertHashOnDisk(result), "one\none and a half\ntwo\nthree\nfour\n");
    await session.fails("insert_at_line", { path: "Lines", line: 7, content: "x" }, /past the end: Lines.md has 5 lines \(use 6 to append\)/);
  });

  it("set_property and delete_property edit the frontmatter through Obsidian", async () => {
    let result = await session.ok("set_property", { path: "Notes/Beta", key: "rating", value: 5 });
    assert.equal(result.previous, null);
    let disk = assertHashOnDisk(result);
    assert.match(disk, /^---\nrating: 5\n---\n/);
    result = await session.ok("set_property", { path: "Notes/Beta", key: "aliases", value: ["B", "Bee"] });
    assertHashOnDisk(result);
    let meta = await session.ok("note_metadata", { path: "Notes/Beta" });
    assert.deepEqual(meta.frontmatter, { rating: 5, aliases: ["B", "Bee"] });
    result = await session.ok("delete_property", { path: "Notes/Beta", key: "rating" });
    assert.equal(result.existed, true);
    disk = assertHashOnDisk(result);
    assert.doesNotMatch(disk, /rating/);
    result = await session.ok("delete_property", { path: "Notes/Beta", key: "rating" });
    assert.equal(result.existed, false);
    meta = await session.ok("note_metadata", { path: "Notes/Beta" });
    assert.deepEqual(meta.aliases, ["B", "Bee"]);
    assert.ok(disk.endsWith("Beta links [[Alpha]] and [[Missing note]] and [[Another missing]].\n#todo\n"), "the body is kept");
  });

  it("move_note moves through Obsidian, which rewrites links in other notes", async () => {
    const gammaBefore = readDisk(vault.dir, "Notes/Sub/Gamma note.md");
    assert.ok(gammaBefore.includes("[[Hub|the hub]]"));
    const result = await session.ok("move_note", { path: "Hub", new_path: "Archive/Old hub" });
    assert.deepEqual({ ...result, sha256: undefined }, { from: "Hub.md", to: "Archive/Old hub.md", linking_notes: 2, sha256: undefined });
    assertHashOnDisk(result, "Archive/Old hub.md");
    assert.equal(fs.existsSync(path.join(vault.dir, "Hub.md")), false);
    assert.ok(fs.existsSync(path.join(vault.dir, "Archive", "Old hub.md")));
    const gamma = readDisk(vault.dir, "Notes/Sub/Gamma note.md");
    assert.doesNotMatch(gamma, /\[\[Hub\|/);
    assert.match(gamma, /\[\[Old hub\|the hub\]\]|\[\[Archive\/Old hub\|the hub\]\]/);
    const backlinks = await session.ok("backlinks", { path: "Archive/Old hub" });
    assert.deepEqual(backlinks.backlinks.map((entry) => entry.path), ["Notes/Alpha.md", "Notes/Sub/Gamma note.md"]);
    await session.fails("move_note", { path: "Archive/Old hub", new_path: "Notes/Alpha" }, /already exists/);
    await session.fails("move_note", { path: "Archive/Old hub", new_path: "../out" }, /\.\./);
  });

  it("delete_note moves the note to the trash and it is gone from the vault", async () => {
    const result = await session.ok("delete_note", { path: "Lines" });
    assert.deepEqual(result, { path: "Lines.md", trashed: true, linking_notes: 0 });
    assert.equal(fs.existsSync(path.join(vault.dir, "Lines.md")), false);
    assert.ok(fs.existsSync(path.join(vault.dir, ".trash", "Lines.md")), "the fake falls back to the vault's .trash");
    await session.fails("read_note", { path: "Lines" }, /note not found/);
    await session.fails("delete_note", { path: "Lines" }, /note not found/);
  });

  it("create_daily_note creates the day's note from the template in the configured folder", async () => {
    const read = parseRead(await session.text("create_daily_note", { date: "2024-02-03" }));
    assert.equal(read.path, "Journal/2024/02/2024-02-03.md");
    assert.match(read.header, / created=true/);
    assert.equal(read.content, "# 2024-02-03\n\n## Log");
    assert.equal(readDisk(vault.dir, "Journal/2024/02/2024-02-03.md"), "# 2024-02-03\n\n## Log\n");
    assert.equal(read.sha256, sha256("# 2024-02-03\n\n## Log\n"));
    const again = parseRead(await session.text("create_daily_note", { date: "2024-02-03" }));
    assert.doesNotMatch(again.header, /created=true/, "an existing daily note is read, not recreated");
    const read_only_tool = parseRead(await session.text("daily_note", { date: "2024-02-03" }));
    assert.equal(read_only_tool.content, read.content, "daily_note reads what create_daily_note created");
  });
});

// Line edits inserted content with splice(at, n, ...content), which throws a RangeError (the call's
// arguments overflow the stack) once the content has about 120,000 lines.
describe("line edits with content of 200,000 lines", () => {
  let vault;
  let session;
  before(async () => {
    vault = makeVault();
    session = await openSession(vault.dir);
  });
  after(async () => {
    await session?.close();
    vault?.remove();
  });

  const many = Array.from({ length: 200_000 }, (_, i) => `line ${i}`);
  const start = "---\nkind: big\n---\n# Top\nfirst\nsecond ^b1\n\n# End\nlast\n";

  const cases = [
    ["insert_at_line", { line: 5 }, ["---", "kind: big", "---", "# Top", ...many, "first", "second ^b1", "", "# End", "last"]],
    ["patch_section", { target: "heading", name: "Top", operation: "append" }, ["---", "kind: big", "---", "# Top", "first", "second ^b1", ...many, "", "# End", "last"]],
    ["patch_section", { target: "block", name: "b1", operation: "prepend" }, ["---", "kind: big", "---", "# Top", ...many, "", "first", "second ^b1", "", "# End", "last"]],
    ["patch_section", { target: "frontmatter", operation: "replace" }, ["---", ...many, "---", "# Top", "first", "second ^b1", "", "# End", "last"]],
  ];
  for (const [tool, args, expected] of cases) {
    it(`${tool} ${JSON.stringify(args)} inserts them instead of failing with a RangeError`, { timeout: 60_000 }, async () => {
      const path = `Big ${tool} ${args.target ?? ""}.md`;
      await session.ok("create_note", { path, content: start });
      // Not session.ok: its failure message would quote the 2 MB of content.
      const result = await session.call(tool, { path, ...args, content: many.join("\n") });
      assert.ok(!result.isError, result.text.slice(0, 300));
      const text = readDisk(vault.dir, path);
      assert.equal(JSON.parse(result.text).sha256, sha256(text));
      const lines = text.split("\n");
      const differs = [...expected, ""].findIndex((line, i) => lines[i] !== line);
      assert.ok(differs < 0 && lines.length === expected.length + 1, `${path} differs at line ${differs + 1}: ${JSON.stringify(lines.slice(Math.max(differs - 2, 0), differs + 3))}`);
    });
  }
});

// set_property, delete_property, move_note and delete_note checked expected_hash outside the
// atomic step, so two writers holding the same hash both succeeded, and delete_note trashed a note edited after its
// check. Each pair below runs at once, many times over; exactly one of each pair may succeed.
describe("writes that race on one note", () => {
  let vault;
  let session;
  before(async () => {
    vault = makeVault();
    session = await openSession(vault.dir);
  });
  after(async () => {
    await session?.close();
    vault?.remove();
  });

  const hashOf = (file) => sha256(readDisk(vault.dir, file));
  const outcomes = (results) => results.map((result) => (result.isError ? "refused" : "ok")).sort();

  it("two frontmatter edits holding the same hash: one succeeds, the other is a conflict, and the hash returned is its own", async () => {
    for (let round = 0; round < 20; round++) {
      const path = `Race/Props ${round}.md`;
      await session.ok("create_note", { path, content: "---\nstatus: draft\n---\nbody\n" });
      const hash = hashOf(path);
      const results = await Promise.all([
        session.call("set_property", { path, key: "status", value: "a", expected_hash: hash }),
        session.call("delete_property", { path, key: "status", expected_hash: hash }),
      ]);
      assert.deepEqual(outcomes(results), ["ok", "refused"], JSON.stringify(results));
      const winner = JSON.parse(results.find((result) => !result.isError).text);
      assert.equal(winner.sha256, hashOf(path), "the winner's hash is the text on disk");
      assert.match(results.find((result) => result.isError).text, /conflict/);
    }
  });

  it("two moves of one note holding its hash: one moves it, the other moves nothing", async () => {
    for (let round = 0; round < 20; round++) {
      const path = `Race/Move ${round}.md`;
      await session.ok("create_note", { path, content: `move ${round}\n` });
      const hash = hashOf(path);
      const results = await Promise.all([
        session.call("move_note", { path, new_path: `Race/Moved A ${round}.md`, expected_hash: hash }),
        session.call("move_note", { path, new_path: `Race/Moved B ${round}.md`, expected_hash: hash }),
      ]);
      assert.deepEqual(outcomes(results), ["ok", "refused"], JSON.stringify(results));
      const present = ["A", "B"].filter((side) => fs.existsSync(`${vault.dir}/Race/Moved ${side} ${round}.md`));
      assert.equal(present.length, 1, `exactly one destination exists: ${present}`);
    }
  });

  // str_replace waited for move_note's lock, then edited the note at its new path with the hash both were
  // given, so both succeeded. After the lock, a write refuses a note that is no longer at the path it resolved.
  it("move_note and str_replace holding the same hash: one succeeds, and a refused edit says the note moved", async () => {
    let waited = 0;
    for (let round = 0; round < 20; round++) {
      const path = `Race/Follow ${round}.md`;
      const to = `Race/Followed ${round}.md`;
      await session.ok("create_note", { path, content: `follow ${round} me\n` });
      const hash = hashOf(path);
      const [move, edit] = await Promise.all([
        session.call("move_note", { path, new_path: to, expected_hash: hash }),
        session.call("str_replace", { path, old_text: "me", new_text: "edited", expected_hash: hash }),
      ]);
      assert.deepEqual(outcomes([move, edit]), ["ok", "refused"], JSON.stringify([move, edit]));
      if (!move.isError) {
        // An edit that arrives once the move is done finds no note at its path; one that waited for the lock is told.
        if (!/not found/.test(edit.text)) {
          waited += 1;
          assert.match(edit.text, new RegExp(`${path} was moved to ${to} by another write.*nothing was written: read the note again`));
        }
        assert.equal(readDisk(vault.dir, to), `follow ${round} me\n`, "the moved note is as the move found it");
      } else {
        assert.match(move.text, /conflict/);
        assert.equal(readDisk(vault.dir, path), `follow ${round} edited\n`);
      }
    }
    assert.ok(waited > 0, "no edit waited for the move's lock, so the race was never run");
  });

  it("delete_note never trashes a note edited after the hash it was given", async () => {
    for (let round = 0; round < 20; round++) {
      const path = `Race/Delete ${round}.md`;
      await session.ok("create_note", { path, content: "keep me\n" });
      const hash = hashOf(path);
      const [edit, remove] = await Promise.all([
        session.call("append", { path, content: "edited", expected_hash: hash }),
        session.call("delete_note", { path, expected_hash: hash }),
      ]);
      assert.equal(edit.isError || remove.isError, true, `both succeeded: ${edit.text} / ${remove.text}`);
      if (!edit.isError) assert.ok(fs.existsSync(`${vault.dir}/${path}`), "the edited note is still there");
    }
  });

  it("set_property with the key __proto__ writes that key, as any other", async () => {
    await session.ok("create_note", { path: "Race/Proto.md", content: "---\na: 1\n---\nbody\n" });
    const result = await session.ok("set_property", { path: "Race/Proto.md", key: "__proto__", value: "x" });
    assert.equal(result.previous, null);
    assert.match(readDisk(vault.dir, "Race/Proto.md"), /__proto__: x/);
    const removed = await session.ok("delete_property", { path: "Race/Proto.md", key: "__proto__" });
    assert.equal(removed.existed, true);
    assert.doesNotMatch(readDisk(vault.dir, "Race/Proto.md"), /__proto__/);
  });
});
