// Resource URIs: `obsidian://vault/` followed by the file's vault path, each `/`-separated segment percent-encoded
// byte by byte (UTF-8) except the unreserved characters A–Z a–z 0–9 - . _ ~. So every legal vault path, spaces,
// `%`, `#`, `?` and non-ASCII included, has exactly one URI and comes back unchanged from it. Reading is lenient:
// `%XX` in either case is decoded and any other character stands for itself, so a URI a client built from the
// template (`{+path}` leaves reserved characters such as `(` or `&` as they are) finds the same file.
// The offline reader's twin is src/offline/plugin/resources/uri.rs; the rules are in ./README.md.

/** What every resource URI of the vault starts with. */
export const URI_PREFIX = "obsidian://vault/";

/** The resource template for a file by path (RFC 6570 reserved expansion keeps the `/` between folders). */
export const PATH_TEMPLATE = `${URI_PREFIX}{+path}`;

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** The URI of the file at `path`. */
export function uriOf(path: string): string {
  let uri = URI_PREFIX;
  for (const char of path) {
    if (char === "/" || UNRESERVED.test(char)) {
      uri += char;
      continue;
    }
    for (const byte of encoder.encode(char)) uri += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return uri;
}

/** The vault path a URI names, or null when it is not a vault URI or its escapes are not UTF-8. */
export function pathOf(uri: string): string | null {
  if (!uri.startsWith(URI_PREFIX)) return null;
  const rest = uri.slice(URI_PREFIX.length);
  const bytes: number[] = [];
  for (let i = 0; i < rest.length; ) {
    if (rest[i] === "%" && /^[0-9A-Fa-f]{2}$/.test(rest.slice(i + 1, i + 3))) {
      bytes.push(parseInt(rest.slice(i + 1, i + 3), 16));
      i += 3;
      continue;
    }
    const code = rest.codePointAt(i) as number;
    const char = String.fromCodePoint(code);
    bytes.push(...encoder.encode(char));
    i += char.length;
  }
  try {
    return decoder.decode(new Uint8Array(bytes));
  } catch {
    return null;
  }
}
