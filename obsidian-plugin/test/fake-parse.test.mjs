// The fake metadata cache's parsing, checked against the committed fixture vault and small inline notes: links,
// embeds, code exclusion, tags, headings, blocks, sections, list items, frontmatter and positions.

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const { createIndexedApp } = require("./fake-obsidian/app.cjs");
const { parseMarkdown, getFrontMatterInfo, parseYaml } = require("./fake-obsidian/markdown.cjs");

const FIXTURE = fileURLToPath(new URL("./fixtures/vault", import.meta.url));
const app = await createIndexedApp({ vaultDir: FIXTURE });

function cacheOf(vaultPath) {
  const file = app.vault.getFileByPath(vaultPath);
  assert.ok(file, `${vaultPath} is in the fixture vault`);
  return app.metadataCache.getFileCache(file);
}

function textOf(vaultPath) {
  return fs.readFileSync(path.join(FIXTURE, vaultPath), "utf8");
}

/** Every position must point at exactly the text it claims, with line/col agreeing with the offset. */
function assertPositionsMatch(text, items, describe) {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") lineStarts.push(i + 1);
  for (const item of items) {
    const { start, end } = item.position;
    assert.equal(lineStarts[start.line] + start.col, start.offset, `${describe(item)}: start line/col vs offset`);
    assert.equal(lineStarts[end.line] + end.col, end.offset, `${describe(item)}: end line/col vs offset`);
    if (item.original !== undefined) assert.equal(text.slice(start.offset, end.offset), item.original, describe(item));
    if (item.tag !== undefined) assert.equal(text.slice(start.offset, end.offset), item.tag);
  }
}

test("wikilinks, aliases, headings, blocks and markdown links are read from Home.md in order", () => {
  const cache = cacheOf("Home.md");
  assert.deepEqual(
    cache.links.map((link) => [link.link, link.displayText]),
    [
      ["Orphan links out", "Orphan links out"],
      ["Projekte/Über uns", "About us"],
      ["Meeting notes 2026#Action items", "Meeting notes 2026#Action items"],
      ["Meeting notes 2026#^decision-1", "Meeting notes 2026#^decision-1"],
      ["Projekte/Über uns#Team", "the team"],
      ["#Embeds", "#Embeds"],
      ["Note", "Note"],
      ["Archive/Note", "Archive/Note"],
      ["Missing note", "Missing note"],
      ["Missing note#Somewhere", "Missing note#Somewhere"],
      ["orphan links out", "orphan links out"],
      ["Notes/Meeting notes 2026.md", "meeting"],
      ["Notes/Meeting notes 2026.md", "meeting again"],
      ["Projekte/Über uns.md#Team", "über"],
      ["Nowhere.md", "nothing"],
    ],
  );
  assert.deepEqual(
    cache.embeds.map((embed) => [embed.link, embed.original]),
    [
      ["Meeting notes 2026#Action items", "![[Meeting notes 2026#Action items]]"],
      ["diagram.png", "![[diagram.png]]"],
      ["Attachments/diagram.png", "![diagram as markdown](Attachments/diagram.png)"],
    ],
  );
  const text = textOf("Home.md");
  const describe = (item) => item.original;
  assertPositionsMatch(text, cache.links, describe);
  assertPositionsMatch(text, cache.embeds, describe);
});

test("links, tags and headings inside code spans, fenced code and math blocks are ignored", () => {
  const cache = cacheOf("Notes/Code samples.md");
  assert.deepEqual(
    cache.links.map((link) => link.link),
    ["Home"],
  );
  assert.equal(cache.embeds, undefined);
  assert.deepEqual(
    cache.tags.map((tag) => tag.tag),
    ["#y2026"],
  );
  assert.deepEqual(
    cache.headings.map((heading) => [heading.level, heading.heading]),
    [
      [1, "Code samples"],
      [4, "Real heading after code"],
    ],
  );
  const types = cache.sections.map((section) => section.type);
  assert.equal(types.filter((type) => type === "code").length, 2);
  assert.equal(types.filter((type) => type === "math").length, 1);
});

test("inline and nested tags are the cache's tags; the frontmatter's stay in the frontmatter", () => {
  const home = cacheOf("Home.md");
  assert.deepEqual(
    home.tags.map((tag) => tag.tag),
    ["#welcome", "#nested/deeper/tag"],
  );
  assertPositionsMatch(textOf("Home.md"), home.tags, (tag) => tag.tag);
  assert.deepEqual(home.frontmatter.tags, ["hub", "#status/active"]);

  const about = cacheOf("Projekte/Über uns.md");
  assert.deepEqual(
    about.tags.map((tag) => tag.tag),
    ["#projekt/über", "#日本語"],
  );
  assert.equal(about.frontmatter.tags, "projekt/über team", "a string property is not split");
});

test("tag boundaries: digits-only, punctuation, URL fragments and mid-word # are not tags", () => {
  const cache = parseMarkdown("#tag1 (#not) x#no #123 #1a #a-b_c/d, end #trail. http://x.org/#frag #ümlaut\n");
  assert.deepEqual(
    cache.tags.map((tag) => tag.tag),
    ["#tag1", "#1a", "#a-b_c/d", "#trail", "#ümlaut"],
  );
});

test("headings: levels, closing hashes removed, positions cover the whole line", () => {
  const cache = cacheOf("Projekte/Über uns.md");
  assert.deepEqual(
    cache.headings.map((heading) => [heading.level, heading.heading]),
    [
      [1, "Über uns"],
      [2, "Team"],
      [2, "Geschichte"],
    ],
  );
  const text = textOf("Projekte/Über uns.md");
  for (const heading of cache.headings) {
    const { start, end } = heading.position;
    assert.equal(start.col, 0);
    assert.match(text.slice(start.offset, end.offset), new RegExp(`^#+ ${heading.heading}`));
    assert.ok(end.offset === text.length || text[end.offset] === "\n");
  }
});

test("block ids name their paragraph, list item, or the table before a standalone id", () => {
  const about = cacheOf("Projekte/Über uns.md");
  const text = textOf("Projekte/Über uns.md");
  assert.deepEqual(Object.keys(about.blocks).sort(), ["anna", "bernd-2", "geschichte"]);
  const slice = (block) => text.slice(block.position.start.offset, block.position.end.offset);
  assert.equal(slice(about.blocks.anna), "- Anna ^anna");
  assert.equal(slice(about.blocks["bernd-2"]), "- Bernds Vertretung ^bernd-2");
  assert.equal(slice(about.blocks.geschichte), "Gegründet 2026. Siehe [[Home#Links|Startseite]].\nEin Absatz mit Block-ID. ^geschichte");

  const tables = cacheOf("Notes/Tables.md");
  const tableText = textOf("Notes/Tables.md");
  const table = tables.sections.find((section) => section.type === "table");
  assert.deepEqual(tables.blocks["table-1"].position, table.position);
  assert.equal(table.id, "table-1");
  assert.ok(tableText.slice(table.position.start.offset, table.position.end.offset).startsWith("| Name | Link |"));
  assert.ok(tables.blocks["quote-1"]);

  const upper = parseMarkdown("Para ^MiXed-Case\n");
  assert.deepEqual(Object.keys(upper.blocks), ["mixed-case"]);
  assert.equal(upper.blocks["mixed-case"].id, "MiXed-Case");
});

test("sections and list items: types, tasks and parents", () => {
  const tables = cacheOf("Notes/Tables.md");
  assert.deepEqual(
    tables.sections.map((section) => section.type),
    ["heading", "table", "paragraph", "callout", "blockquote"],
  );
  assert.deepEqual(
    tables.links.map((link) => [link.link, link.displayText]),
    [
      ["Home", "the home note"],
      ["Projekte/Über uns#Team", "Projekte/Über uns#Team"],
      ["Orphan links out", "Orphan links out"],
    ],
  );

  const meeting = cacheOf("Notes/Meeting notes 2026.md");
  assert.deepEqual(
    meeting.listItems.map((item) => item.task),
    [" ", "x", " "],
  );
  const firstLine = meeting.listItems[0].position.start.line;
  assert.ok(meeting.listItems.every((item) => item.parent === -firstLine));
  assert.equal(meeting.listItems[1].id, "task-done");

  const about = cacheOf("Projekte/Über uns.md");
  const [anna, bernd, deputy] = about.listItems;
  assert.equal(anna.parent, -anna.position.start.line);
  assert.equal(bernd.parent, anna.parent);
  assert.equal(deputy.parent, bernd.position.start.line);
  assert.equal(anna.task, undefined);
});

test("a loose list (blank lines between items) is one section whose items share a parent", () => {
  const text = "Intro\n\n- one\n\n- two\n  continued\n\n  indented paragraph\n- three ^t3\n\nAfter\n";
  const cache = parseMarkdown(text);
  assert.deepEqual(
    cache.sections.map((section) => [section.type, section.position.start.line, section.position.end.line]),
    [
      ["paragraph", 0, 0],
      ["list", 2, 8],
      ["paragraph", 10, 10],
    ],
  );
  assert.deepEqual(
    cache.listItems.map((item) => [item.position.start.line, item.position.end.line, item.parent]),
    [
      [2, 2, -2],
      [4, 7, -2],
      [8, 8, -2],
    ],
  );
  assert.equal(cache.listItems[2].id, "t3");
  const tight = parseMarkdown("- a\n- b\n\nNot a list\n");
  assert.deepEqual(
    tight.sections.map((section) => section.type),
    ["list", "paragraph"],
  );
  const shallow = parseMarkdown("1. a\n\n  two spaces are not enough after \"1. \"\n\n   three are\n");
  assert.deepEqual(
    shallow.sections.map((section) => [section.type, section.position.start.line]),
    [
      ["list", 0],
      ["paragraph", 2],
      ["paragraph", 4],
    ],
    "after a blank line, only text indented to the item's content continues it",
  );
  assert.equal(parseMarkdown("1. a\n\n   three are\n").sections.length, 1);
});

test("frontmatter: values, position, and links in properties with list keys", () => {
  const home = cacheOf("Home.md");
  assert.equal(home.frontmatter.title, "Home");
  assert.equal(home.frontmatter.rating, 4);
  assert.deepEqual(home.frontmatter.aliases, ["Start", "Startseite"]);
  const text = textOf("Home.md");
  const { start, end } = home.frontmatterPosition;
  assert.equal(start.offset, 0);
  assert.equal(text.slice(end.offset - 3, end.offset), "---");
  assert.equal(text.slice(0, end.offset).split("\n").length - 1, end.line);
  assert.deepEqual(
    home.frontmatterLinks.map((link) => [link.key, link.link]),
    [
      ["related", "Projekte/Über uns"],
      ["see-also.0", "Meeting notes 2026"],
      ["see-also.1", "Does not exist"],
    ],
  );
  assert.equal(home.sections[0].type, "yaml");
  assert.deepEqual(home.sections[0].position, home.frontmatterPosition);

  const meeting = cacheOf("Notes/Meeting notes 2026.md");
  assert.equal(meeting.frontmatter.date, "2026-03-14", "dates stay strings, as in Obsidian");
});

test("invalid YAML leaves no frontmatter but the body is still indexed", () => {
  const cache = cacheOf("Invalid frontmatter.md");
  assert.equal(cache.frontmatter, undefined);
  assert.ok(!("frontmatter" in cache));
  assert.ok(cache.frontmatterPosition);
  assert.deepEqual(
    cache.links.map((link) => link.link),
    ["Home"],
  );
  assert.deepEqual(
    cache.tags.map((tag) => tag.tag),
    ["#still-indexed"],
  );
});

test("CRLF notes: offsets count the \\r, texts never contain it", () => {
  const text = textOf("Windows CRLF.md");
  assert.ok(text.includes("\r\n"), "the fixture really has CRLF line breaks");
  const cache = cacheOf("Windows CRLF.md");
  assert.deepEqual(cache.frontmatter, { tags: ["crlf"] });
  assert.deepEqual(
    cache.headings.map((heading) => heading.heading),
    ["Windows CRLF", "Second heading"],
  );
  assertPositionsMatch(text, cache.links, (link) => link.original);
  assertPositionsMatch(text, cache.tags, (tag) => tag.tag);
  for (const heading of cache.headings) {
    assert.equal(text[heading.position.end.offset], "\r");
  }
  assert.equal(text.slice(cache.blocks["crlf-block"].position.start.offset, cache.blocks["crlf-block"].position.end.offset), "Last line. ^crlf-block");
});

test("a note without a trailing newline ends its last item at the end of the text", () => {
  const text = textOf("No trailing newline.md");
  assert.ok(!text.endsWith("\n"));
  const cache = cacheOf("No trailing newline.md");
  assert.equal(cache.tags.at(-1).position.end.offset, text.length);
  assert.equal(cache.sections.at(-1).position.end.offset, text.length);
});

test("an empty note has an empty cache", () => {
  assert.equal(textOf("Empty.md"), "");
  assert.deepEqual(cacheOf("Empty.md"), {});
});

test("link syntax edge cases", () => {
  const cache = parseMarkdown(
    [
      "[[]] is not a link; [[ spaced |shown]] is.",
      "[titled](Some%20Note.md \"A title\") and [bad](%E0%A4%A.md) and [mail](mailto:a@b.c)",
      "[paren](Note%20(1).md) ![[Pic.jpg|100]] [[Table\\|escaped]]",
      "[[Sq]uare]] and [[Outer [[Inner]] and [[https://example.com]]",
      "```js",
      "[[never]]",
    ].join("\n"),
  );
  assert.deepEqual(
    cache.links.map((link) => [link.link, link.displayText]),
    [
      ["spaced", "shown"],
      ["Some Note.md", "titled"],
      ["%E0%A4%A.md", "bad"],
      ["Note (1).md", "paren"],
      ["Table", "escaped"],
      ["Sq]uare", "Sq]uare"],
      ["Inner", "Inner"],
      ["https://example.com", "https://example.com"],
    ],
  );
  assert.deepEqual(
    cache.embeds.map((embed) => [embed.link, embed.displayText]),
    [["Pic.jpg", "100"]],
  );
  assert.equal(cache.sections.at(-1).type, "code", "an unclosed fence runs to the end of the note");
  const unusualIndent = parseMarkdown("\u3000```\n[[inside]]\n```\n\u00a0- item [[listed]]\n");
  assert.deepEqual(
    unusualIndent.links.map((link) => link.link),
    ["listed"],
    "indentation is whatever the rules' \\s matches, non-breaking and ideographic spaces included",
  );
  assert.deepEqual(
    unusualIndent.sections.map((section) => section.type),
    ["code", "list"],
  );
});

test("getFrontMatterInfo reports where the frontmatter and the body are", () => {
  const content = "---\na: 1\nb: two\n---\nBody\n";
  const info = getFrontMatterInfo(content);
  assert.equal(info.exists, true);
  assert.equal(info.frontmatter, "a: 1\nb: two");
  assert.equal(content.slice(info.from, info.to), "a: 1\nb: two");
  assert.equal(content.slice(info.contentStart), "Body\n");
  assert.equal(getFrontMatterInfo("no frontmatter\n---\n").exists, false);
  assert.equal(getFrontMatterInfo("---\nunclosed: yes\n").exists, false);
});

test("frontmatter nested too deep to parse is invalid properties, not a crash", () => {
  const deep = (levels) => `nested: ${"[".repeat(levels)}1${"]".repeat(levels)}\n`;
  assert.deepEqual(parseYaml(deep(500)).nested.flat(Infinity), [1]);
  assert.throws(() => parseYaml(deep(60_000)), /nests deeper than 1000 levels/);
  assert.equal(parseYaml(`quoted: "${"[".repeat(5000)}"\n`).quoted.length, 5000, "brackets in a quoted string do not nest");
  const cache = parseMarkdown(`---\n${deep(60_000)}---\nbody\n`);
  assert.equal(cache.frontmatter, undefined);
});
