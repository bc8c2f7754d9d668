import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withGoStrings } from './wire.js';

/** What a string is once encoded as UTF-8 and decoded again: lone surrogates become U+FFFD, as in Go. */
const viaUtf8 = (s: string) => Buffer.from(s, 'utf8').toString('utf8');

/** The oracle: every string and key through UTF-8, by plain assignment (no `__proto__` keys generated). */
function expected(value: unknown): unknown {
  if (typeof value === 'string') return viaUtf8(value);
  if (Array.isArray(value)) return value.map(expected);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) out[viaUtf8(key)] = expected(v);
  return out;
}

describe('withGoStrings', () => {
  it('replaces lone surrogates in strings and keys, at any depth, and keeps pairs', () => {
    const body = JSON.parse(
      '{"a\\ud800":"\\udfff","b":["x\\ud83d","\\ud83d\\ude00",1,null,true],"c":{"\\udc00\\ud800":"\\ud800\\udc00"}}',
    );
    expect(withGoStrings(body)).toEqual({
      'a\uFFFD': '\uFFFD',
      b: ['x\uFFFD', '😀', 1, null, true],
      c: { '\uFFFD\uFFFD': '\u{10000}' },
    });
  });

  it('keeps key order; keys that become equal keep the later value', () => {
    const out = withGoStrings(JSON.parse('{"z":1,"\\ud800":2,"a":3,"\\udfff":4}')) as Record<string, unknown>;
    expect(Object.entries(out)).toEqual([
      ['z', 1],
      ['\uFFFD', 4],
      ['a', 3],
    ]);
  });

  it('keeps a `__proto__` key an ordinary key', () => {
    const out = withGoStrings(JSON.parse('{"__proto__":{"x":"\\ud800"}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toEqual({ x: '\uFFFD' });
  });

  it('reads every JSON value as its UTF-8 round trip', () => {
    const text = fc.string({ unit: 'binary', maxLength: 8 });
    const key = text.filter((k) => k !== '__proto__');
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(key, tie('value'), { maxKeys: 4 }),
      ),
    })).value;
    fc.assert(
      fc.property(json, (value) => {
        expect(withGoStrings(JSON.parse(JSON.stringify(value)))).toEqual(expected(value));
      }),
    );
  });
});
