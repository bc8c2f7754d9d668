// Helpers for Flipt's JSON conventions (protojson through grpc-gateway): RFC 3339 UTC timestamps,
// float32 numbers in their shortest form, snake_case and camelCase field names both accepted, lone
// surrogates read as Go reads them.

import { toGoString } from '../../evaluation/go-json.js';

/**
 * Names the revision an answer was computed from (beyond Flipt: read-your-writes can be checked):
 * evaluation answers from their snapshot, management answers from their write or namespace (tiers.ts).
 */
export { REVISION_HEADER } from '../kinds.js';

/** RFC 3339 in UTC with a Z suffix. */
export function timestamp(date: Date): string {
  return date.toISOString();
}

export { float32 } from '../float32.js';

/** Fields whose values are user maps: their keys are data and are never renamed. */
const OPAQUE_FIELDS = new Set(['context', 'metadata', 'attachment', 'requestContext']);

function camelCase(key: string): string {
  return key.includes('_') ? key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()) : key;
}

/**
 * Renames snake_case keys to camelCase (Flipt accepts both), leaving user maps untouched. A camelCase
 * key present in the same object wins over its snake_case twin. Returns the input when nothing changes.
 */
export function camelizeKeys(value: unknown): unknown {
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const c = camelizeKeys(v);
      if (c !== v) changed = true;
      return c;
    });
    return changed ? out : value;
  }
  if (typeof value !== 'object' || value === null) return value;
  const source = value as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const [key, v] of Object.entries(source)) {
    const name = camelCase(key);
    const converted = OPAQUE_FIELDS.has(name) ? v : camelizeKeys(v);
    if (name !== key || converted !== v) {
      out ??= { ...source };
      if (name !== key) {
        delete out[key];
        if (name in source) continue;
      }
      out[name] = converted;
    }
  }
  return out ?? value;
}

/**
 * The parsed JSON value with every lone surrogate of its strings and keys replaced by U+FFFD, as Go's
 * decoder reads `"\ud800"` in Flipt's requests (JSON.parse keeps it). Rebuilds what it walks, in order;
 * keys that become equal keep the later value, as in a Go map.
 */
export function withGoStrings(value: unknown): unknown {
  if (typeof value === 'string') return toGoString(value);
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(withGoStrings);
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    // Defined, not assigned: JSON.parse makes `__proto__` an ordinary key, which assigning would not.
    Object.defineProperty(out, toGoString(key), {
      value: withGoStrings(v),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** Path parameters win over body fields of the same name (grpc-gateway). */
export function withPathParams<T extends object>(body: unknown, params: object): T {
  const base = typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {};
  return { ...base, ...params } as T;
}

/** Flipt's `?pretty` (any value) or `Accept: application/json+pretty`: indented JSON, for people. */
export function wantsPretty(request: { url: string; query: unknown; headers: { accept?: string } }): boolean {
  if (request.headers.accept?.includes('application/json+pretty')) return true;
  if (!request.url.includes('pretty')) return false;
  // No query at all (null) when the URL could not be parsed (Fastify's bad-URL answer).
  const query = request.query as Record<string, unknown> | null | undefined;
  return typeof query === 'object' && query !== null && 'pretty' in query;
}

/** JSON text indented by two spaces; text that is not JSON is returned as it is. */
export function indentJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
