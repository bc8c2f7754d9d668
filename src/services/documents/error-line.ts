// The line of a DocumentError's object or field in a YAML source. Run only once an import has failed:
// the values parse.ts reads keep no positions, so the failing source is read again by js-yaml with a
// listener that notes where each mapping key and sequence item starts, and the error's path is
// walked in that. The success path costs nothing. js-yaml rather than the yaml package's document
// model, whose node ranges would be simpler to walk: on 10,000 flags (1.7 MB) the error path took
// 1.4 s against 5.7 s, and it runs on the event loop when the import itself fails (a segment not
// found, a key not unique); a failure of the checks is located on the reading worker (ADR 0034).
// JSON errors keep their path alone (a JSON document is usually one line).

import { CORE_SCHEMA, loadAll } from 'js-yaml';
import { DocumentError } from './errors.js';
import type { DocumentFormat } from './parse.js';

export interface LocatableSource {
  name: string;
  text: string;
  format: DocumentFormat;
}

/** `flags[4] (pricing-page).rules[0].segment` → ['flags', 4, 'rules', 0, 'segment']; '(document)' → []. */
export function pathSteps(path: string): (string | number)[] {
  const bare = path.replace(/ \([^)]*\)/g, '');
  if (bare === '' || bare === '(document)') return [];
  const steps: (string | number)[] = [];
  for (const m of bare.matchAll(/\[(\d+)\]|([^.[\]]+)/g)) steps.push(m[1] !== undefined ? Number(m[1]) : String(m[2]));
  return steps;
}

/** The 0-based start lines of a sequence's items, or of a mapping's keys. */
type Lines = number[] | Map<unknown, number>;

interface Located {
  line: number;
  value: unknown;
}

/** Every document of a YAML text with the 0-based line where it starts, and the lines inside it. */
function readWithLines(text: string): { documents: Located[]; lines: WeakMap<object, Lines> } {
  const lines = new WeakMap<object, Lines>();
  // One frame per node being read: where it starts and its children so far (for a mapping: key,
  // value, key, value...).
  const frames: { line: number; children: Located[] }[] = [{ line: 0, children: [] }];
  const listener = (event: 'open' | 'close', state: { line: number; result: unknown }) => {
    if (event === 'open') {
      frames.push({ line: state.line, children: [] });
      return;
    }
    const frame = frames.pop();
    if (!frame) return;
    const value = state.result;
    if (Array.isArray(value))
      lines.set(
        value,
        frame.children.map((c) => c.line),
      );
    else if (typeof value === 'object' && value !== null) {
      const keys = new Map<unknown, number>();
      for (let i = 0; i + 1 < frame.children.length; i += 2) {
        const key = frame.children[i] as Located;
        if (!keys.has(key.value)) keys.set(key.value, key.line);
      }
      lines.set(value, keys);
    }
    frames.at(-1)?.children.push({ line: frame.line, value });
  };
  loadAll(text, null, { schema: CORE_SCHEMA, listener });
  return { documents: frames[0]?.children ?? [], lines };
}

/**
 * The 1-based line of `path` in the `documentIndex`-th non-empty document of a YAML text: of the field
 * or item itself, or of the nearest enclosing one it is missing from (a field not given is reported
 * where its object starts). Undefined when the text cannot be read that way.
 */
export function yamlLine(text: string, documentIndex: number, path: string): number | undefined {
  let read: ReturnType<typeof readWithLines>;
  try {
    read = readWithLines(text);
  } catch {
    return undefined;
  }
  // parse.ts skips empty documents (and counts without them): do the same.
  const document = read.documents.filter((d) => d.value !== null && d.value !== undefined)[documentIndex];
  if (!document) return undefined;
  let line = document.line;
  let value = document.value;
  for (const step of pathSteps(path)) {
    if (typeof value !== 'object' || value === null) break;
    const known = read.lines.get(value);
    const at = Array.isArray(known) ? known[Number(step)] : known?.get(String(step));
    if (at === undefined) break;
    line = at;
    value = (value as Record<string | number, unknown>)[step];
  }
  return line + 1;
}

/** `err` with the line of its path when it is a DocumentError of one of the YAML `sources`; else `err`. */
export function withLine(err: unknown, sources: readonly LocatableSource[]): unknown {
  if (!(err instanceof DocumentError) || err.line !== undefined || err.path === '') return err;
  const source = sources.find((s) => s.name === err.source);
  if (source?.format !== 'yaml') return err;
  const line = yamlLine(source.text, err.documentIndex, err.path);
  return line === undefined ? err : new DocumentError(err.source, err.documentIndex, err.path, err.reason, line);
}
