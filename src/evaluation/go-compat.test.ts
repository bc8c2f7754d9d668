// Expected values below were checked against Go itself (strconv, strings, encoding/json, time).
import { describe, expect, it } from 'vitest';
import { decodeGoNumberArray, decodeGoStringArray } from './go-json.js';
import { parseGoBool, parseGoFloat } from './go-strconv.js';
import { goQuote, goToLower, goTrimSpace, isGoBlank, trimmedHasPrefix, trimmedHasSuffix } from './go-strings.js';
import { compareInstants, normalizeGoDateTime, parseGoDateTime } from './go-time.js';

describe('parseGoFloat (strconv.ParseFloat(s, 64))', () => {
  it.each([
    ['0', 0],
    ['-0', -0],
    ['42', 42],
    ['+42', 42],
    ['4.2e1', 42],
    ['4.2E+1', 42],
    ['.5', 0.5],
    ['5.', 5],
    ['1e-400', 0],
    ['1_000', 1000],
    ['1_000.5e1_0', 10005000000000],
    ['0x1.8p1', 3],
    ['0X1P+0', 1],
    ['0x_1p0', 1],
    ['0x1p-1074', 5e-324],
    ['0x1p-1075', 0],
    ['0x1.fffffffffffffp1023', Number.MAX_VALUE],
    ['1.7976931348623157e308', Number.MAX_VALUE],
    ['inf', Number.POSITIVE_INFINITY],
    ['+Inf', Number.POSITIVE_INFINITY],
    ['-infinity', Number.NEGATIVE_INFINITY],
    ['INFINITY', Number.POSITIVE_INFINITY],
    ['0.1', 0.1],
    ['123456789012345678901234567890', 1.2345678901234568e29],
  ])('%j → %d', (input, expected) => {
    expect(Object.is(parseGoFloat(input), expected)).toBe(true);
  });

  it('parses nan (unsigned, any case) to NaN', () => {
    expect(parseGoFloat('nan')).toBeNaN();
    expect(parseGoFloat('NaN')).toBeNaN();
    expect(parseGoFloat('NAN')).toBeNaN();
  });

  it.each([
    '',
    ' 1',
    '1 ',
    '\t1',
    '+nan',
    '-nan',
    'nanx',
    'infx',
    'infin',
    'Infinityy',
    '.',
    '-',
    '1e',
    '1e+',
    'e5',
    '0x1',
    '0x1.8',
    '0x',
    '0xp1',
    '1p5',
    '_1',
    '1_',
    '1__0',
    '1_.5',
    '1._5',
    '1_e5',
    '1e_5',
    '0b101',
    '0o17',
    '1.2.3',
    '1e400',
    '-1e400',
    '0x1p1024',
    '0x1.fffffffffffff8p1023',
    '1,000',
    'Infinity!',
    '１',
  ])('%j is an error', (input) => {
    expect(parseGoFloat(input)).toBeUndefined();
  });
});

describe('parseGoBool (strconv.ParseBool)', () => {
  it.each(['1', 't', 'T', 'TRUE', 'true', 'True'])('%j → true', (s) => expect(parseGoBool(s)).toBe(true));
  it.each(['0', 'f', 'F', 'FALSE', 'false', 'False'])('%j → false', (s) => expect(parseGoBool(s)).toBe(false));
  it.each(['', 'yes', 'no', 'tRUE', 'TrUe', ' true', 'true ', '2', 'on'])('%j is an error', (s) =>
    expect(parseGoBool(s)).toBeUndefined(),
  );
});

describe('Go white space (strings.TrimSpace)', () => {
  it('trims Go spaces, including U+0085 and U+00A0, but not U+FEFF, U+200B or U+180E', () => {
    expect(goTrimSpace(' \t\n\v\f\r\u0085\u00a0x\u2000\u3000\u2028 ')).toBe('x');
    expect(isGoBlank('\u1680\u202f\u205f\u2029')).toBe(true);
    expect(isGoBlank('\ufeff')).toBe(false);
    expect(isGoBlank('\u200b')).toBe(false);
    expect(isGoBlank('\u180e')).toBe(false);
    expect(isGoBlank('')).toBe(true);
  });

  it('tests prefixes and suffixes on the trimmed value without trimming the constraint value', () => {
    expect(trimmedHasPrefix('  foobar ', 'foo')).toBe(true);
    expect(trimmedHasPrefix('  foobar ', ' foo')).toBe(false);
    expect(trimmedHasSuffix('\u0085foobar\u00a0', 'bar')).toBe(true);
    expect(trimmedHasSuffix('foobar\ufeff', 'bar')).toBe(false);
    expect(trimmedHasPrefix('   ', '')).toBe(true);
    expect(trimmedHasPrefix(' ab ', 'abc')).toBe(false);
  });
});

describe('goQuote (strconv.Quote) and goToLower (strings.ToLower)', () => {
  it('quotes like Go', () => {
    expect(goQuote('EQ')).toBe('"EQ"');
    expect(goQuote('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(goQuote('\n\t\u0007\u007f')).toBe('"\\n\\t\\a\\x7f"');
    expect(goQuote('\u0001é中🙂')).toBe('"\\x01é中🙂"');
    expect(goQuote('\u00a0\u00ad\u200b')).toBe('"\\u00a0\\u00ad\\u200b"');
    expect(goQuote('\u{e0001}')).toBe('"\\U000e0001"');
  });

  it('lowercases rune by rune', () => {
    expect(goToLower('ISONEOF')).toBe('isoneof');
    expect(goToLower('İSONEOF')).toBe('isoneof');
    expect(goToLower('ΟΔΟΣ')).toBe('οδοσ');
    expect(goToLower('\u212a')).toBe('k');
  });
});

describe('datetime parsing (time.Parse RFC3339, then DateOnly)', () => {
  const at = (s: string): string | undefined => {
    const t = parseGoDateTime(s);
    return t === undefined ? undefined : `${t.sec}.${t.nsec}`;
  };

  it.each([
    ['2006-01-02T15:04:05Z', '1136214245.0'],
    ['2006-01-02T15:04:05.123+02:00', '1136207045.123000000'],
    ['2006-01-02T15:04:05,5Z', '1136214245.500000000'],
    ['2006-01-02T1:04:05Z', '1136163845.0'],
    ['2006-01-02T15:04:05.1234567891234Z', '1136214245.123456789'],
    ['2006-01-02T15:04:05-00:00', '1136214245.0'],
    ['2006-01-02T15:04:05+24:00', '1136127845.0'],
    ['2006-01-02T15:04:05+23:60', '1136127845.0'],
    ['2024-02-29T00:00:00Z', '1709164800.0'],
    ['2006-01-02', '1136160000.0'],
    ['2000-02-29', '951782400.0'],
    ['0000-01-01T00:00:00Z', '-62167219200.0'],
    ['9999-12-31T23:59:59Z', '253402300799.0'],
  ])('%s → %s', (input, expected) => {
    expect(at(input)?.replace(/\.0+$/, '.0')).toBe(expected.replace(/\.0+$/, '.0'));
  });

  it.each([
    '',
    '2006-01-02t15:04:05Z',
    '2006-01-02T15:04:05z',
    '2006-01-02 15:04:05Z',
    '2006-01-02T15:04:05',
    '2006-01-02T15:04Z',
    '2006-01-02T24:00:00Z',
    '2006-01-02T15:60:00Z',
    '2006-01-02T15:04:60Z',
    '2006-13-02T15:04:05Z',
    '2006-00-02T15:04:05Z',
    '2006-02-30T15:04:05Z',
    '2023-02-29',
    '2100-02-29',
    '2006-1-02',
    '2006-01-2',
    '06-01-02',
    '2006-01-02T15:04:05+25:00',
    '2006-01-02T15:04:05+0100',
    '2006-01-02T15:04:05.Z',
    '2006-01-02T15:04:05Z ',
    ' 2006-01-02',
    '2006-01-02T',
    '20060102',
    '2006-01-02T15:04:05.123',
    '2006-01-02T015:04:05Z',
  ])('%j does not parse', (input) => {
    expect(parseGoDateTime(input)).toBeUndefined();
  });

  it('compares with nanosecond precision', () => {
    const a = parseGoDateTime('2024-01-01T00:00:00.000000001Z');
    const b = parseGoDateTime('2024-01-01T00:00:00Z');
    expect(a && b && compareInstants(a.sec, a.nsec, b.sec, b.nsec)).toBe(1);
  });

  it('normalizes to UTC whole seconds (RFC 3339) or keeps a date', () => {
    expect(normalizeGoDateTime('2024-01-02T03:04:05.999+02:00')).toBe('2024-01-02T01:04:05Z');
    expect(normalizeGoDateTime('2024-01-02T3:04:05Z')).toBe('2024-01-02T03:04:05Z');
    expect(normalizeGoDateTime('2024-01-02')).toBe('2024-01-02');
    expect(normalizeGoDateTime('0000-01-01T00:00:00+01:00')).toBe('-0001-12-31T23:00:00Z');
    expect(normalizeGoDateTime('9999-12-31T23:30:00-01:00')).toBe('10000-01-01T00:30:00Z');
    expect(normalizeGoDateTime('yesterday')).toBeUndefined();
  });
});

describe('isoneof lists (json.Unmarshal into []string / []float64)', () => {
  it('decodes string lists', () => {
    expect(decodeGoStringArray('["a","b"]')).toEqual(['a', 'b']);
    expect(decodeGoStringArray(' [ ] ')).toEqual([]);
    expect(decodeGoStringArray('null')).toEqual([]);
    expect(decodeGoStringArray('[null,"a"]')).toEqual(['', 'a']);
    expect(decodeGoStringArray('["\\ud800"]')).toEqual(['\ufffd']);
    for (const bad of ['', '[1]', '"a"', '{}', '[true]', '["a",]', "['a']", '[["a"]]', 'a']) {
      expect(decodeGoStringArray(bad)).toBeUndefined();
    }
  });

  it('decodes number lists', () => {
    expect(decodeGoNumberArray('[1, 2.5, -0, 1e2]')).toEqual([1, 2.5, -0, 100]);
    expect(decodeGoNumberArray('null')).toEqual([]);
    expect(decodeGoNumberArray('[null]')).toEqual([0]);
    for (const bad of ['["1"]', '[1e400]', '[NaN]', '[Infinity]', '1', '[0x10]', '[01]', '[1,]']) {
      expect(decodeGoNumberArray(bad)).toBeUndefined();
    }
  });
});
