// Writes the npm package that carries the obsmcp binary for one platform (obsmcp-<os>-<cpu>), ready for `npm pack`.
// npm installs it only where `os`, `cpu` (and `libc` on Linux) match, as an optional dependency of the launcher
// package `obsmcp`; it has no bin and no scripts, the launcher finds the binary by the package's name.
//
//   node packaging/npm/platform.mjs --os linux --cpu x64 --binary PATH --out DIR [--version V]
//
// Prints the folder it wrote. The version defaults to the one in the repository's Cargo.toml.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** What each supported npm `os` is called in a description. */
const OPERATING_SYSTEMS = { linux: 'Linux', darwin: 'macOS', win32: 'Windows' };
const CPUS = ['x64', 'arm64'];

/** The `version` of the `[package]` table in the repository's Cargo.toml. */
export function workspaceVersion() {
  const manifest = readFileSync(path.join(repositoryRoot, 'Cargo.toml'), 'utf8');
  let inPackage = false;
  for (const line of manifest.split(/\r?\n/)) {
    const table = line.match(/^\s*\[([^\]]*)\]/);
    if (table) inPackage = table[1].trim() === 'package';
    const version = inPackage && line.match(/^\s*version\s*=\s*"([^"]+)"/);
    if (version) return version[1];
  }
  throw new Error('Cargo.toml has no [package] version');
}

/** Writes `<out>/obsmcp-<os>-<cpu>/` and returns its path. */
export function writePlatformPackage({ os, cpu, binary, out, version }) {
  const name = `obsmcp-${os}-${cpu}`;
  const folder = path.join(out, name);
  const executable = os === 'win32' ? 'obsmcp.exe' : 'obsmcp';
  const license = path.join(repositoryRoot, 'LICENSE');
  const files = [`bin/${executable}`, 'README.md'];

  // The folder is this script's output alone, so an older one is replaced whole rather than merged.
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(path.join(folder, 'bin'), { recursive: true });
  copyFileSync(binary, path.join(folder, 'bin', executable));
  chmodSync(path.join(folder, 'bin', executable), 0o755);
  if (existsSync(license)) {
    copyFileSync(license, path.join(folder, 'LICENSE'));
    files.push('LICENSE');
  }

  const platform = `${OPERATING_SYSTEMS[os]} ${cpu}${os === 'linux' ? ' (glibc)' : ''}`;
  const manifest = {
    name,
    version,
    description: `The obsmcp binary for ${platform}, installed by the obsmcp package`,
    homepage: 'https://github.com/obsmcp/obsmcp',
    repository: { type: 'git', url: 'git+https://github.com/obsmcp/obsmcp.git', directory: 'packaging/npm' },
    license: '0BSD',
    os: [os],
    cpu: [cpu],
    // The binary links glibc; on musl npm then skips the package and the launcher explains why.
    ...(os === 'linux' ? { libc: ['glibc'] } : {}),
    files,
    // Yarn Plug'n'Play must unpack it: a binary cannot run from inside a zip archive.
    preferUnplugged: true,
  };
  writeFileSync(path.join(folder, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(
    path.join(folder, 'README.md'),
    `The obsmcp binary for ${platform}: install the [obsmcp](https://www.npmjs.com/package/obsmcp) package, ` +
      'not this one.\n',
  );
  return folder;
}

const USAGE = 'usage: node packaging/npm/platform.mjs --os linux --cpu x64 --binary PATH --out DIR [--version V]\n';

function main() {
  const text = { type: 'string' };
  const options = { os: text, cpu: text, binary: text, out: text, version: text };
  let values;
  try {
    ({ values } = parseArgs({ options }));
  } catch (error) {
    process.stderr.write(`error: ${error.message}\n${USAGE}`);
    process.exit(2);
  }
  const problems = [];
  if (!Object.hasOwn(OPERATING_SYSTEMS, values.os ?? '')) {
    problems.push(`--os must be one of ${Object.keys(OPERATING_SYSTEMS).join(', ')}`);
  }
  if (!CPUS.includes(values.cpu)) problems.push(`--cpu must be one of ${CPUS.join(', ')}`);
  if (!values.out) problems.push('--out DIR is required');
  if (!values.binary) {
    problems.push('--binary PATH is required');
  } else if (!existsSync(values.binary) || !statSync(values.binary).isFile()) {
    problems.push(`--binary ${values.binary} is not a file`);
  }
  if (problems.length > 0) {
    process.stderr.write(`${problems.map((problem) => `error: ${problem}`).join('\n')}\n${USAGE}`);
    process.exit(2);
  }
  const folder = writePlatformPackage({ ...values, version: values.version ?? workspaceVersion() });
  process.stdout.write(`${folder}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) main();
