// JSON as Go's `json.Encoder` writes Flipt's export documents: compact, one document a line, map keys
// sorted by their UTF-8 bytes, `<`, `>`, `&`, U+2028 and U+2029 escaped as `\u003c`… (the encoder's
// HTML-safe default). Everything else is what JSON.stringify writes for the same value.

import { GoMap, type GoValue } from './go-value.js';

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

/** Go sorts map keys by their bytes: code point order, which UTF-16 order is too unless surrogates occur. */
export function compareUtf8(a: string, b: string): number {
  if (/[\ud800-\udfff]/.test(a) || /[\ud800-\udfff]/.test(b)) return Buffer.compare(Buffer.from(a), Buffer.from(b));
  return a < b ? -1 : a > b ? 1 : 0;
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

/** One line per document, each ending in a newline. */
export function goJsonLines(docs: GoValue[]): string {
  return docs.map((doc) => `${write(doc)}\n`).join('');
}
