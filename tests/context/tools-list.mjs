// What the bridge's tool definitions cost an agent's context when a client loads them all up front (Claude Code's
// `alwaysLoad`, README.md's `--always-load`): the number of tools and the bytes of the `tools/list` answer as the
// bridge writes it on stdout, one JSON-RPC line. The bridge runs as a client starts it, `obsmcp bridge --vault`, on an
// empty vault with a throwaway HOME and Obsidian absent: it then answers with its full catalog, which is what an
// agent sees. The figures in README.md come from this command.
//
//   node tests/context/tools-list.mjs [--binary PATH] [--protocol-version 2025-06-18] [--json]
//
// The binary defaults to OBSMCP_BIN, else target/release/obsmcp. Prints one line (or a JSON object with --json):
// the tools, the bytes (the line without its newline), and tokens estimated at 4 bytes each.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The default binary: OBSMCP_BIN, else the release build. */
export const defaultBinary = () => process.env.OBSMCP_BIN ?? path.join(repositoryRoot, 'target/release/obsmcp');

/**
 * Starts `binary bridge --vault <empty vault>`, sends initialize, notifications/initialized and tools/list as
 * JSON-RPC lines on stdin, and resolves to `{ tools, bytes, names }` from the tools/list answer's line.
 */
export function measureToolsList(binary, { protocolVersion = '2025-06-18', timeoutMs = 15_000 } = {}) {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'obsmcp-tools-list-'));
  const vault = path.join(folder, 'vault');
  const home = path.join(folder, 'home');
  const cleanUp = () => rmSync(folder, { recursive: true, force: true });
  const child = spawn(binary, ['bridge', '--vault', vault], {
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
        return finish(null, { tools: names.length, bytes: line.length, names });
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

async function main() {
  const { values } = parseArgs({
    options: { binary: { type: 'string' }, 'protocol-version': { type: 'string' }, json: { type: 'boolean' } },
  });
  const binary = values.binary ?? defaultBinary();
  const protocolVersion = values['protocol-version'] ?? '2025-06-18';
  const { tools, bytes } = await measureToolsList(binary, { protocolVersion });
  const tokens = Math.round(bytes / 4);
  if (values.json) {
    console.log(JSON.stringify({ binary, protocolVersion, tools, bytes, estimatedTokens: tokens }));
  } else {
    const format = (number) => number.toLocaleString('en-US');
    console.log(`${tools} tools; tools/list answer ${format(bytes)} bytes as sent (about ${format(tokens)} tokens at 4 bytes each)`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((error) => {
    console.error(`error: ${error.message}`);
    console.error('hint: build the binary (cargo build --release --locked) or pass --binary PATH');
    process.exit(1);
  });
}
