// JSON as Go's `json.Encoder` writes Flipt's export documents: compact, one document a line, map keys
// sorted by their UTF-8 bytes, `<`, `>`, `&`, U+2028 and U+2029 escaped as `\u003c`… (the encoder's
// HTML-safe default). Everything else is what JSON.stringify writes for the same value.

import { compareUtf8, GoMap, type GoValue, NOT_FOR_JSON_STRINGIFY } from './go-value.js';

const ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

function goString(text: string): string {
  return JSON.stringify(text).replace(/[<>&\u2028\u2029]/g, (c) => ESCAPES[c] as string);
}

function write(value: GoValue): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return goString(value);
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : JSON.stringify(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map(write).join(',')}]`;
  const entries =
    value instanceof GoMap ? [...value.entries].sort((x, y) => compareUtf8(x[0], y[0])) : Object.entries(value);
  return `{${entries.map(([k, v]) => `${goString(k)}:${write(v)}`).join(',')}}`;
}

function line(doc: GoValue): string {
  // JSON.stringify (native, fast) where it writes what Go writes; the escapes only ever occur in strings.
  try {
    return JSON.stringify(doc).replace(/[<>&\u2028\u2029]/g, (c) => ESCAPES[c] as string);
  } catch (err) {
    if (err !== NOT_FOR_JSON_STRINGIFY) throw err;
  }
  return write(doc);
}

/** One line per document, each ending in a newline. */
export function goJsonLines(docs: GoValue[]): string {
  return docs.map((doc) => `${line(doc)}\n`).join('');
}
