// Between Node's `http` objects and the web-standard `Request` / `Response` the SDK's HTTP handlers take and give.
// The router has already read and parsed the body, so the Request carries headers, method and URL only and the
// parsed body travels beside it (the SDK never reads it again). A client that hangs up aborts the Request's signal,
// which ends the exchange inside the SDK.
//
// A JSON answer is written in one piece. An event stream is written as it comes, through closeWhenUnread: the SDK
// queues stream frames without waiting for the socket, so a client that stops reading would otherwise have them
// pile up in Obsidian's memory.

import type { IncomingMessage, ServerResponse } from "http";
import { closeWhenUnread } from "./unread";

/** A web Request for `request` (headers, method, URL), aborted when the client goes away before the answer ends. */
export function toWebRequest(request: IncomingMessage, response: ServerResponse): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const controller = new AbortController();
  response.once("close", () => {
    if (!response.writableFinished) controller.abort();
  });
  const url = new URL(request.url ?? "/", `http://${request.headers.host ?? "127.0.0.1"}`);
  return new Request(url, { method: request.method ?? "GET", headers, signal: controller.signal });
}

/** Writes a web Response to `response`; `onCut` is told when a stream was closed because its client stopped reading. */
export async function sendWebResponse(response: ServerResponse, answer: Response, onCut: (unread: number) => void): Promise<void> {
  if (response.destroyed) {
    // Nobody is left to read it; a body that cannot be cancelled has already ended.
    await answer.body?.cancel().catch(() => undefined);
    return;
  }
  const headers: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const streaming = (answer.headers.get("content-type") ?? "").includes("text/event-stream");
  if (!streaming || answer.body === null) {
    const bytes = Buffer.from(await answer.arrayBuffer());
    if (response.destroyed) return;
    if (answer.body !== null) headers["content-length"] = String(bytes.length);
    response.writeHead(answer.status, headers);
    response.end(bytes);
    return;
  }
  closeWhenUnread(response, onCut);
  response.writeHead(answer.status, headers);
  response.flushHeaders();
  const reader = answer.body.getReader();
  // The client went away: the SDK's stream is cancelled (a stream that already ended has nothing to cancel).
  const stop = () => void reader.cancel().catch(() => undefined);
  response.once("close", stop);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (response.destroyed) break;
      response.write(value);
    }
    if (!response.destroyed) response.end();
  } catch {
    // The stream failed or was cancelled: the client sees the connection end, which is what the SDK meant.
    response.destroy();
  } finally {
    response.off("close", stop);
  }
}
