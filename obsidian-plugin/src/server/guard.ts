// Checks made on every request before anything else: the Host and Origin headers (a web page must never reach the
// vault through DNS rebinding or a cross-site request) and then the bearer token. Only loopback names are accepted;
// the port is not compared, so a loopback proxy in front of the plugin (as the conformance tooling uses) still works.

import { createHash, timingSafeEqual } from "crypto";
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

/** The name part of a Host header (`[::1]:80` → `[::1]`), lower-cased. */
function hostName(host: string): string {
  const lower = host.trim().toLowerCase();
  if (lower.startsWith("[")) {
    const close = lower.indexOf("]");
    return close < 0 ? lower : lower.slice(0, close + 1);
  }
  const colon = lower.indexOf(":");
  return colon < 0 ? lower : lower.slice(0, colon);
}

/** True when the request carries `Authorization: Bearer <token>`; compared in constant time. */
export function hasBearerToken(request: IncomingMessage, token: string): boolean {
  const header = request.headers.authorization;
  if (typeof header !== "string") return false;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  if (!match) return false;
  // Hashing first gives equal-length inputs, so neither the content nor the length of the token leaks through timing.
  const given = createHash("sha256").update(match[1]).digest();
  const expected = createHash("sha256").update(token).digest();
  return timingSafeEqual(given, expected);
}
