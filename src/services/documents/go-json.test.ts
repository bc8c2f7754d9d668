// JSON as Go's encoder writes Flipt's documents, in the cases JSON.stringify alone would get wrong. The
// expected lines are Go's output for the same values (Go 1.22 and later write `\b` and `\f` for U+0008
// and U+000C, as JSON.stringify does; older Go wrote `\u0008`, `\u000c`).

import { describe, expect, it } from 'vitest';
import { goJsonLines } from './go-json.js';
import { GoMap, type GoValue, goValueOfJson } from './go-value.js';

const ROWS: [string, GoValue, string][] = [
  [
    'map keys by bytes, integer-like ones too (a JS object would put them first)',
    new GoMap([
      ['b', 1],
      ['10', 2],
      ['9', 3],
      ['1', 4],
    ]),
    '{"1":4,"10":2,"9":3,"b":1}',
  ],
  ['-0 as Go prints it', goValueOfJson(JSON.parse('{"n":-0,"l":[-0,0.5]}')), '{"l":[-0,0.5],"n":-0}'],
  [
    '<, >, &, U+2028 and U+2029 escaped, keys too',
    new GoMap([['<k>', '<a href="x">&</a>\u2028\u2029 \b\f']]),
    '{"\\u003ck\\u003e":"\\u003ca href=\\"x\\"\\u003e\\u0026\\u003c/a\\u003e\\u2028\\u2029 \\b\\f"}',
  ],
  [
    'a struct keeps its field order, a map inside it is sorted',
    {
      key: 'f',
      enabled: true,
      metadata: new GoMap([
        ['z', null],
        [
          'a',
          [
            new GoMap([
              ['y', {}],
              ['x', []],
            ]),
          ],
        ],
      ]),
    },
    '{"key":"f","enabled":true,"metadata":{"a":[{"x":[],"y":{}}],"z":null}}',
  ],
];

describe("Go's JSON encoder", () => {
  it.each(ROWS)('%s', (_what, value, expected) => {
    expect(goJsonLines([value, value])).toBe(`${expected}\n${expected}\n`);
  });
});
