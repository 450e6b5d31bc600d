// The server's observable state, kept as one explicit value (not a bundle of flags) so the settings tab, the host
// and the tests all read the same thing, and notified to listeners on every change.

/** Where the HTTP server is in its life. */
export type ServerState = "stopped" | "starting" | "listening" | "port-in-use" | "failed";

/** A snapshot of the server for display and tests. */
export interface ServerStatus {
  state: ServerState;
  port: number;
  /**
   * Connected clients: open 2025-era sessions (Streamable HTTP and legacy SSE), and 2026-07-28 clients heard from in
   * the last minute (they open no session).
   */
  clients: number;
  readOnly: boolean;
  /** Obsidian's metadata indexing: `resolved` once the cache is complete, else how many notes of how many are done. */
  indexing?: { resolved: boolean; done: number; total: number };
  /** The most recent failure (start-up, transport or unexpected tool error), if any. */
  lastError?: string;
  lastErrorAt?: number;
}

type Listener = (status: ServerStatus) => void;

/** Holds the current status and tells listeners when it changes. */
export class StatusBoard {
  private current: ServerStatus;
  private readonly listeners = new Set<Listener>();

  /** `live` adds what is read when asked rather than kept (Obsidian's indexing). */
  constructor(
    port: number,
    readOnly: boolean,
    private readonly live: () => Partial<ServerStatus> = () => ({}),
  ) {
    this.current = { state: "stopped", port, clients: 0, readOnly };
  }

  get status(): ServerStatus {
    return { ...this.current, ...this.live() };
  }

  update(change: Partial<ServerStatus>): void {
    this.current = { ...this.current, ...change };
    const snapshot = this.status;
    for (const listener of this.listeners) listener(snapshot);
  }

  recordError(message: string): void {
    this.update({ lastError: message, lastErrorAt: Date.now() });
  }

  /** Calls `listener` on every change; returns the function that stops it. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
