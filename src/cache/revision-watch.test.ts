import { describe, expect, it } from 'vitest';
import { isLaterRevision, type RevisionChange, RevisionWatch } from './revision-watch.js';

describe('isLaterRevision', () => {
  it.each([
    ['100.2', '100.1', true],
    ['100.10', '100.9', true],
    ['100.1', '100.2', false],
    ['100.1', '100.1', false],
    // The namespace was deleted and created again: a new creation time.
    ['200.1', '100.7', true],
    // Any tag against no namespace, and no namespace against a tag (deleted).
    ['100.1', '', true],
    ['', '100.1', true],
    ['', '', false],
    // What cannot be read is never later.
    ['x', '100.1', false],
    ['100.x', '100.1', false],
  ])('%s after %s: %s', (next, held, later) => {
    expect(isLaterRevision(next, held)).toBe(later);
  });
});

describe('RevisionWatch', () => {
  it('tells watchers of later revisions only, from every source, and forgets unwatched namespaces', async () => {
    let stored = '100.1';
    const watch = new RevisionWatch(async () => stored);
    const seen: RevisionChange[] = [];
    const { current, stop } = watch.watch('ns', (change) => seen.push(change));
    expect((await current).revision).toBe('100.1');
    watch.announce('ns', '100.3');
    // A poll that read the table before the broadcast: not announced again, nor moved back.
    watch.polled(new Map([['ns', '100.2']]));
    watch.polled(new Map([['ns', '100.3']]));
    stored = '100.4';
    watch.written('ns');
    await new Promise((r) => setTimeout(r, 0));
    watch.announce('other', '1.1');
    expect(seen.map((c) => c.revision)).toEqual(['100.3', '100.4']);
    expect(watch.latest('ns')?.revision).toBe('100.4');
    stop();
    expect(watch.size).toBe(0);
    watch.announce('ns', '100.9');
    expect(seen).toHaveLength(2);
  });

  it('a deleted namespace is announced as the empty revision', async () => {
    const watch = new RevisionWatch(async () => '5.1');
    const seen: string[] = [];
    const { current } = watch.watch('gone', (c) => seen.push(c.revision));
    await current;
    watch.polled(new Map());
    expect(seen).toEqual(['']);
  });
});
