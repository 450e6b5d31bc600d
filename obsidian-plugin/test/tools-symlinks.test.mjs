// Notes whose real file is outside the vault, through the real main.js: symlinks made at test time are listed but
// never read, searched, linked or counted, and a symlink swapped in during a call (by another process, as fast as it
// can) never redirects a read or an unannounced write outside the vault.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { tempDir } from "./lib/harness.mjs";
import { makeVault, openSession } from "./tools-lib.mjs";

describe("notes whose real file is outside the vault (symlinks) are listed but never read", () => {
  const SECRET = "zebracornsecret";
  let vault;
  let outside;
  let session;
  before(async () => {
    vault = makeVault();
    outside = tempDir("obsmcp-outside-");
    const secretNote = `# Secret\n${SECRET} see [[Hub]] and [[Nowhere outside]]\n#smuggled\n`;
    fs.writeFileSync(path.join(outside.dir, "secret.md"), secretNote);
    fs.mkdirSync(path.join(outside.dir, "folder"));
    fs.writeFileSync(path.join(outside.dir, "folder", "inner.md"), `${SECRET} in a folder, [[Hub]] #smuggled/deep\n`);
    fs.symlinkSync(path.join(outside.dir, "secret.md"), path.join(vault.dir, "Leak.md"));
    fs.symlinkSync(path.join(outside.dir, "folder"), path.join(vault.dir, "Linked"), "dir");
    fs.mkdirSync(path.join(vault.dir, "Real"));
    fs.writeFileSync(path.join(vault.dir, "Real", "Inner.md"), "kiwifruit points at [[Hub]]\n#insider\n");
    fs.symlinkSync(path.join(vault.dir, "Real", "Inner.md"), path.join(vault.dir, "Shortcut.md"));
    session = await openSession(vault.dir);
  });
  after(async () => {
    await session?.close();
    vault?.remove();
    outside?.remove();
  });

  it("search never finds text from them", async () => {
    const result = await session.ok("search", { query: SECRET });
    assert.deepEqual(result.results, []);
    assert.equal(result.total_matches, 0);
    const everything = await session.ok("search", { query: ".", regex: true, limit: 500, max_chars: 200000 });
    assert.ok(!JSON.stringify(everything).includes(SECRET));
  });

  it("backlinks neither list nor quote them, and note_metadata does not count them", async () => {
    const result = await session.ok("backlinks", { path: "Hub", max_lines_per_note: 20, limit: 500 });
    const sources = result.backlinks.map((entry) => entry.path);
    assert.deepEqual(sources, ["Notes/Alpha.md", "Notes/Sub/Gamma note.md", "Real/Inner.md", "Shortcut.md"]);
    assert.equal(result.total, 4);
    assert.ok(!JSON.stringify(result).includes(SECRET));
    assert.equal((await session.ok("note_metadata", { path: "Hub" })).backlinks, 4);
  });

  it("tags, files_by_tag, unresolved_links and orphans ignore their tags and links", async () => {
    const tags = await session.ok("tags", { limit: 500 });
    assert.ok(!tags.tags.some((entry) => entry.tag.toLowerCase().startsWith("#smuggled")), JSON.stringify(tags));
    assert.equal(tags.tags.find((entry) => entry.tag === "#insider")?.count, 2, "a symlink inside the vault counts");
    assert.equal((await session.ok("files_by_tag", { tag: "smuggled" })).total, 0);
    const unresolved = await session.ok("unresolved_links", { limit: 500, max_sources: 50 });
    assert.ok(!unresolved.unresolved.some((entry) => entry.link === "Nowhere outside"), JSON.stringify(unresolved));
    const orphans = await session.ok("orphans", { limit: 500 });
    const leak = orphans.orphans.find((entry) => entry.path === "Leak.md");
    assert.deepEqual(leak, { path: "Leak.md", has_outgoing: false }, "listed, but its links are not read");
  });

  it("read tools refuse them, list_files still lists the symlinked note", async () => {
    await session.fails("read_note", { path: "Leak" }, /outside the vault/);
    await session.fails("read_note", { path: "Linked/inner.md" }, /outside the vault/);
    await session.fails("outgoing_links", { path: "Leak" }, /outside the vault/);
    await session.fails("note_metadata", { path: "Linked/inner" }, /outside the vault/);
    const listing = await session.ok("list_files", { limit: 500 });
    assert.ok(listing.entries.some((entry) => entry.path === "Leak.md"));
  });

  it("batch gives the same answers", async () => {
    const result = await session.ok("batch", {
      calls: [
        { tool: "search", arguments: { query: SECRET } },
        { tool: "backlinks", arguments: { path: "Hub" } },
        { tool: "files_by_tag", arguments: { tag: "smuggled" } },
      ],
    });
    assert.ok(result.results.every((entry) => entry.ok));
    const [search, backlinks, byTag] = result.results.map((entry) => JSON.parse(entry.text));
    assert.equal(search.total_matches, 0);
    assert.ok(!backlinks.backlinks.some((entry) => entry.path === "Leak.md" || entry.path.startsWith("Linked/")));
    assert.ok(!JSON.stringify(backlinks).includes(SECRET));
    assert.equal(byTag.total, 0);
  });

  it("a symlink to a note inside the vault is read, searched and quoted like any note", async () => {
    assert.match(await session.text("read_note", { path: "Shortcut" }), /kiwifruit/);
    const found = await session.ok("search", { query: "kiwifruit" });
    assert.deepEqual(found.results.map((entry) => entry.path), ["Real/Inner.md", "Shortcut.md"]);
    const backlinks = await session.ok("backlinks", { path: "Hub" });
    const shortcut = backlinks.backlinks.find((entry) => entry.path === "Shortcut.md");
    assert.deepEqual(shortcut.lines, [{ line: 1, text: "kiwifruit points at [[Hub]]" }]);
  });

  it("a symlink pointed outside after a search is not read by the next search (the cached verdict is renewed)", async () => {
    assert.equal((await session.ok("search", { query: "kiwifruit" })).total_matches, 2);
    fs.writeFileSync(path.join(outside.dir, "moved.md"), `kiwifruit ${SECRET} moved outside, longer text\n`);
    fs.utimesSync(path.join(outside.dir, "moved.md"), new Date(2001, 0, 1), new Date(2001, 0, 1));
    fs.unlinkSync(path.join(vault.dir, "Shortcut.md"));
    fs.symlinkSync(path.join(outside.dir, "moved.md"), path.join(vault.dir, "Shortcut.md"));
    const found = await session.ok("search", { query: "kiwifruit" });
    assert.deepEqual(found.results.map((entry) => entry.path), ["Real/Inner.md"]);
    assert.ok(!JSON.stringify(found).includes(SECRET));
  });
});

describe("a symlink swapped in during a call", () => {
  const SECRET = "quokkasecret";
  let vault;
  let outside;
  let session;
  before(async () => {
    vault = makeVault();
    outside = tempDir("obsmcp-outside-");
    fs.writeFileSync(path.join(outside.dir, "secret.md"), `${SECRET} from outside the vault\n`);
    fs.writeFileSync(path.join(vault.dir, "Swap.md"), "inside text\n");
    session = await openSession(vault.dir);
  });
  after(async () => {
    await session?.close();
    vault?.remove();
    outside?.remove();
  });

  const CALLS = [
    ["read_note", { path: "Swap.md" }],
    ["note_metadata", { path: "Swap.md" }],
    ["search", { query: "from outside" }],
    ["outline", { path: "Swap.md" }],
    ["outgoing_links", { path: "Swap.md" }],
    ["batch", { calls: [{ tool: "read_note", arguments: { path: "Swap.md" } }] }],
  ];

  it("never redirects a read outside the vault (open first, then verify)", { timeout: 60000 }, async () => {
    // Another process turns Swap.md into a symlink to the secret and back, as fast as it can, while reads run.
    const swapper = startSwapper(path.join(vault.dir, "Swap.md"), path.join(outside.dir, "secret.md"), path.join(vault.dir, "spare-read"));
    const leaked = [];
    let inside = 0;
    try {
      for (let round = 0; round < 1500; round += 1) {
        const [tool, args] = CALLS[round % CALLS.length];
        const result = await session.call(tool, args);
        if (result.text.includes(SECRET)) leaked.push(tool);
        else if (!result.isError) inside += 1;
      }
    } finally {
      swapper.kill("SIGKILL");
    }
    assert.deepEqual(leaked, [], `${leaked.length} of 1500 calls returned the file outside the vault`);
    assert.ok(inside > 0, "some reads should have found the note itself");
  });

  it("never lets an edit land outside the vault unsaid (what Obsidian read must be the very note opened)", { timeout: 60000 }, async () => {
    const note = path.join(vault.dir, "Swap.md");
    // The hardest case: the file outside holds exactly the note's text, so only its identity tells them apart.
    const secret = path.join(outside.dir, "twin.md");
    fs.writeFileSync(secret, "inside text\n");
    const swapper = startSwapper(note, secret, path.join(vault.dir, "spare-edit"));
    const unexplained = [];
    const silent = [];
    let redirected = 0;
    try {
      for (let round = 0; round < 1000; round += 1) {
        const [tool, args] = [
          ["append", { path: "Swap.md", content: `marker-${round}` }],
          ["str_replace", { path: "Swap.md", old_text: "text", new_text: `marker-${round}` }],
          ["set_property", { path: "Swap.md", key: "marker", value: round }],
        ][round % 3];
        const result = await session.call(tool, args);
        // Obsidian writes by path an instant after the plugin's last check, so a swap in that instant can still
        // redirect a write; such a call must then fail and say so. Nearly all are stopped before writing.
        if (fs.readFileSync(secret, "utf8") !== "inside text\n") {
          redirected += 1;
          if (!result.isError || !/did not reach/.test(result.text)) silent.push(`${tool}: ${result.text.slice(0, 200)}`);
          fs.writeFileSync(secret, "inside text\n");
        }
        // The note is replaced every few microseconds, so most edits are refused; each refusal must say why.
        if (result.isError && !/changed while|did not reach|swapped|not found|outside the vault|does not exist|could not read/.test(result.text)) {
          unexplained.push(result.text);
        }
      }
    } finally {
      swapper.kill("SIGKILL");
    }
    assert.deepEqual(silent, [], "edits reached the file outside the vault and the call did not say so");
    // How many land in that instant depends on the scheduler: 0 or 1 in 1000 on an idle machine, 11 once in CI, and 14
    // with the pinned-identity check taken out (measured 2026-12-01); 55 in a CI run on 2026-12-07 while the other
    // test files ran beside it, 0-1 again alone, also with both cores busy. So the count cannot judge that check (what
    // the test holds it to is that no redirected edit goes unsaid); the bound only says that nearly all edits are
    // stopped.
    assert.ok(redirected <= 100, `${redirected} of 1000 edits reached the file outside (each said so), more than the instant's window explains`);
    assert.deepEqual(unexplained.slice(0, 3), [], `${unexplained.length} refusals did not say why`);
  });
});

// With a folder swapped for a symlink during writes, 15-20 of 500 create_note calls wrote outside the vault
// and said they succeeded: the check after the create judged a path no longer there by its nearest existing folder,
// which by then was the real one again. A create is now judged by the file at its path: gone, elsewhere or not the
// text written, and the call fails and says so.
describe("a folder swapped for a symlink during creates", () => {
  let vault;
  let outside;
  let session;
  before(async () => {
    vault = makeVault();
    outside = tempDir("obsmcp-outside-");
    fs.mkdirSync(path.join(vault.dir, "Flip"));
    session = await openSession(vault.dir);
  });
  after(async () => {
    await session?.close();
    vault?.remove();
    outside?.remove();
  });

  it("never lets a new note land outside the vault unsaid", { timeout: 120_000 }, async () => {
    const folder = path.join(vault.dir, "Flip");
    const swapper = startFolderSwapper(folder, outside.dir, path.join(vault.dir, "flip-away"), path.join(vault.dir, "flip-link"));
    const results = [];
    try {
      for (let round = 0; round < 500; round += 1) {
        results.push(await session.call("create_note", { path: `Flip/n${round}.md`, content: `note ${round}\n` }));
      }
    } finally {
      swapper.kill("SIGKILL");
    }
    const silent = [];
    let landedOutside = 0;
    let succeeded = 0;
    for (const [round, result] of results.entries()) {
      if (!result.isError) succeeded += 1;
      if (!fs.existsSync(path.join(outside.dir, `n${round}.md`))) continue;
      landedOutside += 1;
      if (!result.isError || !/may have gone outside the vault/.test(result.text)) silent.push(`n${round}: ${result.text.slice(0, 200)}`);
    }
    assert.deepEqual(silent, [], `${silent.length} of ${landedOutside} creates that landed outside the vault did not say so`);
    assert.ok(succeeded > 0, "no create succeeded, so nothing was tested");
  });
});

/**
 * Starts a process that keeps replacing the folder `folder` with a symlink to `target` and back: the folder waits
 * at `away` while the symlink (kept at `link`) stands in for it. Two renames each way, so for an instant neither is
 * there.
 */
function startFolderSwapper(folder, target, away, link) {
  const script = `
    const fs = require("fs");
    const [folder, target, away, link] = process.argv.slice(1);
    fs.symlinkSync(target, link, "dir");
    for (;;) {
      fs.renameSync(folder, away);
      fs.renameSync(link, folder);
      fs.renameSync(folder, link);
      fs.renameSync(away, folder);
    }`;
  return spawn(process.execPath, ["-e", script, folder, target, away, link], { stdio: "ignore" });
}

/** Starts a process that keeps replacing `note` with a symlink to `secret` and back (through `spare`, by rename). */
function startSwapper(note, secret, spare) {
  const script = `
    const fs = require("fs");
    const [note, secret, spare] = process.argv.slice(1);
    for (;;) {
      fs.writeFileSync(spare, "inside text\\n");
      fs.renameSync(spare, note);
      fs.symlinkSync(secret, spare);
      fs.renameSync(spare, note);
    }`;
  return spawn(process.execPath, ["-e", script, note, secret, spare], { stdio: "ignore" });
}

