// The values of an export document as Go's encoders see Flipt's: structs (fields in declaration order,
// empty ones already left out) and maps (`map[string]any`: metadata and attachments, whose keys each
// encoder sorts in its own order). A JS object cannot be a Go map here: it puts integer-like keys
// first whatever order they were given in, so maps carry their entries as a list.

export type GoValue = null | boolean | number | string | GoValue[] | GoStruct | GoMap;

/** A struct: own string keys in field order (field names are never integer-like). */
export interface GoStruct {
  [field: string]: GoValue;
}

/** Go's order of strings (sort.Strings, strings.Compare): by UTF-8 bytes, i.e. by code point. */
export function compareUtf8(a: string, b: string): number {
  // UTF-16 order is code point order unless a surrogate pair meets a character from U+E000 up.
  if (/[\ud800-\udfff]/.test(a) || /[\ud800-\udfff]/.test(b)) return Buffer.compare(Buffer.from(a), Buffer.from(b));
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Thrown by GoMap.toJSON where JSON.stringify cannot write what Go writes (go-json.ts then writes it). */
export const NOT_FOR_JSON_STRINGIFY = new Error('JSON.stringify cannot write this map as Go does');

const INTEGER_LIKE = /^(?:0|[1-9][0-9]*)$/;

export const hasNegativeZero = (value: GoValue): boolean =>
  Object.is(value, -0) || (Array.isArray(value) && value.some(hasNegativeZero));

/** A `map[string]any`: entries unsorted; each encoder sorts them its own way. */
export class GoMap {
  constructor(readonly entries: [string, GoValue][]) {}

  /**
   * For JSON.stringify: the entries in Go's JSON order as a plain object. Throws where an object cannot
   * keep that order (a JS object puts integer-like keys first) or JSON.stringify would write -0 as 0.
   */
  toJSON(): Record<string, GoValue> {
    const out: Record<string, GoValue> = {};
    for (const [k, v] of [...this.entries].sort((x, y) => compareUtf8(x[0], y[0]))) {
      if (INTEGER_LIKE.test(k) || hasNegativeZero(v)) throw NOT_FOR_JSON_STRINGIFY;
      out[k] = v;
    }
    return out;
  }
}

/** A parsed JSON value as `json.Unmarshal` into `any` gives it: every object a map. */
export function goValueOfJson(value: unknown): GoValue {
  if (value === null || typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string') {
    return value;
  }
  if (Array.isArray(value)) return value.map(goValueOfJson);
  return new GoMap(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, goValueOfJson(v)]));
}

/**
 * A float32 field (a rollout, a percentage) as the number whose shortest form is the float32's shortest
 * form, as Go prints a float32: the stored double may be the float32 itself (33.33000183105469).
 */
export function goFloat32(value: number): number {
  const f = Math.fround(value);
  if (!Number.isFinite(f) || Number.isInteger(f)) return f;
  for (let digits = 1; digits <= 9; digits++) {
    const candidate = Number(f.toPrecision(digits));
    if (Math.fround(candidate) === f) return candidate;
  }
  return f;
}
