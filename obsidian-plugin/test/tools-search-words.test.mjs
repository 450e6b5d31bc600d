// search in word mode, the default, through the real main.js: Obsidian's query syntax (every operator, quoting and
// escaping, case rules, errors with their positions), match "any", terms and terms_matched, notes matched without a
// line, pages in path order and in rank order, and BM25 scores checked against a hand computation
// (src/tools/search-words.ts, src/vault/query/).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { sessionForFile } from "./tools-lib.mjs";

/** Notes whose every line the tests below count on; each folder is searched on its own with path_prefix. */
const FILES = {
  // Lines: 1 ---, 2 aliases, 3 tags, 4 status, 5 rating, 6 flag, 7 owners, 8 empty, 9 nested, 10 ---, 11 # Deploy,
  // 12 How we deploy…, 13 blank, 14 ## Checklist, 15 - [ ] call the bank, 16 - [x] email Ann.
  "W/Deploy guide.md":
    "---\naliases: [Shipping]\ntags: [ops/deploy]\nstatus: Active\nrating: 4\nflag: true\nowners: [Ann, Bob]\nempty:\n" +
    "nested: {a: 1}\n---\n# Deploy\nHow we deploy the staging server.\n\n## Checklist\n- [ ] call the bank\n- [x] email Ann\n",
  "W/Meeting notes.md": "# Weekly meeting\nAnna and Bernd met.\nWe agreed on the pricing.\n\n## Decisions\nThe decision was unanimous.\n#work/ops\n",
  "W/Plain.md": 'Nothing of note here.\nRust and rust.\nC:\\path\\to and/or http://x.org say "hi" [[Hub]]\n',
  "W/CRLF.md": "first line\r\nsecond line\r\n",
  // Ranking by hand: "apple" is in Apple's title and text, in Fruit's aliases and text (three times, one a heading).
  "R/Apple.md": "apple pie\n",
  "R/Fruit.md": "---\naliases: [Apple tree]\n---\n# Apple harvest\nAn apple a day.\n",
  "R/Other.md": "nothing here aaaa\n",
  "S/a.md": "tie\n",
  "S/b.md": "tie\n",
  "S/c.md": "tie tie\n",
  "L/Long.md": `${"x".repeat(400)} target ${"y".repeat(400)} first\n`,
};

const D = "W/Deploy guide.md";
const M = "W/Meeting notes.md";
const P = "W/Plain.md";
const C = "W/CRLF.md";

const { session } = await sessionForFile({ files: FILES });

const HINT = '; pass mode "phrase" to search for the text as written';

/** The paths a query finds under W/. */
async function found(query, extra = {}) {
  const result = await session.ok("search", { query, path_prefix: "W/", limit: 500, ...extra });
  return result.results.map((note) => note.path);
}

/** Each match of a result as `path:line` (`path:-` for a note shown without lines). */
function flat(result) {
  return result.results.flatMap((note) => (note.matches.length === 0 ? [`${note.path}:-`] : note.matches.map((match) => `${note.path}:${match.line}`)));
}

/** Every page of a search, concatenated, and the pages' count. */
async function allPages(args) {
  const seen = [];
  let cursor;
  let pages = 0;
  do {
    const page = await session.ok("search", { ...args, ...(cursor ? { cursor } : {}) });
    seen.push(...flat(page));
    cursor = page.next_cursor ?? undefined;
    if (cursor) assert.deepEqual(page.continue_with.arguments, { ...(await continueArgs(args)), cursor });
    pages++;
    assert.ok(pages < 100, "pages never end");
  } while (cursor);
  return { seen, pages };
}

/** The arguments as the schema parses them, in its order, as continue_with repeats them. */
async function continueArgs(args) {
  const order = ["query", "mode", "regex", "case_sensitive", "path_prefix", "rank", "match", "context_lines", "max_per_file", "limit", "cursor", "max_chars"];
  const defaults = { mode: "words", regex: false, case_sensitive: false, path_prefix: "", rank: false, context_lines: 0, max_per_file: 10, limit: 100, max_chars: 20000 };
  const parsed = {};
  for (const key of order) {
    const value = args[key] ?? defaults[key];
    if (value !== undefined && key !== "cursor") parsed[key] = value;
  }
  return parsed;
}

describe("search in word mode: the query language", () => {
  it("words must all occur, anywhere in the note or its path, in any order; OR binds looser than AND", async () => {
    assert.deepEqual(await found("deploy staging"), [D]);
    assert.deepEqual(await found("staging deploy"), [D]);
    assert.deepEqual(await found("meeting OR bank"), [D, M]);
    assert.deepEqual(await found("anna bank OR rust"), [P], "(anna bank) OR rust, not anna (bank OR rust)");
    assert.deepEqual(await found("anna (bank OR bernd)"), [M]);
    assert.deepEqual(await found("meet"), [M], "a word matches inside a longer one");
    assert.deepEqual(await found("guide how"), [D], "guide is only in the path");
    assert.deepEqual(await found("deploy\tstaging\nserver\fhow\vwe"), [D], "tab, LF, FF and VT separate terms");
    assert.deepEqual(await found("deploy\u00a0staging"), [], "a no-break space does not");
    assert.deepEqual(await found('"we agreed"pricing'), [M], "a phrase ends a term");
    assert.deepEqual(await found("meeting(pricing)"), [M], "a parenthesis ends a word");
  });

  it("- excludes a term, a phrase, a group or an operator, and two cancel out", async () => {
    assert.deepEqual(await found("-deploy"), [C, M, P]);
    assert.deepEqual(await found("--deploy"), [D]);
    assert.deepEqual(await found("-(anna bernd)"), [C, D, P]);
    assert.deepEqual(await found('-"we agreed" -file:plain -tag:ops'), [C]);
    assert.deepEqual(await found("-file:guide deploy"), []);
    assert.deepEqual(await found("foo-bar"), [], "a - inside a word is the word's");
  });

  it("phrases match as written, with \\\" and \\\\ inside; regexes match one line; [[ starts a word", async () => {
    assert.deepEqual(await found('"we agreed"'), [M]);
    assert.deepEqual(await found('"agreed we"'), []);
    assert.deepEqual(await found('"say \\"hi\\""'), [P]);
    assert.deepEqual(await found('"C:\\\\path"'), [P], "\\\\ is one backslash");
    assert.deepEqual(await found('"C:\\path\\to"'), [P], "any other backslash stays");
    assert.deepEqual(await found("/^#+ deci/"), [M]);
    assert.deepEqual(await found("/agreed.*unanimous/"), [], "a regex matches within one line");
    assert.deepEqual(await found("/and\\/or/"), [P], "\\/ is a slash in a regex");
    assert.deepEqual(await found("and/or http://x.org"), [P], "a / inside a word is the word's");
    assert.deepEqual(await found("[[hub"), [P]);
    assert.deepEqual(await found("File:plain"), [], "an operator name is lower case");
    assert.deepEqual(await found("ORx"), []);
  });

  it("file:, path: and content: look at that part of the note only", async () => {
    assert.deepEqual(await found("file:guide"), [D]);
    assert.deepEqual(await found("file:.md"), [C, D, M, P]);
    assert.deepEqual(await found("file:w"), [], "the folder is not in the file name");
    assert.deepEqual(await found("path:w"), [C, D, M, P]);
    assert.deepEqual(await found("notes"), [M]);
    assert.deepEqual(await found("content:notes"), [], "notes is only in the path");
    assert.deepEqual(await found("content:deploy"), [D]);
    assert.deepEqual(await found('file:"guide.md"'), [D]);
    assert.deepEqual(await found("line:(file:guide)"), [D], "an operator means the same wherever it stands");
  });

  it("tag: finds a tag or one nested under it, ignoring case, with or without #", async () => {
    assert.deepEqual(await found("tag:ops"), [D], "#work/ops is not under #ops");
    assert.deepEqual(await found("tag:#work"), [M]);
    assert.deepEqual(await found("tag:WORK/OPS"), [M]);
    assert.deepEqual(await found("tag:wor"), []);
    assert.deepEqual(await found('tag:"ops/deploy"'), [D]);
  });

  it("line:, block:, section: and the task operators need their operand inside one unit", async () => {
    assert.deepEqual(await found("line:(agreed pricing)"), [M]);
    assert.deepEqual(await found("line:(anna pricing)"), []);
    assert.deepEqual(await found("block:(call email)"), [D], "one list is one block");
    assert.deepEqual(await found("block:(deploy call)"), []);
    assert.deepEqual(await found("block:(shipping active)"), [D], "the frontmatter is a block");
    assert.deepEqual(await found("section:(checklist bank)"), [D]);
    assert.deepEqual(await found("section:(staging bank)"), [], "a heading's section ends at the next heading");
    assert.deepEqual(await found("section:(shipping active)"), [D], "the lines before the first heading are a section");
    assert.deepEqual(await found("section:(rust hi)"), [P], "a note without headings is one section");
    assert.deepEqual(await found("task:bank"), [D]);
    assert.deepEqual(await found("task-todo:bank"), [D]);
    assert.deepEqual(await found("task-done:bank"), []);
    assert.deepEqual(await found("task-done:email"), [D]);
    assert.deepEqual(await found("task:unanimous"), []);
  });

  it("[name] and [name:value] test frontmatter properties, each list item on its own", async () => {
    assert.deepEqual(await found("[status]"), [D]);
    assert.deepEqual(await found("[STATUS]"), [D], "names compare ignoring case");
    assert.deepEqual(await found("[ status : active ]"), [D], "the name is trimmed");
    assert.deepEqual(await found("[status:active]"), [D]);
    assert.deepEqual(await found("[status:match-case:active]"), []);
    assert.deepEqual(await found("[status:draft OR active]"), [D]);
    assert.deepEqual(await found("[rating:4] [flag:true]"), [D], "numbers and booleans as String writes them");
    assert.deepEqual(await found("[owners:bob]"), [D]);
    assert.deepEqual(await found("[owners:(ann bob)]"), [], "one item must match the whole value");
    assert.deepEqual(await found("[owners:-ann]"), [D], "Bob is an item without ann");
    assert.deepEqual(await found("[empty]"), [D], "an empty property is still there");
    assert.deepEqual(await found("[empty:x]"), []);
    assert.deepEqual(await found("[empty:-x]"), [], "null never matches a value");
    assert.deepEqual(await found("[nested]"), [D]);
    assert.deepEqual(await found("[nested:a]"), [], "a mapping never matches a value");
    assert.deepEqual(await found("[status:]"), [D], "an empty value is the property alone");
    assert.deepEqual(await found("[missing]"), []);
  });

  it("case: ignored unless case_sensitive; match-case: and ignore-case: set it for their operand", async () => {
    assert.deepEqual(await found("match-case:Rust"), [P]);
    assert.deepEqual(await found("match-case:RUST"), []);
    assert.deepEqual(await found("RUST"), [P]);
    assert.deepEqual(await found("RUST", { case_sensitive: true }), []);
    assert.deepEqual(await found("ignore-case:RUST", { case_sensitive: true }), [P]);
    assert.deepEqual(await found("ignore-case:(RUST NOTHING)", { case_sensitive: true }), [P]);
    assert.deepEqual(await found("Deploy", { case_sensitive: true }), [D], "the path holds Deploy");
    assert.deepEqual(await found("DEPLOY", { case_sensitive: true }), []);
    assert.deepEqual(await found("/^ANNA/", { case_sensitive: true }), []);
    assert.deepEqual(await found("match-case:/^Anna/"), [M]);
  });

  it("line breaks: content is the text with its \\r, a unit its lines joined by \\n", async () => {
    const crlf = await session.ok("search", { query: "/line$/", path_prefix: "W/" });
    assert.deepEqual(flat(crlf), [`${C}:1`, `${C}:2`]);
    assert.deepEqual(flat(await session.ok("search", { query: 'content:"line\r\nsecond"', path_prefix: "W/" })), [`${C}:-`]);
    assert.deepEqual(await found('"line\nsecond"'), []);
    assert.deepEqual(await found('block:"line\nsecond"'), [C]);
    assert.deepEqual(await found('line:"line\r\nsecond"'), []);
    const context = await session.ok("search", { query: "second", path_prefix: "W/", context_lines: 1 });
    assert.deepEqual(context.results[0].matches, [{ line: 2, text: "second line", before: ["first line"], after: [] }]);
  });
});

describe("search in word mode: refusals", () => {
  const ERRORS = [
    ['a "b c', "the quote at position 3 is never closed"],
    ["😀 /x", "the regular expression at position 4 has no closing /"],
    ["(a b", "the parenthesis at position 1 is never closed"],
    ["(a]", "the parenthesis at position 1 is never closed"],
    ["a) b", "unexpected ) at position 2"],
    ["OR a", "OR at position 1 needs a term on each side"],
    ["a OR", "OR at position 3 needs a term on each side"],
    ["a OR OR b", "OR at position 3 needs a term on each side"],
    ["(a OR)", "OR at position 4 needs a term on each side"],
    ["-", "- at position 1 excludes nothing"],
    ["a -", "- at position 3 excludes nothing"],
    ["(-)", "- at position 2 excludes nothing"],
    ["a - b", "- at position 3 excludes nothing"],
    ["file: x", "file: at position 1 needs a term after it"],
    ["x line:", "line: at position 3 needs a term after it"],
    ["(match-case:)", "match-case: at position 2 needs a term after it"],
    ["a ()", "empty parentheses at position 3"],
    ["a ( \t)", "empty parentheses at position 3"],
    ["[status", "the [ at position 1 is never closed"],
    ["[s:a b", "the [ at position 1 is never closed"],
    ["[a:x)]", "the [ at position 1 is never closed"],
    ["[a:file:]", "file: at position 4 needs a term after it"],
    ["[ ]", "[ at position 1 names no property"],
    ["[:x]", "[ at position 1 names no property"],
    ["tag:(a)", "tag: at position 1 takes a tag name, not a group or a regular expression"],
    ["x tag:/a/", "tag: at position 3 takes a tag name, not a group or a regular expression"],
    ['tag:"a', "the quote at position 5 is never closed"],
    ['""', "the phrase at position 1 is empty"],
    ["//", "the regular expression at position 1 is empty"],
    [
      "x /(?<=a)b/",
      "the regular expression at position 3 cannot be used: look-around ((?=, (?!, (?<=, (?<!) is not supported: patterns are RE2 syntax, which matches in linear time",
    ],
    ["/(a)\\1/", "the regular expression at position 1 cannot be used: backreferences (\\1 to \\9) are not supported: patterns are RE2 syntax, which matches in linear time"],
  ];

  for (const [query, what] of ERRORS) {
    it(`refuses ${JSON.stringify(query)} saying where`, async () => {
      assert.equal(await session.fails("search", { query }), `invalid query: ${what}${HINT}`);
    });
  }

  it("a regex RE2 cannot compile is refused in RE2's words, and whitespace alone is nothing to search for", async () => {
    const message = await session.fails("search", { query: "ok /(/" });
    assert.match(message, /^invalid query: the regular expression at position 4 cannot be used: .*missing closing \).*; pass mode "phrase" to search for the text as written$/);
    assert.equal(await session.fails("search", { query: " \t\n " }), "invalid query: nothing to search for");
  });

  it("mode phrase and regex true search the text as written", async () => {
    assert.equal((await session.ok("search", { query: "pricing (tiers", mode: "phrase" })).total_matches, 0);
    assert.deepEqual(flat(await session.ok("search", { query: "say \"hi", mode: "phrase", path_prefix: "W/" })), [`${P}:3`]);
    await session.fails("search", { query: "a) b", regex: true }, /^invalid regular expression/);
    await session.fails("search", { query: "x", mode: "sentence" }, /mode/);
    await session.fails("search", { query: "x", match: "some" }, /match/);
  });
});

describe("search in word mode: a question's punctuation", () => {
  it("looks for a word without the , ; : ! ? . that end it, unless it is nothing else", async () => {
    const plain = await session.ok("search", { query: "deploy staging", path_prefix: "W/" });
    const punctuated = await session.ok("search", { query: "deploy, staging?", path_prefix: "W/" });
    assert.ok(plain.results.length > 0);
    assert.deepEqual(punctuated.results, plain.results);
    assert.deepEqual(punctuated.terms, ["deploy,", "staging?"], "terms are listed as written");
    const dots = await session.ok("search", { query: "...", path_prefix: "W/", mode: "words" });
    assert.equal(dots.terms[0], "...");
  });
});

describe("search in word mode: what a result shows", () => {
  it("the head and each note keep the documented key order", async () => {
    const words = await session.ok("search", { query: "e", path_prefix: "W/", max_per_file: 1 });
    assert.deepEqual(Object.keys(words), ["truncated", "next_cursor", "query", "mode", "match", "terms", "results", "total_matches", "notes_searched"]);
    assert.equal(words.mode, "words");
    assert.equal(words.match, "all");
    assert.equal(words.notes_searched, 4);
    assert.deepEqual(Object.keys(words.results.find((note) => note.more_in_file)), ["path", "terms_matched", "matches", "more_in_file"]);
    const ranked = await session.ok("search", { query: "e", path_prefix: "W/", rank: true });
    assert.deepEqual(Object.keys(ranked), [
      "truncated",
      "next_cursor",
      "query",
      "mode",
      "match",
      "order",
      "terms",
      "results",
      "total_matches",
      "notes_searched",
      "notes_matching",
    ]);
    assert.deepEqual(Object.keys(ranked.results.find((note) => !note.more_in_file)), ["path", "score", "terms_matched", "matches"]);
    const phrase = await session.ok("search", { query: "e", path_prefix: "W/", mode: "phrase" });
    assert.deepEqual(Object.keys(phrase), ["truncated", "next_cursor", "query", "mode", "results", "total_matches", "notes_searched"]);
    assert.equal(phrase.mode, "phrase");
    assert.deepEqual(Object.keys(phrase.results[0]), ["path", "matches"]);
    const phraseRanked = await session.ok("search", { query: "e", path_prefix: "W/", regex: true, rank: true });
    assert.deepEqual(Object.keys(phraseRanked).slice(2, 5), ["query", "mode", "order"]);
    assert.equal(phraseRanked.mode, "phrase");
  });

  it("terms are the words, phrases and regexes not excluded nor under file:, path:, tag: or a property, once each", async () => {
    const query = 'deploy "staging server" -anna file:guide path:w /ban+k/ content:bank line:(call) tag:ops [status:active] Deploy deploy --how';
    const result = await session.ok("search", { query, path_prefix: "W/" });
    assert.deepEqual(result.terms, ["deploy", '"staging server"', "/ban+k/", "bank", "call", "Deploy", "how"]);
    assert.equal(result.results.length, 1);
    const note = result.results[0];
    assert.equal(note.path, D);
    assert.equal(note.terms_matched, 7);
    assert.deepEqual(
      note.matches.map((match) => match.line),
      [3, 11, 12, 15],
      "every line holding a term, and no other",
    );
    const twice = await session.ok("search", { query: "anna OR match-case:anna", path_prefix: "W/" });
    assert.deepEqual(twice.terms, ["anna"], "once as written, with the first one's case rule");
    assert.deepEqual(twice.results.map((note) => [note.path, note.terms_matched]), [[M, 1]]);
    const guide = await session.ok("search", { query: "guide how -nothing", path_prefix: "W/" });
    assert.deepEqual(guide.terms, ["guide", "how"]);
    assert.equal(guide.results[0].terms_matched, 2, "a term in the path counts");
    assert.deepEqual(guide.results[0].matches.map((match) => match.line), [12]);
    const any = await session.ok("search", { query: "anna deploy zebra", path_prefix: "W/", match: "any" });
    assert.deepEqual(
      any.results.map((note) => [note.path, note.terms_matched]),
      [
        [D, 1],
        [M, 1],
      ],
    );
  });

  it("a line's snippet is centred on the first occurrence of the first term it holds", async () => {
    const first = await session.ok("search", { query: "first target", path_prefix: "L/" });
    const text = first.results[0].matches[0].text;
    assert.ok(text.startsWith("…") && text.includes("first") && !text.includes("target"), text);
    const target = await session.ok("search", { query: "target first", path_prefix: "L/" });
    const other = target.results[0].matches[0].text;
    assert.ok(other.startsWith("…") && other.includes("target") && !other.includes("first"), other);
  });

  it("context lines come as in phrase mode", async () => {
    const result = await session.ok("search", { query: "pricing", path_prefix: "W/", context_lines: 1 });
    assert.deepEqual(result.results[0].matches, [{ line: 3, text: "We agreed on the pricing.", before: ["Anna and Bernd met."], after: [""] }]);
  });

  it("a note matched by its path, tags or properties alone comes with no lines and counts as one match", async () => {
    const byFile = await session.ok("search", { query: "file:guide", path_prefix: "W/" });
    assert.deepEqual(byFile.terms, []);
    assert.deepEqual(byFile.results, [{ path: D, terms_matched: 0, matches: [] }]);
    assert.equal(byFile.total_matches, 1);
    const byPath = await session.ok("search", { query: "guide", path_prefix: "W/" });
    assert.deepEqual(byPath.results, [{ path: D, terms_matched: 1, matches: [] }]);
    const byRegexOnPath = await session.ok("search", { query: "/^w\\/crlf/", path_prefix: "W/" });
    assert.deepEqual(byRegexOnPath.results, [{ path: C, terms_matched: 1, matches: [] }]);
    const byTag = await session.ok("search", { query: "tag:work", path_prefix: "W/" });
    assert.deepEqual(byTag.results, [{ path: M, terms_matched: 0, matches: [] }]);
  });
});

describe("search in word mode: match any", () => {
  it("makes the top level's plain words and phrases optional, never operators, regexes, groups or exclusions", async () => {
    assert.deepEqual(await found("deploy fridays"), []);
    assert.deepEqual(await found("deploy fridays", { match: "any" }), [D]);
    assert.deepEqual(await found('"we agreed" fridays', { match: "any" }), [M]);
    assert.deepEqual(await found("anna deploy file:meeting", { match: "any" }), [M]);
    assert.deepEqual(await found("match-case:Anna deploy", { match: "any" }), [], "match-case: is an operator: required");
    assert.deepEqual(await found("/bank/ meeting", { match: "any" }), [], "a regex stays required");
    assert.deepEqual(await found("/bank/ deploy", { match: "any" }), [D]);
    assert.deepEqual(await found("(anna deploy) meeting", { match: "any" }), [], "a group stays required");
    assert.deepEqual(await found("-anna deploy meeting", { match: "any" }), [D]);
    assert.deepEqual(await found("meeting OR bank", { match: "any" }), [D, M]);
    assert.deepEqual(await found("zebra", { match: "any" }), []);
  });

  it("is the default with rank, and continue_with repeats match only when it was given", async () => {
    const ranked = await session.ok("search", { query: "deploy fridays", path_prefix: "W/", rank: true });
    assert.equal(ranked.match, "any");
    assert.deepEqual(ranked.results.map((note) => note.path), [D]);
    const all = await session.ok("search", { query: "deploy fridays", path_prefix: "W/", rank: true, match: "all" });
    assert.deepEqual(all.results, []);
    const page = await session.ok("search", { query: "e", path_prefix: "W/", limit: 1 });
    assert.equal("match" in page.continue_with.arguments, false);
    const given = await session.ok("search", { query: "e", path_prefix: "W/", limit: 1, match: "any" });
    assert.deepEqual(Object.keys(given.continue_with.arguments).slice(5, 8), ["rank", "match", "context_lines"]);
  });
});

describe("search in word mode: pages", () => {
  it("a note without lines gives the cursor 0:path, costs its path's length + 40, and is skipped on resuming", async () => {
    const first = await session.ok("search", { query: "path:w", path_prefix: "W/", limit: 2 });
    assert.deepEqual(flat(first), [`${C}:-`, `${D}:-`]);
    assert.equal(first.next_cursor, `0:${D}`);
    assert.equal(first.total_matches, 2);
    const second = await session.ok("search", { query: "path:w", path_prefix: "W/", limit: 2, cursor: first.next_cursor });
    assert.deepEqual(flat(second), [`${M}:-`, `${P}:-`]);
    assert.equal(second.next_cursor, null);
    // A budget of 100 (max_chars − 300) holds W/CRLF.md (9 + 40) but not W/Deploy guide.md (17 + 40) as well.
    const tight = await session.ok("search", { query: "path:w", path_prefix: "W/", max_chars: 400 });
    assert.deepEqual(flat(tight), [`${C}:-`]);
    assert.equal(tight.next_cursor, `0:${C}`);
    const roomier = await session.ok("search", { query: "path:w", path_prefix: "W/", max_chars: 406 });
    assert.deepEqual(flat(roomier), [`${C}:-`, `${D}:-`]);
  });

  for (const rank of [false, true]) {
    it(`pages ${rank ? "in rank order" : "in path order"} add up to the whole result, lines and notes without lines mixed`, async () => {
      const base = { query: "path:w OR staging OR bank OR rust", path_prefix: "W/", rank, match: "all" };
      const whole = flat(await session.ok("search", { ...base, limit: 500 }));
      // W/CRLF.md and W/Meeting notes.md by their path alone, W/Deploy guide.md by lines 12 and 15, W/Plain.md by line 2.
      assert.equal(whole.length, 5, whole.join(" "));
      for (const limit of [1, 2, 3]) {
        const { seen, pages } = await allPages({ ...base, limit });
        assert.deepEqual(seen, whole, `limit ${limit}`);
        assert.equal(pages, Math.ceil(whole.length / limit));
      }
    });
  }

  it("a ranked cursor whose note no longer matches, and a cursor not from search, are refused", async () => {
    assert.equal(
      await session.fails("search", { query: "staging", path_prefix: "W/", rank: true, cursor: `1:${P}` }),
      `the cursor's note "${P}" no longer matches (it changed meanwhile): search again without cursor`,
    );
    assert.equal(
      await session.fails("search", { query: "staging", cursor: "garbage" }),
      'invalid cursor "garbage": pass next_cursor from the previous result unchanged',
    );
  });
});

describe("search in word mode: ranking", () => {
  const size = (path) => Buffer.byteLength(FILES[path], "utf8");
  const mean = (size("R/Apple.md") + size("R/Fruit.md") + size("R/Other.md")) / 3;
  const norm = (path) => 0.25 + 0.75 * (size(path) / mean);
  // wtf = title + aliases + text / norm, each counted at word starts; then BM25's k1 = 2. (A heading is text.)
  const wtf = (path, title, aliases, text) => title + aliases + text / norm(path);
  const part = (idf, weighted) => (idf * (weighted * 3)) / (weighted + 2);
  const round = (score) => Math.round(score * 1000) / 1000;
  const ranked = async (query, extra = {}) => {
    const result = await session.ok("search", { query, path_prefix: "R/", rank: true, ...extra });
    return result.results.map((note) => [note.path, note.score]);
  };

  it("adds the title's and the aliases' counts to the text's, with BM25's IDF and length norm", async () => {
    // apple: Apple's title once and its text once; Fruit's alias and text ("[Apple", "# Apple", "An apple") at word
    // starts; in 2 notes of 3.
    const idf = Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5));
    const apple = part(idf, wtf("R/Apple.md", 1, 0, 1));
    const fruit = part(idf, wtf("R/Fruit.md", 0, 1, 3));
    assert.ok(apple > fruit, "the short note with the word in its title and text wins");
    assert.deepEqual(await ranked("apple"), [
      ["R/Apple.md", round(apple)],
      ["R/Fruit.md", round(fruit)],
    ]);
    // day: Fruit's text once, in 1 note of 3; summed after apple, in the terms' order.
    const dayIdf = Math.log(1 + (3 - 1 + 0.5) / (1 + 0.5));
    const result = await session.ok("search", { query: "apple day", path_prefix: "R/", rank: true });
    assert.deepEqual(result.terms, ["apple", "day"]);
    assert.equal(result.notes_searched, 3);
    assert.equal(result.notes_matching, 2);
    assert.deepEqual(
      result.results.map((note) => [note.path, note.score, note.terms_matched]),
      [
        ["R/Fruit.md", round(fruit + part(dayIdf, wtf("R/Fruit.md", 0, 0, 1))), 2],
        ["R/Apple.md", round(apple), 1],
      ],
    );
  });

  it("counts occurrences at word starts without overlaps, each term with its own case rule; regexes are not scored", async () => {
    const once = Math.log(1 + (3 - 1 + 0.5) / (1 + 0.5));
    // "aaaa" holds "aa" twice without overlaps, but the second does not start a word.
    assert.deepEqual(await ranked("aa"), [["R/Other.md", round(part(once, wtf("R/Other.md", 0, 0, 1)))]]);
    // match-case:Apple: Apple's title; Fruit's alias and text twice ("An apple" is lower case).
    const idf = Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5));
    assert.deepEqual(await ranked("match-case:Apple"), [
      ["R/Fruit.md", round(part(idf, wtf("R/Fruit.md", 0, 1, 2)))],
      ["R/Apple.md", round(part(idf, wtf("R/Apple.md", 1, 0, 0)))],
    ]);
    assert.deepEqual(await ranked("/pie/"), [["R/Apple.md", 0]]);
    // "ple" inside "apple" matches the note but is not counted: it does not start a word.
    assert.deepEqual(await ranked("ple"), [["R/Apple.md", 0], ["R/Fruit.md", 0]]);
  });

  it("shows the lines of the rarer terms: not of one in more than half the notes, unless all are", async () => {
    // "a" is in all three notes of R/ (Apple's "apple", Fruit's "aliases", Other's "nothing here aaaa").
    const result = await session.ok("search", { query: "a day", path_prefix: "R/", rank: true });
    const fruit = result.results.find((note) => note.path === "R/Fruit.md");
    assert.deepEqual(fruit.matches.map((match) => match.line), [5], "only the line holding \"day\"");
    assert.equal(fruit.terms_matched, 2);
    const alone = await session.ok("search", { query: "a", path_prefix: "R/", rank: true });
    assert.ok(alone.results.find((note) => note.path === "R/Fruit.md").matches.length > 1);
    const unranked = await session.ok("search", { query: "a day", path_prefix: "R/" });
    assert.ok(unranked.results.find((note) => note.path === "R/Fruit.md").matches.length > 1);
  });

  it("equal scores keep path order", async () => {
    const result = await session.ok("search", { query: "tie", path_prefix: "S/", rank: true });
    assert.deepEqual(
      result.results.map((note) => note.path),
      ["S/c.md", "S/a.md", "S/b.md"],
    );
    assert.equal(result.results[1].score, result.results[2].score);
  });
});
