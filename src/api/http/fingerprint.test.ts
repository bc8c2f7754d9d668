import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fingerprint } from './fingerprint.js';

describe('fingerprint', () => {
  it('is 14 ETag-safe characters, the same for the same text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        const f = fingerprint(text);
        expect(f).toMatch(/^[0-9a-z]{14}$/);
        expect(fingerprint(`${text}`)).toBe(f);
      }),
    );
  });

  it('differs for different texts, including ones a single character apart', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 100 }), fc.string({ maxLength: 100 }), (a, b) => {
        fc.pre(a !== b);
        expect(fingerprint(a)).not.toBe(fingerprint(b));
      }),
      { numRuns: 2000 },
    );
    // Near-identical inputs, as contexts and revisions are: 100,000 texts, no two fingerprints alike.
    const seen = new Set<string>();
    for (let i = 0; i < 100_000; i++) seen.add(fingerprint(`7:default13:1795664979858.${i}6:userId9:user-${i % 977}`));
    expect(seen.size).toBe(100_000);
    expect(fingerprint('a')).not.toBe(fingerprint('b'));
    expect(fingerprint('')).not.toBe(fingerprint('\u0000'));
  });
});
