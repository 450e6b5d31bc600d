// One writer per note at a time. Every obsmcp write checks `expected_hash` and acts while holding the lock of each
// path it touches, so two agents holding the same hash cannot both succeed: the second waits for the first, then
// reads the text the first left and is refused. Keys are lower-cased, as a case-insensitive disk (macOS, Windows)
// holds one file for both spellings. All of it runs on Obsidian's one JavaScript thread: the lock only orders the
// awaits between a check and the act.

const tails = new Map<string, Promise<void>>();

/** Runs `act` once no other obsmcp write holds any of `paths`, holding them all until it settles. */
export async function withPathLocks<T>(paths: readonly string[], act: () => Promise<T>): Promise<T> {
  const keys = [...new Set(paths.map((path) => path.toLowerCase()))];
  const before = keys.map((key) => tails.get(key));
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  // Every key is taken in the same synchronous step, so two writers can never each hold one key the other waits on.
  for (const key of keys) tails.set(key, held);
  try {
    await Promise.all(before);
    return await act();
  } finally {
    release();
    for (const key of keys) if (tails.get(key) === held) tails.delete(key);
  }
}
