// read_attachment through the real main.js (src/tools/attachments.ts): images as image content, audio as audio
// content, PDFs and other files as embedded resources, each with a header line; the size limits; text files, hidden
// and missing files refused; and no attachment inside a batch. Runs in both protocol eras (npm test).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { writeSettings } from "./lib/load-plugin.mjs";
import { makeVault, openSession } from "./tools-lib.mjs";

const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082", "hex");

describe("read_attachment", () => {
  let vault;
  let session;
  const files = {
    "Attachments/pixel.png": PNG,
    "Attachments/Photo big.jpg": Buffer.alloc(5 * 1024 * 1024 + 1, 0xff),
    "Attachments/voice.mp3": Buffer.from("ID3 not really audio"),
    "Attachments/paper.pdf": Buffer.from("%PDF-1.4 tiny"),
    "Attachments/drawing.svg": Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>"),
    "Private/secret.png": PNG,
  };
  before(async () => {
    vault = makeVault();
    for (const [file, bytes] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(vault.dir, file)), { recursive: true });
      fs.writeFileSync(path.join(vault.dir, file), bytes);
    }
    writeSettings(vault.dir, { hiddenPaths: ["Private"] });
    session = await openSession(vault.dir);
  });
  after(async () => {
    await session?.close();
    vault?.remove();
  });

  const attach = async (args) => {
    const result = await session.client.callTool("read_attachment", args);
    assert.notEqual(result.isError, true, JSON.stringify(result).slice(0, 300));
    return result.content;
  };

  it("gives an image as image content after a header line, found by path, name or embed", async () => {
    for (const reference of ["Attachments/pixel.png", "pixel.png", "![[pixel.png]]"]) {
      const content = await attach({ path: reference });
      assert.deepEqual(content, [
        { type: "text", text: `[attachment] path="Attachments/pixel.png" mimeType=image/png size=${PNG.length}` },
        { type: "image", data: PNG.toString("base64"), mimeType: "image/png" },
      ]);
    }
  });

  it("gives audio as audio content, and a PDF or another file as an embedded resource with its URI", async () => {
    const [, audio] = await attach({ path: "voice.mp3" });
    assert.deepEqual(audio, { type: "audio", data: files["Attachments/voice.mp3"].toString("base64"), mimeType: "audio/mpeg" });
    const [, pdf] = await attach({ path: "Attachments/paper.pdf" });
    assert.deepEqual(pdf, {
      type: "resource",
      resource: { uri: "obsidian://vault/Attachments/paper.pdf", mimeType: "application/pdf", blob: files["Attachments/paper.pdf"].toString("base64") },
    });
    const [, svg] = await attach({ path: "drawing.svg" });
    assert.equal(svg.type, "resource", "an SVG is not an image content type clients take");
    assert.equal(svg.resource.mimeType, "image/svg+xml");
  });

  it("refuses an image over 5 MiB with its size, a text file, a hidden file and a missing one", async () => {
    await session.fails("read_attachment", { path: "Photo big.jpg" }, /^Attachments\/Photo big\.jpg is 5\.0 MiB \(5242881 bytes\); read_attachment returns images up to 5\.0 MiB$/);
    await session.fails("read_attachment", { path: "Hub" }, /^Hub\.md is a text file: read it with read_note$/);
    await session.fails("read_attachment", { path: "Private/secret.png" }, /note not found: "Private\/secret\.png"/);
    await session.fails("read_attachment", { path: "nope.png" }, /note not found: "nope\.png"/);
  });

  it("does not run inside a batch", async () => {
    const result = await session.ok("batch", { calls: [{ tool: "read_attachment", arguments: { path: "pixel.png" } }] });
    assert.equal(result.results[0].ok, false);
    assert.match(result.results[0].error, /^read_attachment cannot run in a batch/);
  });
});
