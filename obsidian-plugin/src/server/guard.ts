// Checks made on every request before anything else: the Host and Origin headers (a web page must never reach the
// vault through DNS rebinding or a cross-site request) and then the credentials. Only loopback names are accepted;
// the port is not compared, so a loopback proxy in front of the plugin (as the conformance tooling uses) still works.
//
// Two credentials are accepted. `Authorization: Bearer <token>`, for clients configured by hand. And the signed form
// the obsmcp bridge and doctor send, which never reveals the token to a program that holds the port while Obsidian is
// closed (src/plugin_auth.rs in the Rust crate is the other side; a change here changes it there):
// - `Authorization: obsmcp-v1 ts=<unix seconds> nonce=<32 hex> sig=<hex HMAC-SHA256(token,
//   "obsmcp-v1 request <ts> <nonce>")>`, accepted once per nonce and within SIGNATURE_WINDOW_S of now;
// - `Obsmcp-Challenge: <nonce>`, answered on every response with `Obsmcp-Proof: <hex HMAC-SHA256(token,
//   "obsmcp-v1 response <nonce>")>`, so the caller knows the answer is this plugin's before reading it.
// The port is not part of either, so a loopback proxy in front of the plugin keeps working.

import { createHash, createHmac, timingSafeEqual } from "crypto";
import type { IncomingMessage } from "http";

const LOOPBACK_NAMES = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Why the request's Host or Origin is refused, or undefined when both are acceptable. */
export function refuseHostOrOrigin(request: IncomingMessage): string | undefined {
  const host = request.headers.host;
  if (!host) return "the Host header is missing";
  if (!LOOPBACK_NAMES.has(hostName(host))) return `Host ${JSON.stringify(host)} is not a loopback name`;

  const origin = request.headers.origin;
  if (origin === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return `Origin ${JSON.stringify(origin)} is not a URL`;
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || !LOOPBACK_NAMES.has(url.hostname.toLowerCase())) {
    return `Origin ${JSON.stringify(origin)} is not a loopback origin`;
  }
  return undefined;
}

/**
 * The name part of a Host header (`[::1]:80` → `[::1]`), lower-cased; "" when anything but an optional `:port`
 * follows the name, so that `[::1].evil.com` or `[::1]evil.com` is never taken for `[::1]`.
 */
function hostName(host: string): string {
  const lower = host.trim().toLowerCase();
  let end: number;
  if (lower.startsWith("[")) {
    const close = lower.indexOf("]");
    end = close < 0 ? lower.length : close + 1;
  } else {
    const colon = lower.indexOf(":");
    end = colon < 0 ? lower.length : colon;
  }
  return /^(?::\d*)?$/.test(lower.slice(end)) ? lower.slice(0, end) : "";
}

/** True when the request carries `Authorization: Bearer <token>`; compared in constant time. */
function hasBearerToken(request: IncomingMessage, token: string): boolean {
  const header = request.headers.authorization;
  if (typeof header !== "string") return false;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  if (!match) return false;
  // Hashing first gives equal-length inputs, so neither the content nor the length of the token leaks through timing.
  const given = createHash("sha256").update(match[1]).digest();
  const expected = createHash("sha256").update(token).digest();
  return timingSafeEqual(given, expected);
}

/** How far a signed request's timestamp may be from now, in seconds (both ends run on this machine). */
export const SIGNATURE_WINDOW_S = 300;
/** Nonces remembered against replay; past this many, the oldest go first (they are outside the window by then). */
const MAX_REMEMBERED_NONCES = 100_000;

const NONCE = /^[0-9a-f]{32}$/;
const SIGNED = /^obsmcp-v1 ts=(\d{1,12}) nonce=([0-9a-f]{32}) sig=([0-9a-f]{64})$/;

function hmacHex(token: string, message: string): string {
  return createHmac("sha256", token).update(message, "utf8").digest("hex");
}

/** The `Obsmcp-Proof` value for a request's `Obsmcp-Challenge`, or undefined when it carries none (or a malformed one). */
export function challengeProof(request: IncomingMessage, token: string): string | undefined {
  const challenge = request.headers["obsmcp-challenge"];
  if (typeof challenge !== "string" || !NONCE.test(challenge)) return undefined;
  return hmacHex(token, `obsmcp-v1 response ${challenge}`);
}

/** Accepts the bearer token or a fresh signed request; remembers the nonces of signed requests it accepted. */
export class Credentials {
  private readonly seen = new Map<string, number>();

  constructor(private readonly now: () => number = () => Date.now()) {}

  /** Whether the request carries valid credentials for `token`. */
  allows(request: IncomingMessage, token: string): boolean {
    if (hasBearerToken(request, token)) return true;
    const header = request.headers.authorization;
    const match = typeof header === "string" ? SIGNED.exec(header.trim()) : null;
    if (!match) return false;
    const [, ts, nonce, sig] = match;
    const nowS = Math.floor(this.now() / 1000);
    if (Math.abs(nowS - Number(ts)) > SIGNATURE_WINDOW_S) return false;
    const expected = Buffer.from(hmacHex(token, `obsmcp-v1 request ${ts} ${nonce}`), "hex");
    if (!timingSafeEqual(Buffer.from(sig, "hex"), expected)) return false;
    this.forgetExpired(nowS);
    if (this.seen.has(nonce)) return false;
    if (this.seen.size >= MAX_REMEMBERED_NONCES) this.seen.delete(this.seen.keys().next().value as string);
    this.seen.set(nonce, nowS + 2 * SIGNATURE_WINDOW_S);
    return true;
  }

  private forgetExpired(nowS: number): void {
    // Insertion order is expiry order, so the scan stops at the first nonce still inside the window.
    for (const [nonce, expires] of this.seen) {
      if (expires > nowS) break;
      this.seen.delete(nonce);
    }
  }
}
