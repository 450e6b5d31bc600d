// The fake `Events`, the base Obsidian gives `Vault` and `MetadataCache`: `on` returns an `EventRef`, `offref` drops
// it, `trigger` calls every callback of a name in the order they were added. A callback that throws is reported on
// stderr and the others still run, as in Obsidian (which logs it to the developer console).
"use strict";

class Events {
  constructor() {
    /** @type {Map<string, {e: Events, name: string, fn: Function, ctx: unknown}[]>} */
    this._events = new Map();
  }

  /**
   * The typings' `Events.on`, with `any` for the callback's arguments: each subclass (Vault, MetadataCache) has
   * its own overloads, one per event name, which a single JSDoc type cannot give a method; `any` lets this one
   * stand for all of them, as in Obsidian, where they share this implementation.
   * @type {(name: string, callback: (...data: any[]) => unknown, ctx?: any) => import("obsidian/obsidian").EventRef}
   */
  on(name, callback, ctx) {
    const ref = { e: this, name, fn: callback, ctx };
    if (!this._events.has(name)) this._events.set(name, []);
    this._events.get(name).push(ref);
    return ref;
  }

  /** @type {import("obsidian/obsidian").Events["offref"]} */
  offref(ref) {
    const refs = this._events.get(ref.name);
    if (!refs) return;
    const rest = refs.filter((each) => each !== ref);
    if (rest.length) this._events.set(ref.name, rest);
    else this._events.delete(ref.name);
  }

  /** @type {import("obsidian/obsidian").Events["trigger"]} */
  trigger(name, ...data) {
    for (const ref of [...(this._events.get(name) ?? [])]) {
      try {
        ref.fn.apply(ref.ctx, data);
      } catch (error) {
        process.stderr.write(`fake obsidian: a "${name}" event callback threw: ${error && error.stack}\n`);
      }
    }
  }
}

module.exports = { Events };
