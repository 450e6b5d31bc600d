// Line arithmetic shared by reads and writes. A note's lines are its text split on "\n" (a "\r" before it stays part
// of the line); a final "\n" ends the last line rather than starting an empty one, so "a\nb\n" has 2 lines and ""
// has 0. Line numbers in every result are 1-based.

/** The note's lines, per the convention above. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  return lines;
}

/**
 * Applies a line-based edit to `text`, keeping its line endings: a note written with CRLF stays CRLF (inserted lines
 * get CRLF too) and a final newline is kept if there was one. `edit` sees lines without "\r".
 */
export function editLines(text: string, edit: (lines: string[]) => string[]): string {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const lines = splitLines(text).map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  const edited = edit(lines);
  if (edited.length === 0) return "";
  return edited.join(eol) + (text === "" || text.endsWith("\n") ? eol : "");
}

/** The lines of a piece of content to insert, with any "\r\n" treated as "\n". */
export function linesOf(content: string): string[] {
  return splitLines(content.replace(/\r\n/g, "\n"));
}

/**
 * `lines` with `count` lines from `start` replaced by `inserted`, as a new array. Not `splice(start, count,
 * ...inserted)`: spreading content of 150,000 lines into a call overflows the stack (RangeError).
 */
export function replaceLines(lines: readonly string[], start: number, count: number, inserted: readonly string[]): string[] {
  return lines.slice(0, start).concat(inserted, lines.slice(start + count));
}
