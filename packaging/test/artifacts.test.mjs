// The names the release workflow publishes are the names that people and programs look for: the npm launcher's
// optional dependencies and the package its bin script resolves, packaging/build's bundle, README.md's Install
// section, and Obsidian's rule that a plugin's files sit in the release tagged with its manifest's version. The
// workflow is read with a few patterns, not a YAML parser (node built-ins only); a pattern that stops matching fails
// with a message naming what it looked for.
//
//   node --test packaging/test/*.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { releaseVersion, repositoryRoot } from './release-versions.mjs';

const WORKFLOW = '.github/workflows/release.yml';
const read = (file) => readFileSync(path.join(repositoryRoot, file), 'utf8');
const workflow = read(WORKFLOW);

/** The lines of job `name` (those below `  name:` and indented deeper), as one text. */
function job(name) {
  const lines = workflow.split(/\r?\n/);
  const start = lines.indexOf(`  ${name}:`);
  assert.ok(start !== -1, `${WORKFLOW} has no job \`${name}\` (a line \`  ${name}:\` under \`jobs:\`)`);
  const end = lines.findIndex((line, index) => index > start && line.trim() !== '' && !/^ {3}/.test(line));
  return lines.slice(start + 1, end === -1 ? undefined : end).join('\n');
}

/** The `include:` entries of a job's matrix, each written as a flow mapping `- { key: value, … }` on one line. */
function matrix(name) {
  const entries = [...job(name).matchAll(/^\s*- \{(.*)\}\s*$/gm)].map(([, body]) =>
    Object.fromEntries(body.split(',').map((pair) => pair.split(':').map((part) => part.trim()))),
  );
  assert.ok(entries.length > 0, `job \`${name}\` of ${WORKFLOW} has no matrix entries written as \`- { target: …, … }\``);
  return entries;
}

/** The value of `name` in a job's `env:`. */
function env(jobName, name) {
  const found = job(jobName).match(new RegExp(`^\\s+${name}: (.+)$`, 'm'));
  assert.ok(found, `job \`${jobName}\` of ${WORKFLOW} sets no env ${name}`);
  return found[1].trim();
}

/** A name template from the workflow with its expressions filled in: from a matrix entry, or as `<key>` placeholders. */
function render(template, entry, version) {
  const filled = template.replace(/\$\{\{\s*([\w.]+)\s*\}\}/g, (whole, expression) => {
    if (expression === 'needs.version.outputs.version') return version ?? '<version>';
    const key = expression.match(/^matrix\.(\w+)$/)?.[1];
    if (key === undefined) return whole;
    return entry ? entry[key] ?? whole : `<${key}>`;
  });
  assert.ok(!filled.includes('${{'), `cannot fill in every expression of \`${template}\` in ${WORKFLOW}`);
  return filled;
}

/** README.md's `## Install` section. */
function installSection() {
  const readme = read('README.md');
  const start = readme.search(/^## Install\s*$/m);
  assert.ok(start !== -1, 'README.md has no `## Install` section naming the release files and packages');
  const rest = readme.slice(start + 1);
  const end = rest.search(/^## /m);
  return end === -1 ? rest : rest.slice(0, end);
}

const builds = matrix('build');
const { version } = releaseVersion();
const launcher = JSON.parse(read('packaging/npm/obsmcp/package.json'));

test('the build matrix names each target by the os and cpu Node reports on it', () => {
  const osOf = { 'unknown-linux-gnu': 'linux', 'apple-darwin': 'darwin', 'pc-windows-msvc': 'win32' };
  const cpuOf = { x86_64: 'x64', aarch64: 'arm64' };
  for (const entry of builds) {
    const [arch, ...rest] = entry.target.split('-');
    assert.equal(entry.os, osOf[rest.join('-')], `${entry.target}: os`);
    assert.equal(entry.cpu, cpuOf[arch], `${entry.target}: cpu`);
  }
});

test('PyPI: the build job of each platform wraps its binary into a wheel, which attest and pypi take', () => {
  const build = job('build');
  assert.match(build, /bash packaging\/build --binary "target\/\$TARGET\/\$PROFILE\/\$EXECUTABLE" /, 'the build job runs packaging/build on its binary');
  assert.match(build, /mv "packages\/obsmcp-\$VERSION"-py3-none-\*\.whl wheel\//, 'the build job moves the wheel packaging/build wrote');
  assert.match(build, /name: wheel-\$\{\{ matrix\.target \}\}\n\s+path: wheel\/\*\.whl/, 'the build job uploads wheel-<target>');
  const packagingBuild = read('packaging/build');
  assert.match(packagingBuild, /"\$here\/pypi\/wheel\.py" --binary "\$binary"/, 'packaging/build writes the wheel from its binary');
  assert.match(packagingBuild, /^artifact "wheel" /m, 'packaging/build prints the wheel line');
  for (const name of ['attest', 'pypi']) {
    assert.match(job(name), /pattern: wheel-\*/, `the ${name} job takes every wheel-<target>`);
  }
  // One binary per platform, tested by CI: no job compiles again for the wheel.
  assert.doesNotMatch(workflow, /maturin/i, `${WORKFLOW} builds no wheel with maturin`);
});

test('npm: the platform packages the workflow publishes are the launcher optionalDependencies and what bin/obsmcp.js loads', () => {
  const template = env('build', 'NPM_PACKAGE');
  const published = builds.map((entry) => render(template, entry)).sort();
  assert.deepEqual(published, Object.keys(launcher.optionalDependencies ?? {}).sort(), 'packaging/npm/obsmcp/package.json optionalDependencies');

  const bin = read('packaging/npm/obsmcp/bin/obsmcp.js');
  const supported = bin.match(/const SUPPORTED = \[([^\]]*)\]/);
  assert.ok(supported, 'packaging/npm/obsmcp/bin/obsmcp.js has no `const SUPPORTED = [...]` list of platforms');
  const loaded = [...supported[1].matchAll(/'([^']+)'/g)].map(([, platform]) => `obsmcp-${platform}`).sort();
  assert.deepEqual(loaded, published, 'the platforms bin/obsmcp.js supports');
  assert.match(bin, /`\$\{process\.platform\}-\$\{process\.arch\}`/, 'bin/obsmcp.js names a platform `${process.platform}-${process.arch}`');
  assert.match(bin, /`obsmcp-\$\{platform\}`/, 'bin/obsmcp.js loads the package `obsmcp-${platform}`');
  assert.match(read('packaging/npm/platform.mjs'), /`obsmcp-\$\{os\}-\$\{cpu\}`/, 'packaging/npm/platform.mjs names its package `obsmcp-${os}-${cpu}`');
  assert.equal(launcher.name, 'obsmcp', 'the launcher package is `obsmcp`');
});

test('the release files and packages are the ones README.md Install section names', () => {
  const section = installSection();
  const archive = render(env('build', 'ARCHIVE'));
  const bundle = render(env('build', 'BUNDLE'));
  const patterns = new Set(builds.map((entry) => render(env('build', 'ARCHIVE'), { ...entry, target: '<target>' })));
  patterns.add(bundle);

  assert.equal(archive, 'obsmcp-<version>-<target>.<archive>', `${WORKFLOW} build env ARCHIVE`);
  const extensions = [...new Set(builds.map((entry) => entry.archive))];
  for (const extension of extensions) {
    const name = `obsmcp-<version>-<target>.${extension}`;
    assert.ok(section.includes(name) || section.includes(`\`.${extension}\``), `README.md Install names neither ${name} nor \`.${extension}\``);
  }
  assert.ok(section.includes(bundle), `README.md Install does not name the Claude Desktop bundle ${bundle}`);
  const built = read('packaging/build').match(/obsmcp-\$version-\$os-\$cpu\.mcpb/);
  assert.ok(built, `packaging/build does not write the bundle the workflow uploads (${bundle}, as obsmcp-$version-$os-$cpu.mcpb)`);

  // The other way round: every file name README.md gives is one the release has.
  for (const [named] of section.matchAll(/obsmcp-<[^`\s]*?\.(?:tar\.gz|zip|mcpb|whl)/g)) {
    assert.ok(patterns.has(named), `README.md Install names ${named}, which the release does not publish (it publishes ${[...patterns].join(', ')})`);
  }
  assert.ok(section.includes('SHA256SUMS') && job('release').includes('> SHA256SUMS'), 'README.md and the release both name SHA256SUMS');

  const npmNames = builds.map((entry) => render(env('build', 'NPM_PACKAGE'), entry)).sort();
  const readmeNpm = [...new Set([...section.matchAll(/obsmcp-[a-z0-9]+-(?:x64|arm64)\b/g)].map(([name]) => name))].sort();
  assert.deepEqual(readmeNpm, npmNames, 'the npm platform packages README.md Install lists');

  // The registries' names: npm's launcher, the wheel's distribution (from pyproject.toml) and the crate.
  const pyproject = read('pyproject.toml');
  const distribution = pyproject.match(/^\[project\][^[]*?^name\s*=\s*"([^"]+)"/m)?.[1];
  assert.ok(distribution, 'pyproject.toml has no [project] name: the wheel is named after it');
  assert.match(pyproject, /^bindings\s*=\s*"bin"/m, 'pyproject.toml builds the binary as a script from the sources too (bindings = "bin")');
  const crate = read('Cargo.toml').match(/^\[package\]\s*\nname\s*=\s*"([^"]+)"/m)?.[1];
  for (const command of [`npx ${launcher.name} setup`, `uvx ${distribution} setup`, `pipx install ${distribution}`, `cargo install --locked ${crate}`]) {
    assert.ok(section.includes(command), `README.md Install does not say \`${command}\``);
  }
});

test("the release builds with Cargo.toml's dist profile on every platform, and packs the binary from its folder", () => {
  assert.equal(env('build', 'PROFILE'), 'dist', 'the build job sets PROFILE: dist');
  assert.match(read('Cargo.toml'), /^\[profile\.dist\]\n(?:#.*\n)*inherits = "release"$/m, 'Cargo.toml has a dist profile that inherits release');
  const build = job('build');
  assert.match(build, /bash packaging\/build-linux --target "\$TARGET" --profile "\$PROFILE"/, 'Linux builds with the profile');
  assert.match(build, /cargo build --profile "\$PROFILE" --locked --target "\$TARGET"/, 'macOS and Windows build with the profile');
  assert.doesNotMatch(build, /--release\b|target\/\S*\/release\//, 'nothing in the build job builds with or takes from the release profile');
  assert.match(read('packaging/build-linux'), /cargo zigbuild --profile "\$profile"/, 'packaging/build-linux passes its --profile to cargo');
});

test('the archives hold README.md and LICENSE, which exist', () => {
  assert.match(job('build'), /cp "target\/\$TARGET\/\$PROFILE\/\$EXECUTABLE" README\.md LICENSE /, 'the archive step copies the binary, README.md and LICENSE');
  for (const file of ['README.md', 'LICENSE']) assert.ok(existsSync(path.join(repositoryRoot, file)), `${file} is missing at the repository root`);
});

test("the GitHub release carries the plugin's main.js, manifest.json and styles.css, tagged with the bare version", () => {
  const release = job('release');
  for (const file of ['main.js', 'manifest.json', 'styles.css']) {
    assert.ok(release.includes(`obsidian-plugin/${file}`), `the release job does not upload obsidian-plugin/${file}`);
    assert.ok(existsSync(path.join(repositoryRoot, 'obsidian-plugin', file)), `obsidian-plugin/${file} is missing`);
  }
  // Obsidian downloads https://github.com/OWNER/REPO/releases/download/<manifest version>/main.js.
  assert.equal(env('release', 'VERSION'), '${{ needs.version.outputs.version }}', 'the release job VERSION');
  assert.match(release, /gh release create "\$VERSION" /, 'the release is created at the tag "$VERSION", without a v');
  assert.match(job('version'), /node packaging\/test\/release-versions\.mjs --tag "\$TAG" >> "\$GITHUB_OUTPUT"/, 'the version job checks the tag');
});

test('one version everywhere: both crates, the plugin manifest (and versions.json), the npm launcher', () => {
  const { problems } = releaseVersion();
  assert.deepEqual(problems, []);
  assert.equal(JSON.parse(read('obsidian-plugin/manifest.json')).version, version);
  const run = (tag) => spawnSync(process.execPath, [path.join(repositoryRoot, 'packaging/test/release-versions.mjs'), '--tag', tag], { encoding: 'utf8' });
  const good = run(`v${version}`);
  assert.equal(good.status, 0, good.stderr);
  assert.equal(good.stdout, `version=${version}\n`);
  for (const tag of [version, `v${version}.1`]) {
    const bad = run(tag);
    assert.equal(bad.status, 1, `the tag ${tag} must be refused`);
    assert.match(bad.stderr, new RegExp(`the tag is ${tag.replace(/\./g, '\\.')}`));
  }
});
