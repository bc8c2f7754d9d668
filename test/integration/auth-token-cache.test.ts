// The token cache with `authentication.required: true`, on every database: a presented token is read
// from the database once per instance and then answered from memory (so an authenticated evaluation
// reads no database); a token deleted or expired on this instance stops at once; one deleted or
// expired on another instance (or by `vexil token delete`) stops within `cache.poll_interval`; with
// `poll_interval: 0` nothing is remembered. On PostgreSQL and MySQL: a known token keeps evaluating
// while the database is away.

import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app/build-app.js';
import { bearer, call, startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import {
  type AppBehindProxy,
  buildAppOn,
  type CuttableProxy,
  eventually,
  metricsOf,
  metricValue,
  type Overrides,
  queriesOn,
  sleep,
  startBehindProxy,
} from './cache-support.js';

const BOOT = 'bootstrap-secret-token';
const REQUIRED: Overrides = {
  authentication: { required: true, methods: { token: { enabled: true, bootstrap: { token: BOOT } } } },
};
const LISTENING: Overrides = { server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 } };

async function createToken(app: App, name: string): Promise<{ token: string; id: string }> {
  const res = await call(app, 'POST', '/auth/v1/method/token', { name }, bearer(BOOT));
  expect(res.status).toBe(200);
  return { token: res.body.clientToken, id: res.body.authentication.id };
}

const evaluate = (app: App, token: string) =>
  call(
    app,
    'POST',
    '/evaluate/v1/boolean',
    { namespaceKey: 'default', flagKey: 'cached-auth', entityId: 'e1', context: {} },
    bearer(token),
  );

describeEachBackend('token cache', (backend) => {
  let t: TestApp;
  /** A second instance on the same database, polling every 100 ms. */
  let other: App;
  /** A third that never polls, so never remembers a token. */
  let strict: App;

  beforeAll(async () => {
    t = await startTestApp(backend, REQUIRED);
    other = await buildAppOn(t.database.url, { ...REQUIRED, ...LISTENING, cache: { poll_interval: '100ms' } });
    await other.listen(); // starts the poller
    strict = await buildAppOn(t.database.url, { ...REQUIRED, cache: { poll_interval: '0s' } });
    const flag = await call(
      t.app,
      'POST',
      '/api/v1/namespaces/default/flags',
      { key: 'cached-auth', name: 'cached-auth', type: 'BOOLEAN_FLAG_TYPE', enabled: true },
      bearer(BOOT),
    );
    expect(flag.status).toBe(200);
  });
  afterAll(async () => {
    await strict?.close();
    await other?.close();
    await t?.close();
  });

  it('reads a presented token from the database once, then evaluates with no database read at all', async () => {
    const { token } = await createToken(t.app, 'evaluator');
    const missesBefore = metricValue(await metricsOf(t.app), 'vexil_cache_misses_total', { cache: 'auth' });
    const first = await evaluate(t.app, token);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ enabled: true, flagKey: 'cached-auth' });
    const tokenReads = await queriesOn(t.app, 'authentications');
    const allReads = await queriesOn(t.app, 'flags');
    const hits = metricValue(await metricsOf(t.app), 'vexil_cache_hits_total', { cache: 'auth' });
    for (let i = 0; i < 20; i++) expect((await evaluate(t.app, token)).status).toBe(200);
    expect(await queriesOn(t.app, 'authentications')).toBe(tokenReads);
    expect(await queriesOn(t.app, 'flags')).toBe(allReads);
    // Operators see it too: the token cache's hits, and one miss, the token's first lookup.
    const text = await metricsOf(t.app);
    expect(metricValue(text, 'vexil_cache_hits_total', { cache: 'auth' })).toBe(hits + 20);
    expect(metricValue(text, 'vexil_cache_misses_total', { cache: 'auth' })).toBe(missesBefore + 1);
  });

  it('counts the first token an instance sees as a miss, while its cache is still empty', async () => {
    const fresh = await buildAppOn(t.database.url, REQUIRED);
    try {
      const counts = async () => {
        const text = await metricsOf(fresh);
        return [
          metricValue(text, 'vexil_cache_hits_total', { cache: 'auth' }),
          metricValue(text, 'vexil_cache_misses_total', { cache: 'auth' }),
        ];
      };
      expect(await counts()).toEqual([0, 0]);
      expect((await evaluate(fresh, BOOT)).status).toBe(200);
      expect(await counts()).toEqual([0, 1]);
      expect((await evaluate(fresh, BOOT)).status).toBe(200);
      expect(await counts()).toEqual([1, 1]);
    } finally {
      await fresh.close();
    }
  });

  it('on one keep-alive connection, answers each request for the token it presents', async () => {
    const a = await createToken(t.app, 'connection-a');
    const b = await createToken(t.app, 'connection-b');
    expect((await call(t.app, 'DELETE', `/auth/v1/tokens/${b.id}`, undefined, bearer(BOOT))).status).toBe(200);
    const address = other.http.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const sockets = new Set<unknown>();
    const post = (token: string) =>
      new Promise<number>((resolve, reject) => {
        const body = JSON.stringify({ namespaceKey: 'default', flagKey: 'cached-auth', entityId: 'e1', context: {} });
        const req = request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/evaluate/v1/boolean',
            agent,
            headers: { 'content-type': 'application/json', ...bearer(token) },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('socket', (socket) => sockets.add(socket));
        req.on('error', reject);
        req.end(body);
      });
    try {
      // The live token, a deleted one, nothing valid at all, then the live one again: same connection.
      expect(await post(a.token)).toBe(200);
      expect(await post(b.token)).toBe(401);
      expect(await post('not-a-token')).toBe(401);
      expect(await post(a.token)).toBe(200);
      expect(await post(BOOT)).toBe(200);
      expect(await post(b.token)).toBe(401);
      expect(sockets.size).toBe(1);
    } finally {
      agent.destroy();
    }
  });

  it('looks an unknown token up every time and never remembers it', async () => {
    const before = await queriesOn(t.app, 'authentications');
    for (let i = 0; i < 3; i++) expect((await evaluate(t.app, 'no-such-token')).status).toBe(401);
    expect(await queriesOn(t.app, 'authentications')).toBe(before + 3);
  });

  it('with cache.poll_interval 0, looks the token up on every request', async () => {
    const { token } = await createToken(t.app, 'strict');
    const before = await queriesOn(strict, 'authentications');
    for (let i = 0; i < 3; i++) expect((await evaluate(strict, token)).status).toBe(200);
    expect(await queriesOn(strict, 'authentications')).toBe(before + 3);
  });

  it('stops a token deleted here at once, and on the other instances within their poll interval', async () => {
    const { token, id } = await createToken(t.app, 'doomed');
    for (const app of [t.app, other, strict]) expect((await evaluate(app, token)).status).toBe(200);
    const invalidations = async (app: App) =>
      metricValue(await metricsOf(app), 'vexil_cache_invalidations_total', { cache: 'auth' });
    const [hereBefore, otherBefore] = [await invalidations(t.app), await invalidations(other)];
    const deleted = await call(t.app, 'DELETE', `/auth/v1/tokens/${id}`, undefined, bearer(BOOT));
    expect(deleted.status).toBe(200);
    expect(await invalidations(t.app)).toBe(hereBefore + 1);
    // No waiting here, nor where tokens are not remembered.
    expect((await evaluate(t.app, token)).status).toBe(401);
    expect((await evaluate(strict, token)).status).toBe(401);
    // The polling instance: a few 100 ms intervals at most (generous bound for a loaded CI machine).
    const waited = await eventually(async () => (await evaluate(other, token)).status === 401, 'the poll', 10_000, 20);
    expect(waited).toBeLessThan(5_000);
    expect(await invalidations(other)).toBe(otherBefore + 1);
  });

  it('stops a token expired on another instance within the poll interval, and a token expired here at once', async () => {
    const { token } = await createToken(t.app, 'expiring');
    expect((await evaluate(other, token)).status).toBe(200);
    expect((await evaluate(t.app, token)).status).toBe(200);
    // Expire self on the polling instance: refused there at once, and on the first within its poll
    // (the first instance runs no poller in this test, so its re-read is started by hand below).
    expect((await call(other, 'PUT', '/auth/v1/self/expire', undefined, bearer(token))).status).toBe(200);
    expect((await evaluate(other, token)).status).toBe(401);
    expect((await evaluate(t.app, token)).status).toBe(200);
    await t.app.services.auth.refreshCachedTokens();
    expect((await evaluate(t.app, token)).status).toBe(401);
  });

  it('takes a later expiry set here at once (an expire with a future time replaces the remembered one)', async () => {
    const { token } = await createToken(t.app, 'extended');
    expect((await evaluate(t.app, token)).status).toBe(200);
    const soon = new Date(Date.now() + 300).toISOString();
    const set = await call(t.app, 'PUT', `/auth/v1/self/expire?expiresAt=${soon}`, undefined, bearer(token));
    expect(set.status).toBe(200);
    expect((await evaluate(t.app, token)).status).toBe(200);
    // The remembered expiry is checked on every use: once it passes, refused without any re-read.
    await sleep(400);
    expect((await evaluate(t.app, token)).status).toBe(401);
  });

  describe.skipIf(backend.name === 'sqlite')('database away (networked databases only)', () => {
    let behind: AppBehindProxy;
    let app: App;
    let proxy: CuttableProxy;

    beforeAll(async () => {
      behind = await startBehindProxy(t.database.url, { ...REQUIRED, cache: { poll_interval: '100ms' } });
      ({ app, proxy } = behind);
    });
    afterAll(async () => behind?.close());

    it('keeps evaluating for a known token; an unknown one gets 503; both recover', async () => {
      const { token } = await createToken(t.app, 'outage');
      expect((await evaluate(app, token)).status).toBe(200);
      proxy.cut();
      // Several failed polls pass: the remembered token is kept, not dropped.
      for (let i = 0; i < 5; i++) {
        expect((await evaluate(app, token)).status).toBe(200);
        await sleep(60);
      }
      expect((await evaluate(app, BOOT)).status).toBe(503);
      proxy.restore();
      await eventually(async () => (await evaluate(app, BOOT)).status === 200, 'the database to return');
      expect((await evaluate(app, token)).status).toBe(200);
    });
  });
});
