// Path safety through the real main.js: escapes tried on every kind of path argument (absolute, "..", encoded,
// Windows forms, symlinks out), the config folder reached by name or through a symlink, Windows device names, and a
// renamed config folder; writes must leave no trace outside. How every tool treats notes whose real file is outside
// the vault, and symlinks swapped in during a call, is in tools-symlinks.test.mjs.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { tempDir } from "./lib/harness.mjs";
import { makeVault, openSession, readDisk } from "./tools-lib.mjs";

const ESCAPES = [
  ["../outside.md", /"\.\." segment/],
  ["Notes/../../outside.md", /"\.\." segment/],
  ["/etc/passwd", /is absolute/],
  ["C:/Windows/win.ini", /is absolute/],
  ["~/notes.md", /is absolute/],
  ["%2e%2e/outside.md", /percent-encoded/],
  ["Notes/%2E%2E%2Foutside.md", /percent-encoded/],
  ["..\\outside.md", /backslash/],
  ["Notes\\Alpha.md", /backslash/],
  ["Hub\u0000.md", /NUL or control/],
  [".obsidian/app.json", /config folder/],
  [".OBSIDIAN/plugins/obsmcp/data.json", /config folder/],
  // Windows forms, refused on every platform (the offline reader's fuzz target found them first).
  ["./C:/Windows/win.ini", /is absolute/],
  ["Notes/D:/x.md", /is absolute/],
  ["./~/notes.md", /is absolute/],
  [".obsidian./plugins/obsmcp/data.json", /config folder/],
  [".obsidian /app.json", /config folder/],
];

describe("path safety", () => {
  let vault;
  let outside;
  let session;
  before(async () => {
    vault = makeVault();
    outside = tempDir("obsmcp-outside-");
    fs.writeFileSync(path.join(outside.dir, "secret.md"), "secret text outside the vault\n");
    fs.symlinkSync(path.join(outside.dir, "secret.md"), path.join(vault.dir, "Leak.md"));
    fs.symlinkSync(outside.dir, path.join(vault.dir, "Linked"), "dir");
    session = await openSession(vault.dir);
  });
  after(async () => {
    await session?.close();
    vault?.remove();
    outside?.remove();
  });

  it("refuses every escape on reads, with a clear reason", async () => {
    for (const [escape, reason] of ESCAPES) {
      await session.fails("read_note", { path: escape }, reason);
      await session.fails("note_metadata", { path: escape }, reason);
    }
    await session.fails("list_files", { folder: "../" }, /"\.\." segment/);
    await session.fails("list_files", { folder: ".obsidian" }, /config folder/);
    await session.fails("search", { query: "x", path_prefix: "../" }, /"\.\." segment/);
    await session.fails("orphans", { folder: "/tmp" }, /is absolute/);
  });

  it("refuses every escape on writes and writes nothing", async () => {
    for (const [escape, reason] of ESCAPES) {
      await session.fails("create_note", { path: escape, content: "pwned" }, reason);
      await session.fails("move_note", { path: "Notes/Beta", new_path: escape }, reason);
    }
    await session.fails("create_note", { path: ".obsidian/plugins/evil/main", content: "x" }, /config folder/);
    assert.equal(fs.existsSync(path.join(vault.dir, ".obsidian", "plugins", "evil")), false);
    assert.ok(fs.existsSync(path.join(vault.dir, "Notes", "Beta.md")), "the note was not moved");
    for (const name of ["outside.md", "outside.md.md"]) {
      assert.equal(fs.existsSync(path.join(path.dirname(vault.dir), name)), false, `no ${name} beside the vault`);
    }
  });

  it("refuses a symlinked note whose real file is outside the vault", async () => {
    await session.fails("read_note", { path: "Leak.md" }, /outside the vault/);
    await session.fails("read_note", { path: "[[Leak]]" }, /outside the vault/);
    await session.fails("append", { path: "Leak", content: "x" }, /outside the vault/);
    await session.fails("delete_note", { path: "Leak" }, /outside the vault/);
    assert.equal(readDisk(outside.dir, "secret.md"), "secret text outside the vault\n");
  });

  it("refuses a symlinked folder that leads outside the vault, for reads, listings and creates", async () => {
    await session.fails("read_note", { path: "Linked/secret.md" }, /outside the vault/);
    await session.fails("list_files", { folder: "Linked" }, /outside the vault/);
    await session.fails("create_note", { path: "Linked/new.md", content: "x" }, /outside the vault/);
    await session.fails("create_note", { path: "Linked/deeper/new.md", content: "x" }, /outside the vault/);
    await session.fails("move_note", { path: "Notes/Beta", new_path: "Linked/Beta.md" }, /outside the vault/);
    assert.deepEqual(fs.readdirSync(outside.dir), ["secret.md"]);
  });

  it("search never quotes a note that lives outside the vault", async () => {
    const result = await session.ok("search", { query: "secret text" });
    assert.deepEqual(result.results, []);
  });

  it("batch applies the same checks to each call", async () => {
    const result = await session.ok("batch", {
      calls: [
        { tool: "read_note", arguments: { path: "../outside.md" } },
        { tool: "read_note", arguments: { path: "Leak" } },
        { tool: "outline", arguments: { path: "Hub" } },
      ],
    });
    assert.deepEqual(result.results.map((entry) => entry.ok), [false, false, true]);
    assert.match(result.results[0].error, /"\.\." segment/);
    assert.match(result.results[1].error, /outside the vault/);
  });
});

// A symlink inside the vault that leads into the config folder gave read_note the bearer token
// in data.json, and let creates, moves and trashes reach .obsidian. The real location is what counts.
describe("the config folder cannot be reached through a symlink", () => {
  let vault;
  let session;
  const secret = '{"token":"0123456789abcdef0123456789abcdef"}';
  before(async () => {
    vault = makeVault();
    const plugins = path.join(vault.dir, ".obsidian", "plugins", "secretive");
    fs.mkdirSync(plugins, { recursive: true });
    fs.writeFileSync(path.join(plugins, "data.json"), secret);
    fs.writeFileSync(path.join(vault.dir, ".obsidian", "note.md"), "config note #cfgtag\n");
    fs.symlinkSync(".obsidian", path.join(vault.dir, "cfglink"), "dir");
    fs.symlinkSync(path.join(".obsidian", "plugins", "secretive", "data.json"), path.join(vault.dir, "token.json"));
    fs.symlinkSync(path.join(".obsidian", "note.md"), path.join(vault.dir, "Alias.md"));
    session = await openSession(vault.dir);
  });
  after(async () => {
    await session?.close();
    vault?.remove();
  });

  it("reads refuse every path that leads into it, and never quote it", async () => {
    for (const target of ["cfglink/plugins/secretive/data.json", "token.json", "Alias.md", "[[Alias]]", "cfglink/note.md"]) {
      const text = await session.fails("read_note", { path: target });
      assert.ok(!text.includes("0123456789abcdef"), `${target}: ${text}`);
    }
    await session.fails("list_files", { folder: "cfglink" }, /config folder/);
    const found = await session.ok("search", { query: "config note" });
    assert.deepEqual(found.results, []);
    const batch = await session.ok("batch", { calls: [{ tool: "read_note", arguments: { path: "token.json" } }] });
    assert.equal(batch.results[0].ok, false);
    assert.ok(!JSON.stringify(batch).includes("0123456789abcdef"));
  });

  it("writes, moves and trashes cannot reach it", async () => {
    await session.fails("create_note", { path: "cfglink/plugins/evil/main", content: "x" }, /config folder/);
    await session.fails("create_note", { path: "cfglink/new", content: "x" }, /config folder/);
    await session.fails("move_note", { path: "Notes/Beta", new_path: "cfglink/Beta.md" }, /config folder/);
    await session.fails("delete_note", { path: "Alias" }, /config folder/);
    await session.fails("append", { path: "Alias", content: "x" }, /config folder/);
    assert.equal(fs.existsSync(path.join(vault.dir, ".obsidian", "plugins", "evil")), false);
    assert.equal(fs.existsSync(path.join(vault.dir, ".obsidian", "new.md")), false);
    assert.ok(fs.existsSync(path.join(vault.dir, "Notes", "Beta.md")), "the note was not moved");
    assert.equal(readDisk(vault.dir, ".obsidian/note.md"), "config note #cfgtag\n");
    assert.equal(readDisk(vault.dir, ".obsidian/plugins/secretive/data.json"), secret);
  });
});

// Names Windows opens as devices (NUL.md swallows a write, CON waits on the console): refused on every OS, as a
// vault may be synced to Windows. The name before its first "." or ":", trailing spaces dropped, is what counts.
const DEVICE_NAMES = [
  "CON.md",
  "nul",
  "Notes/COM1.txt",
  "aux.tar.gz",
  "LPT9",
  "prn/Plan.md",
  "Notes/Lpt3/deeper/x.md",
  "NUL .md",
  "con.",
  "COM1:",
  "COM\u00b9.md",
  "lpt\u00b3",
];

// Each look-alike beside the device name it resembles: only the whole name before the first "." is a device, and
// COM0 / LPT0 are plain files (Microsoft no longer lists them as reserved).
const LOOK_ALIKES = [
  ["CON.md", "CONSOLE.md"],
  ["nul.md", "nullable.md"],
  ["com1.md", "com10.md"],
  ["LPT1.md", "LPT0.md"],
  ["com1.md", "COM0.md"],
  ["aux.md", "Notes/auxiliary.md"],
  ["nul.md", "my nul.md"],
  ["con.md", "con-notes/x.md"],
  ["com\u00b2.md", "com\u2074.md"],
];

describe("Windows device names", () => {
  let vault;
  let session;
  before(async () => {
    vault = makeVault();
    // Synced from a vault kept on Linux or macOS, where such a file can exist.
    fs.writeFileSync(path.join(vault.dir, "NUL.md"), "written elsewhere\n");
    session = await openSession(vault.dir);
  });
  after(async () => {
    await session?.close();
    vault?.remove();
  });

  it("are refused in every segment, on reads and writes, and nothing is written", async () => {
    const before = fs.readdirSync(vault.dir).sort();
    for (const name of DEVICE_NAMES) {
      await session.fails("read_note", { path: name }, /opens as a device, not a file/);
      await session.fails("create_note", { path: name, content: "lost" }, /opens as a device, not a file/);
      await session.fails("move_note", { path: "Notes/Beta", new_path: name }, /opens as a device, not a file/);
    }
    const refusal = await session.fails("read_note", { path: "Notes/CON.md" });
    assert.match(refusal, /path "Notes\/CON\.md" has a segment Windows opens as a device, not a file: "CON\.md"/);
    await session.fails("read_note", { path: "[[NUL]]" }, /opens as a device/);
    await session.fails("list_files", { folder: "aux" }, /folder "aux" has a segment Windows opens as a device/);
    assert.deepEqual(fs.readdirSync(vault.dir).sort(), before);
    assert.ok(fs.existsSync(path.join(vault.dir, "Notes", "Beta.md")), "the note was not moved");
  });

  it("are told apart from names that only contain one", async () => {
    for (const [device, lookAlike] of LOOK_ALIKES) {
      await session.fails("create_note", { path: device, content: "x" }, /opens as a device/);
      await session.ok("create_note", { path: lookAlike, content: `# ${lookAlike}\n` });
      assert.equal(readDisk(vault.dir, lookAlike), `# ${lookAlike}\n`);
      assert.ok((await session.text("read_note", { path: lookAlike })).includes(`# ${lookAlike}`), lookAlike);
    }
  });
});

describe("a renamed config folder", () => {
  it("is protected under its own name", async () => {
    const vault = makeVault({ configDir: ".cfg" });
    const session = await openSession(vault.dir, { configDir: ".cfg" });
    try {
      await session.fails("create_note", { path: ".cfg/snippets/x", content: "x" }, /config folder \.cfg/);
      await session.fails("read_note", { path: ".cfg/app.json" }, /config folder/);
      const info = await session.ok("vault_info", {});
      assert.equal(info.config_dir, ".cfg");
      assert.equal(fs.existsSync(path.join(vault.dir, ".cfg", "snippets")), false);
    } finally {
      await session.close();
      vault.remove();
    }
  });
});
