#!/usr/bin/env node
// A transparent pass-through for a stdio MCP server, used by tests that must see what the bridge sent upstream:
//   node wiretap.mjs LOGFILE COMMAND ARGS...
// Runs COMMAND with its stdout and stderr passed straight through, copies our stdin to its stdin unchanged, and
// appends every stdin line to LOGFILE. Exits when the server exits (with its code) and ends the server when our
// stdin closes or we are signalled, so it leaves nothing behind.
import { spawn } from "node:child_process";
import fs from "node:fs";

const [logFile, command, ...args] = process.argv.slice(2);
const server = spawn(command, args, { stdio: ["pipe", "inherit", "inherit"] });
const log = fs.openSync(logFile, "a");
process.stdin.on("data", (chunk) => {
  fs.writeSync(log, chunk);
  server.stdin.write(chunk);
});
process.stdin.on("end", () => server.stdin.end());
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
for (const name of ["SIGTERM", "SIGINT", "SIGHUP"]) {
  process.on(name, () => {
    server.kill("SIGKILL");
    process.exit(0);
  });
}
