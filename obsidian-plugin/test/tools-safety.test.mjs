// Path safety, read-only mode and the tool catalog's shape, through the real main.js. Escapes are tried on every
// kind of path argument; symlinks out of the vault are created at test time; writes must leave no trace outside.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
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

const WRITE_TOOL_NAMES = [
  "create_note",
  "create_daily_note",
  "str_replace",
  "patch_section",
  "append",
  "insert_at_line",
  "set_property",
  "delete_property",
  "move_note",
  "delete_note",
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

// Issue 12, finding 1: a symlink inside the vault that leads into the config folder gave read_note the bearer token
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
    assert.ok(redirected <= 10, `${redirected} of 1000 edits reached the file outside (each said so), more than the instant's window explains`);
    assert.deepEqual(unexplained.slice(0, 3), [], `${unexplained.length} refusals did not say why`);
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
      "search",
      "note_metadata",
      "outline",
      "backlinks",
      "outgoing_links",
      "unresolved_links",
      "orphans",
      "tags",
      "files_by_tag",
      "active_note",
      "daily_note",
      "recent_files",
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

describe("tool catalog shape", () => {
  it("every tool has a title, a short description, described arguments and complete annotations", async () => {
    const vault = makeVault();
    const session = await openSession(vault.dir);
    try {
      const tools = await session.client.listTools();
      assert.equal(tools.length, 26);
      for (const tool of tools) {
        assert.ok(tool.title, `${tool.name} has a title`);
        assert.ok(tool.description.length > 20 && tool.description.length <= 300, `${tool.name} description length ${tool.description.length}`);
        assert.equal(typeof tool.annotations.readOnlyHint, "boolean", `${tool.name} readOnlyHint`);
        assert.equal(tool.annotations.openWorldHint, false, `${tool.name} openWorldHint`);
        if (!tool.annotations.readOnlyHint) {
          assert.equal(typeof tool.annotations.destructiveHint, "boolean", `${tool.name} destructiveHint`);
          assert.equal(typeof tool.annotations.idempotentHint, "boolean", `${tool.name} idempotentHint`);
        }
        assert.equal(tool.inputSchema.type, "object");
        for (const [name, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
          assert.ok(schema.description, `${tool.name}.${name} has a description`);
          if (schema.type === "integer" && (name === "limit" || name === "max_chars")) {
            assert.ok(schema.maximum !== undefined && schema.default !== undefined, `${tool.name}.${name} has a default and a maximum`);
          }
        }
        if (Object.keys(tool.inputSchema.properties ?? {}).includes("path")) {
          assert.ok(tool.inputSchema.required.includes("path"), `${tool.name} requires path`);
        }
      }
      const limits = tools.flatMap((tool) => Object.entries(tool.inputSchema.properties ?? {})).filter(([name]) => name === "limit");
      assert.ok(limits.every(([, schema]) => schema.maximum <= 500));
      const maxChars = tools.flatMap((tool) => Object.entries(tool.inputSchema.properties ?? {})).filter(([name]) => name === "max_chars");
      assert.ok(maxChars.every(([, schema]) => schema.default === 20000 && schema.maximum === 200000));
    } finally {
      await session.close();
      vault.remove();
    }
  });
});

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

