// Content hashes for conflict protection: SHA-256 hex of the whole note's UTF-8 text. Every tool that reports a hash
// uses this one function, so a hash from any read is valid as `expected_hash` on any write.

import { createHash } from "crypto";
import { ToolError } from "./errors";

/** SHA-256 hex digest of `text` encoded as UTF-8. */
export function contentHash(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** Throws (so nothing is written) when `expected` is given and differs from the hash of `current`. */
export function checkExpectedHash(path: string, current: string, expected: string | undefined): void {
  if (expected === undefined) return;
  const actual = contentHash(current);
  if (actual !== expected.trim().toLowerCase()) {
    throw new ToolError(
      `conflict: ${path} changed since it was read (expected_hash ${expected}, current hash ${actual}); ` +
        "nothing was written. Read it again and retry with the current hash.",
    );
  }
}
