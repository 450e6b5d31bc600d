// The legacy HTTP+SSE transport (protocol 2024-11-05) for old clients. `GET /sse` opens an event stream whose first
// event, `endpoint`, names where to POST (`/messages?sessionId=…`); every POSTed message is answered 202 and its
// answers arrive on the stream as `message` events. SDK v2 ships no server side for it (only a frozen v1 copy that
// needs Express and another copy of the SDK's core), so this is the plugin's own, on the SDK's `Transport`
// interface: the same server instance serves it as it serves Streamable HTTP.
//
// The stream gets a comment line every SSE_KEEP_ALIVE_MS so that proxies and client timeouts keep it open, and is
// closed instead of buffering when its client stops reading (unread.ts).

import { randomUUID } from "crypto";
import type { ServerResponse } from "http";
import { parseJSONRPCMessage, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/server";
import { closeWhenUnread } from "./unread";

/** Interval of the comment lines that keep idle legacy streams open. */
export const SSE_KEEP_ALIVE_MS = 15_000;

export class LegacySseTransport implements Transport {
  readonly sessionId = randomUUID();
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private closed = false;
  private keepAlive: ReturnType<typeof setInterval> | undefined;

  /** `endpoint` is the path messages are POSTed to; `onCut` is told when the stream was closed for unread bytes. */
  constructor(
    private readonly endpoint: string,
    private readonly response: ServerResponse,
    onCut: (unread: number) => void,
  ) {
    closeWhenUnread(response, onCut);
  }

  async start(): Promise<void> {
    if (this.keepAlive !== undefined) throw new Error("the legacy SSE transport is already started");
    this.response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", connection: "keep-alive" });
    this.response.write(`event: endpoint\ndata: ${this.endpoint}?sessionId=${this.sessionId}\n\n`);
    this.keepAlive = setInterval(() => {
      if (!this.response.writableEnded) this.response.write(": keepalive\n\n");
    }, SSE_KEEP_ALIVE_MS);
    this.response.once("close", () => this.finish());
  }

  /**
   * Hands a POSTed body (one message or a batch) to the server. Returns why it is not JSON-RPC, delivering
   * nothing, or undefined when every message was delivered.
   */
  receive(body: unknown): string | undefined {
    const messages: JSONRPCMessage[] = [];
    for (const item of Array.isArray(body) ? body : [body]) {
      try {
        messages.push(parseJSONRPCMessage(item));
      } catch {
        return "the body is not a JSON-RPC message";
      }
    }
    for (const message of messages) this.onmessage?.(message);
    return undefined;
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed || this.response.writableEnded) return;
    this.response.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  async close(): Promise<void> {
    if (!this.response.writableEnded) this.response.end();
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.keepAlive);
    this.onclose?.();
  }
}
