// Helpers for the tool tests (test/tools-*.test.mjs): a small vault written at test time whose every byte the tests
// know, and a session against the real main.js hosted on it. Not a test file itself (npm test runs test/*.test.mjs).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after } from "node:test";
import { connect, connectModern, MODERN, resultText } from "./lib/client.mjs";
import { startHost, tempDir } from "./lib/harness.mjs";

/** The notes of the crafted vault, by vault path. */
export const NOTES = {
  "Hub.md": [
    "---",
    "tags: [hub, project/alpha]",
    "aliases: [Center]",
    "status: active",
    "---",
    "# Hub",
    "",
    "Start here. See [[Notes/Alpha]] and [[Beta|the beta]] and [[Missing note]].",
    "",
    "## Section two",
    "Some text in section two ^blk1",
    "",
    "- item one ^li1",
    "- item two",
    "",
    "### Deeper",
    "deep line",
    "",
    "## Section three",
    "last words",
    "",
  ].join("\n"),
  "Notes/Alpha.md": [
    "# Alpha",
    "",
    "Back to [[Hub]] and #project/alpha here.",
    "Also [[Hub#Section two]] and an embed ![[Hub]].",
    "Needle line one",
    "needle line two",
    "",
  ].join("\n"),
  "Notes/Beta.md": "Beta links [[Alpha]] and [[Missing note]] and [[Another missing]].\n#todo\n",
  "Notes/Sub/Gamma note.md": "Gamma points at [[Hub|the hub]].\n#project/beta #TODO\n",
  "Día/Ñandú.md": "Un café con leche, sin enlaces.\nNEEDLE in capitals\n",
  "CRLF.md": "# Windows\r\n\r\nfirst line\r\nsecond line\r\n",
  "Code.md": "# Real heading\n\n```md\n# not a heading\n```\n\n## After code\ntext\n",
  "Templates/Daily.md": "# {{title}}\n\n## Log\n",
  "Journal/2024/01/2024-01-05.md": "# 2024-01-05\n\nA day.\n",
};

/** Files written into the config folder of the crafted vault. */
export const CONFIG_FILES = {
  "app.json": "{}\n",
  "daily-notes.json": JSON.stringify({ format: "YYYY/MM/YYYY-MM-DD", folder: "Journal", template: "Templates/Daily" }),
};

/** SHA-256 hex of a string's UTF-8 bytes, as the tools report it. */
export function sha256(text) {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * Writes the crafted vault into a fresh temp folder; returns `{ dir, remove }`. `fixture` names a folder of
 * test/fixtures copied over it (a tool's own notes and settings files), `files` more files by vault path.
 */
export function makeVault({ configDir = ".obsidian", fixture, files = {} } = {}) {
  const temp = tempDir("obsmcp-tools-");
  writeFiles(temp.dir, NOTES);
  fs.mkdirSync(path.join(temp.dir, configDir), { recursive: true });
  for (const [file, text] of Object.entries(CONFIG_FILES)) fs.writeFileSync(path.join(temp.dir, configDir, file), text);
  if (fixture !== undefined) fs.cpSync(path.join(FIXTURES, fixture), temp.dir, { recursive: true });
  writeFiles(temp.dir, files);
  return temp;
}

/** The test fixtures folder. */
const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures");

/** Writes `files` (text by vault path) into the vault folder `dir`, creating folders. */
function writeFiles(dir, files) {
  for (const [file, text] of Object.entries(files)) {
    const full = path.join(dir, ...file.split("/"));
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, text);
  }
}

/** Reads a vault file from disk (to check what a write really did). */
export function readDisk(dir, file) {
  return fs.readFileSync(path.join(dir, ...file.split("/")), "utf8");
}

/**
 * The protocol era the tool tests speak: 2025-11-25 sessions, or 2026-07-28 stateless requests when
 * OBSMCP_TEST_ERA=2026-07-28 (`npm test` runs the tool tests once in each era).
 */
export const ERA = process.env.OBSMCP_TEST_ERA ?? "2025-11-25";

/**
 * Starts the host on `dir`, opens an MCP session (in the era ERA names) and returns a small client: `call` gives `{ text, isError }`,
 * `ok` parses a JSON result and fails the test on an error result, `fails` expects an error result and returns its
 * text. `close()` ends the session and stops the host; call it in a finally or an `after` hook.
 */
export async function openSession(dir, { readOnly = false, configDir, env } = {}) {
  const saved = {};
  for (const [key, value] of Object.entries(env ?? {})) {
    saved[key] = process.env[key];
    process.env[key] = value;
  }
  let host;
  try {
    host = await startHost({ vaultDir: dir, readOnly, configDir });
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
  const client = ERA === MODERN ? connectModern(host.url, host.token) : connect(host.url, host.token);
  try {
    await client.initialize();
  } catch (error) {
    await host.stop();
    throw error;
  }
  const call = async (name, args = {}) => {
    const result = await client.callTool(name, args);
    return { text: resultText(result), isError: result.isError === true };
  };
  return {
    host,
    client,
    call,
    /** Text of a successful call (fails the test on an error result). */
    async text(name, args) {
      const result = await call(name, args);
      assert.equal(result.isError, false, `${name} ${JSON.stringify(args)} failed: ${result.text}`);
      return result.text;
    },
    /** Parsed JSON of a successful call. */
    async ok(name, args) {
      const result = await call(name, args);
      assert.equal(result.isError, false, `${name} ${JSON.stringify(args)} failed: ${result.text}`);
      return JSON.parse(result.text);
    },
    /** Error text of a call that must fail. */
    async fails(name, args, pattern) {
      const result = await call(name, args);
      assert.equal(result.isError, true, `${name} ${JSON.stringify(args)} should have failed but gave: ${result.text.slice(0, 300)}`);
      if (pattern) assert.match(result.text, pattern);
      return result.text;
    },
    async close() {
      try {
        await client.close();
      } finally {
        await host.stop();
      }
    },
  };
}

/**
 * The crafted vault and a session on it for the rest of a test file (await it at the top of the file), closed and
 * removed after the file's last test: for files whose tests only read, so that one vault serves them all.
 * `fixture` and `files` are `makeVault`'s; `prepare(dir)` may change the vault before the host starts; the other options
 * are `openSession`'s.
 */
export async function sessionForFile({ prepare, fixture, files, ...sessionOptions } = {}) {
  const vault = makeVault({ configDir: sessionOptions.configDir, fixture, files });
  let session;
  try {
    prepare?.(vault.dir);
    session = await openSession(vault.dir, sessionOptions);
  } catch (error) {
    vault.remove();
    throw error;
  }
  after(async () => {
    try {
      await session.close();
    } finally {
      vault.remove();
    }
  });
  return { vault, session };
}

/** Splits a read_note result into its header fields and content. */
export function parseRead(text) {
  const newline = text.indexOf("\n");
  const header = newline < 0 ? text : text.slice(0, newline);
  const content = newline < 0 ? "" : text.slice(newline + 1);
  const lines = /^\[lines (\d+)-(\d+) of (\d+)\]/.exec(header);
  assert.ok(lines, `no [lines a-b of N] header in ${JSON.stringify(header)}`);
  const pathMatch = / path=("(?:[^"\\]|\\.)*")/.exec(header);
  const hash = / sha256=([0-9a-f]{64})/.exec(header);
  const next = / continue_with=(\{.*\})$/.exec(header);
  return {
    header,
    content,
    from: Number(lines[1]),
    to: Number(lines[2]),
    total: Number(lines[3]),
    path: pathMatch ? JSON.parse(pathMatch[1]) : undefined,
    sha256: hash?.[1],
    truncated: / truncated=true/.test(header),
    continueWith: next ? JSON.parse(next[1]) : undefined,
  };
}
