// The one version a release ships, and the places that must all say it: both crates, the Obsidian plugin's manifest
// (and its versions.json entry), and the npm launcher with the platform packages it pins. The release workflow's
// first job runs this with the pushed tag, which must be `v<version>`; artifacts.test.mjs runs it without one.
//
//   node packaging/test/release-versions.mjs [--tag vX.Y.Z]
//
// Prints `version=X.Y.Z` (a line for $GITHUB_OUTPUT) when everything agrees; otherwise every disagreement on stderr
// and exit status 1.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

export const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The `version` of the `[package]` table of a Cargo.toml, or undefined. */
function cargoVersion(file) {
  let inPackage = false;
  for (const line of readFileSync(path.join(repositoryRoot, file), 'utf8').split(/\r?\n/)) {
    const table = line.match(/^\s*\[([^\]]*)\]/);
    if (table) inPackage = table[1].trim() === 'package';
    const version = inPackage && line.match(/^\s*version\s*=\s*"([^"]+)"/);
    if (version) return version[1];
  }
  return undefined;
}

const readJson = (file) => JSON.parse(readFileSync(path.join(repositoryRoot, file), 'utf8'));

/**
 * The release version (Cargo.toml's) and every problem found: a place that says another version, a versions.json
 * without the manifest's entry, or a tag that is not `v<version>`.
 */
export function releaseVersion(tag) {
  const version = cargoVersion('Cargo.toml');
  if (version === undefined) return { version, problems: ['Cargo.toml has no [package] version'] };
  const manifest = readJson('obsidian-plugin/manifest.json');
  const launcher = readJson('packaging/npm/obsmcp/package.json');
  const found = [
    ['installer/Cargo.toml [package] version', cargoVersion('installer/Cargo.toml')],
    ['obsidian-plugin/manifest.json version', manifest.version],
    ['packaging/npm/obsmcp/package.json version', launcher.version],
    ...Object.entries(launcher.optionalDependencies ?? {}).map(([name, range]) => [
      `packaging/npm/obsmcp/package.json optionalDependencies.${name}`,
      range,
    ]),
  ];
  const problems = found
    .filter(([, value]) => value !== version)
    .map(([where, value]) => `${where} is ${JSON.stringify(value)}, Cargo.toml says ${version}`);
  const minimum = readJson('obsidian-plugin/versions.json')[manifest.version];
  if (minimum !== manifest.minAppVersion) {
    problems.push(
      `obsidian-plugin/versions.json maps ${manifest.version} to ${JSON.stringify(minimum)}, ` +
        `manifest.json's minAppVersion is ${manifest.minAppVersion} (Obsidian reads both)`,
    );
  }
  if (tag !== undefined && tag !== `v${version}`) {
    problems.push(`the tag is ${tag}, the version is ${version}: tag the release v${version}`);
  }
  return { version, problems };
}

function main() {
  const { values } = parseArgs({ options: { tag: { type: 'string' } } });
  const { version, problems } = releaseVersion(values.tag);
  if (problems.length > 0) {
    process.stderr.write(`${problems.map((problem) => `error: ${problem}`).join('\n')}\n`);
    process.stderr.write('hint: every file ships the same version; set each one above to the release version\n');
    process.exit(1);
  }
  process.stdout.write(`version=${version}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) main();
