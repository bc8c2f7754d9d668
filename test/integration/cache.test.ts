// The memory snapshot cache on every backend, counted through the app's own metrics: 10,000
// evaluations of an unchanged namespace load its snapshot at most once; a write on this instance is
// visible to the next evaluation; another instance on the same database catches up by comparing
// revisions; and with the database gone (a cut TCP proxy, PostgreSQL/MySQL) evaluations keep
// answering from the held snapshot, writes fail with 503, and everything recovers by itself.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/build-app.js';
import { call, startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import {
  type AppBehindProxy,
  buildAppOn,
  type CuttableProxy,
  type Fixture,
  metricsOf,
  metricValue,
  queriesOn,
  seedFixture,
  sleep,
  startBehindProxy,
} from './cache-support.js';

const CACHE = { cache: { enabled: true, backend: 'memory' } };

describeEachBackend('memory snapshot cache', (backend) => {
  let t: TestApp;
  let fixture: Fixture;

  beforeAll(async () => {
    t = await startTestApp(backend, CACHE);
    fixture = await seedFixture(t.app, 'cached');
  });
  afterAll(async () => t?.close());

  it('loads an unchanged namespace at most once over 10,000 evaluations', async () => {
    // A second instance that has never seen the namespace: its first evaluation is the only load.
    const fresh = await buildAppOn(t.database.url, CACHE);
    try {
      const flagQueriesBefore = await queriesOn(fresh, 'flags');
      const compilationsBefore = metricValue(await metricsOf(fresh), 'vexil_snapshot_compilations_total');
      const item = { namespaceKey: 'cached', entityId: 'e', context: { plan: 'gold' } };
      const requests = [
        { url: '/evaluate/v1/variant', body: { ...item, flagKey: fixture.flagKey } },
        { url: '/evaluate/v1/boolean', body: { ...item, flagKey: fixture.booleanFlagKey } },
        { url: '/evaluate/v1/batch', body: { requests: [{ ...item, flagKey: fixture.flagKey }] } },
        { url: '/api/v1/evaluate', body: { ...item, flagKey: fixture.flagKey } },
      ];
      let answered = 0;
      const send = (i: number) => {
        const r = requests[i % requests.length] as (typeof requests)[number];
        return fresh.http.inject({ method: 'POST', url: r.url, payload: { ...r.body, entityId: `e${i}` } });
      };
      // The first alone (it loads the snapshot), then 50 at a time.
      expect((await send(0)).statusCode).toBe(200);
      answered++;
      for (let i = 1; i < 10_000; i += 50) {
        const batch = Array.from({ length: Math.min(50, 10_000 - i) }, (_, j) => send(i + j));
        for (const res of await Promise.all(batch)) {
          expect(res.statusCode).toBe(200);
          answered++;
        }
      }
      expect(answered).toBe(10_000);
      const metrics = await metricsOf(fresh);
      // Every snapshot load reads the flags table exactly once (evaluation-source.ts). At most one load
      // is the requirement; this instance had none held, so it is exactly one (which also shows the
      // counter counts).
      expect((await queriesOn(fresh, 'flags')) - flagQueriesBefore).toBe(1);
      expect(metricValue(metrics, 'vexil_snapshot_compilations_total') - compilationsBefore).toBe(1);
      expect(fresh.snapshots.stats.loads).toBe(1);
      expect(metricValue(metrics, 'vexil_cache_hits_total', { cache: 'snapshot' })).toBeGreaterThanOrEqual(9_999);
    } finally {
      await fresh.close();
    }
  });

  it('answers a write made on this instance from the next evaluation', async () => {
    const evaluate = () =>
      call(t.app, 'POST', '/evaluate/v1/boolean', { namespaceKey: 'cached', flagKey: 'toggle', entityId: 'e' });
    const url = '/api/v1/namespaces/cached/flags';
    expect(
      (await call(t.app, 'POST', url, { key: 'toggle', name: 'T', type: 'BOOLEAN_FLAG_TYPE', enabled: true })).status,
    ).toBe(200);
    for (const enabled of [false, true, false]) {
      const loadsBefore = t.app.snapshots.stats.loads;
      expect((await evaluate()).body.enabled).toBe(!enabled);
      expect(t.app.snapshots.stats.loads).toBeLessThanOrEqual(loadsBefore + 1);
      const write = await call(t.app, 'PUT', `${url}/toggle`, { name: 'T', enabled });
      expect(write.status).toBe(200);
      const answer = await evaluate();
      expect(answer.body.enabled).toBe(enabled);
      expect(answer.headers['x-vexil-revision']).toBe(write.headers['x-vexil-revision']);
    }
  });

  it("sees another instance's write once it compares revisions (what the poller does each interval)", async () => {
    const other = await buildAppOn(t.database.url, CACHE);
    try {
      const evaluate = () =>
        call(t.app, 'POST', '/evaluate/v1/boolean', { namespaceKey: 'cached', flagKey: 'remote', entityId: 'e' });
      expect(
        (
          await call(other, 'POST', '/api/v1/namespaces/cached/flags', {
            key: 'remote',
            name: 'R',
            type: 'BOOLEAN_FLAG_TYPE',
            enabled: true,
          })
        ).status,
      ).toBe(200);
      // This instance holds a snapshot from before the write (refresh first: the flag is new to it).
      await t.app.snapshots.refreshFromRevisions();
      expect((await evaluate()).body.enabled).toBe(true);
      const write = await call(other, 'PUT', '/api/v1/namespaces/cached/flags/remote', { name: 'R', enabled: false });
      expect(write.status).toBe(200);
      // Still the held snapshot: nothing told this instance yet.
      expect((await evaluate()).body.enabled).toBe(true);
      expect(await t.app.snapshots.refreshFromRevisions()).toEqual(['cached']);
      const answer = await evaluate();
      expect(answer.body.enabled).toBe(false);
      expect(answer.headers['x-vexil-revision']).toBe(write.headers['x-vexil-revision']);
      // Unchanged revisions drop nothing.
      expect(await t.app.snapshots.refreshFromRevisions()).toEqual([]);
    } finally {
      await other.close();
    }
  });

  describe.skipIf(backend.name === 'sqlite')('database down while the cache is warm (networked databases only)', () => {
    let behind: AppBehindProxy;
    let app: App;
    let proxy: CuttableProxy;

    beforeAll(async () => {
      behind = await startBehindProxy(t.database.url, { ...CACHE, cache: { ...CACHE.cache, poll_interval: '100ms' } });
      ({ app, proxy } = behind);
    });
    afterAll(async () => behind?.close());

    it('keeps evaluating from the last snapshot, fails writes with 503, and recovers by itself', async () => {
      const evaluate = () =>
        call(app, 'POST', '/evaluate/v1/variant', {
          namespaceKey: 'cached',
          flagKey: fixture.flagKey,
          entityId: 'e',
          context: { plan: 'gold' },
        });
      const warm = await evaluate();
      expect(warm.status).toBe(200);
      expect(warm.body).toMatchObject({ match: true, variantKey: 'v1' });

      proxy.cut();
      // Several poll intervals pass with the database gone; every evaluation still answers.
      for (let i = 0; i < 10; i++) {
        const res = await evaluate();
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ match: true, variantKey: 'v1' });
        expect(res.headers['x-vexil-revision']).toBe(warm.headers['x-vexil-revision']);
        await sleep(50);
      }
      const write = await call(app, 'PUT', `/api/v1/namespaces/cached/flags/${fixture.flagKey}`, {
        name: 'F1',
        enabled: false,
      });
      expect(write.status).toBe(503);
      expect(write.body).toEqual({ code: 14, message: 'database unavailable', details: [] });

      proxy.restore();
      // Recovery needs no restart: the pool reconnects on the next write.
      let recovered: Awaited<ReturnType<typeof call>> | undefined;
      for (let attempt = 0; attempt < 100 && recovered?.status !== 200; attempt++) {
        if (attempt > 0) await sleep(100);
        recovered = await call(app, 'PUT', `/api/v1/namespaces/cached/flags/${fixture.flagKey}`, {
          name: 'F1',
          enabled: false,
        });
      }
      expect(recovered?.status).toBe(200);
      const after = await evaluate();
      expect(after.status).toBe(200);
      expect(after.body).toMatchObject({ match: false, reason: 'FLAG_DISABLED_EVALUATION_REASON' });
      // Put it back for the other tests.
      expect(
        (await call(app, 'PUT', `/api/v1/namespaces/cached/flags/${fixture.flagKey}`, { name: 'F1', enabled: true }))
          .status,
      ).toBe(200);
    });
  });
});
