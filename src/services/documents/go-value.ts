// The values of an export document as Go's encoders see Flipt's: structs (fields in declaration order,
// empty ones already left out) and maps (`map[string]any`: metadata and attachments, whose keys each
// encoder sorts in its own order). A JS object cannot be a Go map here: it puts integer-like keys
// first whatever order they were given in, so maps carry their entries as a list.

export type GoValue = null | boolean | number | string | GoValue[] | GoStruct | GoMap;

/** A struct: own string keys in field order (field names are never integer-like). */
export interface GoStruct {
  [field: string]: GoValue;
}

/** A `map[string]any`: entries unsorted; each encoder sorts them its own way. */
export class GoMap {
  constructor(readonly entries: [string, GoValue][]) {}
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
