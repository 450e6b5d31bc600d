// Deterministic generator of a realistic vault for benchmarks: nested folders, frontmatter, tags, headings, block
// ids, tasks, links (a hub note `Hub.md` that most notes link to, aliases, headings, blocks), a few duplicate
// basenames and some unresolved links. The same seed and note count always give the same bytes.
//
//   node test/gen-vault.mjs DIR [--notes 10000] [--seed 1] [--prose 0]
//
// --prose N adds N sentences of prose to each section: 0 gives notes of 0.8 KB on average, 9 of about 2.4 KB (the
// size of a real note). The same seed, count and prose always give the same bytes; --prose 0 gives what the
// generator gave before the option.
//
// DIR must be absent or empty (nothing is ever overwritten). Prints one summary line. Also importable:
// `generateVault(dir, { notes, seed })` returns the summary as an object.

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const WORDS = (
  "alpha beta gamma delta river stone garden method system paper window market signal orbit ledger harbor " +
  "canvas meadow engine quartz violet summit archive lantern compass thread mosaic ember glacier pillar " +
  "über straße café naïve résumé smörgåsbord fjord zürich kraków łódź"
).split(" ");
const TOPICS = ["Projects", "Areas", "Resources", "Journal", "People", "Reading", "Ideas", "Meetings"];
const TAGS = ["project", "idea", "reading", "person", "meeting", "todo", "status/active", "status/done", "area/health", "area/work"];

/** mulberry32: a tiny seeded PRNG, so the output depends on the seed only. */
function randomSource(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (max) => Math.floor(next() * max),
    pick: (list) => list[Math.floor(next() * list.length)],
    chance: (probability) => next() < probability,
  };
}

function sentence(random, words) {
  const parts = [];
  for (let i = 0; i < words; i++) parts.push(random.pick(WORDS));
  const text = parts.join(" ");
  return `${text[0].toUpperCase()}${text.slice(1)}.`;
}

/** Plans every note's folder and title before writing, so links can point at notes written later. */
function planNotes(random, count) {
  const folders = [];
  for (const topic of TOPICS) {
    folders.push(topic);
    for (let sub = 1; sub <= 4; sub++) folders.push(`${topic}/${topic} ${sub}`);
  }
  const notes = [];
  for (let i = 1; i < count; i++) {
    // Every 500th note is called "Index", each in its own folder: duplicate basenames exercise shortest-path
    // resolution, and the folder rotation keeps two of them from landing on the same path.
    const isIndex = i % 500 === 0;
    const folder = isIndex ? folders[(i / 500) % folders.length] : random.pick(folders);
    const title = isIndex ? "Index" : `${random.pick(WORDS)} ${random.pick(WORDS)} ${String(i).padStart(5, "0")}`;
    notes.push({ folder, title, path: `${folder}/${title}.md` });
  }
  return { folders, notes };
}

function noteText(random, note, index, notes, stats, prose) {
  const lines = [];
  if (random.chance(0.7)) {
    lines.push("---");
    const tags = [random.pick(TAGS), random.pick(TAGS)];
    lines.push(`tags: [${[...new Set(tags)].join(", ")}]`);
    if (random.chance(0.2)) lines.push(`aliases: ["${note.title} alias"]`);
    lines.push(`created: 2026-${String(1 + random.int(12)).padStart(2, "0")}-${String(1 + random.int(28)).padStart(2, "0")}`);
    if (random.chance(0.3)) lines.push(`status: ${random.pick(["draft", "active", "done"])}`);
    if (random.chance(0.1)) {
      lines.push(`related: "[[${random.pick(notes).title}]]"`);
      stats.links++;
    }
    lines.push("---");
  }
  lines.push(`# ${note.title}`, "");
  if (random.chance(0.7)) {
    lines.push(`Part of [[Hub]]. ${sentence(random, 8)}`);
    stats.links++;
    stats.hubLinks++;
  }
  const sections = 1 + random.int(4);
  for (let section = 1; section <= sections; section++) {
    lines.push("", `## Section ${section}`, "");
    lines.push(`${sentence(random, 12)} ${sentence(random, 10)}`);
    if (prose > 0) {
      const extra = [];
      for (let k = 0; k < prose; k++) extra.push(sentence(random, 6 + random.int(8)));
      lines.push("", extra.join(" "));
    }
    const linkCount = random.int(3);
    for (let k = 0; k < linkCount; k++) {
      const target = random.pick(notes);
      const form = random.int(4);
      if (form === 0) lines.push(`See [[${target.title}]] for ${random.pick(WORDS)}.`);
      else if (form === 1) lines.push(`Compare [[${target.title}|${random.pick(WORDS)}]].`);
      else if (form === 2) lines.push(`Details in [[${target.title}#Section 1]].`);
      else lines.push(`As in [${target.title}](${encodeURI(target.path)}).`);
      stats.links++;
    }
    if (random.chance(0.05)) {
      lines.push(`Still to write: [[Missing ${random.int(200)}]].`);
      stats.links++;
      stats.unresolved++;
    }
    if (random.chance(0.3)) lines.push(`Tagged #${random.pick(TAGS)} inline.`);
    if (random.chance(0.3)) lines.push("", `- [ ] ${sentence(random, 5)}`, `- [x] ${sentence(random, 4)} ^done-${index}-${section}`);
    if (random.chance(0.15)) lines.push("", "```js", `const link = "[[Not a link ${index}]]";`, "```");
  }
  return `${lines.join("\n")}\n`;
}

function hubText(notes) {
  const lines = ["---", "tags: [hub]", "aliases: [Start, Index of everything]", "---", "# Hub", ""];
  lines.push("The note most others link to.", "", "## Entry points", "");
  for (let i = 0; i < Math.min(50, notes.length); i++) lines.push(`- [[${notes[i].title}]]`);
  return `${lines.join("\n")}\n`;
}

/** Writes the vault into `dir` (absent or empty) and returns a summary. */
export function generateVault(dir, { notes: count = 10000, seed = 1, prose = 0 } = {}) {
  if (!Number.isInteger(count) || count < 1) throw new Error(`--notes must be a positive integer, got ${count}`);
  if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got ${seed}`);
  if (!Number.isInteger(prose) || prose < 0) throw new Error(`--prose must be a non-negative integer, got ${prose}`);
  if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0) {
    throw new Error(`${dir} is not empty; the generator only writes into an absent or empty folder`);
  }
  const started = performance.now();
  const random = randomSource(seed);
  const { folders, notes } = planNotes(random, count);
  const stats = { notes: count, folders: folders.length, links: 0, hubLinks: 0, unresolved: 0, bytes: 0 };

  fs.mkdirSync(path.join(dir, ".obsidian"), { recursive: true });
  fs.writeFileSync(path.join(dir, ".obsidian", "app.json"), `${JSON.stringify({ alwaysUpdateLinks: true }, null, 2)}\n`);
  for (const folder of folders) fs.mkdirSync(path.join(dir, folder), { recursive: true });

  const hub = hubText(notes);
  fs.writeFileSync(path.join(dir, "Hub.md"), hub);
  stats.links += Math.min(50, notes.length);
  stats.bytes += Buffer.byteLength(hub);
  notes.forEach((note, index) => {
    const text = noteText(random, note, index, notes, stats, prose);
    fs.writeFileSync(path.join(dir, note.path), text);
    stats.bytes += Buffer.byteLength(text);
  });
  stats.seconds = Math.round(performance.now() - started) / 1000;
  return stats;
}

function parseArguments(argv) {
  const options = { notes: 10000, seed: 1, prose: 0 };
  let dir = null;
  for (let i = 0; i < argv.length; i++) {
    const argument = argv[i];
    if (argument === "--notes" || argument === "--seed" || argument === "--prose") {
      const value = argv[++i];
      if (value === undefined || !/^-?\d+$/.test(value)) throw new Error(`${argument} needs an integer`);
      options[argument.slice(2)] = Number(value);
    } else if (argument.startsWith("--")) {
      throw new Error(`unknown option ${argument}`);
    } else if (dir === null) {
      dir = argument;
    } else {
      throw new Error(`unexpected argument ${argument}`);
    }
  }
  if (dir === null) throw new Error("missing DIR");
  return { dir, options };
}

const runAsScript = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
// `node --test test/` runs every script under test/, this one included: there it has nothing to do.
if (runAsScript && !process.env.NODE_TEST_CONTEXT) {
  try {
    const { dir, options } = parseArguments(process.argv.slice(2));
    const stats = generateVault(dir, options);
    console.log(
      `generated ${stats.notes} notes in ${stats.folders} folders under ${dir}: ${stats.links} links ` +
        `(${stats.hubLinks} to Hub, ${stats.unresolved} unresolved), ${(stats.bytes / 1e6).toFixed(1)} MB, ${stats.seconds} s`,
    );
  } catch (error) {
    console.error(`gen-vault: ${error.message}`);
    console.error("usage: node test/gen-vault.mjs DIR [--notes 10000] [--seed 1] [--prose 0]");
    process.exit(2);
  }
}
