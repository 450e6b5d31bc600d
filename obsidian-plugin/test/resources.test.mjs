// Resources through the real main.js (src/resources/): every visible file listed in path order a page at a time,
// the file template, reads of notes (as read_note renders them) and of attachments (blobs, with the size cap), the
// path completion, and the index following Obsidian's events. Runs in both protocol eras (npm test).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { RpcError } from "./lib/client.mjs";
import { writeSettings } from "./lib/load-plugin.mjs";
import { makeVault, NOTES, openSession } from "./tools-lib.mjs";

const PREFIX = "obsidian://vault/";
const TEMPLATE = `${PREFIX}{+path}`;
/** A 1×1 PNG: any bytes would do, these are a real image. */
const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000" + "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082", "hex");

/** Every page of resources/list, and how many pages it took. */
async function listAll(client) {
  const resources = [];
  let cursor;
  let pages = 0;
  do {
    const page = await client.request("resources/list", cursor ? { cursor } : {});
    resources.push(...page.resources);
    cursor = page.nextCursor;
    pages += 1;
  } while (cursor);
  return { resources, pages };
}

async function rpcError(promise) {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RpcError) return error;
    throw error;
  }
  assert.fail("the request should have failed");
}

function complete(client, value, { uri = TEMPLATE, name = "path" } = {}) {
  return client.request("completion/complete", { ref: { type: "ref/resource", uri }, argument: { name, value } });
}

describe("resources", () => {
  let vault;
  let session;
  let client;
  const write = (file, data) => {
    const full = path.join(vault.dir, ...file.split("/"));
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, data);
  };
  before(async () => {
    vault = makeVault();
    write("Attachments/pixel.png", PNG);
    write("Attachments/Big scan.pdf", Buffer.alloc(10 * 1024 * 1024 + 1, 1));
    write("Attachments/data.bin", Buffer.from([0, 1, 2, 255]));
    write("Board.canvas", '{"nodes":[],"edges":[]}\n');
    write("Private/Secret.md", "SECRET\n");
    write("100% sure #1.md", "percent and hash\n");
    for (let i = 0; i < 520; i += 1) write(`Bulk/n${String(i).padStart(4, "0")}.md`, `bulk ${i}\n`);
    writeSettings(vault.dir, { hiddenPaths: ["Private"] });
    session = await openSession(vault.dir);
    client = session.client;
  });
  after(async () => {
    await session?.close();
    vault?.remove();
  });

  const visiblePaths = () =>
    [...Object.keys(NOTES), "Attachments/pixel.png", "Attachments/Big scan.pdf", "Attachments/data.bin", "Board.canvas", "100% sure #1.md"]
      .concat(Array.from({ length: 520 }, (_, i) => `Bulk/n${String(i).padStart(4, "0")}.md`))
      .sort();

  it("resources/list pages through every visible file in path order, hidden ones and the config folder left out", async () => {
    const { resources, pages } = await listAll(client);
    assert.equal(pages, 2, "536 files are two pages of 500");
    assert.deepEqual(resources.map((resource) => resource.name), visiblePaths());
    const hub = resources.find((resource) => resource.name === "Hub.md");
    assert.deepEqual(Object.keys(hub), ["uri", "name", "title", "mimeType", "size", "annotations"]);
    assert.equal(hub.uri, `${PREFIX}Hub.md`);
    assert.equal(hub.title, "Hub");
    assert.equal(hub.mimeType, "text/markdown");
    assert.equal(hub.size, Buffer.byteLength(NOTES["Hub.md"]));
    assert.match(hub.annotations.lastModified, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const byName = Object.fromEntries(resources.map((resource) => [resource.name, resource]));
    assert.equal(byName["Día/Ñandú.md"].uri, `${PREFIX}D%C3%ADa/%C3%91and%C3%BA.md`);
    assert.equal(byName["Notes/Sub/Gamma note.md"].uri, `${PREFIX}Notes/Sub/Gamma%20note.md`);
    assert.equal(byName["100% sure #1.md"].uri, `${PREFIX}100%25%20sure%20%231.md`);
    assert.equal(byName["Attachments/pixel.png"].mimeType, "image/png");
    assert.equal(byName["Attachments/pixel.png"].title, "pixel.png");
    assert.equal(byName["Attachments/data.bin"].mimeType, "application/octet-stream");
    assert.equal(byName["Board.canvas"].mimeType, "application/json");
  });

  it("a cursor is the last path of a page: the next page starts after it even when that file is gone", async () => {
    const first = await client.request("resources/list", {});
    assert.equal(first.resources.length, 500);
    assert.equal(first.nextCursor, first.resources[499].name);
    const after_ = await client.request("resources/list", { cursor: "Bulk/n0100.md~" });
    assert.equal(after_.resources[0].name, "Bulk/n0101.md");
  });

  it("resources/templates/list offers the file template", async () => {
    const { resourceTemplates } = await client.request("resources/templates/list", {});
    assert.equal(resourceTemplates.length, 1);
    assert.equal(resourceTemplates[0].uriTemplate, TEMPLATE);
    assert.equal(resourceTemplates[0].name, "vault-file");
  });

  it("resources/read gives a note as read_note renders it, and a URI a client expanded itself finds the same file", async () => {
    const readNote = await session.text("read_note", { path: "Notes/Sub/Gamma note.md" });
    for (const uri of [`${PREFIX}Notes/Sub/Gamma%20note.md`, `${PREFIX}Notes/Sub/Gamma note.md`, `${PREFIX}Notes/Sub/Gamma%20note%2emd`]) {
      const { contents } = await client.request("resources/read", { uri });
      assert.deepEqual(contents, [{ uri, mimeType: "text/markdown", text: readNote }]);
    }
    const accented = await client.request("resources/read", { uri: `${PREFIX}D%c3%ada/%C3%91and%C3%BA.md` });
    assert.equal(accented.contents[0].text, await session.text("read_note", { path: "Día/Ñandú.md" }));
    const canvas = await client.request("resources/read", { uri: `${PREFIX}Board.canvas` });
    assert.equal(canvas.contents[0].mimeType, "application/json");
    assert.match(canvas.contents[0].text, /^\[lines 1-1 of 1\] path="Board.canvas" sha256=[0-9a-f]{64}\n\{"nodes":\[\],"edges":\[\]\}$/);
  });

  it("resources/read gives other files as base64 blobs with their type, and refuses one over 10 MiB with its size", async () => {
    const { contents } = await client.request("resources/read", { uri: `${PREFIX}Attachments/pixel.png` });
    assert.deepEqual(contents, [{ uri: `${PREFIX}Attachments/pixel.png`, mimeType: "image/png", blob: PNG.toString("base64") }]);
    const bin = await client.request("resources/read", { uri: `${PREFIX}Attachments/data.bin` });
    assert.equal(bin.contents[0].blob, "AAEC/w==");
    const big = await rpcError(client.request("resources/read", { uri: `${PREFIX}Attachments/Big%20scan.pdf` }));
    assert.equal(big.code, -32602);
    assert.match(big.message, /Attachments\/Big scan\.pdf is 10\.0 MiB \(10485761 bytes\); resources\/read returns files up to 10\.0 MiB/);
  });

  it("resources/read: a hidden file, a folder, a missing file or another scheme is not found; a path rule refuses", async () => {
    for (const [uri, said] of [
      [`${PREFIX}Private/Secret.md`, /no file "Private\/Secret\.md" in the vault/],
      [`${PREFIX}private/secret.md`, /no file "private\/secret\.md" in the vault/],
      [`${PREFIX}Notes`, /"Notes" is a folder, not a file/],
      [`${PREFIX}Nope.md`, /no file "Nope\.md" in the vault/],
      ["file:///etc/passwd", /is not a vault file URI/],
      [`${PREFIX}%FF.md`, /is not a vault file URI/],
    ]) {
      const error = await rpcError(client.request("resources/read", { uri }));
      assert.equal(error.code, -32602, uri);
      assert.match(error.message, said, uri);
      assert.deepEqual(error.data, { uri }, uri);
    }
    for (const [uri, said] of [
      [`${PREFIX}../outside.md`, /\.\./],
      [`${PREFIX}.obsidian/app.json`, /config folder/],
    ]) {
      const error = await rpcError(client.request("resources/read", { uri }));
      assert.equal(error.code, -32602, uri);
      assert.match(error.message, said, uri);
      assert.ok(!fs.readFileSync(path.join(vault.dir, ".obsidian/app.json"), "utf8").includes(error.message));
    }
  });

  it("completion/complete finds files by name, alias, path and in-order letters, best first", async () => {
    const values = async (typed) => (await complete(client, typed)).completion.values;
    assert.deepEqual((await values("gamma")).slice(0, 1), ["Notes/Sub/Gamma note.md"]);
    assert.deepEqual(await values("GAMMA NOTE"), ["Notes/Sub/Gamma note.md"]);
    assert.deepEqual((await values("cent")).slice(0, 1), ["Hub.md"], "Hub's alias is Center");
    assert.deepEqual((await values("notes/s")).slice(0, 1), ["Notes/Sub/Gamma note.md"]);
    assert.deepEqual(await values("ñand"), ["Día/Ñandú.md"]);
    assert.deepEqual(await values("pixel"), ["Attachments/pixel.png"]);
    // Fuzzy: n…s…g…n in order, in both; the shorter path first.
    assert.deepEqual(await values("nsgn"), ["Notes/Sub/Gamma note.md", "Attachments/Big scan.pdf"]);
    // Name before path: "alpha" is Alpha's name; Hub only mentions it in its links, which completion does not read.
    assert.deepEqual(await values("alpha"), ["Notes/Alpha.md"]);
    assert.ok(!(await values("secret")).includes("Private/Secret.md"), "hidden files are never offered");
  });

  it("completion/complete caps at 100 values and says how many matched; nothing typed lists the newest first", async () => {
    const bulk = await complete(client, "bulk/n0");
    assert.equal(bulk.completion.values.length, 100);
    assert.equal(bulk.completion.total, 520);
    assert.equal(bulk.completion.hasMore, true);
    assert.deepEqual(bulk.completion.values.slice(0, 2), ["Bulk/n0000.md", "Bulk/n0001.md"]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await session.ok("append", { path: "Notes/Beta.md", content: "touched" });
    const none = await complete(client, "");
    assert.equal(none.completion.values[0], "Notes/Beta.md");
    assert.equal(none.completion.total, visiblePaths().length);
  });

  it("completion/complete refuses another template or argument and a prompt it does not have", async () => {
    const template = await rpcError(complete(client, "x", { uri: `${PREFIX}{path}` }));
    assert.equal(template.code, -32602);
    assert.match(template.message, /no resource template obsidian:\/\/vault\/\{path\}: the vault's is obsidian:\/\/vault\/\{\+path\}/);
    const argument = await rpcError(complete(client, "x", { name: "folder" }));
    assert.match(argument.message, /has one argument, path, not folder/);
    const prompt = await rpcError(client.request("completion/complete", { ref: { type: "ref/prompt", name: "nope" }, argument: { name: "a", value: "" } }));
    assert.match(prompt.message, /Prompt nope not found/);
  });

  it("the index follows Obsidian: created, renamed and deleted notes and changed aliases show at once", async () => {
    await session.ok("create_note", { path: "Fresh/Zebra crossing.md", content: "---\naliases: [Stripes]\n---\nnew\n" });
    assert.deepEqual((await complete(client, "zebra")).completion.values, ["Fresh/Zebra crossing.md"]);
    assert.deepEqual((await complete(client, "stripes")).completion.values, ["Fresh/Zebra crossing.md"]);
    await session.ok("set_property", { path: "Fresh/Zebra crossing.md", key: "aliases", value: ["Crosswalk"] });
    assert.deepEqual((await complete(client, "stripes")).completion.values, []);
    assert.deepEqual((await complete(client, "crossw")).completion.values, ["Fresh/Zebra crossing.md"]);
    await session.ok("move_note", { path: "Fresh/Zebra crossing.md", new_path: "Fresh/Okapi.md" });
    assert.deepEqual((await complete(client, "zebra")).completion.values, []);
    assert.deepEqual((await complete(client, "okapi")).completion.values, ["Fresh/Okapi.md"]);
    const listed = (await listAll(client)).resources.map((resource) => resource.name);
    assert.ok(listed.includes("Fresh/Okapi.md") && !listed.includes("Fresh/Zebra crossing.md"));
    await session.ok("delete_note", { path: "Fresh/Okapi.md" });
    assert.deepEqual((await complete(client, "okapi")).completion.values, []);
    assert.deepEqual((await listAll(client)).resources.map((resource) => resource.name), visiblePaths());
  });
});
