// The measure behind the alias bound: without aliases a document's expanded size stays within its
// text (so the bound is what aliases add), and shared values count once per reference.

import { readFileSync } from 'node:fs';
import { CORE_SCHEMA, loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { expandedSize } from './alias-expansion.js';
import { parseDocuments } from './parse.js';
import { serializeNamespaces } from './serialize.js';
import { readDocuments } from './validate.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../../../test/fixtures/documents/${name}`, import.meta.url), 'utf8');

describe('expandedSize', () => {
  it.each(['v1.0.yml', 'v1.1.yml', 'v1.2.yml', 'v1.3.yml'])('stays within the text of %s', (name) => {
    const text = fixture(name);
    const size = loadAll(text, null, { schema: CORE_SCHEMA }).reduce<number>((sum, v) => sum + expandedSize(v), 0);
    expect(size).toBeGreaterThan(0);
    expect(size).toBeLessThanOrEqual(text.length);
  });

  it('stays within the text of an export in YAML (the text yaml.v2 writes)', () => {
    const docs = readDocuments(parseDocuments(fixture('v1.4.json'), 'json', 'v1.4.json'), 'v1.4.json', 'json');
    const text = serializeNamespaces(
      docs.map((d) => d.content),
      { format: 'yaml' },
    );
    const size = loadAll(text, null, { schema: CORE_SCHEMA }).reduce<number>((sum, v) => sum + expandedSize(v), 0);
    expect(size).toBeLessThanOrEqual(text.length);
  });

  it.each([
    ['a string', 'abc', 3],
    ['a number, a boolean, null', [1, true, null], 4],
    ['keys count their characters', { ab: 'c' }, 4],
  ])('%s', (_name, value, size) => {
    expect(expandedSize(value)).toBe(size);
  });

  it('counts a shared value once per reference, without walking it again', () => {
    let value: unknown = 'lol';
    for (let i = 0; i < 30; i++) value = [value, value];
    // 2^30 strings of 3 characters and 2^30 - 1 lists: measured in 31 steps, not 2^31.
    expect(expandedSize(value)).toBe(2 ** 30 * 3 + 2 ** 30 - 1);
  });
});
