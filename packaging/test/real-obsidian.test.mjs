// The real-Obsidian workflow (.github/workflows/real-obsidian.yml) cannot run here, so this checks what it would run:
// the suite in tests/obsidian on the same vector file the plugin's tests and the Rust tests load
// (tests/vectors/obsidian-rules.json), one vault per vault of that file, each set up to load the plugin at start.
// actionlint (packaging/test/actionlint.sh) checks the workflow's syntax.
//
//   node --test packaging/test/*.test.mjs    (after `npm ci --prefix obsidian-plugin`, whose `yaml` it reads with)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { repositoryRoot } from './release-versions.mjs';

const VECTORS = 'tests/vectors/obsidian-rules.json';
const WORKFLOW = '.github/workflows/real-obsidian.yml';
const SUITE = 'tests/obsidian';

const root = repositoryRoot;
const YAML = createRequire(path.join(root, 'obsidian-plugin', 'package.json'))('yaml');
const read = (file) => readFileSync(path.join(root, file), 'utf8');
const workflow = YAML.parse(read(WORKFLOW));
const job = workflow.jobs.rules;

test('the workflow runs the tests/obsidian suite with wdio on the shared vector file', () => {
  const run = job.steps.find((step) => /\bwdio run wdio\.conf\.mjs\b/.test(step.run ?? ''));
  assert.ok(run, 'a step runs `wdio run wdio.conf.mjs`');
  assert.equal(run['working-directory'], SUITE);
  assert.equal(job.env.OBSMCP_VECTORS, VECTORS, 'the job names the vector file');
  assert.match(run.run, /OBSMCP_VECTORS="\$GITHUB_WORKSPACE\/\$OBSMCP_VECTORS"/, 'and hands it to the suite from the checkout root');
  assert.ok(job.steps.some((step) => step.uses?.startsWith('actions/checkout@')), 'it checks the repository out');
  const install = job.steps.find((step) => /\bnpm install\b/.test(step.run ?? ''));
  assert.equal(install?.['working-directory'], SUITE, 'it installs the suite\'s own dependencies');
  const packageJson = JSON.parse(read(`${SUITE}/package.json`));
  assert.ok(packageJson.devDependencies['wdio-obsidian-service'], 'the suite runs real Obsidian through wdio-obsidian-service');
});

test('the workflow runs on pushes and pull requests, and only where the repository is public', () => {
  assert.ok('push' in workflow.on && 'pull_request' in workflow.on);
  assert.match(job.if, /!github\.event\.repository\.private/);
  assert.deepEqual(workflow.permissions, {}, 'no permissions beyond the job\'s own');
});

test('every runner of the rules reads the one vector file', () => {
  for (const file of ['obsidian-plugin/test/obsidian-rules.test.mjs', `${SUITE}/specs/rules.e2e.mjs`, `${SUITE}/vaults.mjs`]) {
    assert.match(read(file), /tests\/vectors\/run\.mjs|\.\.\/vectors\/run\.mjs|\.\.\/\.\.\/vectors\/run\.mjs/, `${file} judges through tests/vectors/run.mjs`);
  }
  assert.match(read('tests/vectors/run.mjs'), /new URL\("\.\/obsidian-rules\.json", import\.meta\.url\)/);
  assert.ok(read('tests/it/offline/vectors.rs').includes(`"${VECTORS}"`), 'the Rust runner reads the same file');
  assert.ok(existsSync(path.join(root, VECTORS)));
});

test("the suite's vaults are the vector file's, each loading the plugin with its own port and token", async (t) => {
  const vectors = JSON.parse(read(VECTORS));
  const { writeVaults } = await import(path.join(root, SUITE, 'vaults.mjs'));
  const folder = mkdtempSync(path.join(os.tmpdir(), 'obsmcp-real-obsidian-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  const written = writeVaults(path.join(folder, 'vaults'), path.join(root, VECTORS));
  const names = Object.keys(written).sort();
  assert.deepEqual(names, [...Object.keys(vectors.vaults), 'notes'].sort());
  const ports = new Set();
  for (const [name, { dir, port, token }] of Object.entries(written)) {
    const config = path.join(dir, '.obsidian');
    assert.deepEqual(JSON.parse(readFileSync(path.join(config, 'community-plugins.json'), 'utf8')), ['obsmcp'], name);
    assert.deepEqual(JSON.parse(readFileSync(path.join(config, 'plugins', 'obsmcp', 'data.json'), 'utf8')), { port, token }, name);
    assert.match(token, /^[0-9a-f]{64}$/);
    ports.add(port);
    for (const file of Object.keys(vectors.vaults[name] ?? {})) assert.ok(existsSync(path.join(dir, file)), `${name}: ${file}`);
  }
  assert.equal(ports.size, names.length, 'no two vaults share a port');
  const notes = vectors.cases.filter((kase) => kase.note !== undefined);
  for (const kase of notes) assert.ok(existsSync(path.join(written.notes.dir, 'cases', `${kase.id}.md`)), kase.id);
});
