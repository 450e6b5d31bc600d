// tasks and set_task through the real main.js (src/tools/tasks.ts): statuses from the Tasks plugin's settings, dates in
// the emoji and Dataview formats, headings and tags, every filter, sort and page, and the guarded status edit that
// changes one character and nothing else. Runs in both protocol eras (npm test).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { writeSettings } from "./lib/load-plugin.mjs";
import { makeVault, openSession, readDisk, sessionForFile, sha256 } from "./tools-lib.mjs";

const PLAN = "Tasks/Project plan.md";

const { vault, session } = await sessionForFile({
  fixture: "tasks",
  files: { "Private/Secret tasks.md": "- [ ] secret task\n" },
  prepare: (dir) => writeSettings(dir, { hiddenPaths: ["Private"] }),
});

describe("tasks", () => {
  const lines = (result) => result.tasks.map((task) => `${task.path}:${task.line}`);

  it("lists open tasks by default with status, type, heading, dates and tags", async () => {
    const result = await session.ok("tasks", { path_prefix: "Tasks/" });
    assert.equal(result.truncated, false);
    const draft = result.tasks.find((task) => task.line === 10);
    assert.deepEqual(draft, {
      path: PLAN,
      line: 10,
      status: " ",
      type: "todo",
      text: "Draft the outline 📅 2026-12-03 #writing",
      heading: "This week",
      due: "2026-12-03",
      tags: ["#writing"],
    });
    const types = new Set(result.tasks.map((task) => task.type));
    assert.deepEqual([...types].sort(), ["in_progress", "todo"], "open = to do and in progress");
    const call = result.tasks.find((task) => task.line === 14);
    assert.equal(call.due, "2026-12-10");
    assert.equal(call.scheduled, "2026-12-08");
    assert.equal(result.tasks.find((task) => task.line === 15).start, "2026-12-05", "(start:: …) counts, nested items too");
    assert.equal(result.tasks.find((task) => task.line === 17).type, "todo", "a custom status of type TODO");
    assert.ok(!result.tasks.some((task) => task.status === "?"), "a NON_TASK status is not open");
    assert.ok(lines(result).includes(`${PLAN}:21`), "numbered list items are tasks");
    const windows = result.tasks.find((task) => task.path === "Tasks/Windows tasks.md");
    assert.equal(windows.text, "CRLF task 📅 2026-12-01", "no \\r in the text");
  });

  it("filters by status, tag, path and dates, and sorts by a date", async () => {
    const done = await session.ok("tasks", { status: "done" });
    assert.deepEqual(
      done.tasks.map((task) => [task.line, task.done ?? null]),
      [
        [11, "2026-11-28"],
        [25, "2026-11-20"],
      ],
      JSON.stringify(done.tasks),
    );
    assert.equal((await session.ok("tasks", { status: "X" })).tasks[0].type, "todo", "X is unknown to these Tasks settings");
    assert.equal((await session.ok("tasks", { status: "cancelled" })).total, 1);
    const tagged = await session.ok("tasks", { tag: "#finance", status: "all" });
    assert.deepEqual(lines(tagged), [`${PLAN}:12`], "a nested tag (#finance/q4) counts");
    const inProject = await session.ok("tasks", { tag: "project", status: "all" });
    assert.equal(inProject.total, 13, "every task of a note tagged #project, the one in a quote included");
    const december = await session.ok("tasks", { from: "2026-12-01", to: "2026-12-31", sort: "date" });
    assert.deepEqual(
      december.tasks.map((task) => task.due),
      ["2026-12-01", "2026-12-03", "2026-12-10", "2026-12-24"],
      "the quoted task's 🗓️ date counts",
    );
    const byStart = await session.ok("tasks", { status: "all", date: "start", sort: "date" });
    assert.deepEqual(
      byStart.tasks.slice(0, 2).map((task) => task.start),
      ["2026-11-25", "2026-12-05"],
    );
    assert.equal(byStart.tasks[2].start, undefined, "undated last");
    assert.ok(!(await session.ok("tasks", { status: "all" })).tasks.some((task) => task.path.startsWith("Private/")), "hidden notes give no tasks");
  });

  it("pages with a cursor and refuses bad arguments clearly", async () => {
    const first = await session.ok("tasks", { status: "all", limit: 5 });
    assert.equal(first.truncated, true);
    const second = await session.ok("tasks", { status: "all", limit: 5, cursor: first.next_cursor });
    assert.notDeepEqual(lines(first), lines(second));
    assert.equal(first.total, second.total);
    await session.fails("tasks", { status: "maybe" }, /not "open", "done", "cancelled", "all" or one checkbox character/);
    await session.fails("tasks", { from: "12/01/2026" }, /from must be a date as YYYY-MM-DD/);
    await session.fails("tasks", { from: "2026-12-31", to: "2026-12-01" }, /from 2026-12-31 is after to 2026-12-01/);
    await session.fails("tasks", { tag: "two words" }, /not a valid tag/);
    await session.fails("tasks", { path_prefix: "../outside" }, /\.\./);
  });

  it("set_task changes one checkbox character, guarded by the task's text or the note's hash", async () => {
    const before = readDisk(vault.dir, PLAN);
    await session.fails("set_task", { path: PLAN, line: 10, status: "done" }, /needs expected_hash .* or expected_text/);
    await session.fails("set_task", { path: PLAN, line: 10, status: "done", expected_text: "Draft" }, /conflict: line 10 .* is now "Draft the outline/);
    await session.fails("set_task", { path: PLAN, line: 6, status: "done", expected_text: "x" }, /line 6 of Tasks\/Project plan.md is not a task/);
    await session.fails("set_task", { path: PLAN, line: 999, status: "done", expected_text: "x" }, /line 999 is past the end/);
    await session.fails("set_task", { path: PLAN, line: 10, status: "ab", expected_text: "x" }, /is not "done", "open"/);
    await session.fails("set_task", { path: PLAN, line: 10, status: "x", expected_hash: "0".repeat(64) }, /conflict: .* changed since it was read/);
    assert.equal(readDisk(vault.dir, PLAN), before, "nothing written by a refused edit");

    const done = await session.ok("set_task", { path: PLAN, line: 10, status: "done", expected_text: "Draft the outline 📅 2026-12-03 #writing" });
    assert.equal(done.previous_status, " ");
    assert.equal(done.status, "x");
    const after = readDisk(vault.dir, PLAN);
    assert.equal(after, before.replace("- [ ] Draft the outline", "- [x] Draft the outline"), "one character changed");
    assert.equal(done.sha256, sha256(after));
    const reopened = await session.ok("set_task", { path: PLAN, line: 10, status: " ", expected_hash: done.sha256 });
    assert.equal(reopened.previous_status, "x");
    assert.equal(readDisk(vault.dir, PLAN), before);

    const windows = "Tasks/Windows tasks.md";
    const crlf = readDisk(vault.dir, windows);
    await session.ok("set_task", { path: windows, line: 2, status: "open", expected_text: "Upper X done" });
    assert.equal(readDisk(vault.dir, windows), crlf.replace("[X]", "[ ]"), "CRLF line endings kept");
    await session.fails("set_task", { path: "Private/Secret tasks.md", line: 1, status: "x", expected_text: "secret task" }, /not found/);
  });
});

describe("set_task in read-only mode", () => {
  it("is refused and not listed", async () => {
    const vault = makeVault({ fixture: "tasks" });
    const session = await openSession(vault.dir, { readOnly: true });
    try {
      const names = (await session.client.listTools()).map((tool) => tool.name);
      assert.ok(!names.includes("set_task"));
      assert.ok(names.includes("tasks"));
      const result = await session.call("set_task", { path: PLAN, line: 10, status: "x", expected_text: "x" });
      assert.equal(result.isError, true);
    } finally {
      await session.close();
      vault.remove();
    }
  });
});
