// properties through the real main.js (src/tools/properties.ts): every property with its type (types.json, built in,
// or inferred and said so) and count, one property's values, the notes with a value, names matched case-insensitively,
// hidden notes left out, pages and refusals. Runs in both protocol eras (npm test).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { writeSettings } from "./lib/load-plugin.mjs";
import { sessionForFile } from "./tools-lib.mjs";

const { vault, session } = await sessionForFile({
  fixture: "properties",
  files: { "Private/Secret.md": "---\nstatus: secret\nsalary: 100\n---\n" },
  prepare: (dir) => writeSettings(dir, { hiddenPaths: ["Private"] }),
});

describe("properties", () => {
  const byName = (result) => Object.fromEntries(result.properties.map((entry) => [entry.name.toLowerCase(), entry]));

  it("lists every property with its type and how many notes have it", async () => {
    const result = await session.ok("properties", { limit: 200 });
    const all = byName(result);
    assert.deepEqual(all.status, { name: "status", type: "text", inferred: true, count: 5 }, "Status and status are one property (Hub.md has one too)");
    assert.deepEqual(all.priority, { name: "priority", type: "number", count: 4 }, "types.json wins over the values");
    assert.deepEqual(all.due, { name: "due", type: "date", count: 2 }, "types.json keys match case-insensitively");
    assert.equal(all.owners.type, "multitext");
    assert.equal(all.reviewed.type, "checkbox");
    assert.equal(all.rating.type, "number");
    assert.equal(all.started.type, "datetime");
    assert.equal(all.notes.type, "text", "an empty property is text");
    assert.equal(all.tags?.type ?? "tags", "tags", "tags is built in");
    assert.equal(all.salary, undefined, "a hidden note's properties do not exist");
    assert.equal(result.total, result.properties.length);
    const counts = result.properties.map((entry) => entry.count);
    assert.deepEqual(counts, counts.slice().sort((a, b) => b - a), "most used first");
    const named = await session.ok("properties", { sort: "name" });
    const names = named.properties.map((entry) => entry.name.toLowerCase());
    assert.deepEqual(names, names.slice().sort());
  });

  it("gives one property's values with counts, list items one by one", async () => {
    const status = await session.ok("properties", { name: "STATUS" });
    assert.equal(status.property, "STATUS");
    assert.equal(status.notes, 5);
    assert.deepEqual(status.values, [
      { value: "active", count: 4 },
      { value: "Done", count: 1 },
      { value: "blocked", count: 1 },
    ]);
    const owners = await session.ok("properties", { name: "owners" });
    assert.deepEqual(owners.values, [
      { value: "Anna", count: 2 },
      { value: "Bernd", count: 1 },
    ]);
    const priority = await session.ok("properties", { name: "priority", sort: "name" });
    assert.deepEqual(
      priority.values.map((entry) => entry.value),
      ['3', 1, 2].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)),
      "a string and numbers stay apart",
    );
    const notes = await session.ok("properties", { name: "notes" });
    assert.deepEqual(notes.values, [{ value: null, count: 1 }]);
    const none = await session.ok("properties", { name: "nothing-has-this" });
    assert.deepEqual([none.notes, none.total, none.values], [0, 0, []]);
  });

  it("finds the notes whose property has a value", async () => {
    const active = await session.ok("properties", { name: "status", value: "ACTIVE" });
    assert.deepEqual(
      active.notes.map((note) => note.path),
      ["Hub.md", "Projects/Alpha.md", "Projects/Delta.md", "Projects/Gamma.md"],
    );
    assert.deepEqual(active.notes[2].value, ["active", "blocked"]);
    const two = await session.ok("properties", { name: "priority", value: 2 });
    assert.deepEqual(two.notes.map((note) => note.path), ["Projects/Alpha.md", "Projects/Delta.md"]);
    const three = await session.ok("properties", { name: "priority", value: 3 });
    assert.deepEqual(three.notes.map((note) => note.path), ["Projects/Gamma.md"], "3 matches the string \"3\" as written");
    const reviewed = await session.ok("properties", { name: "reviewed", value: false });
    assert.deepEqual(reviewed.notes.map((note) => note.path), ["Projects/Beta.md"]);
    assert.equal((await session.ok("properties", { name: "status", value: "secret" })).total, 0);
  });

  it("pages and refuses what it cannot answer", async () => {
    const first = await session.ok("properties", { limit: 2 });
    assert.equal(first.truncated, true);
    const second = await session.ok("properties", { limit: 2, cursor: first.next_cursor });
    assert.notDeepEqual(first.properties, second.properties);
    await session.fails("properties", { value: "x" }, /value needs name/);
    await session.fails("properties", { name: "  " }, /is not a property name/);
    await session.fails("properties", { name: "status", value: { a: 1 } }, /value/);
    await session.fails("properties", { cursor: "nope" }, /invalid cursor/);
  });
});
