// The CI workflow (.github/workflows/ci.yml) runs on GitHub's runners only, so this checks what it would run: the
// README's test command, the very line `.ci/run` runs, on Linux, macOS and Windows, for every push and pull request.
// actionlint (packaging/test/actionlint.sh) checks the workflow's syntax.
//
//   node --test packaging/test/*.test.mjs    (after `npm ci --prefix obsidian-plugin`, whose `yaml` it reads with)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { repositoryRoot } from './release-versions.mjs';

const root = repositoryRoot;
const YAML = createRequire(path.join(root, 'obsidian-plugin', 'package.json'))('yaml');
const read = (file) => readFileSync(path.join(root, file), 'utf8');
const workflow = YAML.parse(read('.github/workflows/ci.yml'));

/** The README's test command: the `npm ci …` line of the "The two commands" section. */
function readmeCommand() {
  const section = read('README.md').split('\n## The two commands\n')[1].split('\n## ')[0];
  const lines = section.split('\n').filter((line) => line.startsWith('npm ci '));
  assert.equal(lines.length, 1, 'one test command in "The two commands"');
  return lines[0];
}

test('ci.yml runs the README test command, the line .ci/run runs', () => {
  const command = readmeCommand();
  const ciRun = read('.ci/run').match(/^readme_test='(.*)'$/m);
  assert.ok(ciRun, '.ci/run sets readme_test');
  assert.equal(ciRun[1], command, '.ci/run runs the README command');
  const steps = workflow.jobs.test.steps.filter((step) => step.run?.trim() === command);
  assert.equal(steps.length, 1, 'one step of ci.yml runs the README command exactly');
});

test('ci.yml runs on Linux, macOS and Windows for every push and pull request', () => {
  assert.ok('push' in workflow.on && 'pull_request' in workflow.on);
  assert.equal(workflow.on.push, null, 'every push, no branch or path filter');
  assert.equal(workflow.on.pull_request, null, 'every pull request, no filter');
  const runners = workflow.jobs.test.strategy.matrix.runner;
  for (const system of ['ubuntu', 'macos', 'windows']) {
    assert.ok(runners.some((runner) => runner.startsWith(`${system}-`)), `a ${system} runner`);
  }
  assert.equal(workflow.jobs.test.strategy['fail-fast'], false, 'one system failing does not hide the others');
  assert.equal(workflow.defaults.run.shell, 'bash', 'the command runs in bash on Windows too (its glob and &&)');
});
