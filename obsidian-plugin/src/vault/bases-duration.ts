// Date arithmetic in Bases expressions (help: Bases/Bases syntax, "Date arithmetic"): a date plus or minus a
// duration string such as "1M", "4h", "1 day" or "2w 3d". Pure, so that the offline reader
// (src/offline/plugin/vault/bases/duration.rs) follows it exactly.
//
// A duration is one or more pieces `<digits><spaces?><unit>`, with spaces between pieces allowed; the units are
// the documented ones: `y` `year` `years`, `M` `month` `months`, `w` `week` `weeks`, `d` `day` `days`, `h` `hour`
// `hours`, `m` `minute` `minutes`, `s` `second` `seconds` (`M` is months, `m` minutes). Years and months move the
// calendar in UTC, the day of the month kept but held to the last day of a shorter month (Jan 31 + 1M is Feb 28 or
// 29, as moment.js, which Obsidian ships, adds them); weeks and smaller units are fixed lengths of time.

/** A parsed duration: whole months, then milliseconds. */
export interface Duration {
  months: number;
  ms: number;
}

const PIECE = /[ \t]*(\d+)[ \t]*(years|year|y|months|month|M|weeks|week|w|days|day|d|hours|hour|h|minutes|minute|m|seconds|second|s)(?![A-Za-z])/y;

const MONTHS: Record<string, number> = { y: 12, M: 1 };
const MS: Record<string, number> = { w: 604_800_000, d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 };

/** The unit letter of a unit as written (`months` → `M`, `minutes` → `m`). */
function unitOf(written: string): string {
  if (written === "M" || written.startsWith("month")) return "M";
  if (written === "m" || written.startsWith("minute")) return "m";
  return written[0];
}

/** The duration `text` writes, or null when it is not one. */
export function parseDuration(text: string): Duration | null {
  const duration: Duration = { months: 0, ms: 0 };
  PIECE.lastIndex = 0;
  let pieces = 0;
  while (PIECE.lastIndex < text.length) {
    const at = PIECE.lastIndex;
    const match = PIECE.exec(text);
    if (!match) {
      // Trailing spaces end a duration; anything else means the text is not one.
      if (text.slice(at).trim() === "") break;
      return null;
    }
    const count = Number(match[1]);
    const unit = unitOf(match[2]);
    if (unit in MONTHS) duration.months += count * MONTHS[unit];
    else duration.ms += count * MS[unit];
    pieces++;
  }
  return pieces > 0 ? duration : null;
}

/** `ms` (a UTC time) moved by `duration`, forward for `sign` 1 and back for -1. */
export function shiftDate(ms: number, duration: Duration, sign: 1 | -1): number {
  let shifted = ms;
  if (duration.months !== 0) {
    const date = new Date(ms);
    const total = date.getUTCFullYear() * 12 + date.getUTCMonth() + sign * duration.months;
    const year = Math.floor(total / 12);
    const month = total - year * 12;
    const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
    const timeOfDay = ms - Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
    shifted = Date.UTC(year, month, Math.min(date.getUTCDate(), lastDay)) + timeOfDay;
  }
  return shifted + sign * duration.ms;
}
