import { afterEach, describe, expect, it, vi } from 'vitest';
import { currentTimestamp } from './evaluation-types.js';

describe('currentTimestamp', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  // In order: the same millisecond twice, the next millisecond, a new second, a new minute, day and
  // year, and back in time (a clock set back) — each must read as toISOString does.
  const instants = [
    '2026-11-28T05:24:34.000Z',
    '2026-11-28T05:24:34.000Z',
    '2026-11-28T05:24:34.001Z',
    '2026-11-28T05:24:34.999Z',
    '2026-11-28T05:24:35.000Z',
    '2026-11-28T05:24:59.999Z',
    '2026-11-28T05:25:00.010Z',
    '2026-11-28T23:59:59.999Z',
    '2026-12-31T23:59:59.999Z',
    '2027-01-01T00:00:00.000Z',
    '2027-01-01T00:00:00.100Z',
    '2026-11-28T05:24:34.500Z',
    '1970-01-01T00:00:00.007Z',
  ];

  it.each(instants.map((iso, i) => [i, iso]))('step %i: %s', (_step, iso) => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(iso as string));
    expect(currentTimestamp()).toBe(iso);
  });
});
