// The plugin's open connections, bounded: one local program opening idle sockets must not leave Obsidian unable to
// open files, and a connection that never authenticates does not keep its place.

import type { Socket } from "net";

/**
 * Open connections at most, well under the descriptors a process has (256 on a default macOS, 1024 on Linux): one
 * local program opening idle sockets must not leave Obsidian unable to open files. Past it, the oldest connection
 * that has not yet authenticated is dropped to make room; with none, the new one is refused.
 */
export const MAX_CONNECTIONS = 128;
/** A connection must deliver a request's headers, and authenticate, within this long, or it is closed. */
export const HEADERS_TIMEOUT_MS = 5_000;
/** How often Node checks for connections past the headers timeout. */
export const CONNECTION_CHECK_MS = 1_000;

export class Connections {
  /** Open sockets in the order they connected; the value says whether one of its requests authenticated. */
  private readonly sockets = new Map<Socket, { authenticated: boolean }>();

  /** Counts a new connection; past MAX_CONNECTIONS, drops the oldest unauthenticated one (or this one). */
  admit(socket: Socket): void {
    if (this.sockets.size >= MAX_CONNECTIONS) {
      let victim: Socket = socket;
      for (const [open, state] of this.sockets) {
        if (!state.authenticated) {
          victim = open;
          break;
        }
      }
      victim.destroy();
      if (victim === socket) return;
    }
    const state = { authenticated: false };
    this.sockets.set(socket, state);
    // Node's headers timeout does not cover a connection that never sends a byte: it gets this long to authenticate.
    const deadline = setTimeout(() => {
      if (!state.authenticated) socket.destroy();
    }, HEADERS_TIMEOUT_MS);
    socket.once("close", () => {
      clearTimeout(deadline);
      this.sockets.delete(socket);
    });
  }

  /** Marks the connection as one that authenticated: it is no longer the first to go when connections run out. */
  authenticated(socket: Socket): void {
    const state = this.sockets.get(socket);
    if (state) state.authenticated = true;
  }
}
