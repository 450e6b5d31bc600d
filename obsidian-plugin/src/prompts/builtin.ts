// The prompts every vault has, built from the read tools' own answers (so offline mode gives the same text). A vault
// prompt of the same name takes a built-in's place. The exact texts are in ./README.md.

import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { PromptContext, PromptEntry } from "./types";

export interface Builtin extends PromptEntry {
  render(p: PromptContext, args: Record<string, string>): Promise<string>;
}

/** A tool's answer for a prompt's text; a failure that leaves the prompt without its subject is the request's error. */
async function required(p: PromptContext, tool: string, args: Record<string, unknown>): Promise<string> {
  const answer = await p.runTool(tool, args);
  if (answer.isError) throw new ProtocolError(ProtocolErrorCode.InvalidParams, answer.text);
  return answer.text;
}

export const BUILTINS: readonly Builtin[] = [
  {
    name: "daily-review",
    title: "Review my day",
    description: "Today's daily note (or another day's) and the vault's open tasks, to review the day and plan the next.",
    arguments: [{ name: "date", description: 'YYYY-MM-DD, "today" (default), "yesterday" or "tomorrow".', required: false }],
    async render(p, args) {
      const date = args.date === undefined || args.date === "" ? "today" : args.date;
      const daily = await p.runTool("daily_note", { date });
      const tasks = await p.runTool("search", { query: "- [ ]", mode: "phrase", limit: 50, max_per_file: 20 });
      return (
        "Review my day with me from my Obsidian vault: what got done, what is still open, and what to carry over to " +
        "tomorrow. My daily note and my open tasks follow.\n\n" +
        `Daily note (${date}):\n${daily.text}\n\n` +
        `Open tasks across the vault (lines with "- [ ]", the first 50):\n${tasks.text}`
      );
    },
  },
  {
    name: "research-topic",
    title: "Research a topic in the vault",
    description: "Find what the vault says about a topic with the obsmcp tools, following links, and answer with sources.",
    arguments: [{ name: "topic", description: "What to look for.", required: true }],
    async render(_p, args) {
      return (
        `Find out what my Obsidian vault says about "${args.topic}". Use the obsmcp tools: search for it and for related ` +
        "words, read the most relevant notes (outline first, then read_note with a heading), follow their backlinks and " +
        "outgoing links, and answer with what the notes say, citing each note as a [[link]]. Say plainly when the vault " +
        "has nothing on it."
      );
    },
  },
  {
    name: "summarize-note",
    title: "Summarize a note",
    description: "A note with the notes that link to it, to summarize it and how it connects to the rest of the vault.",
    arguments: [{ name: "path", description: "The note: a vault path, a name or a [[link]].", required: true }],
    async render(p, args) {
      const note = await required(p, "read_note", { path: args.path });
      const backlinks = await required(p, "backlinks", { path: args.path, limit: 20, max_lines_per_note: 1 });
      return (
        "Summarize this note from my Obsidian vault: its main points, decisions and open questions. Then say how it " +
        "connects to the notes that link to it, listed after it.\n\n" +
        `${note}\n\nNotes that link to it (backlinks):\n${backlinks}`
      );
    },
  },
];
