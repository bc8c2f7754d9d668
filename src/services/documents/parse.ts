// Reading the text of an import: a YAML stream (documents separated by `---`) or JSON (an optional
// leading `#` comment line, then one or more concatenated JSON documents, as Flipt writes them).
// Gives plain values; validate.ts checks them. Every failure is a DocumentError naming the source.

import { CORE_SCHEMA, loadAll, YAMLException } from 'js-yaml';
import { ALIAS_EXPANSION_REASON, expandedSize, MAX_ALIAS_EXPANSION } from './alias-expansion.js';
import { DocumentError } from './errors.js';

export type DocumentFormat = 'yaml' | 'json';

/** One document of a source, as plain data, with its 0-based position in the source. */
export interface RawDocument {
  index: number;
  value: unknown;
}

/** The format a file name implies: `.json` is JSON, `.yml`/`.yaml` YAML; undefined otherwise. */
export function formatOfFileName(name: string): DocumentFormat | undefined {
  const lower = name.toLowerCase();
  if (lower.endsWith('.json')) return 'json';
  if (lower.endsWith('.yml') || lower.endsWith('.yaml')) return 'yaml';
  return undefined;
}

/** The format of text whose name says nothing (stdin): JSON when it opens with `{` after comments. */
export function sniffFormat(text: string): DocumentFormat {
  for (const line of text.split('\n', 50)) {
    const t = line.trim();
    if (t === '' || t.startsWith('#')) continue;
    return t.startsWith('{') ? 'json' : 'yaml';
  }
  return 'yaml';
}

export function parseDocuments(text: string, format: DocumentFormat, source: string): RawDocument[] {
  return format === 'json' ? parseJsonDocuments(text, source) : parseYamlDocuments(text, source);
}

function parseYamlDocuments(text: string, source: string): RawDocument[] {
  // js-yaml: ten times faster than the yaml package's document model on a 10,000-flag file, with a
  // tenth of the memory (docs/performance.md). The core schema reads dates as text, as a Go string
  // field does; a key given twice in one mapping is an error, as in Flipt's decoder.
  let values: unknown[];
  try {
    values = loadAll(text, null, { schema: CORE_SCHEMA });
  } catch (err) {
    if (!(err instanceof YAMLException)) throw err;
    const where = err.mark ? ` at line ${err.mark.line + 1}, column ${err.mark.column + 1}` : '';
    // js-yaml does not say which document of a stream failed: count the separators before the error.
    const index = err.mark ? documentIndexAt(text, err.mark.line) : 0;
    throw new DocumentError(source, index, '', `invalid YAML${where}: ${err.reason}`);
  }
  const out: RawDocument[] = [];
  // Checked before anything walks the values (alias-expansion.ts): the text's own length, plus what
  // aliases may add, over every document of the source.
  let budget = text.length + MAX_ALIAS_EXPANSION;
  for (const value of values) {
    // An empty document (a trailing `---`, a file of comments) is skipped, as Flipt's decoder does.
    if (value === null || value === undefined) continue;
    budget -= expandedSize(value);
    if (budget < 0) throw new DocumentError(source, out.length, '', ALIAS_EXPANSION_REASON);
    out.push({ index: out.length, value });
  }
  return out;
}

/** The 0-based document of a YAML stream that holds the (0-based) line. */
function documentIndexAt(text: string, line: number): number {
  const lines = text.split('\n', line + 1);
  let index = 0;
  let content = false;
  for (let i = 0; i < line && i < lines.length; i++) {
    const l = lines[i] as string;
    if (/^---(\s|$)/.test(l)) {
      if (content) index++;
      content = false;
    } else if (l.trim() !== '' && !l.trimStart().startsWith('#')) content = true;
  }
  return index;
}

/** Skips JSON's whitespace from `i`; returns the index of the next other character. */
function skipSpace(text: string, i: number): number {
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

/** The end (exclusive) of the JSON object or array that starts at `start`, or -1 if it never closes. */
function endOfJsonValue(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 0x0a) line++;
  return line;
}

function parseJsonDocuments(text: string, source: string): RawDocument[] {
  let i = 0;
  // Leading comment lines (Flipt heads its exports with one).
  for (;;) {
    i = skipSpace(text, i);
    if (text[i] !== '#') break;
    const nl = text.indexOf('\n', i);
    i = nl === -1 ? text.length : nl + 1;
  }
  const out: RawDocument[] = [];
  for (;;) {
    i = skipSpace(text, i);
    if (i >= text.length) break;
    const index = out.length;
    if (text[i] !== '{') {
      throw new DocumentError(
        source,
        index,
        '',
        `invalid JSON at line ${lineOf(text, i)}: a document must be an object`,
      );
    }
    const end = endOfJsonValue(text, i);
    if (end === -1)
      throw new DocumentError(source, index, '', `invalid JSON at line ${lineOf(text, i)}: unterminated object`);
    try {
      out.push({ index, value: JSON.parse(text.slice(i, end)) });
    } catch (err) {
      throw new DocumentError(source, index, '', `invalid JSON at line ${lineOf(text, i)}: ${(err as Error).message}`);
    }
    i = end;
  }
  return out;
}
