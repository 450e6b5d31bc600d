// templates and create_from_template through the real main.js (src/tools/templates.ts): the core Templates plugin's
// settings and templates (Templater ones marked), a note made from a template with its placeholders filled in the
// settings' formats, Templater commands left as text and said so, and the refusals. Runs in both protocol eras.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { obsidian } from "./lib/load-plugin.mjs";
import { makeVault, openSession, readDisk, sessionForFile, sha256 } from "./tools-lib.mjs";

const { moment } = obsidian;
const { vault, session } = await sessionForFile({ fixture: "templates" });

describe("templates", () => {
  it("lists the templates folder with the settings, Templater templates marked", async () => {
    const result = await session.ok("templates", {});
    assert.deepEqual(result.settings, { enabled: false, folder: "Templates", date_format: "DD.MM.YYYY", time_format: "HH:mm:ss" });
    assert.deepEqual(result.templates, [
      { path: "Templates/Daily.md", name: "Daily" },
      { path: "Templates/Meeting.md", name: "Meeting" },
      { path: "Templates/Sub/Nested item.md", name: "Nested item" },
      { path: "Templates/Templater.md", name: "Templater", templater: true },
    ]);
    const first = await session.ok("templates", { limit: 1 });
    assert.equal(first.truncated, true);
    assert.equal(first.total, 4);
  });

  it("creates a note from a template with title, date and time filled in the settings' formats", async () => {
    const before = moment();
    const made = await session.ok("create_from_template", { path: "Meetings/Standup", template: "Meeting" });
    const text = readDisk(vault.dir, "Meetings/Standup.md");
    assert.deepEqual(made, { path: "Meetings/Standup.md", template: "Templates/Meeting.md", sha256: sha256(text) });
    const date = /Date: (\d\d\.\d\d\.\d{4}) at (\d\d:\d\d:\d\d)/.exec(text);
    assert.ok(date, text);
    assert.ok([before.format("DD.MM.YYYY"), moment().format("DD.MM.YYYY")].includes(date[1]));
    assert.match(text, new RegExp(`^---\\ntype: meeting\\n---\\n# Standup\\n\\nDate: .*\\nYear: ${moment().format("YYYY")} Standup\\n$`));
  });

  it("inserts Templater commands as text and says so", async () => {
    const made = await session.ok("create_from_template", { path: "From templater.md", template: "Templates/Templater.md" });
    assert.match(made.templater, /inserted as text, not run/);
    assert.equal(readDisk(vault.dir, "From templater.md"), readDisk(vault.dir, "Templates/Templater.md"));
  });

  it("refuses an existing note, a missing template and a hidden or bad path", async () => {
    await session.fails("create_from_template", { path: "Hub.md", template: "Meeting" }, /Hub\.md already exists; nothing was written/);
    await session.fails("create_from_template", { path: "New.md", template: "Nope" }, /not found/);
    await session.fails("create_from_template", { path: "../x.md", template: "Meeting" }, /\.\./);
    await session.fails("create_from_template", { path: "New.md", template: "Attachments" }, /not found|folder/);
  });
});

describe("create_from_template in read-only mode", () => {
  it("is refused and not listed", async () => {
    const readOnlyVault = makeVault({ fixture: "templates" });
    const readOnly = await openSession(readOnlyVault.dir, { readOnly: true });
    try {
      const names = (await readOnly.client.listTools()).map((tool) => tool.name);
      assert.ok(!names.includes("create_from_template"));
      assert.ok(names.includes("templates"));
      await readOnly.fails("create_from_template", { path: "New.md", template: "Meeting" }, /read-only/);
    } finally {
      await readOnly.close();
      readOnlyVault.remove();
    }
  });
});
