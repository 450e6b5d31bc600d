// A loopback HTTP proxy for test tools that cannot send a token (the conformance suite): it adds
// `Authorization: Bearer <token>` and passes everything else through unchanged, Host and Origin included, streaming
// bodies both ways (SSE answers arrive as they are written). The plugin's checks stay exactly as strict.
import http from "node:http";

/** Starts the proxy on a free loopback port; resolves `{ port, url, close() }`. */
export function startAuthProxy({ targetPort, token }) {
  const sockets = new Set();
  const server = http.createServer((request, response) => {
    const headers = { ...request.headers, authorization: `Bearer ${token}` };
    const upstream = http.request(
      { host: "127.0.0.1", port: targetPort, method: request.method, path: request.url, headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        response.flushHeaders();
        answer.pipe(response);
      },
    );
    upstream.on("error", (error) => {
      if (!response.headersSent) response.writeHead(502, { "content-type": "text/plain" });
      response.end(`auth proxy: upstream failed: ${error.message}`);
    });
    // A client that hangs up ends the upstream request too, so open streams do not linger.
    response.on("close", () => upstream.destroy());
    request.pipe(upstream);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({
        port,
        url: `http://localhost:${port}/mcp`,
        close: () =>
          new Promise((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
