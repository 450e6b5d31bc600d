// Obsidian's `Events` base class: named listeners with an optional `this` context, refs that can be
// removed with `offref`, and a listener that throws never stops the others (Obsidian logs and goes on).
// An `EventRef` is opaque in the typings; like Obsidian's own it holds `e` (its emitter), `name`, `fn`, `ctx` (what
// `Component.registerEvent` uses to remove it: `ref.e.offref(ref)`), and `detach()` does the same.

"use strict";

class Events {
  constructor() {
    /** @type {Map<string, Array<{e: Events, name: string, fn: Function, ctx: any}>>} */
    this._listeners = new Map();
  }

  on(name, callback, ctx) {
    const ref = { e: this, name, fn: callback, ctx, detach: () => this.offref(ref) };
    if (!this._listeners.has(name)) this._listeners.set(name, []);
    this._listeners.get(name).push(ref);
    return ref;
  }

  off(name, callback) {
    const list = this._listeners.get(name);
    if (!list) return;
    this._listeners.set(
      name,
      list.filter((ref) => ref.fn !== callback),
    );
  }

  offref(ref) {
    const list = this._listeners.get(ref.name);
    if (!list) return;
    this._listeners.set(
      ref.name,
      list.filter((other) => other !== ref),
    );
  }

  trigger(name, ...data) {
    const list = this._listeners.get(name);
    if (!list) return;
    for (const ref of [...list]) this.tryTrigger(ref, data);
  }

  tryTrigger(ref, args) {
    try {
      ref.fn.apply(ref.ctx, args);
    } catch (error) {
      // Obsidian reports a failing listener on the console and keeps delivering the event to the others.
      console.error(error);
    }
  }
}

module.exports = { Events };
