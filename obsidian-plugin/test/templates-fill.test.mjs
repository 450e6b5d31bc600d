// Filling a template (src/vault/daily.ts `fillTemplate`, used by create_from_template and create_daily_note) through
// the real main.js: the cost grows linearly with the template, a large fill leaves Obsidian's thread free while it
// runs, and a format too long to be worth moment's cache is refused. Sessions of the 2025-11-25 era only: nothing
// here depends on the era.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { connect, resultText } from "./lib/client.mjs";
import { startHost } from "./lib/harness.mjs";
import { makeVault, readDisk } from "./tools-lib.mjs";

/** The template that once took the plugin quadratic time: `{{date:` again and again and never a "}" (25,000 of them are 175 KB). */
const unclosed = (count) => "{{date:".repeat(count);

/** Sizes of `unclosed` timed, each twice the one before. */
const SIZES = [2000, 4000, 8000, 16000];

/** Placeholders in the template filled while pings run beside it. */
const MANY = 200_000;

const templates = {
  ...Object.fromEntries(SIZES.map((count) => [`Templates/Unclosed ${count}.md`, unclosed(count)])),
  "Templates/Many.md": "{{time:HH:mm:ss}} {{date}} {{title}}\n".repeat(MANY),
  "Templates/Long format.md": `# {{title}}\n\nfine: {{date:${"Y".repeat(100)}}}\ntoo long: {{date: ${"Y".repeat(101)} }}\n`,
  "Templates/Formats.md": Array.from({ length: 51 }, (_, i) => `{{date:[${i}]}}`).join("\n"),
  "Templates/Fifty formats.md": Array.from({ length: 50 }, (_, i) => `{{time:[${i}]}} {{TIME: [${i}]}}`).join("\n"),
};

describe("filling a template", () => {
  let vault;
  let host;
  let client;
  let pinger;
  before(async () => {
    vault = makeVault({ fixture: "templates", files: templates });
    host = await startHost({ vaultDir: vault.dir, stalls: `${vault.dir}.stalls.json`, timeoutMs: 60_000 });
    client = connect(host.url, host.token, { timeoutMs: 120_000 });
    await client.initialize();
    pinger = connect(host.url, host.token, { timeoutMs: 120_000 });
    await pinger.initialize();
  });
  after(async () => {
    await host?.stop();
    vault?.remove();
  });

  let made = 0;
  /** Creates a note from `template`; its text, or the error's text. */
  async function create(template) {
    const path = `Made/Note ${made++}.md`;
    const result = await client.callTool("create_from_template", { path, template });
    return { path, isError: result.isError === true, text: resultText(result) };
  }

  // The fill regex backtracked quadratically on `{{date:` × 25,000 (10-14 s on Obsidian's UI thread; a
  // 1 MB template would take minutes). A linear fill costs at most 8 times as much for 8 times the template (the
  // fixed cost of a call makes it less); a quadratic one 64 times.
  it("takes time that grows linearly with a template of unclosed {{date: placeholders", { timeout: 120_000 }, async () => {
    const medians = [];
    for (const count of SIZES) {
      const times = [];
      for (let run = 0; run < 3; run++) {
        const started = performance.now();
        const result = await create(`Templates/Unclosed ${count}`);
        times.push(performance.now() - started);
        assert.equal(result.isError, false, result.text);
        assert.equal(readDisk(vault.dir, result.path), unclosed(count), "nothing in it is a placeholder");
      }
      medians.push(times.sort((a, b) => a - b)[1]);
    }
    const figures = SIZES.map((count, i) => `${count}: ${medians[i].toFixed(1)} ms`).join(", ");
    const growth = medians.at(-1) / medians[0];
    assert.ok(growth < 16, `8 times the template took ${growth.toFixed(1)} times as long (${figures})`);
  });

  it("fills a template of 600,000 placeholders in slices: pings are answered while it runs", { timeout: 120_000 }, async () => {
    let done = false;
    let answered = 0;
    await host.longestStall();
    const call = create("Templates/Many").finally(() => {
      done = true;
    });
    while (!done) {
      await pinger.request("ping", {});
      if (!done) answered++;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const result = await call;
    const stall = await host.longestStall();
    assert.equal(result.isError, false, result.text);
    const title = result.path.slice("Made/".length, -".md".length);
    const lines = readDisk(vault.dir, result.path).split("\n");
    assert.equal(lines.length, MANY + 1);
    assert.match(lines[0], new RegExp(`^\\d\\d:\\d\\d:\\d\\d \\d\\d\\.\\d\\d\\.\\d{4} ${title}$`));
    // One ping may be answered before the fill starts and one while the template is read; more come from its pauses.
    assert.ok(answered >= 4, `only ${answered} pings were answered while the fill ran (longest stall ${stall} ms)`);
  });

  it("refuses a format over 100 characters, naming the template and line, and creates nothing", async () => {
    const result = await create("Templates/Long format");
    assert.equal(result.isError, true);
    assert.match(result.text, /Templates\/Long format\.md, line 4: a \{\{date:…\}\} format of 101 characters; formats are limited to 100 characters, so nothing was created/);
    assert.throws(() => readDisk(vault.dir, result.path), /ENOENT/);
  });

  it("refuses more than 50 different formats in one template, and takes 50", async () => {
    const refused = await create("Templates/Formats");
    assert.equal(refused.isError, true);
    assert.match(refused.text, /Templates\/Formats\.md, line 51: more than 50 different date and time formats in one template, so nothing was created/);
    assert.throws(() => readDisk(vault.dir, refused.path), /ENOENT/);
    const taken = await create("Templates/Fifty formats");
    assert.equal(taken.isError, false, taken.text);
    assert.equal(readDisk(vault.dir, taken.path), Array.from({ length: 50 }, (_, i) => `${i} ${i}`).join("\n"));
  });
});
