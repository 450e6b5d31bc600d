// The glibc floor the README promises (2.17) holds for every Linux package: packaging/glibc-floor reads a binary's
// imports with `objdump -T`, and packaging/build refuses a binary past the floor before it packs anything, naming
// the glibc versions, their symbols and the build that keeps to the floor. An `objdump` stand-in on PATH gives the
// checks chosen imports; one test runs the real objdump on the release binary when there is one.
//
//   node --test packaging/test/*.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repositoryRoot } from './release-versions.mjs';

/** A fresh folder, removed when the test ends. */
function temporaryFolder(t) {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'obsmcp-glibc-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}

/** `objdump -T`'s lines for these imports, `[glibc version, symbol]`, as binutils prints them. */
function dynamicSymbols(imports) {
  const lines = imports.map(
    ([version, symbol]) => `0000000000000000      DF *UND*\t0000000000000000 (GLIBC_${version}) ${symbol}`,
  );
  return `\nstand-in:     file format elf64-x86-64\n\nDYNAMIC SYMBOL TABLE:\n${lines.join('\n')}\n`;
}

/** A folder with an `objdump` that prints these imports whatever it is asked, and a stand-in binary. */
function standIn(t, imports) {
  const folder = temporaryFolder(t);
  writeFileSync(path.join(folder, 'objdump.out'), dynamicSymbols(imports));
  writeFileSync(path.join(folder, 'objdump'), `#!/bin/sh\ncat '${path.join(folder, 'objdump.out')}'\n`);
  chmodSync(path.join(folder, 'objdump'), 0o755);
  const binary = path.join(folder, 'obsmcp');
  writeFileSync(binary, '\x7fELF stand-in\n');
  chmodSync(binary, 0o755);
  return { folder, binary, env: { ...process.env, PATH: `${folder}${path.delimiter}${process.env.PATH}` } };
}

const run = (command, args, env) => spawnSync('bash', [path.join(repositoryRoot, command), ...args], { encoding: 'utf8', env });

const GLIBC_2_34 = [
  ['2.2.5', 'memcpy'],
  ['2.3', 'realpath'],
  ['2.17', 'clock_gettime'],
  ['2.30', 'gettid'],
  ['2.34', '__libc_start_main'],
  ['2.34', 'pthread_join'],
];

test('glibc-floor refuses a binary that needs glibc 2.34, naming each newer version, its symbols and the fix', (t) => {
  const { binary, env } = standIn(t, GLIBC_2_34);
  const result = run('packaging/glibc-floor', [binary], env);
  assert.equal(result.status, 1, result.stderr);
  assert.match(result.stderr, /needs glibc 2\.34, newer than the 2\.17 floor/);
  assert.match(result.stderr, /^ {2}GLIBC_2\.34: __libc_start_main, pthread_join$/m);
  // 2.3 is below the floor and 2.30 above it: compared as numbers they would be one version.
  assert.match(result.stderr, /^ {2}GLIBC_2\.30: gettid$/m);
  assert.doesNotMatch(result.stderr, /GLIBC_2\.3:|GLIBC_2\.17:|GLIBC_2\.2\.5:|realpath|clock_gettime/);
  assert.match(result.stderr, /^hint: .*`packaging\/build-linux`, which links against the symbols of glibc 2\.17$/m);
});

test('glibc-floor accepts a binary within the floor, comparing versions by their numbers', (t) => {
  const { binary, env } = standIn(t, GLIBC_2_34.filter(([version]) => !['2.30', '2.34'].includes(version)));
  const within = run('packaging/glibc-floor', [binary], env);
  assert.equal(within.status, 0, within.stderr);
  assert.match(within.stderr, /needs glibc 2\.17 at most \(the floor is 2\.17\)/);
  const needs234 = standIn(t, GLIBC_2_34);
  const newerFloor = run('packaging/glibc-floor', [needs234.binary, '2.34'], needs234.env);
  assert.equal(newerFloor.status, 0, newerFloor.stderr);
  assert.match(newerFloor.stderr, /needs glibc 2\.34 at most \(the floor is 2\.34\)/);
});

test('packaging/build refuses a Linux binary that needs glibc 2.34 before it packs anything', (t) => {
  const { folder, binary, env } = standIn(t, GLIBC_2_34);
  const out = path.join(folder, 'dist');
  const result = run('packaging/build', ['--binary', binary, '--out', out, '--os', 'linux', '--cpu', 'x64'], env);
  assert.equal(result.status, 1, result.stderr);
  assert.match(result.stderr, /^error: .* needs glibc 2\.34, newer than the 2\.17 floor/m);
  assert.match(result.stderr, /^ {2}GLIBC_2\.34: __libc_start_main, pthread_join$/m);
  assert.match(result.stderr, /^hint: .*`packaging\/build-linux`/m);
  assert.equal(result.stdout, '', 'no artifact line');
  assert.ok(!existsSync(out), 'packaging/build wrote its output folder');

  // The same binary packed for a machine that has glibc 2.34 gets past the floor (to the version check, which the
  // stand-in cannot answer, or to the packages on a machine that is not linux-x64).
  const declared = run('packaging/build', ['--binary', binary, '--out', out, '--os', 'linux', '--cpu', 'x64', '--glibc', '2.34'], env);
  assert.doesNotMatch(declared.stderr, /newer than the/);
});

test('packaging/build refuses a release build of this machine that needs a glibc past 2.17', (t) => {
  const binary = process.env.OBSMCP_BIN ?? path.join(repositoryRoot, 'target/release/obsmcp');
  if (process.platform !== 'linux' || !existsSync(binary)) {
    t.skip(`no Linux binary at ${binary} (set OBSMCP_BIN)`);
    return;
  }
  const objdump = spawnSync('objdump', ['-T', binary], { encoding: 'utf8' });
  if (objdump.error) {
    t.skip('objdump is not installed (binutils)');
    return;
  }
  const versions = [...objdump.stdout.matchAll(/\(GLIBC_([0-9.]+)\)/g)].map(([, version]) => version.split('.').map(Number));
  const newest = versions.sort((a, b) => a[0] - b[0] || a[1] - b[1] || (a[2] ?? 0) - (b[2] ?? 0)).at(-1).join('.');
  const past = newest.split('.').map(Number);
  if (past[0] === 2 && past[1] <= 17) {
    t.skip(`${binary} keeps to glibc 2.17 (a packaging/build-linux build)`);
    return;
  }
  const out = temporaryFolder(t);
  const result = run('packaging/build', ['--binary', binary, '--out', path.join(out, 'dist'), '--os', 'linux'], process.env);
  assert.equal(result.status, 1, result.stderr);
  assert.match(result.stderr, new RegExp(`needs glibc ${newest.replace(/\./g, '\\.')}, newer than the 2\\.17 floor`));
  assert.match(result.stderr, new RegExp(`^ {2}GLIBC_${newest.replace(/\./g, '\\.')}: `, 'm'));
});
