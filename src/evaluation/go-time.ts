// Datetime parsing as Flipt does it: Go `time.Parse(time.RFC3339, v)` — its strict fast path, then
// its generic layout parser as fallback (which also takes a one-digit hour, a ',' before fractional
// seconds and zone offsets up to ±24:60) — and then `time.Parse(time.DateOnly, v)`.
// Instants keep nanosecond precision (JS Date only has milliseconds) because Flipt compares them exactly.

/** An instant as Unix seconds plus nanoseconds (0..999,999,999). */
export interface GoInstant {
  sec: number;
  nsec: number;
}

export type DateTimeLayout = 'rfc3339' | 'date';

const CH_0 = 0x30;
const CH_9 = 0x39;

function digitAt(s: string, i: number): number {
  if (i >= s.length) return -1;
  const c = s.charCodeAt(i);
  return c >= CH_0 && c <= CH_9 ? c - CH_0 : -1;
}

/** Exactly `width` decimal digits at i, or -1. */
function fixedNum(s: string, i: number, width: number): number {
  let x = 0;
  for (let k = 0; k < width; k++) {
    const d = digitAt(s, i + k);
    if (d < 0) return -1;
    x = x * 10 + d;
  }
  return x;
}

function isLeap(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

const DAYS_BEFORE_NEXT = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(month: number, year: number): number {
  if (month === 2 && isLeap(year)) return 29;
  return DAYS_BEFORE_NEXT[month - 1] ?? 31;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = month > 2 ? month - 3 : month + 9;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** Go's parseNanoseconds over s[from:to], where s[from] is the separator: at most 9 digits count. */
function parseNanos(s: string, from: number, to: number): number {
  const end = Math.min(to, from + 10);
  let ns = 0;
  for (let i = from + 1; i < end; i++) ns = ns * 10 + (s.charCodeAt(i) - CH_0);
  for (let k = end - from; k < 10; k++) ns *= 10;
  return ns;
}

function setInstant(
  out: GoInstant,
  year: number,
  month: number,
  day: number,
  hour: number,
  min: number,
  sec: number,
  nsec: number,
  offsetSeconds: number,
): void {
  out.sec = daysFromCivil(year, month, day) * 86400 + hour * 3600 + min * 60 + sec - offsetSeconds;
  out.nsec = nsec;
}

/** Go's parseRFC3339 fast path (time/format_rfc3339.go). */
function parseRfc3339Strict(s: string, out: GoInstant): boolean {
  if (s.length < 19) return false;
  const year = fixedNum(s, 0, 4);
  const month = fixedNum(s, 5, 2);
  if (year < 0 || month < 1 || month > 12) return false;
  const day = fixedNum(s, 8, 2);
  const hour = fixedNum(s, 11, 2);
  const min = fixedNum(s, 14, 2);
  const sec = fixedNum(s, 17, 2);
  if (day < 1 || day > daysIn(month, year) || hour < 0 || hour > 23 || min < 0 || min > 59 || sec < 0 || sec > 59) {
    return false;
  }
  if (s[4] !== '-' || s[7] !== '-' || s[10] !== 'T' || s[13] !== ':' || s[16] !== ':') return false;
  let i = 19;
  let nsec = 0;
  if (s.length - i >= 2 && s[i] === '.' && digitAt(s, i + 1) >= 0) {
    let j = i + 2;
    while (digitAt(s, j) >= 0) j++;
    nsec = parseNanos(s, i, j);
    i = j;
  }
  const rest = s.length - i;
  if (rest === 1 && s[i] === 'Z') {
    setInstant(out, year, month, day, hour, min, sec, nsec, 0);
    return true;
  }
  if (rest !== 6) return false;
  const hr = fixedNum(s, i + 1, 2);
  const mm = fixedNum(s, i + 4, 2);
  if (hr < 0 || hr > 23 || mm < 0 || mm > 59) return false;
  const sign = s[i];
  if ((sign !== '-' && sign !== '+') || s[i + 3] !== ':') return false;
  const offset = (hr * 60 + mm) * 60 * (sign === '-' ? -1 : 1);
  setInstant(out, year, month, day, hour, min, sec, nsec, offset);
  return true;
}

/** Go's generic `parse` with layout "2006-01-02T15:04:05Z07:00". */
function parseRfc3339Layout(s: string, out: GoInstant): boolean {
  const n = s.length;
  const year = fixedNum(s, 0, 4);
  if (year < 0 || s[4] !== '-') return false;
  const month = fixedNum(s, 5, 2);
  if (month < 1 || month > 12 || s[7] !== '-') return false;
  const day = fixedNum(s, 8, 2);
  if (day < 0 || s[10] !== 'T') return false;
  // stdHour: one or two digits.
  let i = 11;
  const h0 = digitAt(s, i);
  if (h0 < 0) return false;
  let hour = h0;
  i++;
  const h1 = digitAt(s, i);
  if (h1 >= 0) {
    hour = h0 * 10 + h1;
    i++;
  }
  if (hour > 23 || s[i] !== ':') return false;
  const min = fixedNum(s, i + 1, 2);
  if (min < 0 || min > 59 || s[i + 3] !== ':') return false;
  const sec = fixedNum(s, i + 4, 2);
  if (sec < 0 || sec > 59) return false;
  i += 6;
  let nsec = 0;
  const sep = s[i];
  if (n - i >= 2 && (sep === '.' || sep === ',') && digitAt(s, i + 1) >= 0) {
    let j = i + 2;
    while (digitAt(s, j) >= 0) j++;
    nsec = parseNanos(s, i, j);
    i = j;
  }
  let offset = 0;
  if (s[i] === 'Z') {
    i++;
  } else {
    if (n - i < 6 || s[i + 3] !== ':') return false;
    const hr = fixedNum(s, i + 1, 2);
    const mm = fixedNum(s, i + 4, 2);
    // Go's range test here is `> 24` / `> 60`: offsets of 24 hours or 60 minutes pass.
    if (hr < 0 || mm < 0 || hr > 24 || mm > 60) return false;
    const sign = s[i];
    if (sign !== '+' && sign !== '-') return false;
    offset = (hr * 60 + mm) * 60 * (sign === '-' ? -1 : 1);
    i += 6;
  }
  if (i !== n) return false;
  if (day < 1 || day > daysIn(month, year)) return false;
  setInstant(out, year, month, day, hour, min, sec, nsec, offset);
  return true;
}

/** Go `time.Parse(time.DateOnly, s)`: midnight UTC. */
function parseDateOnly(s: string, out: GoInstant): boolean {
  if (s.length !== 10) return false;
  const year = fixedNum(s, 0, 4);
  const month = fixedNum(s, 5, 2);
  const day = fixedNum(s, 8, 2);
  if (year < 0 || s[4] !== '-' || month < 1 || month > 12 || s[7] !== '-' || day < 1) return false;
  if (day > daysIn(month, year)) return false;
  setInstant(out, year, month, day, 0, 0, 0, 0, 0);
  return true;
}

/**
 * Flipt's tryParseDateTime: RFC 3339 (Go's rules) first, then date-only. Writes into `out` (so the
 * evaluation hot path can reuse one object) and returns which layout matched, or undefined.
 */
export function parseGoDateTimeInto(s: string, out: GoInstant): DateTimeLayout | undefined {
  if (parseRfc3339Strict(s, out) || parseRfc3339Layout(s, out)) return 'rfc3339';
  if (parseDateOnly(s, out)) return 'date';
  return undefined;
}

/** Allocating convenience form of parseGoDateTimeInto. */
export function parseGoDateTime(s: string): GoInstant | undefined {
  const out: GoInstant = { sec: 0, nsec: 0 };
  return parseGoDateTimeInto(s, out) === undefined ? undefined : out;
}

/** Compares two instants: negative, zero or positive. */
export function compareInstants(aSec: number, aNsec: number, bSec: number, bNsec: number): number {
  if (aSec !== bSec) return aSec < bSec ? -1 : 1;
  return aNsec === bNsec ? 0 : aNsec < bNsec ? -1 : 1;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** Go's year formatting in layouts: at least 4 digits, a leading '-' for negative years. */
function formatYear(year: number): string {
  return year < 0 ? `-${pad(-year, 4)}` : pad(year, 4);
}

/**
 * The value Flipt stores for a datetime constraint: `t.UTC().Format(time.RFC3339)` (whole seconds,
 * fraction dropped) or `t.UTC().Format(time.DateOnly)`. Undefined when the value does not parse.
 */
export function normalizeGoDateTime(s: string): string | undefined {
  const t: GoInstant = { sec: 0, nsec: 0 };
  const layout = parseGoDateTimeInto(s, t);
  if (layout === undefined) return undefined;
  const days = Math.floor(t.sec / 86400);
  const secOfDay = t.sec - days * 86400;
  const { year, month, day } = civilFromDays(days);
  const date = `${formatYear(year)}-${pad(month, 2)}-${pad(day, 2)}`;
  if (layout === 'date') return date;
  const hh = Math.floor(secOfDay / 3600);
  const mm = Math.floor((secOfDay % 3600) / 60);
  const ss = secOfDay % 60;
  return `${date}T${pad(hh, 2)}:${pad(mm, 2)}:${pad(ss, 2)}Z`;
}
