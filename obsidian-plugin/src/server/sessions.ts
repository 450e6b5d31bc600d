// The live 2025-era MCP sessions of both transports, keyed by session id. The registry owns their closing: a session leaves
// it when its transport closes (client gone, DELETE, or server stop), and the oldest idle session is closed when a
// client opens more than the cap allows, so a runaway client cannot pile up servers in Obsidian's memory.

import type { Server, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import type { LegacySseTransport } from "./legacy-sse";

/** The most sessions kept at once. */
export const MAX_SESSIONS = 64;

interface Transports {
  streamable: WebStandardStreamableHTTPServerTransport;
  sse: LegacySseTransport;
}

/** One live session of either transport kind. */
export type Session<Kind extends keyof Transports = keyof Transports> = {
  [K in Kind]: {
    kind: K;
    id: string;
    transport: Transports[K];
    server: Server;
    lastUsed: number;
    /** The resource URIs the client subscribed to (`resources/subscribe`). */
    subscriptions: Set<string>;
  };
}[Kind];

export class SessionRegistry {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly onCountChange: (count: number) => void) {}

  get size(): number {
    return this.sessions.size;
  }

  /** The session with this id and transport kind, marked as used now. */
  find<Kind extends keyof Transports>(kind: Kind, id: string): Session<Kind> | undefined {
    const session = this.sessions.get(id);
    if (!session || session.kind !== kind) return undefined;
    session.lastUsed = Date.now();
    return session as Session<Kind>;
  }

  add(session: Session): void {
    this.sessions.set(session.id, session);
    if (this.sessions.size > MAX_SESSIONS) this.evictOldest();
    this.onCountChange(this.sessions.size);
  }

  /** Forgets a session (its transport is closing or closed). */
  remove(id: string): void {
    if (this.sessions.delete(id)) this.onCountChange(this.sessions.size);
  }

  all(): Session[] {
    return [...this.sessions.values()];
  }

  /** Closes every session; each one's transport ends its open streams. */
  closeAll(): Promise<unknown> {
    const closing = this.all().map((session) => closeSession(session));
    this.sessions.clear();
    this.onCountChange(0);
    return Promise.allSettled(closing);
  }

  private evictOldest(): void {
    let oldest: Session | undefined;
    for (const session of this.sessions.values()) {
      if (!oldest || session.lastUsed < oldest.lastUsed) oldest = session;
    }
    if (!oldest) return;
    this.sessions.delete(oldest.id);
    void closeSession(oldest);
  }
}

/**
 * Closes a session's transport, which also detaches its MCP server (the SDK's close handler). A failure here only
 * means the stream was already gone, so it is not reported.
 */
async function closeSession(session: Session): Promise<void> {
  await Promise.allSettled([session.transport.close()]);
}
