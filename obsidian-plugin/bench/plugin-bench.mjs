#!/usr/bin/env node
// Benchmark of the plugin's heavy read tools on a generated 10,000-note vault, through the real main.js under the
// host and a real MCP session over loopback HTTP (so each figure includes the HTTP and JSON-RPC round trip).
//
//   node bench/plugin-bench.mjs [--notes 10000] [--runs 15] [--warmup 3] [--out results.json]
//
// Prints a Markdown table of median / p90 / min milliseconds per case; --out also writes them as JSON.
// Not a timed test: figures depend on the machine.
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { connect, resultText, startHost, tempDir } from "../test/lib/harness.mjs";
import { generateVault } from "../test/gen-vault.mjs";

const { values: options } = parseArgs({
  options: {
    notes: { type: "string", default: "10000" },
    runs: { type: "string", default: "15" },
    warmup: { type: "string", default: "3" },
    out: { type: "string" },
  },
  strict: true,
});
const notes = Number(options.notes);
const runs = Number(options.runs);
const warmup = Number(options.warmup);
if (!Number.isInteger(notes) || notes < 1 || !Number.isInteger(runs) || runs < 1 || !Number.isInteger(warmup) || warmup < 0) {
  process.stderr.write("usage: plugin-bench.mjs [--notes N] [--runs N] [--warmup N] [--out FILE]\n");
  process.exit(2);
}

/** The measured calls: each is one tools/call, except the last, which pages through the whole listing. */
const CASES = [
  { name: "search text (no match: scans every note)", tool: "search", args: { query: "xylophone orchestra" } },
  { name: "search text (common word: first page)", tool: "search", args: { query: "glacier" } },
  { name: "search regex (no match: scans every note)", tool: "search", args: { query: "\\bxylo\\w*phone\\b", regex: true } },
  { name: "search regex (common: first page)", tool: "search", args: { query: "\\bsumm?it\\s+\\w+", regex: true } },
  { name: "backlinks of Hub.md (first page, snippets)", tool: "backlinks", args: { path: "Hub.md" } },
  { name: "list_files of everything (first page)", tool: "list_files", args: { limit: 500 } },
  { name: "list_files of everything (all pages)", tool: "list_files", args: { limit: 500, max_chars: 200000 }, allPages: true },
];

function quantile(sorted, q) {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index];
}

const vault = tempDir("obsmcp-bench-");
let host;
try {
  const generated = performance.now();
  const summary = generateVault(vault.dir, { notes });
  process.stderr.write(`generated ${notes} notes in ${Math.round(performance.now() - generated)} ms\n`);
  const started = performance.now();
  host = await startHost({ vaultDir: vault.dir, timeoutMs: 120000 });
  const startupMs = performance.now() - started;
  const client = connect(host.url, host.token, { timeoutMs: 60000 });
  await client.initialize();

  const callOnce = async (testCase) => {
    let cursor;
    let pages = 0;
    let chars = 0;
    do {
      const result = await client.callTool(testCase.tool, cursor ? { ...testCase.args, cursor } : testCase.args);
      const text = resultText(result);
      if (result.isError) throw new Error(`${testCase.name}: ${text}`);
      chars += text.length;
      pages++;
      cursor = testCase.allPages ? JSON.parse(text).next_cursor : null;
    } while (cursor);
    return { pages, chars };
  };

  const results = [];
  for (const testCase of CASES) {
    for (let i = 0; i < warmup; i++) await callOnce(testCase);
    const times = [];
    let shape;
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      shape = await callOnce(testCase);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const round = (ms) => Math.round(ms * 10) / 10;
    results.push({
      case: testCase.name,
      tool: testCase.tool,
      args: testCase.args,
      runs,
      median_ms: round(quantile(times, 0.5)),
      p90_ms: round(quantile(times, 0.9)),
      min_ms: round(times[0]),
      pages: shape.pages,
      result_chars: shape.chars,
    });
  }
  await client.close();

  const lines = [
    `Plugin tools on ${notes} generated notes (${(summary.bytes / 1e6).toFixed(1)} MB), ${runs} runs after ${warmup} warm-up, ` +
      `Node ${process.version}; host start ${Math.round(startupMs)} ms.`,
    "",
    "| case | median ms | p90 ms | min ms | result chars |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...results.map((row) => `| ${row.case} | ${row.median_ms} | ${row.p90_ms} | ${row.min_ms} | ${row.result_chars} |`),
  ];
  process.stdout.write(lines.join("\n") + "\n");
  if (options.out) {
    fs.mkdirSync(path.dirname(path.resolve(options.out)), { recursive: true });
    fs.writeFileSync(
      options.out,
      JSON.stringify({ notes, vault_bytes: summary.bytes, runs, warmup, node: process.version, host_start_ms: Math.round(startupMs), results }, null, 2) + "\n",
    );
  }
} finally {
  await host?.stop();
  vault.remove();
}
