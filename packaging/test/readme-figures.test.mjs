// Figures in the docs come from a command, not from memory: the cost of `--always-load` (how many tools, how many
// bytes their definitions take) and the table of what `--tools core` and `--tools all` cost name beside them, in an
// HTML comment, the command that measures them, and when a release binary is at hand (OBSMCP_BIN, else
// target/release/obsmcp) that command must still find those figures: the tool counts exactly, the bytes within 5%
// (a catalog edit of a few words need not rewrite the guide, docs/guide.md).
//
//   node --test packaging/test/*.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { repositoryRoot } from './release-versions.mjs';
import { defaultBinary, measureToolsList } from '../../tests/context/tools-list.mjs';

const COMMAND = 'node tests/context/tools-list.mjs';

/** The guide's `--always-load` item (docs/guide.md): its tool count, its bytes, and the command its comment names. */
function alwaysLoadFigures() {
  const readme = readFileSync(path.join(repositoryRoot, 'docs/guide.md'), 'utf8');
  const item = readme.match(/^- `--always-load` [\s\S]*?(?=^- |^$)/m)?.[0];
  assert.ok(item, 'docs/guide.md has no `--always-load` item in its setup flags');
  const figures = item.match(/the (\d+) tool\s+definitions are ([\d,]+) bytes as the bridge sends them/);
  assert.ok(figures, `docs/guide.md's --always-load item gives no "the N tool definitions are B bytes as the bridge sends them":\n${item}`);
  const command = item.match(/<!-- (.*?) -->/)?.[1];
  return { tools: Number(figures[1]), bytes: Number(figures[2].replace(/,/g, '')), command };
}

test("the guide's --always-load figures name the command that measures them", () => {
  const { command } = alwaysLoadFigures();
  assert.equal(command, COMMAND, 'the figures carry their command in an HTML comment');
  assert.ok(existsSync(path.join(repositoryRoot, 'tests/context/tools-list.mjs')));
});

test("the guide's --always-load figures are what the bridge sends today", async (t) => {
  const binary = defaultBinary();
  if (!existsSync(binary)) {
    t.skip(`no release binary at ${binary} (set OBSMCP_BIN)`);
    return;
  }
  const stated = alwaysLoadFigures();
  const measured = await measureToolsList(binary, { tools: 'all' });
  const hint = `run \`${COMMAND}\` and put its figures in docs/guide.md`;
  assert.equal(stated.tools, measured.tools, `docs/guide.md says ${stated.tools} tools, the bridge lists ${measured.tools}: ${hint}`);
  const drift = Math.abs(measured.bytes - stated.bytes) / measured.bytes;
  assert.ok(drift <= 0.05, `docs/guide.md says ${stated.bytes} bytes, the bridge sends ${measured.bytes}: ${hint}`);
});

/** The guide's table of profiles: `| \`core\` (default) | 11 | 11,818 bytes | …` rows, and the command after it. */
function profileRows() {
  const guide = readFileSync(path.join(repositoryRoot, 'docs/guide.md'), 'utf8');
  const rows = [...guide.matchAll(/^\| `(core|all)`[^|]*\| (\d+) \| ([\d,]+) bytes \|/gm)];
  assert.equal(rows.length, 2, 'docs/guide.md has a row for --tools core and one for --tools all');
  const command = guide.match(/^\| `all` \|.*\n<!-- (.*?) -->/m)?.[1];
  return {
    command,
    rows: rows.map((row) => ({ profile: row[1], tools: Number(row[2]), bytes: Number(row[3].replace(/,/g, '')) })),
  };
}

test("the guide's --tools table names its command and the core fits in 12,000 bytes", () => {
  const { command, rows } = profileRows();
  assert.equal(command, COMMAND, 'the table carries its command in an HTML comment after it');
  assert.ok(rows.find((row) => row.profile === 'core').bytes <= 12_000);
});

test("the guide's --tools table is what the bridge sends today", async (t) => {
  const binary = defaultBinary();
  if (!existsSync(binary)) {
    t.skip(`no release binary at ${binary} (set OBSMCP_BIN)`);
    return;
  }
  for (const stated of profileRows().rows) {
    const measured = await measureToolsList(binary, { tools: stated.profile });
    const hint = `run \`${COMMAND}\` and put its figures in docs/guide.md`;
    assert.equal(stated.tools, measured.tools, `--tools ${stated.profile}: the guide says ${stated.tools} tools, the bridge lists ${measured.tools}: ${hint}`);
    const drift = Math.abs(measured.bytes - stated.bytes) / measured.bytes;
    assert.ok(drift <= 0.05, `--tools ${stated.profile}: the guide says ${stated.bytes} bytes, the bridge sends ${measured.bytes}: ${hint}`);
  }
});
