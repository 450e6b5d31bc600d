// Long work inside Obsidian runs in slices. The plugin shares Obsidian's one UI thread: a loop over 100,000 notes
// that never yields freezes typing, scrolling and the graph for as long as it runs. Every vault-wide loop asks its
// `Slices` whether its slice is spent (a clock read every few items) and, when it is, awaits `pause()`, which lets
// the event loop run whatever waits (input, rendering, other requests) before the loop goes on. Results do not
// change: the loop is the same loop, cut in time. A cancelled request stops at the next pause.

import { ToolError } from "./errors";

/** How long one slice may hold the thread, in ms; well under the 50 ms after which a user feels a stall. */
export const SLICE_MS = 20;

/** How much of a slice may be spent before `fresh` starts a new one, in ms. */
const FRESH_MS = 2;

/** How many items pass between two reads of the clock. */
const CHECK_EVERY = 32;

const clock: () => number = typeof performance === "object" ? () => performance.now() : () => Date.now();

/** Lets the event loop run: a timer, so that input and rendering (not only promise callbacks) get their turn. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

export class Slices {
  private started = clock();
  private countdown = CHECK_EVERY;

  /** `what` names the work in the error a cancelled request gets ("search cancelled"). */
  constructor(
    private readonly signal: AbortSignal,
    private readonly what: string,
  ) {}

  /** Whether the current slice is spent: call once per item, and `await pause()` when it says so. */
  due(): boolean {
    if (--this.countdown > 0) return false;
    this.countdown = CHECK_EVERY;
    return this.spent();
  }

  /** Whether the slice is spent, reading the clock now (for loops whose items are large). */
  spent(): boolean {
    return clock() - this.started >= SLICE_MS;
  }

  /** Yields to the event loop and starts a new slice; throws when the request was cancelled meanwhile. */
  async pause(): Promise<void> {
    await yieldToEventLoop();
    this.throwIfCancelled();
    this.started = clock();
    this.countdown = CHECK_EVERY;
  }

  /**
   * Starts a new slice unless this one has just begun: before work that cannot be cut, such as the first step of a
   * `for…in` over one of Obsidian's link maps, which gathers all of its keys at once (about 33 ms at 100,000 notes).
   * Begun in a slice half spent, that work made the longest stall 52 ms.
   */
  async fresh(): Promise<void> {
    if (clock() - this.started >= FRESH_MS) await this.pause();
  }

  /** Throws the "… cancelled" error when the request was cancelled. */
  throwIfCancelled(): void {
    if (this.signal.aborted) throw new ToolError(`${this.what} cancelled`);
  }

  /** The items that pass `keep`, in order, tested in slices. */
  async filter<T, S extends T = T>(items: readonly T[], keep: ((item: T) => item is S) | ((item: T) => boolean)): Promise<S[]> {
    const kept: S[] = [];
    for (const item of items) {
      if (this.due()) await this.pause();
      if (keep(item)) kept.push(item as S);
    }
    return kept;
  }

  /** `map` in slices. */
  async map<T, U>(items: readonly T[], each: (item: T) => U): Promise<U[]> {
    const mapped: U[] = new Array<U>(items.length);
    for (let i = 0; i < items.length; i++) {
      if (this.due()) await this.pause();
      mapped[i] = each(items[i]);
    }
    return mapped;
  }

  /**
   * Sorts in slices and returns the sorted array (a stable merge sort: runs of RUN items sorted at once, then merged
   * pairwise, pausing between pieces). `Array.prototype.sort` of 100,000 paths holds the thread for ~100 ms.
   */
  async sort<T>(items: T[], compare: (a: T, b: T) => number): Promise<T[]> {
    const RUN = 2048;
    let from = items.slice();
    for (let start = 0; start < from.length; start += RUN) {
      if (this.spent()) await this.pause();
      const run = from.slice(start, start + RUN).sort(compare);
      for (let i = 0; i < run.length; i++) from[start + i] = run[i];
    }
    let to = new Array<T>(from.length);
    for (let width = RUN; width < from.length; width *= 2) {
      for (let left = 0; left < from.length; left += 2 * width) {
        const middle = Math.min(left + width, from.length);
        const right = Math.min(left + 2 * width, from.length);
        let i = left;
        let j = middle;
        for (let k = left; k < right; k++) {
          if (this.due()) await this.pause();
          to[k] = i < middle && (j >= right || compare(from[i], from[j]) <= 0) ? from[i++] : from[j++];
        }
      }
      [from, to] = [to, from];
    }
    return from;
  }
}

/** Code-unit order of two paths, the order every listing uses. */
export function byPath(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
