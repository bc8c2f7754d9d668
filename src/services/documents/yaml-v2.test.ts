// yaml.v2's choices for one string, as its Encoder (behind Flipt's export) writes `value: <string>`: plain,
// double-quoted where plain text would read as another type, single-quoted where a plain scalar cannot
// begin with or hold the text, escaped where only an escape can say it, folded at the first space past
// column 80, a literal block for text with a newline. The expected texts are yaml.v2 v2.4.0's output
// for these strings (scripts/flipt-text-oracle, run by hand).

import { describe, expect, it } from 'vitest';
import { goJsonLines } from './go-json.js';
import { GoMap } from './go-value.js';
import { yamlV2Stream } from './yaml-v2.js';

const TABLES: [string, [string, string][]][] = [
  [
    'plain text stays plain',
    [
      ['plain text', 'value: plain text\n'],
      ['checkout-redesign', 'value: checkout-redesign\n'],
      ['https://example.test/a?b=1&c=<2>', 'value: https://example.test/a?b=1&c=<2>\n'],
      ['a#b', 'value: a#b\n'],
      ['a:b', 'value: a:b\n'],
      ['-x', 'value: -x\n'],
      ['na\u00efve caf\u00e9', 'value: na\u00efve caf\u00e9\n'],
      ['<<', 'value: <<\n'],
    ],
  ],
  [
    'text that would read as another type is double-quoted',
    [
      ['', 'value: ""\n'],
      ['10', 'value: "10"\n'],
      ['-1.5', 'value: "-1.5"\n'],
      ['.5', 'value: ".5"\n'],
      ['1e3', 'value: "1e3"\n'],
      ['0x1F', 'value: "0x1F"\n'],
      ['0o17', 'value: "0o17"\n'],
      ['0755', 'value: "0755"\n'],
      ['08', 'value: "08"\n'],
      ['1_000', 'value: "1_000"\n'],
      ['+1', 'value: "+1"\n'],
      ['true', 'value: "true"\n'],
      ['True', 'value: "True"\n'],
      ['Yes', 'value: "Yes"\n'],
      ['off', 'value: "off"\n'],
      ['ON', 'value: "ON"\n'],
      ['y', 'value: "y"\n'],
      ['N', 'value: "N"\n'],
      ['~', 'value: "~"\n'],
      ['null', 'value: "null"\n'],
      ['NULL', 'value: "NULL"\n'],
      ['1:30', 'value: "1:30"\n'],
      ['2024-01-15', 'value: "2024-01-15"\n'],
      ['2024-02-29', 'value: "2024-02-29"\n'],
      ['2024-01-15T10:00:00Z', 'value: "2024-01-15T10:00:00Z"\n'],
      ['2024-01-15t10:00:00+02:00', 'value: "2024-01-15t10:00:00+02:00"\n'],
      ['2024-01-15 10:00:00.5', 'value: "2024-01-15 10:00:00.5"\n'],
      ['0b101', 'value: "0b101"\n'],
      ['0b-1', 'value: "0b-1"\n'],
      ['99999999999999999999', 'value: "99999999999999999999"\n'],
    ],
  ],
  [
    'near misses stay plain',
    [
      ['yess', 'value: yess\n'],
      ['nulls', 'value: nulls\n'],
      ['1.2.3', 'value: 1.2.3\n'],
      ['2023-02-29', 'value: 2023-02-29\n'],
      ['2024-13-01', 'value: 2024-13-01\n'],
      ['2024-01-15T24:00:00Z', 'value: 2024-01-15T24:00:00Z\n'],
      ['2024-01-15T10:00:00', 'value: 2024-01-15T10:00:00\n'],
      ['1e400', 'value: 1e400\n'],
      ['0x', 'value: 0x\n'],
      ['10:30 am', 'value: 10:30 am\n'],
      ['+', 'value: +\n'],
      ['.', 'value: .\n'],
      ['-.5x', 'value: -.5x\n'],
      ['1__000x', 'value: 1__000x\n'],
      ['.nan5', 'value: .nan5\n'],
    ],
  ],
  [
    'text a plain scalar cannot begin with or hold is single-quoted',
    [
      ['#1', "value: '#1'\n"],
      ['@team', "value: '@team'\n"],
      ['a: b', "value: 'a: b'\n"],
      ["it's: here", "value: 'it''s: here'\n"],
      ['- x', "value: '- x'\n"],
      ['-', "value: '-'\n"],
      ['[x]', "value: '[x]'\n"],
      ['{x}', "value: '{x}'\n"],
      ['*x', "value: '*x'\n"],
      ['&x', "value: '&x'\n"],
      ['!x', "value: '!x'\n"],
      ['|x', "value: '|x'\n"],
      ['>x', "value: '>x'\n"],
      ['%x', "value: '%x'\n"],
      ['`x', "value: '`x'\n"],
      ["'x", "value: '''x'\n"],
      ['"x', "value: '\"x'\n"],
      ['x ', "value: 'x '\n"],
      [' x', "value: ' x'\n"],
      ['---x', "value: '---x'\n"],
      ['...x', "value: '...x'\n"],
      ['? x', "value: '? x'\n"],
      ['a #b', "value: 'a #b'\n"],
      ['a\u2028b', "value: 'a\u2028  b'\n"],
    ],
  ],
  [
    'what only an escape can say is double-quoted',
    [
      ['tab\there', 'value: "tab\\there"\n'],
      ['bell\u0007', 'value: "bell\\a"\n'],
      ['cr\r', 'value: "cr\\r"\n'],
      ['del\x7f', 'value: "del\\x7F"\n'],
      ['c1\u0085x', 'value: "c1\\Nx"\n'],
      ['nbsp\u00a0ok', 'value: nbsp\u00a0ok\n'],
      ['Launch \ud83d\ude80', 'value: "Launch \\U0001F680"\n'],
      ['\ufeffbom', 'value: "\\uFEFF\\x62\\x6F\\x6D"\n'],
      ['back\\slash "quoted"\t', 'value: "back\\\\slash \\"quoted\\"\\t"\n'],
    ],
  ],
  [
    'long text is folded at the first space past column 80',
    [
      [
        'A plain string goes on past the eightieth column and is folded at the first space after it, each further line indented under its key.',
        'value: A plain string goes on past the eightieth column and is folded at the first\n  space after it, each further line indented under its key.\n',
      ],
      [
        'Note: A plain string goes on past the eightieth column and is folded at the first space after it, each further line indented under its key.',
        "value: 'Note: A plain string goes on past the eightieth column and is folded at the\n  first space after it, each further line indented under its key.'\n",
      ],
      [
        'tab\t A plain string goes on past the eightieth column and is folded at the first space after it, each further line indented under its key.',
        'value: "tab\\t A plain string goes on past the eightieth column and is folded at the\n  first space after it, each further line indented under its key."\n',
      ],
      [
        'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx y z',
        'value: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n  y z\n',
      ],
      [
        'w xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
        'value: w xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n',
      ],
      [
        'A  plain  string  goes  on  past  the  eightieth  column  and  is  folded  at  the  first  space  after  it,  each  further  line  indented  under  its  key.',
        'value: A  plain  string  goes  on  past  the  eightieth  column  and  is  folded  at  the  first  space  after  it,  each  further  line  indented  under  its  key.\n',
      ],
    ],
  ],
  [
    'text with a newline is a literal block',
    [
      ['one\ntwo', 'value: |-\n  one\n  two\n'],
      ['one\ntwo\n', 'value: |\n  one\n  two\n'],
      ['one\n\n', 'value: |+\n  one\n\n'],
      ['\n', 'value: |2+\n\n'],
      ['  indented\nfirst', 'value: |2-\n    indented\n  first\n'],
      ['one\n  two\n\nthree', 'value: |-\n  one\n    two\n\n  three\n'],
      [
        'A plain string goes on past the eightieth column and is folded at the first space after it, each further line indented under its key.\nsecond line',
        'value: |-\n  A plain string goes on past the eightieth column and is folded at the first space after it, each further line indented under its key.\n  second line\n',
      ],
    ],
  ],
  [
    'text with a newline that a literal block cannot hold is double-quoted',
    [
      ['trailing space \nnext', 'value: "trailing space \\nnext"\n'],
      ['tab\tthen\nnewline', 'value: "tab\\tthen\\nnewline"\n'],
      ['ends with space\n ', 'value: "ends with space\\n "\n'],
      ['one\ntwo ', 'value: "one\\ntwo "\n'],
    ],
  ],
];

describe.each(TABLES)('%s', (_habit, rows) => {
  it.each(rows)('%j', (text, expected) => {
    expect(yamlV2Stream([{ value: text }])).toBe(expected);
  });
});

// A map's keys (metadata, an attachment's objects) as yaml.v2 sorts them (digit runs compared as numbers)
// and as Go's JSON encoder sorts them (by bytes).
const KEY_ORDERS: [string[], string[], string[]][] = [
  [
    ['b', 'a10', 'a2', 'A', 'a', '_x', '_1', '_10', '_9', 'é', 'a01', 'a1', 'z', 'Z'],
    ['_1', '_9', '_10', '_x', 'A', 'Z', 'a', 'a1', 'a01', 'a2', 'a10', 'b', 'z', 'é'],
    ['A', 'Z', '_1', '_10', '_9', '_x', 'a', 'a01', 'a1', 'a10', 'a2', 'b', 'z', 'é'],
  ],
  [
    ['step10', 'step2', 'step1', 'step02', 'v1.10', 'v1.9', 'x-1', 'x_1', 'x1'],
    ['step1', 'step2', 'step02', 'step10', 'v1.9', 'v1.10', 'x-1', 'x_1', 'x1'],
    ['step02', 'step1', 'step10', 'step2', 'v1.10', 'v1.9', 'x-1', 'x1', 'x_1'],
  ],
];

describe('map keys', () => {
  it.each(KEY_ORDERS)('%j: yaml.v2 and Go JSON order', (keys, yamlOrder, jsonOrder) => {
    const map = new GoMap(keys.map((k) => [k, 0]));
    const yaml = yamlV2Stream([{ metadata: map }]);
    expect(yaml).toBe(`metadata:\n${yamlOrder.map((k) => `  ${k}: 0\n`).join('')}`);
    const json = goJsonLines([{ metadata: map }]);
    expect(json).toBe(`{"metadata":{${jsonOrder.map((k) => `"${k}":0`).join(',')}}}\n`);
  });
});
