// The search tool through the real main.js, on the crafted vault of tools-lib.mjs: plain and regular-expression
// queries, context lines, path prefixes, limits and the cursor (in phrase mode, and in word mode where a plain word
// behaves alike), and patterns that must run in linear time (src/tools/search-phrase.ts; word mode's own rules are
// in tools-search-words.test.mjs).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { makeVault, openSession, sessionForFile } from "./tools-lib.mjs";

const { session } = await sessionForFile();

describe("search", () => {
  it("search finds text case-insensitively by default, with lines, context and a path prefix", async () => {
    const result = await session.ok("search", { query: "needle" });
    assert.deepEqual(
      result.results.map((file) => [file.path, file.matches.map((match) => match.line)]),
      [["Día/Ñandú.md", [2]], ["Notes/Alpha.md", [5, 6]]],
    );
    assert.equal(result.total_matches, 3);
    assert.equal(result.truncated, false);
    const exact = await session.ok("search", { query: "Needle", case_sensitive: true });
    assert.deepEqual(exact.results.map((file) => file.matches.map((match) => match.text)), [["Needle line one"]]);
    const scoped = await session.ok("search", { query: "needle", path_prefix: "Notes/", context_lines: 1 });
    assert.equal(scoped.results.length, 1);
    assert.deepEqual(scoped.results[0].matches[0], {
      line: 5,
      text: "Needle line one",
      before: ["Also [[Hub#Section two]] and an embed ![[Hub]]."],
      after: ["needle line two"],
    });
    const literal = await session.ok("search", { query: "[[hub|THE HUB]].", mode: "phrase" });
    assert.deepEqual(literal.results.map((file) => [file.path, file.matches[0].line]), [["Notes/Sub/Gamma note.md", 1]], "regex characters are literal in text mode");
    const accents = await session.ok("search", { query: "CAFÉ" });
    assert.equal(accents.results[0].path, "Día/Ñandú.md");
  });

  it("search in phrase mode with rank puts the most relevant notes first, scored, and its cursor resumes in that order", async () => {
    const ranked = await session.ok("search", { query: "needle", mode: "phrase", rank: true });
    assert.equal(ranked.order, "relevance");
    assert.deepEqual(
      ranked.results.map((file) => [file.path, file.matches.map((match) => match.line)]),
      [["Notes/Alpha.md", [5, 6]], ["Día/Ñandú.md", [2]]],
      "two matching lines outrank one in a note of about the same length",
    );
    assert.ok(ranked.results[0].score > ranked.results[1].score, JSON.stringify(ranked.results));
    assert.equal(ranked.notes_matching, 2);
    assert.equal(ranked.notes_searched, (await session.ok("search", { query: "zzz-absent", mode: "phrase" })).notes_searched);
    // Every note holding an "e", one match per page: pages follow the ranked order (a note's later matches come on
    // the pages right after its first, as in path order).
    const all = await session.ok("search", { query: "e", mode: "phrase", rank: true, limit: 500, max_per_file: 1 });
    const scores = all.results.map((file) => file.score);
    assert.deepEqual(scores, [...scores].sort((a, b) => b - a), "scores never rise down the list");
    const paged = [];
    let cursor;
    do {
      const page = await session.ok("search", { query: "e", mode: "phrase", rank: true, limit: 1, max_per_file: 1, cursor });
      paged.push(...page.results.map((file) => file.path));
      cursor = page.next_cursor ?? undefined;
      if (cursor) assert.equal(page.continue_with.arguments.rank, true);
    } while (cursor);
    assert.deepEqual(paged.filter((path, i) => path !== paged[i - 1]), all.results.map((file) => file.path));
    await session.fails("search", { query: "e", mode: "phrase", rank: true, cursor: "1:nowhere.md" }, /no longer matches.*without cursor/);
  });

  it("search takes regular expressions and rejects invalid ones clearly", async () => {
    const result = await session.ok("search", { query: "^needle line \\w+$", regex: true });
    assert.equal(result.total_matches, 2);
    const sensitive = await session.ok("search", { query: "[A-Z]EEDLE", regex: true, case_sensitive: true });
    assert.deepEqual(sensitive.results.map((file) => file.path), ["Día/Ñandú.md"]);
    const crlf = await session.ok("search", { query: "line$", regex: true, path_prefix: "CRLF" });
    assert.deepEqual(crlf.results[0].matches.map((match) => match.line), [3, 4], "$ matches before a CRLF line end");
    // RE2 syntax, as offline: lookaround and backreferences have no linear-time match, so both readers refuse them.
    await session.fails("search", { query: "(?<=^)Back to", regex: true }, /invalid regular expression.*\(\?<=/);
    await session.fails("search", { query: "(a)\\1", regex: true }, /invalid regular expression/);
    const anchored = await session.ok("search", { query: "^needle line two$", regex: true });
    assert.deepEqual(anchored.results.map((file) => [file.path, file.matches[0].line]), [["Notes/Alpha.md", 6]]);
    await session.fails("search", { query: "(unclosed", regex: true }, /invalid regular expression/);
    await session.fails("search", { query: "line one\nneedle", mode: "phrase" }, /one line at a time/);
    for (const fine of ["(ab)+", "[(a+)]+", "\\(a+\\)+", "(a{2})+", "(?:Needle|needle) line", "(a+)+$"]) {
      await session.ok("search", { query: fine, regex: true });
    }
  });

  for (const mode of ["phrase", "words"]) {
    it(`search in ${mode} mode limits matches per note and in total, and the cursor resumes after the last match`, async () => {
      const perFile = await session.ok("search", { query: "e", mode, max_per_file: 1 });
      for (const file of perFile.results) assert.equal(file.matches.length, 1);
      assert.ok(perFile.results.some((file) => file.more_in_file === true));

      const everything = await session.ok("search", { query: "e", mode, max_per_file: 100, limit: 500 });
      const flat = (result) => result.results.flatMap((file) => file.matches.map((match) => `${file.path}:${match.line}`));
      const expected = flat(everything);
      assert.ok(expected.length > 10);
      const paged = [];
      let cursor;
      for (let guard = 0; guard < 50; guard++) {
        const page = await session.ok("search", { query: "e", mode, max_per_file: 100, limit: 4, ...(cursor ? { cursor } : {}) });
        assert.ok(page.total_matches <= 4);
        paged.push(...flat(page));
        cursor = page.next_cursor;
        if (!cursor) break;
        assert.equal(page.truncated, true);
      }
      assert.deepEqual(paged, expected);
      await session.fails("search", { query: "e", mode, cursor: "garbage" }, /invalid cursor/);
    });
  }
});

describe("regular expressions from agents", () => {
  // V8's backtracking engine ran `(a|a)*$` for minutes on Obsidian's UI thread, and
  // `(.*){1,32000}[bc]` for 5.4 s on four notes; the nested-quantifier guard missed alternation and bounded repeats.
  it("search runs every pattern in linear time: runaway patterns answer at once", { timeout: 30_000 }, async () => {
    const runaway = `${"a".repeat(40)}!`;
    const vault = makeVault();
    fs.writeFileSync(path.join(vault.dir, "Runaway.md"), `${runaway}\n${"x".repeat(5000)}\n`);
    const session = await openSession(vault.dir);
    try {
      for (const pattern of ["(a|a)*$", "(a|aa)*!$", "(a+)+b", "(x+x+)+y", "(\\w*\\s?)*z"]) {
        const started = Date.now();
        await session.ok("search", { query: pattern, regex: true });
        assert.ok(Date.now() - started < 10_000, `${pattern} took ${Date.now() - started} ms`);
      }
      const anchored = await session.ok("search", { query: "(a|a)*!$", regex: true, path_prefix: "Runaway" });
      assert.deepEqual(anchored.results[0].matches.map((match) => match.line), [1]);
      await session.fails("search", { query: "(.*){1,32000}[bc]", regex: true }, /invalid regular expression/);
    } finally {
      await session.close();
      vault.remove();
    }
  });
});
