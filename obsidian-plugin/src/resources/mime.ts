// What a vault file is, by its extension (case-insensitive): the MIME type a resource is listed and read with, and
// whether it is read as text (the note-reading rules of read_note) or as bytes (a base64 blob). The table is the
// contract's (./README.md) and the offline reader's (src/offline/plugin/resources/mime.rs).

/** Text files, read as read_note reads them. */
const TEXT: Record<string, string> = {
  md: "text/markdown",
  canvas: "application/json",
  base: "application/yaml",
  txt: "text/plain",
  csv: "text/csv",
  json: "application/json",
};

/** Files read as bytes. Anything not named here or in TEXT is application/octet-stream. */
const BINARY: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  bmp: "image/bmp",
  svg: "image/svg+xml",
  avif: "image/avif",
  mp3: "audio/mpeg",
  wav: "audio/wav",
  m4a: "audio/mp4",
  ogg: "audio/ogg",
  flac: "audio/flac",
  "3gp": "audio/3gpp",
  webm: "video/webm",
  mp4: "video/mp4",
  mov: "video/quicktime",
  mkv: "video/x-matroska",
  ogv: "video/ogg",
  pdf: "application/pdf",
};

export interface FileKind {
  mimeType: string;
  /** Read as text (read_note's rules) rather than as a blob. */
  text: boolean;
}

/** The kind of a file with this extension (no dot). */
export function kindOf(extension: string): FileKind {
  const key = extension.toLowerCase();
  if (Object.prototype.hasOwnProperty.call(TEXT, key)) return { mimeType: TEXT[key], text: true };
  if (Object.prototype.hasOwnProperty.call(BINARY, key)) return { mimeType: BINARY[key], text: false };
  return { mimeType: "application/octet-stream", text: false };
}
