// Obsidian's documented rules (tests/vectors/obsidian-rules.json) through the plugin running inside real Obsidian:
// each vault of the file opened in turn, the plugin's own MCP server reached over HTTP as a client would once
// Obsidian has indexed the vault, every case's tool call made and judged exactly as
// obsidian-plugin/test/obsidian-rules.test.mjs judges it on the fake.

import assert from "node:assert/strict";
import { browser } from "@wdio/globals";
import { answer, judge, loadVectors, vaultOf, vaultsOf, waitForIndex } from "../../vectors/run.mjs";
import { connect, resultText } from "../../../obsidian-plugin/test/lib/client.mjs";
import { VAULTS_DIR, vectorsFile } from "../vaults.mjs";

const vectors = loadVectors(vectorsFile);

/** The port and token the plugin serves on (it keeps the data.json the vault was written with). */
async function pluginEndpoint() {
  return browser.executeObsidian(({ plugins }) => ({ port: plugins.obsmcp.settings.port, token: plugins.obsmcp.settings.token }));
}

describe("the plugin in real Obsidian gives Obsidian's documented answers", function () {
  for (const name of Object.keys(vaultsOf(vectors))) {
    it(`vault ${name}`, async function () {
      await browser.reloadObsidian({ vault: `${VAULTS_DIR}/${name}` });
      const { port, token } = await pluginEndpoint();
      const client = connect(`http://127.0.0.1:${port}/mcp`, token, { timeoutMs: 60000 });
      await client.initialize();
      const call = async (tool, args) => {
        const result = await client.callTool(tool, args);
        return { text: resultText(result), isError: result.isError === true };
      };
      await waitForIndex(call, 120000);
      const failures = [];
      try {
        for (const kase of vectors.cases.filter((one) => vaultOf(one) === name)) {
          const verdict = judge(kase, await answer(kase, call));
          if (!verdict.ok) failures.push(verdict.message);
        }
      } finally {
        await client.close();
      }
      assert.ok(failures.length === 0, `${failures.length} case(s) disagree in real Obsidian:\n${failures.join("\n")}`);
    });
  }
});
