// The snapshot cache and the revision poller against the real database loader, on every backend. The
// loader is the real one, wrapped only to hold a load at a chosen moment or to make the revision read
// fail as an unreachable database would: a load racing a write never installs stale data, a failing
// poll keeps every held snapshot (and throws, for the jobs room to count), and a sweep drops idle
// snapshots.

import { afterAll, beforeAll, expect, it } from 'vitest';
import { databaseSnapshotLoader } from '../../src/cache/database-loader.js';
import { RevisionPoller } from '../../src/cache/revision-poller.js';
import { SnapshotCache, type SnapshotLoader } from '../../src/cache/snapshot-cache.js';
import { UnavailableError } from '../../src/domain/errors.js';
import { call, startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';

describeEachBackend('snapshot cache and revision poller', (backend) => {
  let t: TestApp;
  let loader: SnapshotLoader;
  /** While set, every load waits for it after reading its source (and says so through `sourceRead`). */
  let gate: Promise<void> | undefined;
  let sourceRead: (() => void) | undefined;
  let databaseDown = false;

  beforeAll(async () => {
    t = await startTestApp(backend);
    const real = databaseSnapshotLoader(t.app.db.kysely, t.app.db.dialect);
    loader = {
      async load(namespaceKey) {
        const source = await real.load(namespaceKey);
        sourceRead?.();
        await gate;
        return source;
      },
      revisions() {
        if (databaseDown) return Promise.reject(new UnavailableError('database unavailable'));
        return real.revisions();
      },
    };
    const res = await call(t.app, 'POST', '/api/v1/namespaces/default/flags', {
      key: 'f',
      name: 'F',
      type: 'BOOLEAN_FLAG_TYPE',
      enabled: true,
    });
    expect(res.status).toBe(200);
  });
  afterAll(async () => t?.close());

  const setEnabled = async (enabled: boolean) =>
    expect((await call(t.app, 'PUT', '/api/v1/namespaces/default/flags/f', { name: 'F', enabled })).status).toBe(200);

  it('never installs a snapshot whose load raced a write', async () => {
    const why: string[] = [];
    const cache = new SnapshotCache(loader, { invalidated: (_ns, reason) => why.push(reason) });
    const unsubscribe = t.app.services.changes.subscribe((ns) => cache.invalidate(ns, 'write'));
    try {
      let release = () => {};
      gate = new Promise((resolve) => {
        release = resolve;
      });
      const read = new Promise<void>((resolve) => {
        sourceRead = resolve;
      });
      const racing = cache.get('default');
      expect(racing).toBeInstanceOf(Promise);
      // The load has read its source; write while it is held at the gate.
      await read;
      sourceRead = undefined;
      await setEnabled(false);
      release();
      gate = undefined;
      const stale = await racing;
      expect(stale.flags.get('f')?.enabled).toBe(true);
      // The caller that asked before the write got its answer, but the cache did not keep it.
      expect(cache.heldRevision('default')).toBeUndefined();
      const fresh = await cache.get('default');
      expect(fresh.flags.get('f')?.enabled).toBe(false);
      expect(cache.heldRevision('default')).toBe(fresh.revision);
      expect(cache.stats.loads).toBe(2);
    } finally {
      gate = undefined;
      unsubscribe();
      await setEnabled(true);
    }
  });

  it('keeps every held snapshot while polls fail, and refreshes once the database is back', async () => {
    const cache = new SnapshotCache(loader);
    const poller = new RevisionPoller(cache);
    const held = await cache.get('default');
    await setEnabled(false);

    // A failed poll throws (the jobs room counts it and logs the first of a run of failures).
    databaseDown = true;
    for (let i = 0; i < 3; i++) await expect(poller.pollOnce()).rejects.toThrow();
    expect(cache.peek('default')).toBe(held);

    databaseDown = false;
    await poller.pollOnce();
    expect(cache.peek('default')).toBeUndefined();
    expect((await cache.get('default')).flags.get('f')?.enabled).toBe(false);
    await setEnabled(true);
  });

  it('a sweep drops snapshots idle for longer than the ttl (the snapshot_eviction job)', async () => {
    const why: string[] = [];
    const cache = new SnapshotCache(loader, { invalidated: (_ns, reason) => why.push(reason) });
    await cache.get('default');
    await new Promise((r) => setTimeout(r, 5));
    // Idle for 5 ms against a ttl of an hour: kept.
    cache.evictIdle(3_600_000);
    expect(cache.heldNamespaces()).toEqual(['default']);
    // Against a ttl of 1 ms: dropped.
    cache.evictIdle(1);
    expect(cache.heldNamespaces()).toEqual([]);
    expect(why).toEqual(['evict']);
  });

  it('keeps a snapshot read since the last sweep, and drops it once sweeps find it idle for the ttl', async () => {
    const cache = new SnapshotCache(loader);
    await cache.get('default');
    const loaded = Date.now();
    // Read between sweeps: each sweep counts it as used at the sweep's time.
    cache.peek('default');
    cache.evictIdle(1000, loaded + 5000);
    expect(cache.heldNamespaces()).toEqual(['default']);
    // Not read since: kept until the ttl has passed since that sweep.
    cache.evictIdle(1000, loaded + 5900);
    expect(cache.heldNamespaces()).toEqual(['default']);
    cache.evictIdle(1000, loaded + 6100);
    expect(cache.heldNamespaces()).toEqual([]);
  });
});
