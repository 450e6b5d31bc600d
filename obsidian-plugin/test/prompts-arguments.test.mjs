// Prompt arguments named like Object.prototype's members, through the real main.js (src/prompts/index.ts): only the
// arguments the client sent count, as in the offline reader (src/offline/plugin/prompts/mod.rs reads the request's JSON), so
// `constructor`, `toString` or `__proto__` that were not sent are missing, not Object's own functions.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { RpcError } from "./lib/client.mjs";
import { makeVault, openSession } from "./tools-lib.mjs";

describe("prompt arguments named constructor, toString, __proto__", () => {
  let vault;
  let session;
  before(async () => {
    vault = makeVault();
    fs.mkdirSync(path.join(vault.dir, "Prompts"));
    const prompt = [
      "---",
      "arguments:",
      "  - name: constructor",
      "    required: true",
      "  - toString",
      "  - __proto__",
      "  - hasOwnProperty",
      "---",
      "c={{constructor}} t={{toString}} p={{__proto__}} h={{hasOwnProperty}}",
      "",
    ].join("\n");
    fs.writeFileSync(path.join(vault.dir, "Prompts", "Proto.md"), prompt);
    session = await openSession(vault.dir);
  });
  after(async () => {
    await session?.close();
    vault?.remove();
  });

  const get = (args) => session.client.request("prompts/get", { name: "Proto", arguments: args });

  // The plugin read `args.constructor` through the prototype, so the required check passed and the text
  // held `function Object() { [native code] }`, while the offline reader refused the call.
  it("a required constructor that was not sent is refused, as offline refuses it", async () => {
    for (const args of [{}, { toString: "t" }, undefined]) {
      await assert.rejects(get(args), (error) => {
        assert.ok(error instanceof RpcError, String(error));
        assert.equal(error.code, -32602);
        assert.match(error.message, /prompt Proto needs the argument constructor$/);
        return true;
      });
    }
  });

  it("optional ones that were not sent are empty, never Object's functions", async () => {
    const result = await get({ constructor: "c" });
    assert.equal(result.messages[0].content.text, "c=c t= p={{__proto__}} h=");
  });

  it("the values sent are the ones filled in", async () => {
    const result = await get({ constructor: "c", toString: "t", hasOwnProperty: "h" });
    assert.equal(result.messages[0].content.text, "c=c t=t p={{__proto__}} h=h");
  });

  // A `__proto__` the client sends never reaches the plugin (the SDK's request schema, zod, drops that key), while the
  // offline reader would fill it in: both readers leave it out of the declared arguments, so it is text like any
  // undeclared {{name}}.
  it("declares no argument named __proto__", async () => {
    const { prompts } = await session.client.request("prompts/list", {});
    const proto = prompts.find((prompt) => prompt.name === "Proto");
    assert.deepEqual(
      proto.arguments.map((argument) => argument.name),
      ["constructor", "toString", "hasOwnProperty"],
    );
  });
});
