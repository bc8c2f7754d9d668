// Field names at the gRPC edge. protos.ts loads proto/ with keepCase (Flipt's snake_case names, so
// that server reflection describes Flipt's fields exactly), while the services, the resource shapes
// and Flipt's JSON use camelCase: requests are renamed on the way in, answers on the way out (except
// the management operations' answers, built with proto/'s names: api/operations/resource-messages.ts).

/**
 * Fields passed through untouched:
 * - maps whose keys are data (an evaluation context, a legacy answer's request context, an
 *   authentication's metadata), with string values;
 * - google.protobuf.Struct and Value (a flag's or an OFREP flag's `metadata`, Struct's `fields`, OFREP's
 *   `value`): protobufjs defines the well-known types itself, in camelCase whatever the loader's
 *   keepCase (`stringValue`, `boolValue`), and a Struct's keys are data.
 * Every other field of these names is a scalar, which renaming leaves alone anyway.
 */
const OPAQUE_FIELDS = new Set(['context', 'request_context', 'requestContext', 'metadata', 'fields', 'value']);

type Rename = (name: string) => string;

const camelCache = new Map<string, string>();
const snakeCache = new Map<string, string>();

function toCamel(name: string): string {
  let out = camelCache.get(name);
  if (out === undefined) {
    out = name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    camelCache.set(name, out);
  }
  return out;
}

function toSnake(name: string): string {
  let out = snakeCache.get(name);
  if (out === undefined) {
    out = name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    snakeCache.set(name, out);
  }
  return out;
}

function renameKeys(value: unknown, rename: Rename): unknown {
  if (Array.isArray(value)) return value.map((item) => renameKeys(item, rename));
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    // A proto3 `optional` field's synthetic oneof (`_metadata`): not a field, nothing to rename.
    if (key.startsWith('_')) continue;
    out[rename(key)] = OPAQUE_FIELDS.has(key) ? field : renameKeys(field, rename);
  }
  return out;
}

/** A decoded request (snake_case) with the services' camelCase names. */
export function camelFields<T>(message: unknown): T {
  return renameKeys(message, toCamel) as T;
}

/** An answer (camelCase) with proto/'s snake_case names, for proto-loader to encode. */
export function snakeFields(message: unknown): unknown {
  return renameKeys(message, toSnake);
}
