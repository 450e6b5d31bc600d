// Settings: merged over defaults with unknown keys kept, a missing or invalid token generated and saved, and the
// settings tab (live status, port, token copy/regenerate, read-only) driving the real server in this process; its
// "Connect an AI client" section names the vault's folder, quoted for a terminal and for JSON.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { connect, openEventStream, resultText } from "./lib/client.mjs";
import { freePort, startHost, tempDir } from "./lib/harness.mjs";
import { dataJsonPath, loadPlugin, obsidian, writeSettings } from "./lib/load-plugin.mjs";

const readData = (vaultDir) => JSON.parse(fs.readFileSync(dataJsonPath(vaultDir), "utf8"));

/** The settings tab's rows by name, after display(). */
function rows(tab) {
  const byName = new Map();
  for (const element of tab.containerEl.descendants()) {
    if (element.setting) byName.set(element.setting.nameEl.textContent, element.setting);
  }
  return byName;
}

function statusText(tab) {
  return tab.containerEl.descendants().find((element) => element.hasClass("obsmcp-status")).textContent;
}

test("a missing or invalid token is generated and saved; other values and unknown keys are kept", async () => {
  const vault = tempDir();
  const port = await freePort();
  writeSettings(vault.dir, { port, token: "short", readOnly: true, futureKey: { kept: [1, 2] } });
  const noticesBefore = obsidian.shownNotices.length;
  const { plugin } = await loadPlugin({ vaultDir: vault.dir });
  try {
    assert.equal(obsidian.shownNotices.length, noticesBefore, "a successful start shows no Notice");
    const data = readData(vault.dir);
    assert.match(data.token, /^[0-9a-f]{64}$/);
    assert.equal(data.port, port);
    assert.equal(data.readOnly, true);
    assert.deepEqual(data.futureKey, { kept: [1, 2] });
    assert.equal(plugin.status.state, "listening");
    assert.equal(plugin.status.readOnly, true);
  } finally {
    plugin.unload();
    vault.remove();
  }
});

test("without data.json the defaults apply: port 22400, a fresh token, read-only off", async () => {
  const vault = tempDir();
  const { plugin } = await loadPlugin({ vaultDir: vault.dir });
  try {
    const data = readData(vault.dir);
    assert.equal(data.port, 22400);
    assert.equal(data.readOnly, false);
    assert.match(data.token, /^[0-9a-f]{64}$/);
    // Another program on this machine may hold 22400; either way the plugin must have reported it, not crashed.
    assert.ok(["listening", "port-in-use"].includes(plugin.status.state), plugin.status.state);
  } finally {
    plugin.unload();
    vault.remove();
  }
});

test("settings tab: live status, token copy and regenerate, read-only toggle, port change", async () => {
  const vault = tempDir();
  const port = await freePort();
  const token = "b".repeat(64);
  writeSettings(vault.dir, { port, token });
  const { plugin } = await loadPlugin({ vaultDir: vault.dir });
  const tab = plugin.settingTabs[0];
  try {
    tab.display();
    assert.equal(statusText(tab), `Listening on 127.0.0.1:${port} · 0 clients`);

    const client = connect(`http://127.0.0.1:${port}/mcp`, token);
    await client.initialize();
    assert.equal(statusText(tab), `Listening on 127.0.0.1:${port} · 1 client`);

    const settings = rows(tab);
    assert.deepEqual([...settings.keys()], [
      "Status", "Port", "Token", "Read-only", "Hidden paths", "Hide Obsidian's excluded files", "Prompts folder",
      "Connect an AI client", "Set up with one command", "Configure a client by hand",
    ]);

    const copied = [];
    globalThis.navigator = { clipboard: { writeText: async (text) => copied.push(text) } };
    const [copy, regenerate] = settings.get("Token").components;
    await copy.click();
    assert.deepEqual(copied, [token]);

    await regenerate.click();
    const newToken = readData(vault.dir).token;
    assert.match(newToken, /^[0-9a-f]{64}$/);
    assert.notEqual(newToken, token);
    assert.ok(settings.get("Token").descEl.textContent.includes(newToken));
    const refused = await connect(`http://127.0.0.1:${port}/mcp`, token).raw({ body: { jsonrpc: "2.0", id: 1, method: "ping" } });
    assert.equal(refused.status, 401);

    const live = connect(`http://127.0.0.1:${port}/mcp`, newToken);
    await live.initialize();
    const writeNames = (await live.listTools()).filter((tool) => !tool.annotations.readOnlyHint).map((tool) => tool.name);
    assert.ok(writeNames.includes("create_note"));

    const notifications = await openEventStream(`http://127.0.0.1:${port}/mcp`, live.headers({ accept: "text/event-stream", "content-type": null }));
    const [toggle] = settings.get("Read-only").components;
    await toggle.trigger(true);
    await notifications.waitFor((event) => event.data && JSON.parse(event.data).method === "notifications/tools/list_changed", 5000, "tools/list_changed");
    await notifications.close();
    assert.equal(readData(vault.dir).readOnly, true);
    const listed = (await live.listTools()).map((tool) => tool.name);
    for (const name of writeNames) assert.ok(!listed.includes(name), `${name} still listed`);
    const refusal = await live.callTool("create_note", { path: "New.md", content: "x" });
    assert.equal(refusal.isError, true);
    assert.match(resultText(refusal), /read-only/);
    assert.equal(fs.existsSync(`${vault.dir}/New.md`), false);
    assert.match(statusText(tab), /read-only$/);

    await toggle.trigger(false);
    const created = await live.callTool("create_note", { path: "New.md", content: "x" });
    assert.notEqual(created.isError, true, resultText(created));
    assert.equal(fs.existsSync(`${vault.dir}/New.md`), true);

    const newPort = await freePort();
    const [portText, apply] = settings.get("Port").components;
    portText.trigger("80");
    await apply.click();
    assert.equal(plugin.status.port, port, "an invalid port must not be applied");
    portText.trigger(String(newPort));
    await apply.click();
    assert.equal(readData(vault.dir).port, newPort);
    assert.equal(statusText(tab), `Listening on 127.0.0.1:${newPort} · 0 clients`);
    const moved = connect(`http://127.0.0.1:${newPort}/mcp`, newToken);
    await moved.initialize();
    await assert.rejects(fetch(`http://127.0.0.1:${port}/mcp`));
    await moved.close();

    tab.hide();
    assert.equal(tab.containerEl.children.length, 0);
  } finally {
    delete globalThis.navigator;
    plugin.unload();
    vault.remove();
  }
});

test("settings tab: hidden paths apply to the next call, count their rules, and take Obsidian's excluded files on request", async () => {
  const vault = tempDir();
  const port = await freePort();
  const token = "c".repeat(64);
  writeSettings(vault.dir, { port, token });
  fs.mkdirSync(`${vault.dir}/Therapy`);
  fs.writeFileSync(`${vault.dir}/Therapy/Session.md`, "private\n");
  fs.mkdirSync(`${vault.dir}/Archive`);
  fs.writeFileSync(`${vault.dir}/Archive/Old.md`, "old\n");
  fs.writeFileSync(`${vault.dir}/Open.md`, "open\n");
  fs.mkdirSync(`${vault.dir}/.obsidian`, { recursive: true });
  fs.writeFileSync(`${vault.dir}/.obsidian/app.json`, JSON.stringify({ userIgnoreFilters: ["Archive/"] }));
  const { plugin } = await loadPlugin({ vaultDir: vault.dir });
  const tab = plugin.settingTabs[0];
  try {
    tab.display();
    const client = connect(`http://127.0.0.1:${port}/mcp`, token);
    await client.initialize();
    const listed = async () => JSON.parse(resultText(await client.callTool("list_files", {}))).entries.map((entry) => entry.path);
    assert.deepEqual(await listed(), ["Archive/Old.md", "Open.md", "Therapy/Session.md"]);
    const settings = rows(tab);
    const count = () => settings.get("Hidden paths").descEl.textContent;
    assert.match(count(), /No rules in force/);
    const [area, apply] = settings.get("Hidden paths").components;
    area.trigger("  Therapy  \n\n# a comment\n");
    await apply.click();
    assert.deepEqual(readData(vault.dir).hiddenPaths, ["Therapy", "# a comment"]);
    assert.match(count(), /1 rule in force/);
    assert.deepEqual(await listed(), ["Archive/Old.md", "Open.md"], "the live session meets the new rule at its next call");
    const [excluded] = settings.get("Hide Obsidian's excluded files").components;
    await excluded.trigger(true);
    assert.equal(readData(vault.dir).hideExcludedFiles, true);
    assert.match(count(), /2 rules in force/);
    assert.deepEqual(await listed(), ["Open.md"]);
    await client.close();
  } finally {
    plugin.unload();
    vault.remove();
  }
});

/** The plugin loaded on `vault` with this token, its settings tab displayed and a client's session open. */
async function withTab(vault, token) {
  const port = await freePort();
  writeSettings(vault.dir, { port, token });
  const { plugin } = await loadPlugin({ vaultDir: vault.dir });
  const tab = plugin.settingTabs[0];
  tab.display();
  const client = connect(`http://127.0.0.1:${port}/mcp`, token);
  await client.initialize();
  return { plugin, tab, client };
}

test("settings tab: the prompts folder is saved and serves its notes from the next request; empty turns vault prompts off", async () => {
  const vault = tempDir();
  for (const [folder, name] of [["Prompts", "Default one"], ["My prompts", "Mine"]]) {
    fs.mkdirSync(`${vault.dir}/${folder}`);
    fs.writeFileSync(`${vault.dir}/${folder}/${name}.md`, `from ${folder}\n`);
  }
  const { plugin, tab, client } = await withTab(vault, "e".repeat(64));
  try {
    const names = async () => (await client.request("prompts/list", {})).prompts.map((prompt) => prompt.name);
    const builtins = ["daily-review", "research-topic", "summarize-note"];
    assert.deepEqual(await names(), ["Default-one", ...builtins], "Prompts/ is the default folder");
    const [text, apply] = rows(tab).get("Prompts folder").components;
    text.trigger("  /My prompts/ ");
    await apply.click();
    assert.equal(readData(vault.dir).promptsFolder, "My prompts");
    assert.deepEqual(await names(), ["Mine", ...builtins]);
    text.trigger("");
    await apply.click();
    assert.equal(readData(vault.dir).promptsFolder, "");
    assert.deepEqual(await names(), builtins);
    await client.close();
  } finally {
    plugin.unload();
    vault.remove();
  }
});

/** What a click on the row's Copy button puts on the clipboard. */
async function copiedBy(setting) {
  const copied = [];
  globalThis.navigator = { clipboard: { writeText: async (text) => copied.push(text) } };
  try {
    const [copy] = setting.components;
    await copy.click();
  } finally {
    delete globalThis.navigator;
  }
  assert.equal(copied.length, 1, "one Copy click copies one text");
  return copied[0];
}

/** The words a POSIX shell makes of `command` (an `obsmcp …` line), found by running it with obsmcp replaced by printf. */
function shellWords(command) {
  assert.match(command, /^obsmcp /);
  const printed = execFileSync("sh", ["-c", command.replace(/^obsmcp /, "printf '%s\\0' ")], { encoding: "utf8" });
  return printed.split("\0").slice(0, -1);
}

/** The connect section of the tab of a plugin loaded on a vault in a folder named after `name`, and the vault. */
async function connectSection(name, configDir = ".obsidian") {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), name));
  writeSettings(dir, { port: await freePort(), token: "f".repeat(64) }, configDir);
  const { plugin, app } = await loadPlugin({ vaultDir: dir, configDir });
  const tab = plugin.settingTabs[0];
  tab.display();
  const remove = () => {
    plugin.unload();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return { dir, app, tab, settings: rows(tab), remove };
}

test("settings tab: the setup command names this vault's folder quoted for a shell, and Copy copies exactly it", async () => {
  // A double quote or a $ (special inside double quotes) needs single quotes, inside which a single quote is written
  // '\''; a single quote alone is safe inside double quotes.
  for (const [name, quoted] of [
    [`obsmcp "My" vault `, (dir) => `'${dir}'`],
    ["obsmcp Someone's vault ", (dir) => `"${dir}"`],
    ["obsmcp Someone's $HOME vault ", (dir) => `'${dir.replace("'", "'\\''")}'`],
  ]) {
    const { dir, settings, remove } = await connectSection(name);
    try {
      const setup = settings.get("Set up with one command");
      assert.ok(setup, "the connect section has a setup row");
      const command = await copiedBy(setup);
      assert.equal(command, `obsmcp setup --vault ${quoted(dir)}`);
      assert.deepEqual(shellWords(command), ["setup", "--vault", dir], `a shell splits ${command} into other words`);
      const shown = setup.descEl.textContent;
      for (const line of [command, `npx ${command}`, `uvx ${command}`]) assert.ok(shown.includes(line), `the tab does not show ${line}: ${shown}`);
    } finally {
      remove();
    }
  }
});

test("settings tab: the client entry runs the bridge on this vault's folder, holds no token, and Copy copies exactly it", async () => {
  const { dir, settings, remove } = await connectSection(`obsmcp "My" vault's copy `);
  try {
    const byHand = settings.get("Configure a client by hand");
    assert.ok(byHand, "the connect section has a row for configuring a client by hand");
    const entry = await copiedBy(byHand);
    assert.deepEqual(JSON.parse(entry), { mcpServers: { obsidian: { command: "obsmcp", args: ["bridge", "--vault", dir] } } });
    assert.ok(byHand.descEl.textContent.includes(entry), "the tab shows the entry it copies");
    assert.ok(!entry.includes("f".repeat(64)), "the entry must not hold the token");
    assert.match(byHand.descEl.textContent, /The token is never in it: the bridge reads it from this vault/);
  } finally {
    remove();
  }
});

test("settings tab: a vault with another config folder gets --config-dir in the command and the entry", async () => {
  const { dir, settings, remove } = await connectSection("obsmcp-config-", ".obsidian-work");
  try {
    const command = await copiedBy(settings.get("Set up with one command"));
    assert.equal(command, `obsmcp setup --vault "${dir}" --config-dir ".obsidian-work"`);
    const entry = JSON.parse(await copiedBy(settings.get("Configure a client by hand")));
    assert.deepEqual(entry.mcpServers.obsidian.args, ["bridge", "--vault", dir, "--config-dir", ".obsidian-work"]);
  } finally {
    remove();
  }
});

test("settings tab: Windows folders are double-quoted, or single-quoted where PowerShell would expand $; no folder, no command", async () => {
  const { app, tab, remove } = await connectSection("obsmcp-windows-");
  try {
    for (const [folder, quoted] of [
      ["C:\\Users\\me\\My Vault", '"C:\\Users\\me\\My Vault"'],
      ["C:\\Users\\me\\$Money's vault", "'C:\\Users\\me\\$Money''s vault'"],
      ["\\\\server\\share\\Notes", '"\\\\server\\share\\Notes"'],
    ]) {
      app.vault.adapter = new obsidian.FileSystemAdapter(folder);
      tab.display();
      assert.equal(await copiedBy(rows(tab).get("Set up with one command")), `obsmcp setup --vault ${quoted}`);
      const entry = JSON.parse(await copiedBy(rows(tab).get("Configure a client by hand")));
      assert.deepEqual(entry.mcpServers.obsidian.args, ["bridge", "--vault", folder]);
    }
    // Not a FileSystemAdapter: a vault that is not a folder on this computer (Obsidian's mobile adapter, say).
    app.vault.adapter = { getName: () => "remote" };
    tab.display();
    const settings = rows(tab);
    assert.ok(!settings.has("Set up with one command") && !settings.has("Configure a client by hand"), "no command without a folder");
    assert.match(settings.get("No folder to connect").descEl.textContent, /not on a local file system/);
  } finally {
    remove();
  }
});

test("data.json changed outside Obsidian (setup, sync) is applied", async () => {
  const vault = tempDir();
  const port = await freePort();
  writeSettings(vault.dir, { port, token: "c".repeat(64) });
  const { plugin } = await loadPlugin({ vaultDir: vault.dir });
  try {
    fs.mkdirSync(`${vault.dir}/Therapy`);
    fs.writeFileSync(`${vault.dir}/Therapy/Session.md`, "private\n");
    // What `obsmcp setup --hide Therapy` writes while Obsidian is open.
    writeSettings(vault.dir, { token: "d".repeat(64), readOnly: true, hiddenPaths: ["Therapy"] });
    await plugin.onExternalSettingsChange();
    const old = await connect(`http://127.0.0.1:${port}/mcp`, "c".repeat(64)).raw({ body: { jsonrpc: "2.0", id: 1, method: "ping" } });
    assert.equal(old.status, 401);
    const client = connect(`http://127.0.0.1:${port}/mcp`, "d".repeat(64));
    await client.initialize();
    assert.ok((await client.listTools()).every((tool) => tool.annotations.readOnlyHint));
    const listed = JSON.parse(resultText(await client.callTool("list_files", {}))).entries.map((entry) => entry.path);
    assert.ok(!listed.includes("Therapy/Session.md"), "the hidden-path rule from outside applies at once");
  } finally {
    plugin.unload();
    vault.remove();
  }
});

test("host --read-only: write tools hidden and refused, nothing written, reads work", async () => {
  const vault = tempDir();
  fs.writeFileSync(`${vault.dir}/Keep.md`, "keep\n");
  const host = await startHost({ vaultDir: vault.dir, readOnly: true });
  try {
    const client = connect(host.url, host.token);
    await client.initialize();
    const tools = await client.listTools();
    assert.ok(tools.length > 0);
    assert.ok(tools.every((tool) => tool.annotations.readOnlyHint === true));
    for (const [name, args] of [
      ["create_note", { path: "X.md", content: "x" }],
      ["append", { path: "Keep.md", content: "more" }],
      ["delete_note", { path: "Keep.md" }],
    ]) {
      const result = await client.callTool(name, args);
      assert.equal(result.isError, true, name);
      assert.match(resultText(result), /read-only/, name);
    }
    assert.equal(fs.readFileSync(`${vault.dir}/Keep.md`, "utf8"), "keep\n");
    assert.equal(fs.existsSync(`${vault.dir}/X.md`), false);
    assert.match(resultText(await client.callTool("read_note", { path: "Keep.md" })), /keep/);
  } finally {
    await host.stop();
    vault.remove();
  }
});
