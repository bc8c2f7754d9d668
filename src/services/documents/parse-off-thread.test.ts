// Reading an import on a worker thread gives what reading it here gives: the same documents, whole
// (pieces reassembled in order), and the same first error, naming source, document and field; past
// the worker's heap bound or the size limit the import is refused, and this thread is unharmed.

import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../domain/errors.js';
import { parseSources } from '../import-export.js';
import { DocumentError } from './errors.js';
import { type ImportSourceText, MAX_IMPORT_BYTES, parseSourcesOffThread } from './parse-off-thread.js';

const flags = (ns: string, n: number) =>
  `namespace: ${ns}\nflags:\n${Array.from({ length: n }, (_, i) => `  - key: f${i}\n    name: F${i}\n    metadata: {i: ${i}}\n`).join('')}`;
const segments = (n: number) =>
  `segments:\n${Array.from({ length: n }, (_, i) => `  - key: s${i}\n    name: S${i}\n    constraints:\n      - {type: STRING_COMPARISON_TYPE, property: p, operator: eq, value: v${i}}\n`).join('')}`;

const GOOD: ImportSourceText[] = [
  { name: 'a.yml', text: `${flags('a', 1234)}${segments(600)}---\n${flags('b', 3)}`, format: 'yaml' },
  { name: 'c.json', text: '{"namespace": "c", "flags": [{"key": "x", "name": "X"}]}', format: 'json' },
];

describe('parseSourcesOffThread', () => {
  it('gives the documents parseSources gives, pieces put back in order', async () => {
    const off = await parseSourcesOffThread(GOOD);
    expect(off.map((d) => [d.source, d.index, d.content.flags.length, d.content.segments.length])).toEqual([
      ['a.yml', 0, 1234, 600],
      ['a.yml', 1, 3, 0],
      ['c.json', 0, 1, 0],
    ]);
    expect(off).toEqual(parseSources(GOOD));
  });

  it('text sent in slices (1 Mi characters a message) arrives whole, a pair of surrogates cut in two too', async () => {
    const SLICE = 1024 * 1024;
    const flags = Array.from({ length: 60_000 }, (_, i) => `  - key: f${i}\n    name: "F ${i} 🚩"\n`).join('');
    const body = `namespace: sliced\nflags:\n${flags}`;
    // A comment in front, as long as it takes to put an emoji's first half (of two UTF-16 code units)
    // last in the first slice.
    const emoji = body.lastIndexOf('🚩', SLICE - 3);
    const text = `#${'x'.repeat(SLICE - 1 - emoji - 2)}\n${body}`;
    expect([text.length > 2 * SLICE, text.codePointAt(SLICE - 1)]).toEqual([true, '🚩'.codePointAt(0)]);
    const sources: ImportSourceText[] = [{ name: 'big.yml', text, format: 'yaml' }, GOOD[1] as ImportSourceText];
    expect(await parseSourcesOffThread(sources)).toEqual(parseSources(sources));
  });

  it.each<[string, ImportSourceText[]]>([
    [
      'a bad field',
      [
        GOOD[0] as ImportSourceText,
        { name: 'bad.yml', text: '---\n---\nflags: [{key: "a b", name: A}]\n', format: 'yaml' },
      ],
    ],
    ['bad YAML', [{ name: 'x.yml', text: 'flags: [\n', format: 'yaml' }]],
    ['bad JSON', [{ name: 'x.json', text: '{"flags": }', format: 'json' }]],
    [
      'an alias bomb',
      [
        {
          name: 'x.yml',
          text: 'a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n',
          format: 'yaml',
        },
      ],
    ],
  ])('%s: the same DocumentError as on this thread', async (_name, sources) => {
    let here: unknown;
    try {
      parseSources(sources);
    } catch (err) {
      here = err;
    }
    expect(here).toBeInstanceOf(DocumentError);
    const there = await parseSourcesOffThread(sources).catch((err: unknown) => err);
    expect(there).toBeInstanceOf(DocumentError);
    expect(there).toEqual(here);
    expect((there as Error).message).toBe((here as Error).message);
  });

  it('a document denser than the heap bound is refused, naming the bound', async () => {
    const dense: ImportSourceText = {
      name: 'dense.yml',
      text: `anchors: [${'{a: 1}, '.repeat(1_500_000)}]\n`,
      format: 'yaml',
    };
    const err = await parseSourcesOffThread([dense], 64).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DocumentError);
    expect((err as Error).message).toBe('dense.yml: document 1: too large to read within the 64 MB an import may take');
  });

  it('sources over the size limit in all are refused before any worker starts', async () => {
    const half = 'x'.repeat(MAX_IMPORT_BYTES / 2);
    const err = await parseSourcesOffThread([
      { name: 'one.yml', text: half, format: 'yaml' },
      { name: 'two.yml', text: `${half}#`, format: 'yaml' },
    ]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as Error).message).toBe('two.yml: the documents of one import may take 64 MiB at most');
  });
});
