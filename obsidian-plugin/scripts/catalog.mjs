// Writes catalog.json, the tool catalog the Rust bridge embeds: `{ pluginVersion, tools }`, where `tools` is the
// plugin's live `tools/list` answer (read-only off). The catalog is read from the plugin rather than derived from its
// sources, so it cannot drift from what the plugin serves: the freshly built main.js is loaded in this process on the
// fake `obsidian` module over an empty temporary vault, and its tools are listed over its own HTTP endpoint.
//
// Build input: test/fake-obsidian/ is part of the build, not only of the tests. main.js cannot run under Node without
// an `obsidian` module, and the fake is the project's one stand-in for it; a change there that alters what the plugin
// lists changes the shipped catalog, and the build output diff (.ci/run) shows it. Nothing else under test/ is used,
// so the schema the binary ships never depends on test helpers; ./bundle.mjs loads the bundle.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { evaluateBundle, freePort, obsidian, pluginDir, readManifest } from "./bundle.mjs";

// Bounds every request, so that a plugin that stops answering fails the build instead of hanging it.
const REQUEST_TIMEOUT_MS = 30000;

/** Regenerates `file` from the built main.js: two-space JSON with a final newline, as committed. */
export async function writeCatalog(file) {
  fs.writeFileSync(file, `${JSON.stringify(await liveCatalog(), null, 2)}\n`);
}

/** Hosts main.js in-process on a throw-away vault and returns the catalog object. */
async function liveCatalog() {
  const manifest = JSON.parse(fs.readFileSync(path.join(pluginDir, "manifest.json"), "utf8"));
  const configDir = ".obsidian";
  const vaultDir = fs.mkdtempSync(path.join(os.tmpdir(), "obsmcp-catalog-"));
  let plugin;
  try {
    const port = await freePort();
    const token = randomBytes(32).toString("hex");
    const pluginFolder = path.join(vaultDir, configDir, "plugins", manifest.id);
    fs.mkdirSync(pluginFolder, { recursive: true });
    fs.writeFileSync(path.join(pluginFolder, "data.json"), JSON.stringify({ port, token, readOnly: false }, null, 2));

    const PluginClass = evaluateBundle();
    const app = obsidian.createApp({ vaultDir, configDir });
    plugin = new PluginClass(app, readManifest(configDir));
    await plugin.load();
    if (plugin.status.state !== "listening") throw new Error(`plugin did not start: ${plugin.status.lastError}`);

    const tools = await listTools(`http://127.0.0.1:${port}/mcp`, token);
    return { pluginVersion: manifest.version, tools };
  } finally {
    plugin?.unload();
    fs.rmSync(vaultDir, { recursive: true, force: true });
  }
}

/** Every page of `tools/list`, in one session opened and closed around it. */
async function listTools(url, token) {
  const session = { id: undefined, protocolVersion: undefined };
  const send = (method, extra = {}) => {
    const headers = { authorization: `Bearer ${token}`, ...extra };
    if (session.id) headers["mcp-session-id"] = session.id;
    if (session.protocolVersion) headers["mcp-protocol-version"] = session.protocolVersion;
    return { method, headers, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) };
  };
  const post = async (body) => {
    const init = send("POST", { "content-type": "application/json", accept: "application/json, text/event-stream" });
    const response = await fetch(url, { ...init, body: JSON.stringify(body) });
    return { response, text: await response.text() };
  };
  let nextId = 1;
  const request = async (method, params) => {
    const id = nextId++;
    const { response, text } = await post({ jsonrpc: "2.0", id, method, params });
    if (response.status !== 200) throw new Error(`${method}: HTTP ${response.status}: ${text}`);
    const answer = messages(response, text).find((message) => message.id === id);
    if (!answer || answer.error) throw new Error(`${method} failed: ${text.slice(0, 500)}`);
    return { response, result: answer.result };
  };

  const { response, result } = await request("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "obsmcp-catalog", version: "0" },
  });
  session.id = response.headers.get("mcp-session-id") ?? undefined;
  session.protocolVersion = result.protocolVersion;
  const initialized = await post({ jsonrpc: "2.0", method: "notifications/initialized" });
  if (initialized.response.status !== 202) {
    throw new Error(`notifications/initialized: HTTP ${initialized.response.status}: ${initialized.text}`);
  }

  const tools = [];
  let cursor;
  do {
    const { result: page } = await request("tools/list", cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);

  if (session.id) await (await fetch(url, send("DELETE"))).arrayBuffer();
  return tools;
}

/** The JSON-RPC messages of an answer, sent as JSON or as server-sent events. */
function messages(response, text) {
  if ((response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    const data = (event) =>
      event
        .split(/\r?\n/)
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).replace(/^ /, ""))
        .join("\n");
    return text.split(/\r?\n\r?\n/).map(data).filter(Boolean).map((each) => JSON.parse(each));
  }
  if (!text) return [];
  const parsed = JSON.parse(text);
  return Array.isArray(parsed) ? parsed : [parsed];
}
