// The 2026-07-28 clients of the plugin, which open no session: one counts as connected while its requests keep
// coming, so the settings tab's client count still says whether an agent is using the vault. A client is known by the
// name and version it gives in each request's `_meta` (clients that give none count as one).

/** A stateless client counts as connected for this long after its last request. */
export const RECENT_MS = 60_000;

export class RecentClients {
  private readonly lastSeen = new Map<string, number>();

  constructor(private readonly onCountChange: () => void) {}

  get size(): number {
    return this.lastSeen.size;
  }

  /** Notes a request from the client a 2026-07-28 body names (on every such request: nothing else is done here). */
  touch(body: unknown): void {
    const before = this.lastSeen.size;
    this.lastSeen.set(identity(body), Date.now());
    if (this.lastSeen.size !== before) this.onCountChange();
  }

  /** Forgets the clients idle for RECENT_MS; the server calls it every RECENT_MS / 4. */
  forgetIdle(): void {
    const before = this.lastSeen.size;
    const now = Date.now();
    for (const [client, seen] of this.lastSeen) if (now - seen > RECENT_MS) this.lastSeen.delete(client);
    if (this.lastSeen.size !== before) this.onCountChange();
  }

  clear(): void {
    const before = this.lastSeen.size;
    this.lastSeen.clear();
    if (before !== 0) this.onCountChange();
  }
}

function identity(body: unknown): string {
  const meta = (body as { params?: { _meta?: Record<string, unknown> } } | null)?.params?._meta;
  const info = meta?.["io.modelcontextprotocol/clientInfo"] as { name?: unknown; version?: unknown } | undefined;
  return typeof info?.name === "string" ? `${info.name} ${String(info.version ?? "")}` : "an unnamed client";
}
