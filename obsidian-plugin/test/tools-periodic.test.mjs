// Periodic notes through the real main.js (src/vault/daily.ts, daily_note and create_daily_note with `period`): the
// Periodic Notes plugin's settings when it is enabled and has the period on, its defaults for a period it leaves
// off, the core Daily notes settings for days when it does not manage them; the period's first day names the note,
// templates are filled from it. Runs in both protocol eras (npm test).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { parseRead, readDisk, sessionForFile } from "./tools-lib.mjs";

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "periodic");

const { vault, session } = await sessionForFile({
  prepare(dir) {
    fs.cpSync(FIXTURE, dir, { recursive: true });
  },
});

describe("periodic notes", () => {
  it("reads the note of the period holding a date, placed by Periodic Notes", async () => {
    const month = parseRead(await session.text("daily_note", { date: "2026-11-15", period: "month" }));
    assert.equal(month.path, "Periodic/2026-11.md");
    const week = parseRead(await session.text("daily_note", { date: "2026-11-28", period: "week" }));
    assert.equal(week.path, "Weekly/2026-W48.md", "weeks start on Sunday: Saturday 2026-11-28 ends week 48");
    await session.fails(
      "daily_note",
      { date: "2026-12-06", period: "week" },
      /no weekly note for the week starting 2026-12-06 \(it would be "Weekly\/2026-W50\.md"\); create_daily_note creates it/,
    );
    await session.fails("daily_note", { date: "2026-12-01", period: "quarter" }, /no quarterly note for the quarter starting 2026-10-01 \(it would be "2026-Q4\.md"\)/);
    await session.fails("daily_note", { period: "decade" }, /Invalid option/);
  });

  it("days follow the core Daily notes settings when Periodic Notes leaves them off", async () => {
    await session.fails("daily_note", { date: "2026-03-14" }, /no daily note for 2026-03-14 \(it would be "Journal\/2026\/03\/2026-03-14\.md"\)/);
  });

  it("creates a period's note from its template, filled from the period's first day", async () => {
    const created = parseRead(await session.text("create_daily_note", { date: "2026-12-09", period: "week" }));
    assert.equal(created.path, "Weekly/2026-W50.md");
    assert.match(created.header, /created=true/);
    assert.equal(readDisk(vault.dir, "Weekly/2026-W50.md"), "# Week 2026-W50\n\nStarting 2026-12-06\n");
    const again = parseRead(await session.text("create_daily_note", { date: "2026-12-12", period: "week" }));
    assert.doesNotMatch(again.header, /created=true/, "an existing note is read, not made again");
    await session.fails(
      "create_daily_note",
      { date: "2026-12-01", period: "year" },
      /the yearly-note template "Templates\/Missing" \(Periodic Notes settings\) cannot be used/,
    );
    assert.equal(fs.existsSync(path.join(vault.dir, "Periodic", "2026.md")), false);
  });
});
