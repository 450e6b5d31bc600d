// Test harness shared by the plugin's tests (and usable by anyone): start the host as a child process on a free
// port, in a fresh temp vault; ./client.mjs speaks MCP over HTTP to it. Plain ESM, no npm dependencies. Every wait
// is bounded and every child is reaped, even when a test fails half-way.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const hostScript = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "host.mjs");
const liveChildren = new Set();
process.on("exit", () => {
  for (const child of liveChildren) child.kill("SIGKILL");
});

import { freePort } from "../../scripts/bundle.mjs";

export { freePort };

/** A fresh token of the shape the plugin generates (256 random bits, hex). */
export function newToken() {
  return randomBytes(32).toString("hex");
}

/** A fresh empty folder under the OS temp dir; removed by the returned `remove()`. */
export function tempDir(prefix = "obsmcp-test-") {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Resolves with `promise`, or rejects after `ms` with a message naming `what`. */
export function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Starts `host.mjs` on `vaultDir` and waits (bounded) for its `listening on N` line. Without a port it picks a free
 * one, and retries with another when that port was taken in between. Returns
 * `{ port, token, url, baseUrl, child, stderr(), stop(), restart(), reload() }`.
 */
export async function startHost({ vaultDir, port, token = newToken(), readOnly = false, configDir, timeoutMs = 15000, fdLimit, stalls, indexHold }) {
  if (!vaultDir) throw new Error("startHost needs a vaultDir");
  const attempts = port === undefined ? 3 : 1;
  let lastError;
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const chosenPort = port ?? (await freePort());
    try {
      return await spawnHost({ vaultDir, port: chosenPort, token, readOnly, configDir, timeoutMs, fdLimit, stalls, indexHold });
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

async function spawnHost(options) {
  const { vaultDir, port, token, readOnly, configDir, timeoutMs, fdLimit, stalls, indexHold } = options;
  const args = [hostScript, "--vault", vaultDir, "--port", String(port), "--token", token];
  if (readOnly) args.push("--read-only");
  // `stalls` is a file for the host's event-loop delay monitor (see host.mjs); `longestStall()` reads it.
  if (stalls) args.push("--stalls", stalls);
  if (configDir) args.push("--config-dir", configDir);
  // `indexHold` pauses the fake's startup indexing after that many notes; `resumeIndexing()` lets it go on.
  if (indexHold !== undefined) args.push("--index-hold", String(indexHold));
  const stdin = indexHold === undefined ? "ignore" : "pipe";
  // `fdLimit` runs the host with that many file descriptors at most, as a desktop app may have. To profile the host,
  // OBSMCP_HOST_NODE_ARGS passes flags to its node (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
  const nodeArgs = (process.env.OBSMCP_HOST_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const child =
    fdLimit === undefined
      ? spawn(process.execPath, [...nodeArgs, ...args], { stdio: [stdin, "pipe", "pipe"] })
      : spawn("/bin/sh", ["-c", `ulimit -n ${Number(fdLimit)} && exec "$0" "$@"`, process.execPath, ...args], {
          stdio: [stdin, "pipe", "pipe"],
        });
  liveChildren.add(child);
  let stderr = "";
  let stdout = "";
  const readyWaiters = [];
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
    let newline;
    while ((newline = stdout.indexOf("\n")) >= 0) {
      const line = stdout.slice(0, newline);
      stdout = stdout.slice(newline + 1);
      const waiter = readyWaiters.shift();
      if (waiter) waiter(line);
    }
  });
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  exited.then(() => liveChildren.delete(child));

  const nextLine = (what) =>
    withTimeout(
      Promise.race([
        new Promise((resolve) => readyWaiters.push(resolve)),
        exited.then(({ code, signal }) => {
          throw new Error(`host exited (${signal ?? code}) before ${what}; stderr:\n${stderr}`);
        }),
      ]),
      timeoutMs,
      `${what}; stderr:\n${stderr}`,
    );

  const expectListening = async (what) => {
    const line = await nextLine(what);
    if (line !== `listening on ${port}`) throw new Error(`host printed ${JSON.stringify(line)}, not "listening on ${port}"`);
  };

  try {
    await expectListening("it was listening");
  } catch (error) {
    child.kill("SIGKILL");
    await exited;
    throw error;
  }

  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return exited;
    child.kill("SIGTERM");
    try {
      return await withTimeout(exited, 5000, "host exit after SIGTERM");
    } catch (error) {
      child.kill("SIGKILL");
      await exited;
      throw error;
    }
  };

  const url = `http://127.0.0.1:${port}/mcp`;
  return {
    port,
    token,
    url,
    baseUrl: `http://127.0.0.1:${port}`,
    child,
    exited,
    stderr: () => stderr,
    stop,
    /** Stops this host and starts a new one on the same port, vault and token (an Obsidian restart). */
    restart: async () => {
      await stop();
      return spawnHost(options);
    },
    /** With `stalls`: the longest the host's event loop was held (ms) since the previous call or the start. */
    longestStall: async () => {
      // A report being written may be read half-way: that read counts as no report yet.
      const report = () => {
        try {
          return JSON.parse(fs.readFileSync(stalls, "utf8"));
        } catch {
          return { round: 0 };
        }
      };
      const before = report().round;
      child.kill("SIGUSR2");
      for (let waited = 0; waited < 5000; waited += 10) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        const now = report();
        if (now.round > before) return now.max_ms;
      }
      throw new Error(`host wrote no stall report to ${stalls}; stderr:\n${stderr}`);
    },
    /** With `indexHold`: lets the held startup indexing go on. */
    resumeIndexing: () => {
      child.stdin.write("resume-indexing\n");
    },
    /** Unloads and reloads the plugin inside the same process (a plugin reload); resolves when it listens again. */
    reload: async () => {
      child.kill("SIGHUP");
      await expectListening("it was listening again after reload");
    },
  };
}

/**
 * Waits (bounded) until Obsidian's metadata cache is complete, as a client would see it: `vault_info` answers with
 * an `indexing` key first until then. For tests that need complete answers from a large vault at once.
 */
export async function untilIndexed(client, timeoutMs = 60000) {
  const started = performance.now();
  for (;;) {
    const result = await client.callTool("vault_info", {});
    const text = result.content?.[0]?.text ?? "";
    if (!text.startsWith('{"indexing":')) return Math.round(performance.now() - started);
    if (performance.now() - started > timeoutMs) throw new Error(`still indexing after ${timeoutMs} ms: ${text.slice(0, 200)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
