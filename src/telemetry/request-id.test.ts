import { describe, expect, it } from 'vitest';
import { randomRequestId } from './request-id.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('randomRequestId', () => {
  // 20,000 ids span several refills of the 4,096-id pool.
  const ids = Array.from({ length: 20_000 }, () => randomRequestId());

  it('makes lower-case UUID v4 text, all different, each unchanged by the ones made after it', () => {
    const first = ids[0] as string;
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[0]).toBe(first);
    expect(randomRequestId()).not.toBe(ids[ids.length - 1]);
  });

  it('draws every random hex digit evenly', () => {
    const digits = ids.map((id) => id.replaceAll('-', ''));
    for (let position = 0; position < 32; position++) {
      if (position === 12 || position === 16) continue; // version and variant
      const counts = new Map<string, number>();
      for (const d of digits) counts.set(d[position] as string, (counts.get(d[position] as string) ?? 0) + 1);
      expect(counts.size).toBe(16);
      // 1,250 expected per digit; ±20 % is over 7 standard deviations.
      for (const n of counts.values()) expect(Math.abs(n - 1250)).toBeLessThan(250);
    }
    const variants = new Set(digits.map((d) => d[16]));
    expect([...variants].sort()).toEqual(['8', '9', 'a', 'b']);
  });
});
