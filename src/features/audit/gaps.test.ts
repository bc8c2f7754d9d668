// The delivery position over ids that may commit out of order: ids passed while not visible become
// watched gaps, a late row fills its gap (splitting the range), and gaps expire after the watch time.

import { describe, expect, it } from 'vitest';
import { expireGaps, MAX_GAPS, markHandled } from './gaps.js';
import type { DeliveryState } from './store.js';

const start: DeliveryState = { sink: 'webhook', deliveredThrough: 10, gaps: [] };

describe('audit delivery gaps', () => {
  it('moves on without a gap when ids follow each other', () => {
    expect(markHandled(start, 11, 1)).toEqual({ ...start, deliveredThrough: 11 });
  });

  it('watches the ids passed while they were not visible', () => {
    expect(markHandled(start, 14, 5)).toEqual({ ...start, deliveredThrough: 14, gaps: [[11, 13, 5]] });
  });

  it('fills a gap from the middle, keeping both sides watched with their first-seen time', () => {
    const state = markHandled(markHandled(start, 14, 5), 12, 9);
    expect(state).toEqual({
      ...start,
      deliveredThrough: 14,
      gaps: [
        [11, 11, 5],
        [13, 13, 5],
      ],
    });
    expect(markHandled(markHandled(state, 11, 10), 13, 10).gaps).toEqual([]);
  });

  it('drops gaps watched longer than the watch time', () => {
    const state = markHandled(markHandled(start, 14, 1_000), 20, 5_000);
    expect(expireGaps(state, 6_000, 3_500).gaps).toEqual([[15, 19, 5_000]]);
    expect(expireGaps(state, 6_000, 10_000)).toBe(state);
  });

  it('keeps at most MAX_GAPS ranges, the newest', () => {
    let state = start;
    for (let i = 0; i < MAX_GAPS + 5; i++) state = markHandled(state, state.deliveredThrough + 2, i);
    expect(state.gaps).toHaveLength(MAX_GAPS);
    expect(state.gaps[0]?.[2]).toBe(5);
  });
});
