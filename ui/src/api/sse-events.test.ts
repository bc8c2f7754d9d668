import { describe, expect, it } from 'vitest';
import { takeEvents } from './sse-events.js';

const change = (id: string) => `id: ${id}\nevent: message\ndata: {"type":"refetchEvaluation","etag":"${id}"}\n\n`;

describe('takeEvents', () => {
  it('reads the id and data of each event and passes over retry, heartbeats and the closing comment', () => {
    const { events, rest } = takeEvents(`retry: 1500\n\n:\n\n${change('r1')}${change('r2')}: closing\n\n`);
    expect(events).toEqual([
      { id: 'r1', data: '{"type":"refetchEvaluation","etag":"r1"}' },
      { id: 'r2', data: '{"type":"refetchEvaluation","etag":"r2"}' },
    ]);
    expect(rest).toBe('');
  });

  it('keeps an event cut between pieces until its end arrives', () => {
    const whole = change('r7');
    for (let at = 1; at < whole.length; at++) {
      const first = takeEvents(whole.slice(0, at));
      expect(first.events).toEqual([]);
      const second = takeEvents(first.rest + whole.slice(at));
      expect(second.events).toEqual([{ id: 'r7', data: '{"type":"refetchEvaluation","etag":"r7"}' }]);
      expect(second.rest).toBe('');
    }
  });

  it('reads CRLF line ends, even split between pieces, and joins data lines', () => {
    const first = takeEvents('id: 3\r\ndata: a\r\ndata: b\r');
    expect(first.events).toEqual([]);
    expect(takeEvents(`${first.rest}\n\r\n`).events).toEqual([{ id: '3', data: 'a\nb' }]);
  });

  it('gives an event without an id none', () => {
    expect(takeEvents('data:x\n\n').events).toEqual([{ data: 'x' }]);
  });
});
