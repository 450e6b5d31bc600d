// What the bridge's tool definitions cost an agent's context when a client loads them up front: the number of tools,
// the bytes of the `tools/list` answer as the bridge writes it on stdout (one JSON-RPC line), and its tokens counted
// by OpenAI's tokenizers (js-tiktoken, which bundles the o200k_base and cl100k_base ranks; `npm ci` in this folder).
// The bridge runs as a client starts it, `obsmcp bridge --vault [--tools PROFILE]`, on an empty vault with a throwaway
// HOME and Obsidian absent: it then answers from its embedded catalog, which is what an agent sees. The figures in
// README.md and docs/guide.md come from this command.
//
//   node tests/context/tools-list.mjs [--binary PATH] [--tools core|all] [--vaults N] [--protocol-version V] [--json]
//
// The binary defaults to OBSMCP_BIN, else target/release/obsmcp. Without --tools it measures both profiles, without
// --vaults a bridge of 1, 2 and 5 empty vaults (each tool then takes a `vault` argument naming them). Prints a line a
// measurement, with the bridge's peak RSS (or a JSON object with --json).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The default binary: OBSMCP_BIN, else the release build. */
export const defaultBinary = () => process.env.OBSMCP_BIN ?? path.join(repositoryRoot, 'target/release/obsmcp');

/** The names of the empty vaults a bridge of several is measured with, as a user might name theirs. */
const VAULT_NAMES = ['Work', 'Personal', 'Research', 'Journal', 'Archive'];

/**
 * Starts `binary bridge --vault <empty vault>` (`vaults` of them, up to 5), sends initialize,
 * notifications/initialized and tools/list as JSON-RPC lines on stdin, and resolves to
 * `{ tools, bytes, names, text, peakRssKb }` from the tools/list answer's line (the peak RSS from /proc, Linux only).
 */
export function measureToolsList(
  binary,
  { protocolVersion = '2025-06-18', timeoutMs = 15_000, tools = null, vaults = 1 } = {},
) {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'obsmcp-tools-list-'));
  const home = path.join(folder, 'home');
  const cleanUp = () => rmSync(folder, { recursive: true, force: true });
  const profile = tools ? ['--tools', tools] : [];
  const vaultArgs = VAULT_NAMES.slice(0, vaults).flatMap((name) => {
    mkdirSync(path.join(folder, name));
    return ['--vault', path.join(folder, name)];
  });
  const child = spawn(binary, ['bridge', ...vaultArgs, ...profile], {
    env: { PATH: process.env.PATH, HOME: home, USERPROFILE: home, XDG_CONFIG_HOME: path.join(home, '.config'), NO_COLOR: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let stdout = Buffer.alloc(0);
    let stderr = '';
    let settled = false;
    const finish = (error, result) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill();
      cleanUp();
      if (error) reject(new Error(`${error}\nthe bridge's stderr:\n${stderr}`));
      else resolve(result);
    };
    const timer = setTimeout(() => finish(`no tools/list answer within ${timeoutMs} ms`), timeoutMs);
    child.on('error', (error) => finish(`could not start ${binary}: ${error.message}`));
    child.on('exit', (code, signal) => finish(`the bridge exited (${signal ?? code}) before answering tools/list`));
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    // Counted in bytes as written: the answer is split at newlines of the raw stream, not of decoded text.
    child.stdout.on('data', (chunk) => {
      stdout = Buffer.concat([stdout, chunk]);
      let end;
      while ((end = stdout.indexOf(0x0a)) !== -1) {
        const line = stdout.subarray(0, end);
        stdout = stdout.subarray(end + 1);
        const message = JSON.parse(line.toString('utf8'));
        if (message.id !== 2) continue;
        if (!message.result) return finish(`tools/list failed: ${JSON.stringify(message.error)}`);
        const names = message.result.tools.map((tool) => tool.name);
        return finish(null, {
          tools: names.length,
          bytes: line.length,
          names,
          text: line.toString('utf8'),
          peakRssKb: peakRss(child.pid),
        });
      }
    });
    const send = (message) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'tools-list-measure', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  });
}

/** A process's peak resident memory in KiB (VmHWM), or null where /proc is not there. */
function peakRss(pid) {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmHWM:\s+(\d+) kB/m);
    return line ? Number(line[1]) : null;
  } catch {
    return null;
  }
}

/** Tokens of `text` by each OpenAI encoding, or null when js-tiktoken is not installed (`npm ci` in this folder). */
export async function countTokens(text) {
  let tiktoken;
  try {
    tiktoken = await import('js-tiktoken');
  } catch {
    return null;
  }
  const counts = {};
  for (const encoding of ['o200k_base', 'cl100k_base']) {
    counts[encoding] = tiktoken.getEncoding(encoding).encode(text).length;
  }
  return counts;
}

async function main() {
  const { values } = parseArgs({
    options: {
      binary: { type: 'string' },
      tools: { type: 'string' },
      vaults: { type: 'string' },
      'protocol-version': { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const binary = values.binary ?? defaultBinary();
  const protocolVersion = values['protocol-version'] ?? '2025-06-18';
  const profiles = values.tools ? [values.tools] : ['core', 'all'];
  const vaultCounts = values.vaults ? [Number(values.vaults)] : [1, 2, 5];
  const rows = [];
  for (const tools of profiles) {
    for (const vaults of vaultCounts) {
      const measured = await measureToolsList(binary, { protocolVersion, tools, vaults });
      const tokens = await countTokens(measured.text);
      if (!tokens) throw new Error('js-tiktoken is not installed: run `npm ci --prefix tests/context`');
      rows.push({ profile: tools, vaults, tools: measured.tools, bytes: measured.bytes, tokens, peakRssKb: measured.peakRssKb });
    }
  }
  if (values.json) {
    console.log(JSON.stringify({ binary, protocolVersion, profiles: rows }));
    return;
  }
  const format = (number) => number.toLocaleString('en-US');
  for (const row of rows) {
    const rss = row.peakRssKb === null ? '' : `; bridge peak RSS ${(row.peakRssKb / 1024).toFixed(1)} MB`;
    console.log(
      `--tools ${row.profile}, ${row.vaults} vault${row.vaults === 1 ? '' : 's'}: ${row.tools} tools; tools/list answer ` +
        `${format(row.bytes)} bytes as sent, ${format(row.tokens.o200k_base)} tokens (o200k_base), ` +
        `${format(row.tokens.cl100k_base)} (cl100k_base)${rss}`,
    );
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((error) => {
    console.error(`error: ${error.message}`);
    console.error('hint: build the binary (cargo build --release --locked) or pass --binary PATH; npm ci --prefix tests/context');
    process.exit(1);
  });
}
