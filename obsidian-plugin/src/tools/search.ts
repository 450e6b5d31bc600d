// The `search` tool: its arguments and the choice of mode. Word mode, the default (./search-words.ts), reads the query
// in Obsidian's search syntax, because agents and people ask with several words that seldom stand together on one
// line; phrase mode (./search-phrase.ts), chosen by `mode: "phrase"` or `regex: true`, is the line search from before,
// kept for callers that want one literal line or one regular expression. Both fill the same page (./search-page.ts).

import { z } from "zod";
import { LIMIT_CAP, maxCharsArg } from "../vault/limits";
import { searchPhrase } from "./search-phrase";
import { searchWords } from "./search-words";
import { defineTool } from "./types";

export const search = defineTool({
  name: "search",
  cache: "wait",
  title: "Search notes",
  description:
    "Search Markdown notes with Obsidian's search syntax (see query): each matching note with the lines holding the " +
    "query's terms, in path order or, with rank, most relevant first (BM25). mode \"phrase\" finds one literal line, " +
    "regex an RE2 pattern. Paginated.",
  input: {
    query: z
      .string()
      .min(1)
      .max(1000)
      .describe(
        "Obsidian search syntax: words (all must occur, anywhere in the note or its path; meet finds meeting), " +
          '"exact phrase", OR, -exclude, ( ), file: path: content: tag: line:( ) block:( ) section:( ) task: ' +
          "task-todo: task-done: match-case: ignore-case:, [property] or [property:value], /regex/. In phrase mode: " +
          "the text of one line, or a regular expression when regex is true.",
      ),
    mode: z
      .enum(["words", "phrase"])
      .default("words")
      .describe('"words" (default): the query syntax above; "phrase": one literal line, as written.'),
    regex: z
      .boolean()
      .default(false)
      .describe("Treat query as an RE2 regular expression (JavaScript's without lookaround or backreferences; linear time), line by line (default false)."),
    case_sensitive: z.boolean().default(false).describe("Match case exactly (default false)."),
    path_prefix: z
      .string()
      .default("")
      .describe('Only notes whose vault path starts with this, e.g. "Projects/" (default: whole vault).'),
    rank: z
      .boolean()
      .default(false)
      .describe(
        "Most relevant notes first, each with a score (BM25; a word in the title or an alias counts once more), " +
          "instead of path order; any of the words then matches. Every note is searched before the first page (default false).",
      ),
    match: z
      .enum(["all", "any"])
      .optional()
      .describe('Word mode: "all" the words must occur, or "any" one of them (default "all", "any" with rank).'),
    context_lines: z.number().int().min(0).max(10).default(0).describe("Lines of context before and after each match (default 0, max 10)."),
    max_per_file: z.number().int().min(1).max(100).default(10).describe("Maximum matches per note (default 10, max 100)."),
    limit: z.number().int().min(1).max(LIMIT_CAP).default(100).describe(`Maximum matches in total (default 100, max ${LIMIT_CAP}).`),
    cursor: z.string().max(4096).optional().describe("Cursor from a previous result's next_cursor, to get the next page."),
    max_chars: maxCharsArg(),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    return args.mode === "phrase" || args.regex ? searchPhrase(args, ctx) : searchWords(args, ctx);
  },
});

export const SEARCH_TOOLS = [search];
