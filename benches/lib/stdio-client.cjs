// The benchmarks' stdio MCP client (benches/search-quality/run, benches/semantic/run): Node's standard library only.
"use strict";

const { spawn } = require("node:child_process");
const readline = require("node:readline");

// A stdio MCP client for the benchmarks: newline-delimited JSON-RPC, one pending promise per request id.
class StdioClient {
  constructor(name, command, args, env, { timeoutMs = 60_000, clientName = "obsmcp-bench" } = {}) {
    this.name = name;
    this.timeoutMs = timeoutMs;
    this.clientName = clientName;
    this.nextId = 1;
    this.pending = new Map();
    this.stderr = "";
    this.child = spawn(command, args, { env, stdio: ["pipe", "pipe", "pipe"] });
    this.exited = new Promise((resolve) => this.child.on("exit", (code, signal) => resolve({ code, signal })));
    this.child.on("error", (error) => this.rejectAll(error));
    this.exited.then(({ code, signal }) =>
      this.rejectAll(new Error(`${name} exited (${signal || code}); stderr: ${this.stderr.slice(-500)}`)));
    this.child.stderr.on("data", (chunk) => {
      this.stderr = (this.stderr + chunk).slice(-4000);
    });
    readline.createInterface({ input: this.child.stdout }).on("line", (line) => this.receive(line));
  }

  receive(line) {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      this.stderr = (this.stderr + `\n[not JSON on stdout] ${line}`).slice(-4000);
      return;
    }
    const waiter = message.id !== undefined ? this.pending.get(message.id) : undefined;
    if (!waiter) return;
    this.pending.delete(message.id);
    clearTimeout(waiter.timer);
    if (message.error) waiter.reject(new Error(`${message.error.code}: ${message.error.message}`));
    else waiter.resolve(message.result);
  }

  rejectAll(error) {
    for (const waiter of this.pending.values()) {
      clearTimeout(waiter.timer);
      waiter.reject(error);
    }
    this.pending.clear();
  }

  request(method, params) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method} got no answer within ${this.timeoutMs / 1000} s`));
      }, this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  }

  notify(method, params) {
    this.child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method, ...(params ? { params } : {}) }) + "\n");
  }

  async initialize() {
    const result = await this.request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: this.clientName, version: "1" },
    });
    this.notify("notifications/initialized");
    return result;
  }

  // Closing stdin is how a client says goodbye over stdio; a server that lingers is ended after 3 s.
  async close() {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 3000);
    await this.exited;
    clearTimeout(timer);
  }
}

module.exports = { StdioClient };
