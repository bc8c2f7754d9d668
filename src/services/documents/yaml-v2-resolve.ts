// What gopkg.in/yaml.v2 (the encoder behind Flipt's export) decides before it writes a value, ported as
// rules: whether a string written plain would read back as another type (then it is double-quoted),
// the order it sorts map keys in, and how it prints a float64. The yaml package cannot be told these:
// its schemas resolve other words (`y`, `0o17`, timestamps, base-60 numbers), and it sorts keys by
// plain string order where yaml.v2 compares digit runs as numbers (`a2` before `a10`).

/** Words yaml.v2 looks up as bool, null or float (its resolve table; its `<<` is never looked up: `<` is no hint). */
const SPECIAL_WORDS = new Set([
  ...['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'],
  ...['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'],
  ...['', '~', 'null', 'Null', 'NULL'],
  ...['.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF'],
]);

const UINT64_MAX = (1n << 64n) - 1n;
const INT64_MAX = (1n << 63n) - 1n;

function digitValue(c: string): number {
  const code = c.toLowerCase().charCodeAt(0);
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 122) return code - 87;
  return 99;
}

/** Go's strconv.ParseUint(s, base, 64) for base 0 (prefixes 0b, 0o, 0x, 0) or 2; undefined on error. */
function parseUint(s: string, base: 0 | 2): bigint | undefined {
  if (s === '') return undefined;
  let radix = base === 2 ? 2 : 10;
  let digits = s;
  if (base === 0 && s[0] === '0') {
    const prefix = s.length >= 3 ? (s[1] as string).toLowerCase() : '';
    if (prefix === 'b' || prefix === 'o' || prefix === 'x') {
      radix = prefix === 'b' ? 2 : prefix === 'o' ? 8 : 16;
      digits = s.slice(2);
    } else {
      radix = 8;
      digits = s.slice(1);
    }
  }
  let n = 0n;
  for (const c of digits) {
    const d = digitValue(c);
    if (d >= radix) return undefined;
    n = n * BigInt(radix) + BigInt(d);
    if (n > UINT64_MAX) return undefined;
  }
  return n;
}

/** Go's strconv.ParseInt(s, base, 64) succeeds. */
function parsesAsInt(s: string, base: 0 | 2): boolean {
  if (s === '') return false;
  const negative = s[0] === '-';
  const magnitude = parseUint(s[0] === '-' || s[0] === '+' ? s.slice(1) : s, base);
  return magnitude !== undefined && magnitude <= (negative ? INT64_MAX + 1n : INT64_MAX);
}

/** Go's rule for `_` in a number: only between digits (a base prefix counts as one). */
function underscoresOk(s: string): boolean {
  let saw = '^';
  let i = 0;
  const t = s[0] === '-' || s[0] === '+' ? s.slice(1) : s;
  const hex = /^0x/i.test(t);
  if (/^0[box]/i.test(t)) {
    i = 2;
    saw = '0';
  }
  for (; i < t.length; i++) {
    const c = t[i] as string;
    if ((c >= '0' && c <= '9') || (hex && /[a-f]/i.test(c))) saw = '0';
    else if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
    } else {
      if (saw === '_') return false;
      saw = '!';
    }
  }
  return saw !== '_';
}

/** Go's strconv.ParseFloat(s, 64) for text that starts with `.` (no sign, prefix or special word). */
function parsesAsDotFloat(s: string): boolean {
  if (!/^\.[0-9_]*[0-9][0-9_]*(?:[eE][+-]?[0-9][0-9_]*)?$/.test(s) || !underscoresOk(s)) return false;
  return Number.isFinite(Number(s.replace(/_/g, '')));
}

const YAML_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;

function daysIn(month: number, year: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

const DATE = /^(\d{4})-(\d\d?)-(\d\d?)(?:([Tt ])(\d\d?):(\d\d?):(\d\d?)(?:[.,]\d+)?(Z|[+-]\d\d:\d\d)?)?$/;

/** One of yaml.v2's timestamp layouts, as Go's time.Parse reads them (ranges checked). */
function isTimestamp(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const [, year, month, day, sep, hour, minute, second, zone] = m;
  if (Number(month) < 1 || Number(month) > 12) return false;
  if (Number(day) < 1 || Number(day) > daysIn(Number(month), Number(year))) return false;
  if (sep === undefined) return true;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return false;
  // `T`/`t` layouts end in a zone (Z or ±hh:mm); the space layout has none.
  if (sep === ' ') return zone === undefined;
  if (zone === undefined) return false;
  return zone === 'Z' || (Number(zone.slice(1, 3)) <= 24 && Number(zone.slice(4, 6)) <= 60);
}

const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

/** Whether yaml.v2 writes the string plain (else double-quoted): it reads back as a string. */
export function plainReadsAsString(s: string): boolean {
  const first = s[0] ?? '';
  // Only text opening with a sign, digit, `.` or one of `yYnNtTfFoO~` (or empty) is looked at further.
  if (s !== '' && !/^[-+0-9.yYnNtTfFoO~]/.test(s)) return true;
  if (SPECIAL_WORDS.has(s)) return false;
  if (first === '.') return !parsesAsDotFloat(s);
  const sign = first === '+' || first === '-';
  if (!sign && !(first >= '0' && first <= '9')) return true;
  // A YAML 1.1 base-60 number is quoted although yaml.v2 itself reads it as a string.
  if (s.includes(':') && BASE60_FLOAT.test(s)) return false;
  if (isTimestamp(s)) return false;
  const plain = s.replace(/_/g, '');
  if (parsesAsInt(plain, 0) || parseUint(plain, 0) !== undefined) return false;
  if (YAML_FLOAT.test(plain) && Number.isFinite(Number(plain))) return false;
  if (plain.startsWith('0b')) {
    const rest = plain.slice(2);
    if (parsesAsInt(rest, 2) || parseUint(rest, 2) !== undefined) return false;
  } else if (plain.startsWith('-0b') && parsesAsInt(`-${plain.slice(3)}`, 2)) {
    return false;
  }
  return true;
}

/** A float64 as Go's strconv.FormatFloat(x, 'g', -1, 64): exponent form from 1e+06 and below 1e-04. */
export function goFloat(x: number): string {
  const abs = Math.abs(x);
  if (abs >= 1e-4 && abs < 1e6) return String(x);
  if (Object.is(x, -0)) return '-0';
  if (x === 0) return '0';
  if (Number.isNaN(x)) return '.nan';
  if (!Number.isFinite(x)) return x > 0 ? '.inf' : '-.inf';
  const [mantissa, e] = x.toExponential().split('e') as [string, string];
  const exp = Number(e);
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(x);
}

const LETTER = /\p{L}/u;
const DIGIT = /\p{Nd}/u;

/** yaml.v2's order of string map keys: letters by code point, digit runs by their number. */
function keyLess(a: string[], b: string[]): boolean {
  for (let i = 0; i < a.length && i < b.length; i++) {
    const x = a[i] as string;
    const y = b[i] as string;
    if (x === y) continue;
    const xl = LETTER.test(x);
    const yl = LETTER.test(y);
    if (xl && yl) return (x.codePointAt(0) as number) < (y.codePointAt(0) as number);
    if (xl || yl) return yl;
    let an = 0n;
    let bn = 0n;
    if (x === '0' || y === '0') {
      for (let j = i - 1; j >= 0 && DIGIT.test(a[j] as string); j--) {
        if (a[j] !== '0') {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < a.length && DIGIT.test(a[ai] as string); ai++) {
      an = BigInt.asIntN(64, an * 10n + BigInt((a[ai] as string).codePointAt(0) as number) - 48n);
    }
    let bi = i;
    for (; bi < b.length && DIGIT.test(b[bi] as string); bi++) {
      bn = BigInt.asIntN(64, bn * 10n + BigInt((b[bi] as string).codePointAt(0) as number) - 48n);
    }
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return (x.codePointAt(0) as number) < (y.codePointAt(0) as number);
  }
  return a.length < b.length;
}

/** A comparator for Array.prototype.sort giving yaml.v2's order of map keys. */
export function compareYamlKeys(a: string, b: string): number {
  if (a === b) return 0;
  const ac = [...a];
  const bc = [...b];
  return keyLess(ac, bc) ? -1 : keyLess(bc, ac) ? 1 : 0;
}
