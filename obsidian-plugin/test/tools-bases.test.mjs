// bases through the real main.js (src/tools/bases.ts, src/vault/bases*.ts): the vault's bases and their views, a
// view's rows with the base's and the view's filters (and / or / not, comparisons, functions, methods), formulas,
// sort, groupBy and limit, and clear refusals for what the subset does not cover. Runs in both protocol eras.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { writeSettings } from "./lib/load-plugin.mjs";
import { sessionForFile } from "./tools-lib.mjs";

const BOOKS = "Library/Books.base";

// Expressions nested far past the bound, each of which overflowed the offline reader's stack (and aborted the bridge)
// before parsing was bounded: a long sum, brackets, prefix operators, lists, a method chain, nested calls.
const DEEP = 20_000;
const HOSTILE = {
  sum: Array(DEEP + 1).fill("1").join("+"),
  parentheses: `${"(".repeat(DEEP)}1${")".repeat(DEEP)}`,
  negations: `${"!".repeat(DEEP)}true`,
  minus: `${"-".repeat(DEEP)}1`,
  lists: `${"[".repeat(DEEP)}1${"]".repeat(DEEP)}`,
  chain: `"a"${".lower()".repeat(DEEP)}`,
};
// A chain of formulas, each using the next: 60 of depth 2 pass the bound together though each alone is shallow.
const CHAIN = 60;
const hostileBase = [
  "formulas:",
  ...Array.from({ length: CHAIN }, (_, i) => `  f${i}: '${i + 1 < CHAIN ? `formula.f${i + 1} + 1` : "1"}'`),
  "views:",
  ...Object.entries(HOSTILE).map(([name, source]) => `  - {name: ${name}, filters: '${source}'}`),
  "  - {name: formulas, order: [formula.f0]}",
  "",
].join("\n");

const { session } = await sessionForFile({
  fixture: "bases",
  files: {
    "Private/Secret.base": "views: [{name: Secret}]\n",
    "Private/Hidden book.md": "---\nstatus: read\ntags: [book]\n---\n",
    "Library/Deep.base": hostileBase,
  },
  prepare: (dir) => writeSettings(dir, { hiddenPaths: ["Private"] }),
});

const view = (name) => session.ok("bases", { base: BOOKS, view: name });
const paths = (result) => result.rows.map((row) => row.path);

describe("bases", () => {
  it("lists the vault's bases with their views, and says which cannot be read", async () => {
    const result = await session.ok("bases", {});
    assert.deepEqual(
      result.bases.map((base) => [base.path, base.views?.length ?? base.error]),
      [
        [BOOKS, 8],
        ["Library/Broken.base", "Library/Broken.base is not valid YAML, so not a base; open it in Obsidian to see what is wrong"],
        ["Library/Deep.base", Object.keys(HOSTILE).length + 1],
        ["Library/Empty.base", 0],
      ],
      "the hidden base is not listed",
    );
    assert.deepEqual(result.bases[0].views[1], { name: "Unread", type: "cards" });
  });

  it("runs a view: filters, formulas, columns and sort", async () => {
    const books = await session.ok("bases", { base: BOOKS });
    assert.equal(books.view, "All books", "the first view by default");
    assert.deepEqual(books.columns, ["file.name", "title", "note.year", "formula.age", "formula.label"]);
    assert.deepEqual(books.rows, [
      { path: "Library/Emma.md", values: ["Emma.md", "Emma", 1815, 211, "Emma (Jane Austen)"] },
      { path: "Library/Foundation.md", values: ["Foundation.md", "Foundation", 1951, 75, "Foundation (Isaac Asimov)"] },
      { path: "Library/Dune.md", values: ["Dune.md", "Dune", 1965, 61, "Dune (Frank Herbert)"] },
    ]);
    assert.deepEqual(paths(await view("Unread")), ["Library/Foundation.md", "Library/Emma.md"], "or, .contains(), sorted descending");
    const top = await view("Top rated");
    assert.deepEqual(top.rows, [{ path: "Library/Dune.md", values: ["Dune", 5] }], "not, .isEmpty(), limit 1");
    assert.equal(top.total, 1);
  });

  it("groups, and says what it does not show", async () => {
    const grouped = await view("By status");
    assert.deepEqual(
      grouped.rows.map((row) => [row.group, row.path, row.values[1]]),
      [
        ["draft", "Library/Reading notes.md", false],
        ["read", "Library/Dune.md", false],
        ["reading", "Library/Foundation.md", false],
        ["to-read", "Library/Emma.md", true],
      ],
    );
    assert.deepEqual(grouped.not_shown, ["summaries"]);
    assert.match(grouped.rows[0].values[3], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, "dates as ISO text");
    const linked = await view("Linked");
    assert.deepEqual(linked.rows, [
      { path: "Library/Dune.md", values: ["Dune.md", ["#book", "#scifi"]] },
      { path: "Library/Emma.md", values: ["Emma.md", ["#book"]] },
    ], "file.hasLink finds resolved and unresolved links");
  });

  it("refuses what the subset does not cover, naming it", async () => {
    await session.fails("bases", { base: BOOKS, view: "Unsupported" }, /in "file\.backlinks\.length > 0" \(Library\/Dune\.md\): unknown file property file\.backlinks/);
    await session.fails("bases", { base: BOOKS, view: "Bad formula" }, /unknown formula formula\.nope/);
    await session.fails("bases", { base: BOOKS, view: "Broken expression" }, /view "Broken expression" filters: cannot read "status == ": the expression ends too early/);
    await session.fails("bases", { base: BOOKS, view: "Nope" }, /has no view "Nope"; its views: "All books", "Unread"/);
    await session.fails("bases", { base: "Library/Empty.base" }, /has no views/);
    await session.fails("bases", { base: "Library/Dune" }, /is not a base/);
    await session.fails("bases", { base: "Private/Secret.base" }, /not found/);
    await session.fails("bases", { view: "All books" }, /view needs base/);
  });

  it("refuses expressions nested past 100 levels, naming the base and where reading stopped", async () => {
    for (const name of Object.keys(HOSTILE)) {
      await session.fails(
        "bases",
        { base: "Library/Deep.base", view: name },
        new RegExp(`^Library/Deep\\.base view "${name}" filters: cannot read ".{200,}…": the expression nests deeper than 100 levels at character \\d+$`, "s"),
      );
    }
    await session.fails("bases", { base: "Library/Deep.base", view: "formulas" }, /formula\.f\d+: the formulas it is used through nest deeper than 100 levels/);
  });

  it("pages the rows", async () => {
    const first = await session.ok("bases", { base: BOOKS, limit: 2 });
    assert.equal(first.truncated, true);
    const second = await session.ok("bases", { base: BOOKS, limit: 2, cursor: first.next_cursor });
    assert.deepEqual([...paths(first), ...paths(second)], ["Library/Emma.md", "Library/Foundation.md", "Library/Dune.md"]);
  });
});
