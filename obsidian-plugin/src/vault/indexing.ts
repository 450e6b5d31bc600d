// Whether Obsidian's metadata cache is complete. After Obsidian starts, it indexes the vault in the background: until
// the cache fires `resolved`, notes not reached yet have no file cache (no links, tags, headings, properties, tasks)
// and no entry in `resolvedLinks`, so backlinks, tags, orphans and the like would come back short with nothing saying
// so. Tools that depend on the cache wait a bounded moment for it (mcp.ts) and, when it is still not done, say so
// at the start of their result with how far it is and how to get the complete answer.
//
// The state is read from the public API only: the `resolved` event, the layout (`workspace.layoutReady`: before
// it, Obsidian may still be loading the file list), and, for a plugin loaded after the event (a reload, or enabled
// later), the cache itself: every note with an entry in `resolvedLinks` is every note resolved.

import type { App, EventRef } from "obsidian";

/** How long a tool that depends on the cache waits for it before it answers with what the cache has. */
export const INDEX_WAIT_MS = 2000;

/** How far Obsidian's indexing is; `done` and `total` count notes. */
export interface IndexingState {
  resolved: boolean;
  done: number;
  total: number;
}

/** Follows Obsidian's indexing for one plugin load; `start` and `stop` bracket it. */
export class IndexReadiness {
  private known = false;
  private ref: EventRef | undefined;
  private readonly waiters = new Set<() => void>();

  /** `onResolved` is called when the cache becomes complete. */
  constructor(
    private readonly app: App,
    private readonly onResolved: () => void = () => undefined,
  ) {}

  start(): void {
    if (this.ref) return;
    this.ref = this.app.metadataCache.on("resolved", () => {
      const first = !this.known;
      this.known = true;
      for (const wake of [...this.waiters]) wake();
      if (first) this.onResolved();
    });
  }

  stop(): void {
    if (this.ref) this.app.metadataCache.offref(this.ref);
    this.ref = undefined;
    for (const wake of [...this.waiters]) wake();
  }

  /** Whether the cache is complete now (cheap once it has been: the answer is kept). */
  get resolved(): boolean {
    if (this.known) return true;
    if (this.app.workspace.layoutReady) {
      const { done, total } = this.count();
      if (done === total) this.known = true;
    }
    return this.known;
  }

  /** The state now; counting walks the notes, so it is done only while the cache is not complete. */
  state(): IndexingState {
    if (this.resolved) {
      const total = this.app.vault.getMarkdownFiles().length;
      return { resolved: true, done: total, total };
    }
    return { resolved: false, ...this.count() };
  }

  /** Resolves `true` as soon as the cache is complete, `false` after `ms` or when `signal` aborts. */
  waitResolved(ms: number, signal?: AbortSignal): Promise<boolean> {
    if (this.resolved) return Promise.resolve(true);
    return new Promise((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        this.waiters.delete(finish);
        signal?.removeEventListener("abort", finish);
        resolve(this.resolved);
      };
      const timer = setTimeout(finish, ms);
      this.waiters.add(finish);
      signal?.addEventListener("abort", finish);
    });
  }

  private count(): { done: number; total: number } {
    const notes = this.app.vault.getMarkdownFiles();
    const links = this.app.metadataCache.resolvedLinks;
    let done = 0;
    for (const note of notes) if (Object.prototype.hasOwnProperty.call(links, note.path)) done++;
    return { done, total: notes.length };
  }
}

/** The words a result starts with while the cache is not complete: how far it is and how to get the whole answer. */
export function indexingNotice(state: IndexingState): { done: number; total: number; complete: false; retry: string } {
  return {
    done: state.done,
    total: state.total,
    complete: false,
    retry:
      `Obsidian is still indexing this vault (${state.done} of ${state.total} notes): links, tags, properties, ` +
      "headings and tasks of notes not reached yet are missing from this result. Make the same call again in a few " +
      "seconds for the complete answer.",
  };
}
