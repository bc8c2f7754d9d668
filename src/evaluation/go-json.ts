// Decoding of `isoneof`/`isnotoneof` constraint values with Go `json.Unmarshal` semantics into
// []string or []float64: the literal `null` is an empty list, a `null` element is the zero value
// ("" or 0), a number that overflows float64 is an error, and strings holding lone surrogates read
// as U+FFFD (Go decodes `"\ud800"` that way; JSON.parse keeps the lone surrogate).

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const ANY_SURROGATE = /[\uD800-\uDFFF]/;

/** Replaces lone surrogates with U+FFFD, as Go's UTF-8 strings would hold them. */
export function toGoString(s: string): string {
  return ANY_SURROGATE.test(s) ? s.replace(LONE_SURROGATE, '\uFFFD') : s;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** `json.Unmarshal([]byte(text), &[]string{})`; undefined where Go returns an error. */
export function decodeGoStringArray(text: string): string[] | undefined {
  const parsed = parseJson(text);
  if (!parsed.ok) return undefined;
  const value = parsed.value;
  if (value === null) return [];
  if (!Array.isArray(value)) return undefined;
  const out: string[] = [];
  for (const element of value as unknown[]) {
    if (element === null) out.push('');
    else if (typeof element === 'string') out.push(toGoString(element));
    else return undefined;
  }
  return out;
}

/** `json.Unmarshal([]byte(text), &[]float64{})`; undefined where Go returns an error. */
export function decodeGoNumberArray(text: string): number[] | undefined {
  const parsed = parseJson(text);
  if (!parsed.ok) return undefined;
  const value = parsed.value;
  if (value === null) return [];
  if (!Array.isArray(value)) return undefined;
  const out: number[] = [];
  for (const element of value as unknown[]) {
    if (element === null) out.push(0);
    // JSON.parse turns an overflowing literal into ±Infinity where Go reports a range error.
    else if (typeof element === 'number' && Number.isFinite(element)) out.push(element);
    else return undefined;
  }
  return out;
}
