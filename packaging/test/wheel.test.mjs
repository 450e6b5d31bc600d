// The PyPI wheel that packaging/pypi/wheel.py writes around a binary, without cargo: a zip whose entries, modes,
// RECORD digests, platform tag and metadata are what pip, uv and PyPI read, with maturin's metadata for the root
// pyproject.toml. Stand-in executables (headers of each platform and little else) pin the structure and the tags;
// the release binary, when there is one (OBSMCP_BIN, else target/release/obsmcp), is installed with pip into a
// target folder and into a virtual environment and run from their scripts folders.
//
//   node --test packaging/test/*.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { releaseVersion, repositoryRoot } from './release-versions.mjs';

const { version } = releaseVersion();
const WHEEL_PY = path.join(repositoryRoot, 'packaging/pypi/wheel.py');

/** A fresh folder, removed when the test ends. */
function temporaryFolder(t) {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'obsmcp-wheel-'));
  t.after(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}

/** Runs a command; fails the test with its output when it exits non-zero, unless `allowFailure`. */
function run(command, args, { allowFailure = false, ...options } = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...options });
  assert.ifError(result.error);
  if (!allowFailure) assert.equal(result.status, 0, `${command} ${args.join(' ')}\n${result.stdout}${result.stderr}`);
  return result;
}

/** The header of a 64-bit little-endian ELF executable for `machine` (0x3e x86-64, 0xb7 AArch64). */
function elf(machine) {
  const header = Buffer.alloc(64);
  header.write('\x7fELF', 0, 'latin1');
  header.set([2, 1, 1], 4); // 64-bit, little-endian, ELF version 1
  header.writeUInt16LE(2, 16); // an executable
  header.writeUInt16LE(machine, 18);
  return header;
}

/** A 64-bit Mach-O executable header with one LC_BUILD_VERSION for macOS `major.minor`. */
function machO(cpuType, [major, minor]) {
  const header = Buffer.alloc(32 + 24);
  header.writeUInt32LE(0xfeedfacf, 0);
  header.writeInt32LE(cpuType, 4);
  header.writeUInt32LE(2, 12); // MH_EXECUTE
  header.writeUInt32LE(1, 16); // one load command
  header.writeUInt32LE(24, 20);
  header.writeUInt32LE(0x32, 32); // LC_BUILD_VERSION
  header.writeUInt32LE(24, 36);
  header.writeUInt32LE(1, 40); // PLATFORM_MACOS
  header.writeUInt32LE((major << 16) | (minor << 8), 44);
  return header;
}

/** A PE executable's headers for `machine` (0x8664 x64). */
function pe(machine) {
  const header = Buffer.alloc(0x48);
  header.write('MZ', 0, 'latin1');
  header.writeUInt32LE(0x40, 0x3c);
  header.write('PE\0\0', 0x40, 'latin1');
  header.writeUInt16LE(machine, 0x44);
  return header;
}

/** Writes a stand-in executable: a header, then a line that says it is a stand-in. */
function standIn(folder, name, header) {
  const file = path.join(folder, name);
  writeFileSync(file, Buffer.concat([header, Buffer.from('\nobsmcp stand-in for packaging/test/wheel.test.mjs\n')]), { mode: 0o755 });
  return file;
}

/** Runs packaging/pypi/wheel.py. */
function buildWheel(binary, out, platform, extra = [], options = {}) {
  return run('python3', [WHEEL_PY, '--binary', binary, '--out', out, '--os', platform.os, '--cpu', platform.cpu, ...extra], options);
}

/** A wheel's entries in archive order (name, unix mode, creating system), and its files unpacked into `folder`. */
function unpack(wheel, folder) {
  const listing = run('python3', [
    '-c',
    'import json, sys, zipfile\n' +
      'archive = zipfile.ZipFile(sys.argv[1])\n' +
      'print(json.dumps([[i.filename, i.external_attr >> 16, i.create_system] for i in archive.infolist()]))\n' +
      'archive.extractall(sys.argv[2])',
    wheel,
    folder,
  ]);
  return JSON.parse(listing.stdout).map(([name, mode, system]) => ({ name, mode, system }));
}

const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('base64url');

/** RECORD's rows as `[path, hash, size]`, each checked against the unpacked files; every entry has its row. */
function checkRecord(entries, folder, distInfo) {
  const rows = readFileSync(path.join(folder, distInfo, 'RECORD'), 'utf8').trimEnd().split('\n').map((line) => line.split(','));
  assert.deepEqual(rows.map(([name]) => name).sort(), entries.map(({ name }) => name).sort(), 'RECORD lists every entry once');
  for (const [name, hash, size] of rows) {
    if (name === `${distInfo}/RECORD`) {
      assert.deepEqual([hash, size], ['', ''], 'RECORD has no digest of itself');
      continue;
    }
    const file = path.join(folder, name);
    assert.equal(hash, `sha256=${sha256(file)}`, `RECORD's digest of ${name}`);
    assert.equal(Number(size), statSync(file).size, `RECORD's size of ${name}`);
  }
  return rows;
}

/** `Key: value` lines up to the first blank line, in order, and the body after it. */
function headers(text) {
  const end = text.indexOf('\n\n');
  const head = end === -1 ? text : text.slice(0, end);
  const fields = head.split('\n').filter(Boolean).map((line) => {
    const colon = line.indexOf(': ');
    return [line.slice(0, colon), line.slice(colon + 2)];
  });
  return { fields, body: end === -1 ? undefined : text.slice(end + 2) };
}

/** pyproject.toml's [project] table, read by Python's own TOML parser. */
function pyproject() {
  const script = 'import json, sys, tomllib\nprint(json.dumps(tomllib.load(open(sys.argv[1], "rb"))["project"]))';
  return JSON.parse(run('python3', ['-c', script, path.join(repositoryRoot, 'pyproject.toml')]).stdout);
}

test('the wheel of a Linux x64 binary: the script with its mode, maturin-like metadata, a RECORD that verifies', (t) => {
  const folder = temporaryFolder(t);
  const binary = standIn(folder, 'obsmcp', elf(0x3e));
  const out = path.join(folder, 'dist');
  const wheel = buildWheel(binary, out, { os: 'linux', cpu: 'x64' }).stdout.trim();
  assert.equal(path.basename(wheel), `obsmcp-${version}-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl`);
  assert.equal(path.dirname(wheel), out);

  const unpacked = path.join(folder, 'unpacked');
  const entries = unpack(wheel, unpacked);
  const distInfo = `obsmcp-${version}.dist-info`;
  assert.deepEqual(
    entries.map(({ name }) => name),
    [
      `obsmcp-${version}.data/scripts/obsmcp`,
      `${distInfo}/METADATA`,
      `${distInfo}/WHEEL`,
      `${distInfo}/licenses/LICENSE`,
      `${distInfo}/RECORD`,
    ],
    'the script first, the .dist-info last, RECORD at the very end',
  );
  for (const { name, mode, system } of entries) {
    assert.equal(system, 3, `${name} carries Unix attributes`);
    assert.equal(mode, name.endsWith('/scripts/obsmcp') ? 0o100755 : 0o100644, `${name}'s mode`);
  }
  assert.ok(readFileSync(path.join(unpacked, `obsmcp-${version}.data/scripts/obsmcp`)).equals(readFileSync(binary)), 'the script is the binary');
  assert.ok(readFileSync(path.join(unpacked, distInfo, 'licenses/LICENSE')).equals(readFileSync(path.join(repositoryRoot, 'LICENSE'))));
  checkRecord(entries, unpacked, distInfo);

  const wheelFile = headers(readFileSync(path.join(unpacked, distInfo, 'WHEEL'), 'utf8')).fields;
  assert.deepEqual(
    wheelFile.filter(([key]) => key !== 'Generator'),
    [
      ['Wheel-Version', '1.0'],
      ['Root-Is-Purelib', 'false'],
      ['Tag', 'py3-none-manylinux_2_17_x86_64'],
      ['Tag', 'py3-none-manylinux2014_x86_64'],
    ],
  );

  // The fields maturin 1.16 wrote for this pyproject.toml, in its order; the README is the body.
  const project = pyproject();
  const { fields, body } = headers(readFileSync(path.join(unpacked, distInfo, 'METADATA'), 'utf8'));
  assert.deepEqual(fields, [
    ['Metadata-Version', '2.4'],
    ['Name', project.name],
    ['Version', version],
    ...project.classifiers.map((classifier) => ['Classifier', classifier]),
    ['License-File', 'LICENSE'],
    ['Summary', project.description],
    ['Keywords', project.keywords.join(',')],
    ['License-Expression', project.license],
    ['Requires-Python', project['requires-python']],
    ['Description-Content-Type', 'text/markdown; charset=UTF-8; variant=GFM'],
    ...Object.entries(project.urls).map(([label, url]) => ['Project-URL', `${label}, ${url}`]),
  ]);
  assert.equal(project.readme, 'README.md');
  assert.equal(body, `${readFileSync(path.join(repositoryRoot, 'README.md'), 'utf8')}\n`, 'the README is the description');

  // The same binary gives the same wheel, byte for byte.
  const first = readFileSync(wheel);
  buildWheel(binary, out, { os: 'linux', cpu: 'x64' });
  assert.ok(readFileSync(wheel).equals(first), 'a second build differs');
});

test("the platform tag is read from the binary's header, and a binary for another platform is refused", (t) => {
  const folder = temporaryFolder(t);
  const cases = [
    { header: elf(0xb7), os: 'linux', cpu: 'arm64', tag: 'manylinux_2_17_aarch64.manylinux2014_aarch64' },
    { header: elf(0x3e), os: 'linux', cpu: 'x64', extra: ['--glibc', '2.28'], tag: 'manylinux_2_28_x86_64' },
    { header: machO(0x01000007, [10, 12]), os: 'darwin', cpu: 'x64', tag: 'macosx_10_12_x86_64' },
    { header: machO(0x0100000c, [11, 0]), os: 'darwin', cpu: 'arm64', tag: 'macosx_11_0_arm64' },
    // pip matches macOS 11 and later by their major version alone.
    { header: machO(0x0100000c, [14, 5]), os: 'darwin', cpu: 'arm64', tag: 'macosx_14_0_arm64' },
    { header: pe(0x8664), os: 'win32', cpu: 'x64', tag: 'win_amd64', script: 'obsmcp.exe' },
  ];
  for (const [index, entry] of cases.entries()) {
    const binary = standIn(folder, `binary-${index}`, entry.header);
    const out = path.join(folder, `dist-${index}`);
    const wheel = buildWheel(binary, out, entry, entry.extra).stdout.trim();
    assert.equal(path.basename(wheel), `obsmcp-${version}-py3-none-${entry.tag}.whl`, `${entry.os}-${entry.cpu}`);
    const unpacked = path.join(folder, `unpacked-${index}`);
    const entries = unpack(wheel, unpacked);
    assert.equal(entries[0].name, `obsmcp-${version}.data/scripts/${entry.script ?? 'obsmcp'}`);
    const tags = headers(readFileSync(path.join(unpacked, `obsmcp-${version}.dist-info/WHEEL`), 'utf8'))
      .fields.filter(([key]) => key === 'Tag')
      .map(([, tag]) => tag);
    assert.deepEqual(tags, entry.tag.split('.').map((platform) => `py3-none-${platform}`));
  }

  const x64 = standIn(folder, 'x64', elf(0x3e));
  const refused = buildWheel(x64, path.join(folder, 'refused'), { os: 'linux', cpu: 'arm64' }, [], { allowFailure: true });
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /^error: .* is a linux-x64 executable, not linux-arm64$/m);
  assert.match(refused.stderr, /^hint: pass --os linux --cpu x64, or the linux-arm64 binary$/m);
  assert.ok(!existsSync(path.join(folder, 'refused')) || run('ls', ['-A', path.join(folder, 'refused')]).stdout === '', 'no wheel is left behind');

  const notExecutable = buildWheel(path.join(repositoryRoot, 'README.md'), path.join(folder, 'refused'), { os: 'linux', cpu: 'x64' }, [], { allowFailure: true });
  assert.equal(notExecutable.status, 1);
  assert.match(notExecutable.stderr, /is not an executable this wheel can carry/);
});

test('pip installs the wheel of the release binary: a runnable obsmcp in the scripts folder, the same --version', (t) => {
  const binary = process.env.OBSMCP_BIN ?? path.join(repositoryRoot, 'target/release/obsmcp');
  const platform = { os: process.platform, cpu: process.arch };
  if (!existsSync(binary) || platform.os === 'win32') {
    t.skip(`no release binary at ${binary} (set OBSMCP_BIN)`);
    return;
  }
  const folder = temporaryFolder(t);
  // The floor packaging/build checks is not this test's business: the wheel is named for the glibc this binary needs.
  const glibc = platform.os === 'linux' ? ['--glibc', run('getconf', ['GNU_LIBC_VERSION']).stdout.trim().split(' ')[1]] : [];
  const wheel = buildWheel(binary, path.join(folder, 'dist'), platform, glibc).stdout.trim();
  const arch = { x64: { linux: 'x86_64', darwin: 'x86_64' }, arm64: { linux: 'aarch64', darwin: 'arm64' } }[platform.cpu][platform.os];
  assert.match(path.basename(wheel), new RegExp(`-py3-none-(manylinux|macosx)_\\d+_\\d+_${arch}(\\.|\\.whl$)`), "the tag names this machine's cpu");

  const entries = unpack(wheel, path.join(folder, 'unpacked'));
  checkRecord(entries, path.join(folder, 'unpacked'), `obsmcp-${version}.dist-info`);

  const env = { ...process.env, OBSMCP_VERSION_BRIEF: '1', PIP_DISABLE_PIP_VERSION_CHECK: '1', PIP_NO_INDEX: '1' };
  const expected = run(binary, ['--version'], { env }).stdout;
  assert.match(expected, new RegExp(`^obsmcp ${version.replace(/\./g, '\\.')} `));

  const target = path.join(folder, 'target');
  run('python3', ['-m', 'pip', 'install', '--quiet', '--target', target, wheel], { env });
  const fromTarget = path.join(target, 'bin', 'obsmcp');
  assert.equal(statSync(fromTarget).mode & 0o111, 0o111, 'pip --target installs bin/obsmcp executable');
  assert.equal(run(fromTarget, ['--version'], { env }).stdout, expected);

  // A virtual environment checks the tags too: pip refuses a wheel whose platform is not this machine's.
  const venv = path.join(folder, 'venv');
  run('python3', ['-m', 'venv', venv]);
  run(path.join(venv, 'bin', 'python'), ['-m', 'pip', 'install', '--quiet', wheel], { env });
  const scripts = run(path.join(venv, 'bin', 'python'), ['-c', 'import sysconfig; print(sysconfig.get_path("scripts"))']).stdout.trim();
  assert.equal(run(path.join(scripts, 'obsmcp'), ['--version'], { env }).stdout, expected);
  const shown = run(path.join(venv, 'bin', 'python'), ['-m', 'pip', 'show', 'obsmcp'], { env }).stdout;
  assert.match(shown, new RegExp(`^Version: ${version.replace(/\./g, '\\.')}$`, 'm'), 'pip reads the version from METADATA');
});
