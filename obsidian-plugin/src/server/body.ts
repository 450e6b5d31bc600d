// Reads a request body with a hard size limit before any parsing, so an oversized or endless upload costs at most
// the limit in memory and gets a clear 413. Bytes are joined before decoding so multi-byte UTF-8 split across
// chunks stays intact.

import type { IncomingMessage } from "http";

/** Largest accepted request body. A 20 MB note of 3-byte UTF-8 characters is about 60 MB of JSON. */
export const MAX_BODY_BYTES = 96 * 1024 * 1024;

/** The body is larger than the limit. */
export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`request body is larger than ${Math.round(limit / (1024 * 1024))} MiB`);
  }
}

/** The body is not valid JSON (or not UTF-8 text). */
export class BodyNotJson extends Error {}

/** Reads the whole body as bytes, refusing it as soon as it is known to exceed `limit`. */
export function readBody(request: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(request.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new BodyTooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        reject(new BodyTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const cleanup = () => {
      request.off("data", onData);
      request.off("end", onEnd);
      request.off("error", onError);
    };
    request.on("data", onData);
    request.on("end", onEnd);
    request.on("error", onError);
  });
}

/** How long the rest of a refused upload is still read and dropped before the connection is closed. */
export const DISCARD_MS = 2_000;

/**
 * Reads and drops the rest of a refused upload for at most `ms`, then closes the connection if the upload goes on.
 * Closing at once while the client still sends makes the kernel answer with a reset, which can destroy the 413 before
 * the client reads it (RFC 9112, section 9.6): the client then sees only a broken connection. An upload that ends in
 * time leaves the connection usable; one that never ends costs `ms` of reading, never memory.
 */
export function discardRest(request: IncomingMessage, ms = DISCARD_MS): void {
  const timer = setTimeout(() => request.destroy(), ms);
  timer.unref?.();
  const stop = () => clearTimeout(timer);
  request.once("end", stop);
  request.once("close", stop);
  request.resume();
}

/** Parses a body as JSON; empty bodies and invalid UTF-8 are refused too. */
export function parseJson(bytes: Buffer): unknown {
  if (bytes.length === 0) throw new BodyNotJson("the request body is empty");
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new BodyNotJson("the request body is not valid UTF-8");
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new BodyNotJson(`the request body is not valid JSON (${(error as Error).message})`);
  }
}
