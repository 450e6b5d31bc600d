// Obsidian's documented rules (tests/vectors/obsidian-rules.json, each case citing its help page) through the real
// main.js on the fake `obsidian` module: one hosted plugin per vault of the file, every case's tool call made in
// its vault, every answer judged. The Rust offline reader runs the same file (tests/it/offline/vectors.rs).

import { test, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { answer, countByArea, judge, loadVectors, vaultOf, vaultsOf, waitForIndex, writeVault } from "../../tests/vectors/run.mjs";
import { openSession } from "./tools-lib.mjs";
import { tempDir } from "./lib/harness.mjs";

const vectors = loadVectors();
const root = tempDir("obsmcp-rules-");
after(root.remove);

test("the vector file has its 150 cases, each citing a help page, with unique ids", () => {
  assert.ok(vectors.cases.length >= 150, `${vectors.cases.length} cases`);
  const ids = new Set();
  for (const kase of vectors.cases) {
    assert.ok(!ids.has(kase.id), `duplicate id ${kase.id}`);
    ids.add(kase.id);
    assert.match(kase.help, /^en\/.+\.md(#.+)?$/, `${kase.id} cites no help page`);
    assert.ok((kase.note === undefined) !== (kase.vault === undefined), `${kase.id} needs a note or a vault`);
    if (kase.vault !== undefined) assert.ok(kase.vault in vectors.vaults, `${kase.id}: no vault ${kase.vault}`);
    if (kase.differs !== undefined) assert.ok(kase.differs.reason?.length > 20, `${kase.id}: differs without a reason`);
  }
});

for (const [name, files] of Object.entries(vaultsOf(vectors))) {
  test(`vault ${name}: the plugin's answers are the documented ones`, async (t) => {
    const dir = path.join(root.dir, name);
    writeVault(dir, files);
    const session = await openSession(dir);
    const failures = [];
    let marked = 0;
    try {
      await waitForIndex(session.call);
      for (const kase of vectors.cases.filter((one) => vaultOf(one) === name)) {
        const verdict = judge(kase, await answer(kase, session.call));
        if (!verdict.ok) failures.push(verdict.message);
        if (verdict.marked) marked++;
      }
    } finally {
      await session.close();
    }
    assert.ok(failures.length === 0, `${failures.length} case(s) disagree:\n${failures.join("\n")}`);
    if (marked > 0) t.diagnostic(`${marked} case(s) marked as differing, each with its reason`);
  });
}

test("the cases cover every area the rules are asked for", (t) => {
  const counts = countByArea(vectors.cases);
  const marked = vectors.cases.filter((kase) => kase.differs !== undefined).length;
  t.diagnostic(`${vectors.cases.length} cases, ${marked} marked as differing: ${JSON.stringify(counts)}`);
  for (const area of ["links", "aliases", "tags", "properties", "tasks", "headings", "blocks", "bases"]) {
    assert.ok(counts[area] > 0, `no case for ${area}`);
  }
});
