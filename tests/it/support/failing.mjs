#!/usr/bin/env node
// A server that holds the plugin's port and fails every request, for tests of what the bridge does meanwhile:
//   node failing.mjs PORT MODE LOGFILE
// MODE "500" answers every request with HTTP 500; MODE "close" drops each connection as soon as a request arrives.
// Appends one line per request to LOGFILE (its method and URL). Prints "up" once listening.
import fs from "node:fs";
import http from "node:http";

const [port, mode, logFile] = process.argv.slice(2);
if (mode !== "500" && mode !== "close") {
  console.error(`failing.mjs: MODE must be 500 or close, not ${mode}`);
  process.exit(2);
}
const log = fs.openSync(logFile, "a");

const server = http.createServer((request, response) => {
  fs.writeSync(log, `${request.method} ${request.url}\n`);
  if (mode === "close") {
    request.socket.destroy();
    return;
  }
  request.resume();
  request.on("end", () => response.writeHead(500, { "content-type": "text/plain" }).end("internal error"));
});
server.listen(Number(port), "127.0.0.1", () => console.log("up"));
for (const name of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(name, () => process.exit(0));
