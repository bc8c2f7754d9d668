// Go `strconv.ParseFloat(s, 64)` and `strconv.ParseBool`, reproduced exactly, because Flipt parses
// number and boolean constraint values (and the context values compared with them) this way, and
// JavaScript's Number() accepts a different language (whitespace, "Infinity", "0b1", "" → 0, …).

const CH_PLUS = 0x2b;
const CH_MINUS = 0x2d;
const CH_DOT = 0x2e;
const CH_UNDERSCORE = 0x5f;
const CH_0 = 0x30;
const CH_9 = 0x39;
const LOWER_X = 0x78;
const LOWER_E = 0x65;
const LOWER_P = 0x70;
const LOWER_A = 0x61;
const LOWER_F = 0x66;

// Go's readFloat stops accumulating exponent digits at this bound; we keep the cap so that absurdly
// long inputs round exactly as Go rounds them.
const EXPONENT_CAP = 10000;

function isDigitCode(c: number): boolean {
  return c >= CH_0 && c <= CH_9;
}

/** Go's ASCII-only `lower(c) = c | 0x20`, the trick strconv uses for case-insensitive letters. */
function lower(c: number): number {
  return c | 0x20;
}

function commonPrefixLenIgnoreCase(s: string, from: number, prefix: string): number {
  const n = Math.min(prefix.length, s.length - from);
  for (let i = 0; i < n; i++) {
    let c = s.charCodeAt(from + i);
    if (c >= 0x41 && c <= 0x5a) c += 0x20;
    if (c !== prefix.charCodeAt(i)) return i;
  }
  return n;
}

/**
 * Go's `special`: "inf"/"infinity" (optionally signed) and "nan" (unsigned), case-insensitive.
 * Returns the value and the length consumed, or undefined when s does not start with one.
 */
function special(s: string): { value: number; length: number } | undefined {
  const c0 = s.charCodeAt(0);
  let sign = 1;
  let from = 0;
  if (c0 === CH_PLUS || c0 === CH_MINUS) {
    if (c0 === CH_MINUS) sign = -1;
    from = 1;
  } else if (c0 === 0x6e || c0 === 0x4e) {
    return commonPrefixLenIgnoreCase(s, 0, 'nan') === 3 ? { value: Number.NaN, length: 3 } : undefined;
  } else if (c0 !== 0x69 && c0 !== 0x49) {
    return undefined;
  }
  let n = commonPrefixLenIgnoreCase(s, from, 'infinity');
  // "Anything longer than inf is ok, but if we don't have infinity, only consume inf."
  if (n > 3 && n < 8) n = 3;
  if (n === 3 || n === 8) return { value: sign * Number.POSITIVE_INFINITY, length: from + n };
  return undefined;
}

/** Go's underscoreOK over s[0:end]: underscores only between digits or after a base prefix. */
function underscoreOK(s: string, end: number): boolean {
  let saw = '^';
  let i = 0;
  if (end >= 1 && (s.charCodeAt(0) === CH_MINUS || s.charCodeAt(0) === CH_PLUS)) i = 1;
  let hex = false;
  if (end - i >= 2 && s.charCodeAt(i) === CH_0) {
    const b = lower(s.charCodeAt(i + 1));
    if (b === 0x62 || b === 0x6f || b === LOWER_X) {
      i += 2;
      saw = '0';
      hex = b === LOWER_X;
    }
  }
  for (; i < end; i++) {
    const c = s.charCodeAt(i);
    if (isDigitCode(c) || (hex && lower(c) >= LOWER_A && lower(c) <= LOWER_F)) {
      saw = '0';
      continue;
    }
    if (c === CH_UNDERSCORE) {
      if (saw !== '0') return false;
      saw = '_';
      continue;
    }
    if (saw === '_') return false;
    saw = '!';
  }
  return saw !== '_';
}

const F64_MANTBITS = 52n;
const F64_BIAS = -1023;
const F64_MAX_EXP = 1023; // 1<<expbits + bias - 2
const F64_MIN_EXP = -1022; // bias + 1

const bitsView = new DataView(new ArrayBuffer(8));

/** Go's atofHex for float64: round mantissa·2^exp to nearest-even; undefined on overflow. */
function atofHex(mantissaIn: bigint, expIn: number, neg: boolean, trunc: boolean): number | undefined {
  let mantissa = mantissaIn;
  let exp = expIn + Number(F64_MANTBITS);
  while (mantissa !== 0n && mantissa >> (F64_MANTBITS + 2n) === 0n) {
    mantissa <<= 1n;
    exp--;
  }
  if (trunc) mantissa |= 1n;
  while (mantissa >> (1n + F64_MANTBITS + 2n) !== 0n) {
    mantissa = (mantissa >> 1n) | (mantissa & 1n);
    exp++;
  }
  while (mantissa > 1n && exp < F64_MIN_EXP - 2) {
    mantissa = (mantissa >> 1n) | (mantissa & 1n);
    exp++;
  }
  let round = mantissa & 3n;
  mantissa >>= 2n;
  round |= mantissa & 1n;
  exp += 2;
  if (round === 3n) {
    mantissa++;
    if (mantissa === 1n << (1n + F64_MANTBITS)) {
      mantissa >>= 1n;
      exp++;
    }
  }
  if (mantissa >> F64_MANTBITS === 0n) exp = F64_BIAS;
  if (exp > F64_MAX_EXP) return undefined;
  let bits = mantissa & ((1n << F64_MANTBITS) - 1n);
  bits |= BigInt((exp - F64_BIAS) & 0x7ff) << F64_MANTBITS;
  if (neg) bits |= 1n << 63n;
  bitsView.setBigUint64(0, bits);
  return bitsView.getFloat64(0);
}

/**
 * Go `strconv.ParseFloat(s, 64)`. Returns undefined where Go returns an error: syntax errors and
 * overflow (±Inf with ErrRange). NaN is a valid result ("nan").
 *
 * Accepted: optional sign; decimal digits with at most one '.', optional e/E exponent; hex mantissa
 * after 0x/0X with a mandatory p/P binary exponent; "_" only between digits; "inf", "infinity"
 * (signed or not) and "nan" (unsigned), case-insensitive. No surrounding white space.
 */
export function parseGoFloat(s: string): number | undefined {
  const n = s.length;
  if (n === 0) return undefined;
  const sp = special(s);
  if (sp !== undefined) return sp.length === n ? sp.value : undefined;

  let i = 0;
  let neg = false;
  const c0 = s.charCodeAt(0);
  if (c0 === CH_PLUS) i++;
  else if (c0 === CH_MINUS) {
    neg = true;
    i++;
  }

  let hex = false;
  if (i + 2 < n && s.charCodeAt(i) === CH_0 && lower(s.charCodeAt(i + 1)) === LOWER_X) {
    hex = true;
    i += 2;
  }
  const maxMantDigits = hex ? 16 : 19;

  let underscores = false;
  let sawdot = false;
  let sawdigits = false;
  let nd = 0;
  let ndMant = 0;
  let dp = 0;
  let trunc = false;
  let hexMantissa = 0n;

  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === CH_UNDERSCORE) {
      underscores = true;
      continue;
    }
    if (c === CH_DOT) {
      if (sawdot) break;
      sawdot = true;
      dp = nd;
      continue;
    }
    if (isDigitCode(c)) {
      sawdigits = true;
      if (c === CH_0 && nd === 0) {
        dp--;
        continue;
      }
      nd++;
      if (ndMant < maxMantDigits) {
        if (hex) hexMantissa = hexMantissa * 16n + BigInt(c - CH_0);
        ndMant++;
      } else if (c !== CH_0) {
        trunc = true;
      }
      continue;
    }
    if (hex) {
      const lc = lower(c);
      if (lc >= LOWER_A && lc <= LOWER_F) {
        sawdigits = true;
        nd++;
        if (ndMant < maxMantDigits) {
          hexMantissa = hexMantissa * 16n + BigInt(lc - LOWER_A + 10);
          ndMant++;
        } else {
          trunc = true;
        }
        continue;
      }
    }
    break;
  }
  if (!sawdigits) return undefined;
  if (!sawdot) dp = nd;
  if (hex) {
    dp *= 4;
    ndMant *= 4;
  }
  const mantEnd = i;

  let exponent = 0;
  let exponentCapped = false;
  if (i < n && lower(s.charCodeAt(i)) === (hex ? LOWER_P : LOWER_E)) {
    i++;
    if (i >= n) return undefined;
    let esign = 1;
    if (s.charCodeAt(i) === CH_PLUS) i++;
    else if (s.charCodeAt(i) === CH_MINUS) {
      i++;
      esign = -1;
    }
    if (i >= n || !isDigitCode(s.charCodeAt(i))) return undefined;
    let e = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c === CH_UNDERSCORE) {
        underscores = true;
        continue;
      }
      if (!isDigitCode(c)) break;
      if (e < EXPONENT_CAP) e = e * 10 + (c - CH_0);
      else exponentCapped = true;
    }
    exponent = e * esign;
    dp += exponent;
  } else if (hex) {
    return undefined; // a hex mantissa must have a p exponent
  }

  if (underscores && !underscoreOK(s, i)) return undefined;
  // ParseFloat rejects anything left over after the longest valid prefix.
  if (i !== n) return undefined;

  let value: number;
  if (hex) {
    const exp = hexMantissa !== 0n ? dp - ndMant : 0;
    const r = atofHex(hexMantissa, exp, neg, trunc);
    if (r === undefined) return undefined;
    value = r;
  } else if (!underscores && !exponentCapped) {
    // The grammar accepted here is a subset of JS StrDecimalLiteral, and both round correctly
    // (nearest, ties to even), so Number() gives Go's value bit for bit.
    value = Number(s);
  } else {
    // Rare path: drop the underscores and apply Go's capped exponent before handing it to Number().
    const mantissaText = s.slice(0, mantEnd).replaceAll('_', '');
    value = Number(`${mantissaText}e${exponent}`);
  }
  if (value === Number.POSITIVE_INFINITY || value === Number.NEGATIVE_INFINITY) return undefined;
  return value;
}

/** Go `strconv.ParseBool`: 1 t T TRUE true True / 0 f F FALSE false False; anything else fails. */
export function parseGoBool(s: string): boolean | undefined {
  switch (s) {
    case '1':
    case 't':
    case 'T':
    case 'TRUE':
    case 'true':
    case 'True':
      return true;
    case '0':
    case 'f':
    case 'F':
    case 'FALSE':
    case 'false':
    case 'False':
      return false;
    default:
      return undefined;
  }
}
