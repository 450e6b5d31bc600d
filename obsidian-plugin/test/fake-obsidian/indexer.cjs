// The fake's startup indexing (metadata.cjs, "Timing"): every note known when the app was created is parsed and
// its links resolved, in slices of at most SLICE_MS of work with a turn of the event loop between them, after which
// the metadata cache fires `resolved`. Obsidian does this in a worker while its window keeps answering; the fake has
// one thread, so slices stand in for the worker: a request that arrives meanwhile is served between two slices and
// sees the cache as far as it got. A note indexed earlier by an edit, or gone meanwhile, is skipped; a note created
// meanwhile is indexed when it is created.
//
// Speed: about 20,000 notes a second of generated vault on one core here, so a 10,000-note vault is resolved about
// half a second after the app is created (Obsidian with a warm cache takes about as long; a first start, which
// reads every file, takes longer).

"use strict";

/** Work per slice; short enough that no request waits noticeably behind one (the plugin's stall bound is 50 ms). */
const SLICE_MS = 8;

class Indexer {
  constructor(cache) {
    this._cache = cache;
    /** The notes to index, in the vault's order, and how far the pass is. */
    this._queue = [];
    this._next = 0;
    this._total = 0;
    this._hold = Infinity;
    this._waiting = false;
    this._resolved = false;
  }

  /** Takes the vault's notes as they are now and starts on the next turn of the loop. */
  start(hold = Infinity) {
    this._queue = this._cache._vault.getMarkdownFiles();
    this._total = this._queue.length;
    this._hold = hold;
    setImmediate(() => this._slice());
  }

  resume() {
    this._hold = Infinity;
    if (this._waiting) {
      this._waiting = false;
      setImmediate(() => this._slice());
    }
  }

  /** `{ indexed, total, resolved }`: notes of the startup pass done, their number, and whether it ended. */
  progress() {
    return { indexed: this._next, total: this._total, resolved: this._resolved };
  }

  _slice() {
    const { _cache: cache } = this;
    const vault = cache._vault;
    const until = performance.now() + SLICE_MS;
    do {
      if (this._next >= this._queue.length) return this._finish();
      if (this._next >= this._hold) {
        this._waiting = true;
        return undefined;
      }
      const file = this._queue[this._next];
      this._next += 1;
      // Deleted meanwhile (or replaced by another file object), or indexed already because it was edited.
      if (vault._indexedFile(file.path) === file && !cache._caches.has(file.path)) cache._index(file);
    } while (performance.now() < until);
    setImmediate(() => this._slice());
    return undefined;
  }

  _finish() {
    this._resolved = true;
    this._queue = [];
    this._cache._memo.clear();
    this._cache.trigger("resolved");
  }
}

module.exports = { Indexer };
