// How the snapshot cache compiles: a namespace bigger than one compile step is compiled over several
// event-loop turns, so other requests run meanwhile, and an invalidation in between still keeps the
// result out of the cache. The loader is an in-memory one: what is tested here is the cache's own
// scheduling (the database loader has its own tests, on every backend).

import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { flagSource } from '../../test/helpers/flag-sources.js';
import { compileSnapshot } from '../evaluation/compile-snapshot.js';
import type { FlagSource, NamespaceSource } from '../evaluation/source.js';
import { ITEMS_PER_STEP } from '../evaluation/steps.js';
import { SnapshotCache, type SnapshotLoader } from './snapshot-cache.js';

function sourceWith(flagCount: number): NamespaceSource {
  const flag = (i: number): FlagSource =>
    flagSource(`flag-${i}`, 'BOOLEAN_FLAG_TYPE', {
      enabled: i % 2 === 0,
      rollouts: [
        {
          id: `r${i}`,
          rank: 1,
          type: 'THRESHOLD_ROLLOUT_TYPE',
          description: '',
          threshold: { percentage: 50, value: true },
        },
      ],
    });
  return {
    namespaceKey: 'big',
    revision: '1.1',
    segments: [],
    flags: Array.from({ length: flagCount }, (_, i) => flag(i)),
  };
}

/** A loader that answers at once (a resolved promise: no event-loop turn of its own). */
function loaderOf(source: NamespaceSource): SnapshotLoader {
  return {
    load: async () => source,
    revisions: async () => new Map([[source.namespaceKey, source.revision]]),
  };
}

describe('SnapshotCache compiling a big namespace', () => {
  const big = sourceWith(ITEMS_PER_STEP * 3 + 1);

  it('lets the event loop run while it compiles, and holds the same snapshot as a compile in one go', async () => {
    const cache = new SnapshotCache(loaderOf(big));
    const loading = cache.get('big');
    let turnTaken = false;
    setImmediate(() => {
      turnTaken = true;
    });
    const snapshot = await loading;
    expect(turnTaken).toBe(true);
    expect(snapshot).toEqual(compileSnapshot(big));
    expect(cache.peek('big')).toBe(snapshot);
    expect(cache.stats).toEqual({ loads: 1, compiles: 1 });
  });

  it('compiles a namespace smaller than one step without giving up the event loop', async () => {
    const cache = new SnapshotCache(loaderOf(sourceWith(ITEMS_PER_STEP - 1)));
    const loading = cache.get('big');
    let turnTaken = false;
    setImmediate(() => {
      turnTaken = true;
    });
    await loading;
    expect(turnTaken).toBe(false);
  });

  it('does not hold a snapshot whose namespace was written while it compiled', async () => {
    const cache = new SnapshotCache(loaderOf(big));
    const loading = cache.get('big');
    await nextTurn();
    cache.invalidate('big');
    // The waiting request still gets its answer; the next one loads afresh.
    expect((await loading).flagList).toHaveLength(big.flags.length);
    expect(cache.peek('big')).toBeUndefined();
    await cache.get('big');
    expect(cache.stats).toEqual({ loads: 2, compiles: 2 });
  });
});

describe('SnapshotCache while the database is away', () => {
  /** A loader whose answers the test switches between a source and a connection failure. */
  function switchableLoader(initial: NamespaceSource) {
    const state = { source: initial, down: false, loads: 0 };
    const loader: SnapshotLoader = {
      load: async () => {
        state.loads++;
        if (state.down) throw new Error('connect ECONNREFUSED');
        return state.source;
      },
      revisions: async () => new Map([[state.source.namespaceKey, state.source.revision]]),
    };
    return { state, loader };
  }

  const waitFor = async (check: () => boolean) => {
    for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(check()).toBe(true);
  };

  it('answers from the last good snapshot when a reload fails, and reloads it in the background', async () => {
    const before = sourceWith(2);
    const { state, loader } = switchableLoader(before);
    const events: string[] = [];
    const cache = new SnapshotCache(loader, {
      stale: (ns) => events.push(`stale ${ns}`),
      fresh: (ns) => events.push(`fresh ${ns}`),
      loadFailed: (ns) => events.push(`failed ${ns}`),
    });
    const good = await cache.get('big');
    state.down = true;
    cache.invalidate('big', 'write');
    // The write's reload fails: the evaluation still gets the snapshot it had, held again as stale.
    expect(await cache.get('big')).toBe(good);
    expect(cache.peek('big')).toBe(good);
    expect(cache.staleNamespaces()).toEqual(['big']);
    // Invalidated again during the outage (an announcement from another instance): the same fallback.
    cache.invalidate('big', 'broadcast');
    expect(await cache.get('big')).toBe(good);
    await waitFor(() => state.loads >= 4);
    expect(cache.peek('big')).toBe(good);

    state.source = { ...sourceWith(3), revision: '1.2' };
    state.down = false;
    await waitFor(() => cache.heldRevision('big') === '1.2');
    expect(cache.peek('big')?.flagList).toHaveLength(3);
    expect(cache.staleNamespaces()).toEqual([]);
    expect(events).toEqual(['stale big', 'fresh big']);
    cache.close();
  });

  it('fails a load that has no earlier snapshot to fall back on', async () => {
    const { state, loader } = switchableLoader(sourceWith(1));
    const failed: string[] = [];
    const cache = new SnapshotCache(loader, { loadFailed: (ns) => failed.push(ns) });
    state.down = true;
    await expect(cache.get('big')).rejects.toThrow('ECONNREFUSED');
    expect(failed).toEqual(['big']);
    expect(cache.staleNamespaces()).toEqual([]);
  });

  it('answers a load that fails after a newer one succeeded with the newer snapshot, not the error', async () => {
    // As when a database stops: a load already running (its transaction cut off) fails after a
    // load started later, for a newer write, has succeeded on another connection.
    const source = sourceWith(2);
    const pending: { resolve(s: NamespaceSource): void; reject(e: Error): void }[] = [];
    const loader: SnapshotLoader = {
      load: () =>
        new Promise<NamespaceSource>((resolve, reject) => {
          pending.push({ resolve, reject });
        }),
      revisions: async () => new Map([['big', source.revision]]),
    };
    const cache = new SnapshotCache(loader);
    const first = cache.get('big');
    (pending[0] as (typeof pending)[number]).resolve(source);
    await first;
    cache.invalidate('big', 'write');
    const older = cache.get('big');
    cache.invalidate('big', 'write');
    const newer = cache.get('big');
    (pending[2] as (typeof pending)[number]).resolve({ ...source, revision: '1.3' });
    const held = await newer;
    expect(cache.heldRevision('big')).toBe('1.3');
    (pending[1] as (typeof pending)[number]).reject(new Error('Connection terminated unexpectedly'));
    expect(await older).toBe(held);
    expect(cache.staleNamespaces()).toEqual([]);
  });

  it('keeps no fallback for a snapshot evicted as idle', async () => {
    const { state, loader } = switchableLoader(sourceWith(1));
    const cache = new SnapshotCache(loader);
    await cache.get('big');
    cache.invalidate('big', 'evict');
    state.down = true;
    await expect(cache.get('big')).rejects.toThrow('ECONNREFUSED');
  });
});
