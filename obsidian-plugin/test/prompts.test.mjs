// Prompts through the real main.js (src/prompts/): the vault's prompts folder (names, frontmatter arguments,
// {{argument}} and ![[embeds]] in one pass, hidden notes and name clashes), the built-in prompts a vault note can
// never replace, prompt argument completion, and the folder setting. Runs in both protocol eras (npm test).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { RpcError } from "./lib/client.mjs";
import { writeSettings } from "./lib/load-plugin.mjs";
import { makeVault, openSession } from "./tools-lib.mjs";

async function rpcError(promise) {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RpcError) return { code: error.code, data: error.data, message: error.message.replace(/^JSON-RPC error -?\d+: /, "") };
    throw error;
  }
  assert.fail("the request should have failed");
}

const textOf = (result) => {
  assert.equal(result.messages.length, 1);
  assert.equal(result.messages[0].role, "user");
  assert.equal(result.messages[0].content.type, "text");
  return result.messages[0].content.text;
};

function writeAll(dir, files) {
  for (const [file, text] of Object.entries(files)) {
    const full = path.join(dir, ...file.split("/"));
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, text);
  }
}

describe("vault prompts", () => {
  let vault;
  let session;
  let client;
  before(async () => {
    vault = makeVault();
    writeAll(vault.dir, {
      "Prompts/Weekly plan.md": [
        "---",
        "description: Plan the week",
        "arguments:",
        "  - name: focus",
        "    description: What the week is about",
        "    required: true",
        "  - mood",
        "  - name: bad name",
        "---",
        "",
        "Plan the week around {{focus}} ({{ mood }}). Unknown {{other}} stays, {{focus}} twice.",
        "![[Hub#Section two]]",
        "![[Missing note]] and ![[Private/Hid]]",
        "",
      ].join("\n"),
      "Prompts/summarize-note.md": "---\narguments: [path]\n---\nMy own summary of {{path}}.\n",
      "Prompts/Sub/Deep one.md": "deep\n",
      "Prompts/A/Dup.md": "the first Dup\n",
      "Prompts/Dup.md": "the second Dup\n",
      "Prompts/Private/Hid.md": "hidden prompt\n",
      "Prompts/picture.png": "not a note",
      "Prompts/Inject.md": "---\narguments: [x]\n---\nvalue: {{x}}\n",
    });
    writeSettings(vault.dir, { hiddenPaths: ["Prompts/Private"] });
    session = await openSession(vault.dir);
    client = session.client;
  });
  after(async () => {
    await session?.close();
    vault?.remove();
  });

  it("prompts/list names every visible note of the folder and the built-ins, sorted; a note named like a built-in is listed beside it, marked", async () => {
    const { prompts } = await client.request("prompts/list", {});
    assert.deepEqual(
      prompts.map((prompt) => prompt.name),
      ["Deep-one", "Dup", "Inject", "Weekly-plan", "daily-review", "research-topic", "summarize-note", "vault-summarize-note"],
    );
    const weekly = prompts.find((prompt) => prompt.name === "Weekly-plan");
    assert.deepEqual(weekly, {
      name: "Weekly-plan",
      title: "Weekly plan (vault)",
      description: "Plan the week",
      arguments: [
        { name: "focus", description: "What the week is about", required: true },
        { name: "mood", required: false },
      ],
    });
    const builtin = prompts.find((prompt) => prompt.name === "summarize-note");
    assert.equal(builtin.title, "Summarize a note", "the built-in keeps its name and place");
    const own = prompts.find((prompt) => prompt.name === "vault-summarize-note");
    assert.equal(own.title, "summarize-note (vault)");
    assert.equal(own.description, "Prompt from the vault note Prompts/summarize-note.md");
    assert.deepEqual(own.arguments, [{ name: "path", required: false }]);
  });

  it("prompts/get fills {{arguments}} and inlines embeds as read_note gives them, in one pass", async () => {
    const result = await client.request("prompts/get", { name: "Weekly-plan", arguments: { focus: "the ![[Hub]] launch", mood: "calm" } });
    assert.equal(result.description, "Plan the week");
    const section = await session.text("read_note", { path: "Hub#Section two" });
    assert.equal(
      textOf(result),
      `Plan the week around the ![[Hub]] launch (calm). Unknown {{other}} stays, the ![[Hub]] launch twice.\n${section}\n![[Missing note]] and ![[Private/Hid]]`,
    );
    const optional = await client.request("prompts/get", { name: "Weekly-plan", arguments: { focus: "x" } });
    assert.match(textOf(optional), /^Plan the week around x \(\)\./);
    const injected = await client.request("prompts/get", { name: "Inject", arguments: { x: "{{x}} ![[Hub]]" } });
    assert.equal(textOf(injected), "value: {{x}} ![[Hub]]", "what an argument brings in is never scanned again");
  });

  it("prompts/get refuses a missing required argument and a prompt it does not have, hidden ones included", async () => {
    const missing = await rpcError(client.request("prompts/get", { name: "Weekly-plan", arguments: {} }));
    assert.equal(missing.code, -32602);
    assert.equal(missing.message, "prompt Weekly-plan needs the argument focus");
    for (const name of ["Hid", "nope", "picture"]) {
      const error = await rpcError(client.request("prompts/get", { name }));
      assert.equal(error.code, -32602, name);
      assert.equal(error.message, `Prompt ${name} not found`);
    }
    const first = await client.request("prompts/get", { name: "Dup" });
    assert.equal(textOf(first), "the first Dup", "the first note in path order wins a name");
    const own = await client.request("prompts/get", { name: "vault-summarize-note", arguments: { path: "Hub" } });
    assert.equal(textOf(own), "My own summary of Hub.");
    const builtin = await client.request("prompts/get", { name: "summarize-note", arguments: { path: "Hub" } });
    assert.notEqual(textOf(builtin), "My own summary of Hub.", "a vault note never answers for the built-in");
  });

  it("built-in prompts are built from the read tools' own answers", async () => {
    const research = await client.request("prompts/get", { name: "research-topic", arguments: { topic: "beta" } });
    assert.match(textOf(research), /^Find out what my Obsidian vault says about "beta"\. Use the obsmcp tools/);
    const review = await client.request("prompts/get", { name: "daily-review", arguments: { date: "2024-01-05" } });
    const daily = await session.call("daily_note", { date: "2024-01-05" });
    const tasks = await session.text("search", { query: "- [ ]", mode: "phrase", limit: 50, max_per_file: 20 });
    assert.equal(
      textOf(review),
      "Review my day with me from my Obsidian vault: what got done, what is still open, and what to carry over to " +
        `tomorrow. My daily note and my open tasks follow.\n\nDaily note (2024-01-05):\n${daily.text}\n\n` +
        `Open tasks across the vault (lines with "- [ ]", the first 50):\n${tasks}`,
    );
  });

  it("completion/complete completes a prompt's path argument from the vault and refuses what the prompt lacks", async () => {
    const complete = (name, argument, value) =>
      client.request("completion/complete", { ref: { type: "ref/prompt", name }, argument: { name: argument, value } });
    const paths = await complete("summarize-note", "path", "gamma");
    assert.deepEqual(paths.completion.values.slice(0, 1), ["Notes/Sub/Gamma note.md"]);
    assert.deepEqual((await complete("Weekly-plan", "focus", "a")).completion, { values: [], total: 0, hasMore: false });
    const undeclared = await rpcError(complete("Weekly-plan", "path", ""));
    assert.equal(undeclared.message, "prompt Weekly-plan has no argument path");
    const unknown = await rpcError(complete("nope", "path", ""));
    assert.equal(unknown.message, "Prompt nope not found");
  });
});

describe("built-in prompts without a prompts folder", () => {
  let vault;
  let session;
  before(async () => {
    vault = makeVault();
    writeSettings(vault.dir, { promptsFolder: "" });
    writeAll(vault.dir, { "Prompts/Ignored.md": "not served: the folder setting is empty\n" });
    session = await openSession(vault.dir);
  });
  after(async () => {
    await session?.close();
    vault?.remove();
  });

  it("lists only the built-ins, and summarize-note carries the note and its backlinks", async () => {
    const { prompts } = await session.client.request("prompts/list", {});
    assert.deepEqual(
      prompts.map((prompt) => prompt.name),
      ["daily-review", "research-topic", "summarize-note"],
    );
    assert.deepEqual(prompts[2].arguments, [{ name: "path", description: "The note: a vault path, a name or a [[link]].", required: true }]);
    const result = await session.client.request("prompts/get", { name: "summarize-note", arguments: { path: "[[Hub]]" } });
    const note = await session.text("read_note", { path: "[[Hub]]" });
    const backlinks = await session.text("backlinks", { path: "[[Hub]]", limit: 20, max_lines_per_note: 1 });
    assert.equal(
      textOf(result),
      "Summarize this note from my Obsidian vault: its main points, decisions and open questions. Then say how it " +
        `connects to the notes that link to it, listed after it.\n\n${note}\n\nNotes that link to it (backlinks):\n${backlinks}`,
    );
    const missing = await rpcError(session.client.request("prompts/get", { name: "summarize-note", arguments: { path: "Nope" } }));
    assert.equal(missing.code, -32602);
    assert.match(missing.message, /note not found: "Nope"/);
  });
});
