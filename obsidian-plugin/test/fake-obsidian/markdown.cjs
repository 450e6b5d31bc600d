// The fake metadata cache's Markdown reader: turns a note's text into Obsidian's `CachedMetadata`. It is over 400
// lines and stays one file: the rule list below is the specification, and the parser after it is that list in code,
// read against it rule by rule.
//
// Obsidian's own parser is closed source; these are the rules implemented here, chosen to match what Obsidian
// shows for the same text. The Rust offline reader (src/offline/obsidian/markdown/) must follow the same list, so it
// is written out in full. Positions are `{ line, col, offset }`, all 0-based; `col` and `offset` count UTF-16 code
// units (what a JavaScript string index counts), and `offset` counts a CRLF line break as two units.
//
// Frontmatter
//  - Only when the first line is `---` (trailing whitespace allowed); it ends at the next line that is `---`
//    (trailing whitespace allowed). No closing line: no frontmatter, and the first line is body text.
//    `frontmatterPosition` runs from {0,0,0} to the end of the closing `---` (col 3).
//  - The text between is YAML (core schema: dates stay strings). A mapping becomes `frontmatter`; YAML that does
//    not parse, or is not a mapping, leaves `frontmatter` absent but keeps `frontmatterPosition` and the `yaml`
//    section (the body is never parsed from inside it).
//  - `frontmatterLinks`: a property whose string value, trimmed, is exactly one wikilink `[[…]]` with no bracket
//    inside, key = property name; in a list, key = `name.index` (e.g. `related.1`). Nested mappings are not
//    searched. `link` and `displayText` follow the wikilink rules below.
//  - Tags and aliases in properties (`tags` / `tag`, `aliases` / `alias`) stay in `frontmatter` as written: the
//    cache's `tags` are the inline ones only, and the plugin reads the properties itself (src/vault/links.ts).
//
// Code (nothing inside is a link, tag, heading or block id)
//  - Fenced blocks: a line of 3+ backticks or tildes (any indentation; a backtick fence's info string holds no
//    backtick), closed by a line that, trimmed, is only the same character, at least as many; or by the end of
//    the note. The fences belong to the `code` section.
//  - `$$` math blocks: from a line that, trimmed, is `$$` to the next such line (or the end): a `math` section.
//  - Inline code spans: a run of N backticks up to the next run of exactly N backticks on the same line; an
//    unmatched run is plain text.
//  - Not implemented: indented (4-space) code blocks, `%%comments%%`, HTML comments and inline `$math$` are
//    read as text.
//
// Headings: ATX (`#` to `######` after at most 3 spaces, then a space, a tab or the end of the line; the optional
// closing run of `#` after whitespace removed, the text trimmed, the raw text kept: links and tags in it stay, and
// are indexed too; position: the line), and setext (CommonMark, which the help says Obsidian supports): a one-line
// paragraph, then a line of only `=` (level 1) or `-` (2) after at most 3 spaces; the text is that line trimmed;
// position and section span both lines; the underline beats a thematic break or an empty list item (`-`).
//
// Links (`links`) and embeds (`embeds`, the same syntax preceded by `!`), in order of position
//  - Wikilinks `[[linktext]]` / `[[linktext|display]]`: `link` = linktext trimmed (it keeps `#Heading` /
//    `#^block`), `displayText` = display if given, else linktext as written; the first `|` splits, or `\|`
//    (escaped pipe, as in tables) when it comes first. The content runs to the first `]]` on the line and may
//    hold a single `]` (`[[Sq]uare]]` links `Sq]uare`) but no `[`, so in `[[Outer [[Inner]]` only `[[Inner]]`
//    is a link. `[[]]` and `[[ |x]]` are not links. A wikilink whose target looks like a URL (`[[https://x]]`)
//    is still a link, an unresolved one, as in Obsidian 1.13.
//  - Markdown links `[text](target)`, `[text](<target with spaces>)`, with an optional title (`"…"`, `'…'` or
//    `(…)`); the text may hold one level of `[…]`, a bare target one level of `(…)`. Targets starting with a URL
//    scheme (`[A-Za-z][A-Za-z0-9+.-]*:`, so `https:`, `mailto:`, `obsidian:`) are not links. `link` = the target
//    without `<>`, trimmed, percent-decoded (kept raw if it does not decode); `displayText` = text.
//  - `original` is the exact source text; the position covers it, `!` included.
//  - Scanning order on a line: code spans are masked, then wikilinks are read and masked, then markdown links,
//    then (for tags) bare URLs `scheme://…` up to whitespace or `<>`.
//
// Tags (`tags`): `#` at the start of a line or after whitespace, followed by one or more characters that are
// not whitespace and not ASCII punctuation other than `_`, `-` and `/`; a tag of digits only (`#123`) is not a
// tag (`#1a`, `#2026/x` are). `tag` keeps the `#`. A heading's `# ` is not a tag (a space follows it).
//
// Block ids: `^id` (ASCII letters, digits, `-`) at the end of a line (trailing whitespace allowed), after
// whitespace or alone on the line, outside code. The block is the list item holding that line, else the section
// holding it; an id alone in its own paragraph (after a blank line) names the section before it (not the
// frontmatter). The named list item or section gets `id`. `blocks` is keyed by the id in lower case (as Obsidian's
// `resolveSubpath` looks it up); `BlockCache.id` keeps the id as written; the position is the block's.
//
// Sections (root blocks; a blank line ends any open one): `yaml`, `heading` and `thematicBreak` (one line
// each), `code`, `math`, and blocks opened by a line's kind, tried in this order: `list` (`-`, `*`, `+`,
// `1.`, `1)` after any indentation, then a space, tab or end of line), `blockquote` / `callout` (`>` after at
// most 3 spaces; `callout` when the first line is `> [!…`), `table` (a line holding `|` followed by a delimiter
// row such as `| --- | :-: |`), else `paragraph`. An open section takes the next line when: paragraph ←
// paragraph line; list ← list or paragraph line (continuations); blockquote/callout ← blockquote, callout or
// paragraph line (lazy continuation); table ← any line holding `|`. Otherwise the open section ends and the
// line opens its own. A list (only a list) also survives blank lines when the next non-blank line is a list
// item, or is indented (leading whitespace characters) at least to the content column of the list's last item
// (its indentation + marker + the 1 to 4 spaces or tabs after it; none or more than 4 count as 1): a loose
// list, or an item with several paragraphs, is one section. Position: first line col 0 to the end of the last
// non-blank line (without its line break).
//
// Quoted list items: in `blockquote` / `callout` sections, list items read after the quote markers (`>` after at most
// 3 spaces, an optional space or tab, repeated when nested; they count as indentation). In `listItems` in line order
// (`- [x]` in a callout is a task), never named by a block id: that names the quote (help: no links into quotes).
// List items (`listItems`): the list-item lines of each `list` section; an item runs to the last non-blank line
// before the next item (or the end of its section). Position starts at the marker's column. `parent` = the line of the nearest
// item above with less indentation (characters, a tab counting one), or minus the line of the section's first
// item; `task` = the character between `[` `]` right after the marker, when present.

"use strict";

const YAML = require("yaml");

const FENCE_OPEN = /^(\s*)(`{3,}|~{3,})(.*)$/;
const HEADING = /^ {0,3}(#{1,6})(?=[ \t]|$)(.*)$/;
const HEADING_CLOSING_RUN = /(?:^|[ \t]+)#+[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
const LIST_ITEM = /^(\s*)([-*+]|\d{1,9}[.)])(?:[ \t]+|$)(?:\[(.)\](?=[ \t]|$))?/;
const LIST_ITEM_CONTENT = /^(\s*)([-*+]|\d{1,9}[.)])([ \t]*)/;
const BLOCKQUOTE = /^ {0,3}>/;
const QUOTE_MARKERS = /^(?: {0,3}>[ \t]?)+/;
const CALLOUT = /^ {0,3}>\s*\[!/;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const TABLE_DELIMITER = /^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/;
const BLOCK_ID = /(?:^|\s)\^([A-Za-z0-9-]+)\s*$/;
const WIKILINK = /(!?)\[\[((?:[^\[\]\r\n]|\](?!\]))+?)\]\]/g;
const MARKDOWN_LINK =
  /(!?)\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*(<[^<>\r\n]*>|(?:[^()\s]|\([^()\s]*\))+)(?:\s+(?:"[^"]*"|'[^']*'|\([^()]*\)))?\s*\)/g;
const URL_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const BARE_URL = /[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s<>]+/g;
const TAG = /(^|\s)#([^\s!"#$%&'()*+,.:;<=>?@[\\\]^`{|}~]+)/g;
const DIGITS_ONLY = /^[0-9]+$/;
const FRONTMATTER_WIKILINK = /^\[\[([^\[\]]+)\]\]$/;

/** Splits text into lines with their offsets; `text` excludes the line break, `end` is the offset before it. */
function splitLines(content) {
  const lines = [];
  let start = 0;
  for (;;) {
    const newline = content.indexOf("\n", start);
    const stop = newline === -1 ? content.length : newline;
    const end = stop > start && content.charCodeAt(stop - 1) === 13 ? stop - 1 : stop;
    lines.push({ text: content.slice(start, end), start, end });
    if (newline === -1) break;
    start = newline + 1;
  }
  return lines;
}

/**
 * A plain object meant for many distinct keys (block ids, paths). V8 gives every new key sequence its own hidden
 * class, which made indexing 10,000 notes several times slower; an object born without a prototype is kept as a
 * hash table instead, and giving it `Object.prototype` afterwards keeps it one. It is still an ordinary `{}` to
 * every caller (same prototype, same keys, equal under `deepStrictEqual`).
 */
function keyedRecord() {
  return Object.setPrototypeOf(Object.create(null), Object.prototype);
}

const WHITESPACE = /\s/;

/**
 * The first character that is not whitespace in the sense of the regexes' `\s` (so also U+00A0, U+3000…), or
 * `undefined` for a blank line. It only picks which regexes to try, so it must skip exactly what they skip.
 */
function firstNonBlank(text) {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 32 || code === 9) continue;
    if (code > 32 && code < 128) return text[i];
    if (!WHITESPACE.test(text[i])) return text[i];
  }
  return undefined;
}

function loc(lines, line, col) {
  return { line, col, offset: lines[line].start + col };
}

function pos(lines, startLine, startCol, endLine, endCol) {
  return { start: loc(lines, startLine, startCol), end: loc(lines, endLine, endCol) };
}

/** Obsidian's `getFrontMatterInfo`: where the frontmatter text is and where the body starts. */
function getFrontMatterInfo(content) {
  const lines = splitLines(content);
  const closing = findFrontmatterEnd(lines);
  if (closing === -1) return { exists: false, frontmatter: "", from: 0, to: 0, contentStart: 0 };
  const from = lines[1].start;
  const to = closing === 1 ? from : lines[closing - 1].end;
  const afterClosing = closing + 1 < lines.length ? lines[closing + 1].start : content.length;
  return { exists: true, frontmatter: content.slice(from, to), from, to, contentStart: afterClosing };
}

/** Index of the closing `---` line, or -1 when the note has no frontmatter. */
function findFrontmatterEnd(lines) {
  if (lines.length < 2 || lines[0].text.trimEnd() !== "---") return -1;
  for (let i = 1; i < lines.length; i++) {
    if (lines[i].text.trimEnd() === "---") return i;
  }
  return -1;
}

/**
 * Flow collections (`[`, `{`) nested deeper than this are refused before parsing. The `yaml` package parses them by
 * recursion: 60,000 levels (the soak's hostile frontmatter) overflow the stack, and V8 then sometimes aborts the
 * whole process (it compiles a regex at the stack's edge) instead of throwing. Obsidian shows such frontmatter as
 * invalid properties, which is what a refusal gives.
 */
const MAX_FLOW_DEPTH = 1000;

/** Whether `text` opens more than `limit` flow collections at once (brackets in quoted strings are not counted). */
function nestsDeeperThan(text, limit) {
  let depth = 0;
  let quote = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote !== null) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote || c === "\n") quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "[" || c === "{") {
      if (++depth > limit) return true;
    } else if ((c === "]" || c === "}") && depth > 0) depth--;
  }
  return false;
}

/** YAML as Obsidian reads frontmatter; throws on invalid YAML like Obsidian's `parseYaml`. */
function parseYaml(text) {
  if (nestsDeeperThan(text, MAX_FLOW_DEPTH)) throw new Error(`the YAML nests deeper than ${MAX_FLOW_DEPTH} levels`);
  return YAML.parse(text);
}

function stringifyYaml(value) {
  return YAML.stringify(value);
}

/** Replaces `[from, to)` of `text` with spaces, so later scans skip it while offsets stay put. */
function mask(text, from, to) {
  return text.slice(0, from) + " ".repeat(to - from) + text.slice(to);
}

/** Masks inline code spans: a run of N backticks up to the next run of exactly N backticks. */
function maskCodeSpans(text) {
  let result = text;
  let i = 0;
  while (i < result.length) {
    if (result[i] !== "`") {
      i++;
      continue;
    }
    let runEnd = i;
    while (runEnd < result.length && result[runEnd] === "`") runEnd++;
    const runLength = runEnd - i;
    let search = runEnd;
    let closeAt = -1;
    while (search < result.length) {
      const next = result.indexOf("`", search);
      if (next === -1) break;
      let nextEnd = next;
      while (nextEnd < result.length && result[nextEnd] === "`") nextEnd++;
      if (nextEnd - next === runLength) {
        closeAt = nextEnd;
        break;
      }
      search = nextEnd;
    }
    if (closeAt === -1) {
      i = runEnd;
      continue;
    }
    result = mask(result, i, closeAt);
    i = closeAt;
  }
  return result;
}

function safeDecode(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    // Obsidian keeps a target that is not valid percent-encoding as written; so does the fake.
    return text;
  }
}

/** Splits wikilink content into link and display text; `\|` (escaped in tables) counts as the separator. */
function splitWikilink(content) {
  const escaped = content.indexOf("\\|");
  const plain = content.indexOf("|");
  if (escaped !== -1 && escaped < plain) {
    return { linktext: content.slice(0, escaped), display: content.slice(escaped + 2) };
  }
  if (plain !== -1) return { linktext: content.slice(0, plain), display: content.slice(plain + 1) };
  return { linktext: content, display: null };
}

/** Finds links, embeds, tags and a block id in one line of body text outside code blocks. */
function scanInline(lines, lineNumber, found) {
  const original = lines[lineNumber].text;
  // Cheap substring checks first: most lines of a large vault hold no link, tag or block id.
  let text = original.includes("`") ? maskCodeSpans(original) : original;

  if (text.includes("[[")) {
    for (const match of text.matchAll(WIKILINK)) {
      const { linktext, display } = splitWikilink(match[2]);
      const link = linktext.trim();
      if (link === "") continue;
      const from = match.index;
      const to = from + match[0].length;
      const reference = {
        link,
        original: original.slice(from, to),
        displayText: display ?? linktext,
        position: pos(lines, lineNumber, from, lineNumber, to),
      };
      (match[1] ? found.embeds : found.links).push(reference);
      text = mask(text, from, to);
    }
  }

  if (text.includes("](")) {
    for (const match of text.matchAll(MARKDOWN_LINK)) {
      const from = match.index;
      const to = from + match[0].length;
      text = mask(text, from, to);
      let target = match[3];
      if (target.startsWith("<")) target = target.slice(1, -1);
      target = target.trim();
      if (target === "" || URL_SCHEME.test(target)) continue;
      const reference = {
        link: safeDecode(target),
        original: original.slice(from, to),
        displayText: match[2],
        position: pos(lines, lineNumber, from, lineNumber, to),
      };
      (match[1] ? found.embeds : found.links).push(reference);
    }
  }

  if (text.includes("#")) {
    if (text.includes("://")) {
      for (const match of text.matchAll(BARE_URL)) text = mask(text, match.index, match.index + match[0].length);
    }
    for (const match of text.matchAll(TAG)) {
      if (DIGITS_ONLY.test(match[2])) continue;
      // The whitespace before the tag is part of the match (a lookbehind is much slower here); skip it.
      const from = match.index + match[1].length;
      const to = match.index + match[0].length;
      found.tags.push({ tag: `#${match[2]}`, position: pos(lines, lineNumber, from, lineNumber, to) });
    }
  }

  if (text.includes("^")) {
    const blockId = BLOCK_ID.exec(text);
    if (blockId) found.blockIds.push({ id: blockId[1], line: lineNumber });
  }
}

/** What kind of block a line opens, for lines outside code; `null` for a blank line. */
function lineKind(lines, index) {
  const text = lines[index].text;
  const first = firstNonBlank(text);
  if (first === undefined) return null;
  // Each block kind starts with a telling character; testing it first keeps the regexes off ordinary lines.
  if (first === "#" && HEADING.test(text)) return "heading";
  if ((first === "-" || first === "*" || first === "_") && THEMATIC_BREAK.test(text)) return "thematicBreak";
  if ((first === "-" || first === "*" || first === "+" || (first >= "0" && first <= "9")) && LIST_ITEM.test(text)) return "list";
  if (first === ">" && BLOCKQUOTE.test(text)) return CALLOUT.test(text) ? "callout" : "blockquote";
  if (text.includes("|") && index + 1 < lines.length && lines[index + 1].text.includes("-") && TABLE_DELIMITER.test(lines[index + 1].text)) {
    return "table";
  }
  return "paragraph";
}

function isFenceClose(text, fence) {
  const trimmed = text.trim();
  if (trimmed.length < fence.length || trimmed[0] !== fence[0]) return false;
  for (const char of trimmed) if (char !== fence[0]) return false;
  return true;
}

/** Parses a note's text into Obsidian's `CachedMetadata` (see the rules at the top of this file). */
function parseMarkdown(content) {
  const lines = splitLines(content);
  const cache = {};
  const sections = [];
  const found = { links: [], embeds: [], tags: [], blockIds: [] };
  const headings = [];
  const listItems = [];

  let bodyStart = 0;
  const frontmatterEnd = findFrontmatterEnd(lines);
  if (frontmatterEnd !== -1) {
    const position = pos(lines, 0, 0, frontmatterEnd, lines[frontmatterEnd].text.length);
    cache.frontmatterPosition = position;
    sections.push({ type: "yaml", position });
    readFrontmatter(frontmatterEnd === 1 ? "" : content.slice(lines[1].start, lines[frontmatterEnd - 1].end), cache);
    bodyStart = frontmatterEnd + 1;
  }

  let current = null; // the open section: { type, startLine, endLine }
  const closeSection = () => {
    if (current) sections.push({ type: current.type, startLine: current.startLine, endLine: current.endLine });
    current = null;
  };

  for (let i = bodyStart; i < lines.length; i++) {
    const text = lines[i].text;
    const first = firstNonBlank(text);
    const fence = first === "`" || first === "~" ? FENCE_OPEN.exec(text) : null;
    const opensFence = fence !== null && !(fence[2][0] === "`" && fence[3].includes("`"));
    const opensMath = first === "$" && text.trim() === "$$";
    if (opensFence || opensMath) {
      closeSection();
      const fenceMark = opensFence ? fence[2] : null;
      let end = i + 1;
      while (end < lines.length) {
        if (fenceMark ? isFenceClose(lines[end].text, fenceMark) : lines[end].text.trim() === "$$") break;
        end++;
      }
      const last = Math.min(end, lines.length - 1);
      sections.push({ type: opensFence ? "code" : "math", startLine: i, endLine: last });
      i = last;
      continue;
    }

    const kind = lineKind(lines, i);
    if (kind === null) {
      if (!(current && current.type === "list" && listContinuesAfterBlank(lines, i, current.contentColumn))) closeSection();
      continue;
    }
    const underline = current?.type === "paragraph" && current.startLine === i - 1 ? SETEXT_UNDERLINE.exec(text) : null;
    if (underline) {
      headings.push({ heading: lines[i - 1].text.trim(), level: underline[1][0] === "=" ? 1 : 2, position: pos(lines, i - 1, 0, i, text.length) });
      sections.push({ type: "heading", startLine: i - 1, endLine: i });
      current = null;
      continue;
    }
    scanInline(lines, i, found);

    if (kind === "heading") {
      closeSection();
      const match = HEADING.exec(text);
      const heading = match[2].replace(HEADING_CLOSING_RUN, "").trim();
      headings.push({ heading, level: match[1].length, position: pos(lines, i, 0, i, text.length) });
      sections.push({ type: "heading", startLine: i, endLine: i });
      continue;
    }
    if (kind === "thematicBreak") {
      closeSection();
      sections.push({ type: "thematicBreak", startLine: i, endLine: i });
      continue;
    }
    if (current) {
      const continues =
        (current.type === "paragraph" && kind === "paragraph") ||
        (current.type === "list" && (kind === "list" || kind === "paragraph")) ||
        ((current.type === "blockquote" || current.type === "callout") && (kind === "blockquote" || kind === "callout" || kind === "paragraph")) ||
        (current.type === "table" && text.includes("|"));
      if (continues) {
        current.endLine = i;
        if (kind === "list") current.contentColumn = listContentColumn(text);
        continue;
      }
      closeSection();
    }
    current = { type: kind, startLine: i, endLine: i };
    if (kind === "list") current.contentColumn = listContentColumn(text);
  }
  closeSection();

  for (const section of sections) {
    if (!section.position) {
      section.position = pos(lines, section.startLine, 0, section.endLine, lines[section.endLine].text.length);
    }
  }
  const quotedItems = [];
  for (const section of sections) {
    if (section.type === "list") readListItems(lines, section, listItems);
    else if (section.type === "blockquote" || section.type === "callout") readListItems(lines, section, quotedItems, true);
  }

  const blocks = keyedRecord();
  for (const { id, line } of found.blockIds) {
    const block = findBlock(lines, sections, listItems, line);
    if (!block) continue;
    block.id = id;
    blocks[id.toLowerCase()] = { id, position: block.position };
  }

  const byOffset = (a, b) => a.position.start.offset - b.position.start.offset;
  found.links.sort(byOffset);
  found.embeds.sort(byOffset);
  if (found.links.length) cache.links = found.links;
  if (found.embeds.length) cache.embeds = found.embeds;
  if (found.tags.length) cache.tags = found.tags;
  if (headings.length) cache.headings = headings;
  if (sections.length) {
    cache.sections = sections.map((section) => {
      const out = { type: section.type, position: section.position };
      if (section.id) out.id = section.id;
      return out;
    });
  }
  const allItems = quotedItems.length ? [...listItems, ...quotedItems].sort((a, b) => a.startLine - b.startLine) : listItems;
  if (allItems.length) {
    cache.listItems = allItems.map((item) => {
      const out = { parent: item.parent, position: item.position };
      if (item.task !== undefined) out.task = item.task;
      if (item.id) out.id = item.id;
      return out;
    });
  }
  if (Object.keys(blocks).length) cache.blocks = blocks;
  return cache;
}

/** The frontmatter object, or `undefined` when the YAML does not parse or is not a mapping. */
function frontmatterData(text) {
  let data;
  try {
    data = text.trim() === "" ? {} : parseYaml(text);
  } catch {
    // Obsidian shows invalid frontmatter as "invalid properties" and indexes no frontmatter; so does the fake.
    return undefined;
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) return undefined;
  return data;
}

/**
 * Fills `frontmatter` and `frontmatterLinks`; invalid YAML leaves both absent. YAML parsing is most of the cost
 * of indexing a large vault, so YAML without `[[` (which therefore has no links) is parsed on first access of
 * `cache.frontmatter`; until then `"frontmatter" in cache` is true even if that YAML turns out invalid.
 */
function readFrontmatter(text, cache) {
  if (!text.includes("[[")) {
    const settle = (value) => {
      if (value === undefined) delete cache.frontmatter;
      else Object.defineProperty(cache, "frontmatter", { value, writable: true, enumerable: true, configurable: true });
    };
    Object.defineProperty(cache, "frontmatter", {
      configurable: true,
      enumerable: true,
      get() {
        const data = frontmatterData(text);
        settle(data);
        return data;
      },
      set: settle,
    });
    return;
  }
  const data = frontmatterData(text);
  if (data === undefined) return;
  cache.frontmatter = data;
  const links = [];
  for (const [key, value] of Object.entries(data)) {
    if (typeof value === "string") {
      const link = frontmatterLink(key, value);
      if (link) links.push(link);
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => {
        if (typeof item !== "string") return;
        const link = frontmatterLink(`${key}.${index}`, item);
        if (link) links.push(link);
      });
    }
  }
  if (links.length) cache.frontmatterLinks = links;
}

function frontmatterLink(key, value) {
  const match = FRONTMATTER_WIKILINK.exec(value.trim());
  if (!match) return null;
  const { linktext, display } = splitWikilink(match[1]);
  const link = linktext.trim();
  if (link === "") return null;
  return { key, link, original: value.trim(), displayText: display ?? linktext };
}

/** Where a list item's content starts: indentation, marker, then 1 to 4 spaces or tabs (more count as 1). */
function listContentColumn(text) {
  const match = LIST_ITEM_CONTENT.exec(text);
  const spacing = match[3].length === 0 || match[3].length > 4 ? 1 : match[3].length;
  return match[1].length + match[2].length + spacing;
}

/**
 * Whether a list goes on past the blank line at `index`: the next non-blank line is a list item, or is indented
 * at least as far as the content of the list's last item (so it continues that item).
 */
function listContinuesAfterBlank(lines, index, contentColumn) {
  let next = index + 1;
  while (next < lines.length && lines[next].text.trim() === "") next++;
  if (next >= lines.length) return false;
  const text = lines[next].text;
  if (LIST_ITEM.test(text)) return true;
  return text.length - text.trimStart().length >= contentColumn;
}

/** Splits a list section (`quoted`: a quote, after its markers) into items with parents, tasks and extents. */
function readListItems(lines, section, listItems, quoted = false) {
  const items = [];
  for (let i = section.startLine; i <= section.endLine; i++) {
    const markers = quoted ? (QUOTE_MARKERS.exec(lines[i].text)?.[0].length ?? 0) : 0;
    const match = LIST_ITEM.exec(markers ? lines[i].text.slice(markers) : lines[i].text);
    if (match) items.push({ line: i, indent: markers + match[1].length, task: match[3] });
  }
  const stack = [];
  const firstLine = items.length ? items[0].line : section.startLine;
  items.forEach((item, index) => {
    while (stack.length && stack[stack.length - 1].indent >= item.indent) stack.pop();
    const parent = stack.length ? stack[stack.length - 1].line : -firstLine;
    stack.push(item);
    let endLine = index + 1 < items.length ? items[index + 1].line - 1 : section.endLine;
    // Blank lines between the items of a loose list belong to neither item.
    while (endLine > item.line && lines[endLine].text.trim() === "") endLine--;
    listItems.push({
      parent,
      task: item.task,
      position: pos(lines, item.line, item.indent, endLine, lines[endLine].text.length),
      startLine: item.line,
      endLine,
    });
  });
}

/** The list item or section a block id on `line` names (see the rules at the top). */
function findBlock(lines, sections, listItems, line) {
  const item = listItems.find((candidate) => candidate.startLine <= line && line <= candidate.endLine);
  if (item) return item;
  const index = sections.findIndex((section) => section.position.start.line <= line && line <= section.position.end.line);
  if (index === -1) return null;
  const section = sections[index];
  const alone = section.position.start.line === line && section.position.end.line === line && section.type === "paragraph";
  if (alone && lines[line].text.trim().startsWith("^") && index > 0 && sections[index - 1].type !== "yaml") {
    return sections[index - 1];
  }
  return section;
}

module.exports = { keyedRecord, parseMarkdown, getFrontMatterInfo, parseYaml, stringifyYaml, splitLines, splitWikilink };
