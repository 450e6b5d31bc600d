// `search` in word mode, the default (the offline reader's twin: src/offline/plugin/tools/search/mod.rs): the query in
// Obsidian's search syntax (../vault/query/parse.ts) tested on each note (../vault/query/match.ts), each matching note
// shown with the lines that hold one of the query's terms. In path order the scan stops once the page is full, as in
// phrase mode; with `rank` every note in scope is read first, since BM25 needs each term's document frequency over them
// all (../vault/query/rank.ts). Notes are read as phrase mode reads them (../vault/many.ts), a note whose real file is
// outside the vault never (it is counted as searched, and in the mean size, but matches nothing), and the scans pause
// whenever their slice is spent (../vault/slices.ts).

import type { TFile } from "obsidian";
import { insideVaultChecker } from "../vault/disk";
import { cutChars } from "../vault/limits";
import { splitLines } from "../vault/lines";
import { eachText, readNotes } from "../vault/many";
import { visibleNotes } from "../vault/notes";
import { cleanVaultPath } from "../vault/paths";
import { lineFinder, NoteView, qualifies, queryTerms, termsMatched } from "../vault/query/match";
import { parseQuery, type ParsedQuery } from "../vault/query/parse";
import { inverseFrequencies, lengthNorm, noteScore, orderKey, weightedCounts } from "../vault/query/rank";
import { Slices } from "../vault/slices";
import { json, pageHead } from "./common";
import { parseCursor, roundScore, SearchPage, type NoteHead, type SearchArgs } from "./search-page";
import { ToolError, type ToolContext, type ToolOutput } from "./types";

/** A parsed query and how a note is seen, for ranking. */
interface Asked {
  query: ParsedQuery;
  /** `match: "any"`. */
  any: boolean;
  terms: readonly number[];
  viewOf: (file: TFile, text: string) => NoteView;
}

/** Runs a word-mode search. */
export async function searchWords(args: SearchArgs, ctx: ToolContext): Promise<ToolOutput> {
  const prefix = args.path_prefix === "" ? "" : cleanVaultPath(args.path_prefix, ctx, "path_prefix") + (args.path_prefix.endsWith("/") ? "/" : "");
  const resume = parseCursor(args.cursor);
  const query = parseQuery(args.query, args.case_sensitive);
  const any = (args.match ?? (args.rank ? "any" : "all")) === "any";
  const terms = queryTerms(query);
  const slices = new Slices(ctx.signal, "search");
  const inside = insideVaultChecker(ctx);
  const page = new SearchPage(args);
  const head = {
    query: cutChars(args.query, 200),
    mode: "words",
    match: any ? "any" : "all",
    ...(args.rank ? { order: "relevance" } : {}),
    terms: terms.map((at) => query.atoms[at].written),
  };
  const viewOf = (file: TFile, text: string) => new NoteView(file.path, text, () => ctx.app.metadataCache.getFileCache(file));

  /** Adds a matching note to the page: its lines holding a term after the cursor's, or the note alone; true when full. */
  const add = (note: NoteView, noteHead: NoteHead, shown: readonly number[] = terms): boolean => {
    noteHead.terms_matched = termsMatched(query, terms, note);
    const find = lineFinder(query, shown, note);
    const skip = resume !== null && resume.path === note.path ? resume.line : null;
    const first = note.lines().findIndex((line) => find(line) >= 0);
    // The page quotes the lines as read (context lines lose one final `\r` there, as in phrase mode).
    if (first >= 0) return page.addNote(noteHead, splitLines(note.text), Math.max(first, skip ?? 0), find);
    // A note shown without lines is skipped by the cursor it gave.
    return skip === null ? page.addBare(noteHead) : false;
  };

  if (args.rank) {
    const files = await visibleNotes(ctx, slices, prefix);
    const { ranked, shown } = await rankNotes({ query, any, terms, viewOf }, slices, files, (batch) => eachText(ctx, batch, slices, inside));
    let at = 0;
    if (resume !== null) {
      at = ranked.findIndex((note) => note.file.path === resume.path);
      if (at < 0) throw new ToolError(`the cursor's note ${JSON.stringify(resume.path)} no longer matches (it changed meanwhile): search again without cursor`);
    }
    for (; at < ranked.length; at++) {
      if (slices.spent()) await slices.pause();
      const { file, score } = ranked[at];
      const [text] = await readNotes(ctx, [file], inside);
      if (text === null || text === undefined) continue;
      if (add(viewOf(file, text), { path: file.path, score: roundScore(score) }, shown)) break;
    }
    return json({
      ...pageHead("search", args, page.next),
      ...head,
      results: page.results,
      total_matches: page.total,
      notes_searched: files.length,
      notes_matching: ranked.length,
    });
  }

  const files = await visibleNotes(ctx, slices, prefix, resume?.path ?? "");
  let searched = 0;
  for await (const { file, text } of eachText(ctx, files, slices, inside)) {
    searched++;
    if (text === null) continue;
    const note = viewOf(file, text);
    if (qualifies(query, any, note) && add(note, { path: file.path })) break;
    if (slices.spent()) await slices.pause();
  }
  return json({
    ...pageHead("search", args, page.next),
    ...head,
    results: page.results,
    total_matches: page.total,
    notes_searched: searched,
  });
}

/**
 * The notes that match, most relevant first (equal order keys in path order), with their scores. `read` gives each
 * note's text (null when it is not read): such a note counts in N and in the mean size but holds no term. Also the
 * terms whose lines the results show: not those in more than half the notes in scope (`the`, `how`), which would show
 * nearly every line, unless every scored term is that common.
 */
async function rankNotes(
  asked: Asked,
  slices: Slices,
  files: readonly TFile[],
  read: (files: readonly TFile[]) => AsyncGenerator<{ file: TFile; text: string | null }>,
): Promise<{ ranked: { file: TFile; score: number; key: number }[]; shown: number[] }> {
  const { query, any, terms, viewOf } = asked;
  const scored = terms.filter((at) => query.atoms[at].kind !== "regex");
  let bytes = 0;
  for (const file of files) {
    if (slices.due()) await slices.pause();
    bytes += file.stat.size;
  }
  const meanSize = files.length > 0 ? bytes / files.length : 0;
  const documents = scored.map(() => 0);
  const matching: { file: TFile; wtf: number[] }[] = [];
  for await (const { file, text } of read(files)) {
    if (text === null) continue;
    const note = viewOf(file, text);
    const wtf = weightedCounts(query, scored, note, lengthNorm(file.stat.size, meanSize));
    for (let i = 0; i < wtf.length; i++) if (wtf[i] > 0) documents[i]++;
    if (qualifies(query, any, note)) matching.push({ file, wtf });
    if (slices.spent()) await slices.pause();
  }
  const idf = inverseFrequencies(files.length, documents);
  const withScores = await slices.map(matching, ({ file, wtf }) => {
    const score = noteScore(idf, wtf);
    return { file, score, key: orderKey(score) };
  });
  // Already in path order, and the sort is stable: equal keys stay so.
  const ranked = await slices.sort(withScores, (a, b) => b.key - a.key);
  const common = (at: number) => {
    const index = scored.indexOf(at);
    return index >= 0 && documents[index] * 2 > files.length;
  };
  const shown = scored.length > 0 && scored.every(common) ? [...terms] : terms.filter((at) => !common(at));
  return { ranked, shown };
}
