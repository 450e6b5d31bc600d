// A bound on what a client may leave unread. Event streams (the legacy SSE transport, Streamable HTTP's GET stream,
// a 2026-07-28 `subscriptions/listen`) are written as their messages come, without waiting for the socket, so a
// client that stops reading its stream while it keeps posting requests would have every answer buffered in
// Obsidian's memory without end.

import type { ServerResponse } from "http";

/**
 * Bytes a stream may still hold unsent when its next message comes. Well above one answer (a 200,000-character
 * result of 3-byte characters is about 600 KB), so a client that reads at all is never cut off.
 */
export const MAX_UNREAD_BYTES = 8 * 1024 * 1024;

/**
 * Makes `response` close instead of buffering when its client has stopped reading: a write that finds more than
 * MAX_UNREAD_BYTES still unsent writes nothing and closes the response, and with it the session's transport.
 */
export function closeWhenUnread(response: ServerResponse, onClose: (unread: number) => void): void {
  const write = response.write;
  response.write = function writeUnlessUnread(this: ServerResponse, ...args: unknown[]): boolean {
    // Counts what the response holds and what its socket has not yet handed to the kernel.
    const unread = response.writableLength;
    if (unread <= MAX_UNREAD_BYTES) return (write as (...all: unknown[]) => boolean).apply(response, args);
    if (!response.destroyed) {
      response.destroy();
      onClose(unread);
    }
    return false;
  } as ServerResponse["write"];
}
