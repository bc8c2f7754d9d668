import { describe, expect, it } from 'vitest';
import { LongLivedStreams } from './long-lived-streams.js';

describe('LongLivedStreams', () => {
  it('ends every open stream once when the drain starts, and none that ended on its own', () => {
    const streams = new LongLivedStreams();
    const ended: string[] = [];
    streams.add(() => ended.push('a'));
    const removeB = streams.add(() => ended.push('b'));
    streams.add(() => ended.push('c'));
    removeB();
    expect(streams.size).toBe(2);
    streams.endAll();
    streams.endAll();
    expect(ended).toEqual(['a', 'c']);
    expect(streams.size).toBe(0);
    expect(streams.draining).toBe(true);
  });

  it('ends a stream opened during the drain at once', () => {
    const streams = new LongLivedStreams();
    streams.endAll();
    let ended = false;
    streams.add(() => {
      ended = true;
    });
    expect(ended).toBe(true);
    expect(streams.size).toBe(0);
  });

  it('goes on to the other streams when ending one throws', () => {
    const streams = new LongLivedStreams();
    let ended = false;
    streams.add(() => {
      throw new Error('socket already gone');
    });
    streams.add(() => {
      ended = true;
    });
    streams.endAll();
    expect(ended).toBe(true);
  });
});
