// Small helpers for the answers the router gives itself (before a request reaches an SDK transport): always a
// JSON-RPC error object, so a client that only parses JSON-RPC still learns what went wrong.

import type { ServerResponse } from "http";

/** JSON-RPC error codes used by the router. */
export const RpcCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  /** Server-defined: request refused by the transport (auth, origin, session, size). */
  Refused: -32000,
  /** Server-defined: the session does not exist (any more). */
  SessionNotFound: -32001,
} as const;

type Id = string | number | null;

/** Sends `{jsonrpc, id, error}` with the HTTP status and extra headers given. */
export function sendRpcError(
  response: ServerResponse,
  status: number,
  code: number,
  message: string,
  id: Id = null,
  headers: Record<string, string> = {},
): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  const body = JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } });
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    ...headers,
  });
  response.end(body);
}
