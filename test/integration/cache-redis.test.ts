// The Redis cache backend on every database, against a private redis-server (never the shared one):
// a fresh instance warms from the source another instance stored in Redis without reading the flag
// tables; a write announced on the revisions channel drops the other instance's snapshot (the poller
// is not running here, so nothing else could); and a token deleted on one instance is announced on
// the revoked-tokens channel, so the other forgets it without polling.

import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it, describe as plainDescribe } from 'vitest';
import type { App } from '../../src/app/build-app.js';
import { parseRevisionMessage, parseRevokedTokenMessage } from '../../src/cache/invalidation.js';
import { RedisKeys } from '../../src/cache/redis.js';
import { deleteTokenCommand } from '../../src/cli/token.js';
import { loadConfig } from '../../src/config/load.js';
import { SOURCE_CACHE_FORMAT } from '../../src/evaluation/source.js';
import { bearer, call, startTestApp, type TestApp } from '../helpers/app.js';
import { describeEachBackend } from '../helpers/backends.js';
import { freePort } from '../helpers/process.js';
import {
  buildAppOn,
  eventually,
  type Fixture,
  metricsOf,
  metricValue,
  PrivateRedis,
  queriesOn,
  REDIS_SERVER,
  seedFixture,
} from './cache-support.js';

plainDescribe('revision messages', () => {
  it('parses what instances publish and rejects anything else', () => {
    expect(parseRevisionMessage('{"ns":"a","rev":"1.2","origin":"x"}')).toEqual({ ns: 'a', rev: '1.2', origin: 'x' });
    expect(parseRevisionMessage('{"ns":"a","origin":"x"}')).toEqual({ ns: 'a', origin: 'x' });
    expect(parseRevisionMessage('{"ns":1,"origin":"x"}')).toBeUndefined();
    expect(parseRevisionMessage('not json')).toBeUndefined();
    expect(parseRevisionMessage('null')).toBeUndefined();
    expect(new RedisKeys('p').snapshot('ns', '1.2')).toBe(`p:snapshot:v${SOURCE_CACHE_FORMAT}:ns:1.2`);
    expect(new RedisKeys('p').revisions).toBe('p:revisions');
    expect(parseRevokedTokenMessage('{"id":"a","origin":"x"}')).toEqual({ id: 'a', origin: 'x' });
    expect(parseRevokedTokenMessage('{"id":1,"origin":"x"}')).toBeUndefined();
    expect(parseRevokedTokenMessage('{"id":"a"}')).toBeUndefined();
    expect(parseRevokedTokenMessage('[')).toBeUndefined();
    expect(new RedisKeys('p').revokedTokens).toBe('p:revoked-tokens');
  });
});

const describeWithRedis = REDIS_SERVER
  ? describeEachBackend
  : (title: string) => plainDescribe.skip(`${title} (skipped: redis-server is not installed)`, () => {});

describeWithRedis('redis snapshot cache', (backend) => {
  let redis: PrivateRedis;
  let t: TestApp;
  let other: App;
  let fixture: Fixture;
  const prefix = `t${process.pid}`;
  const cache = () => ({
    cache: { enabled: true, backend: 'redis', redis: { url: redis.url, prefix } },
    authentication: { required: true, methods: { token: { enabled: true, bootstrap: { token: 'bootstrap-secret' } } } },
  });
  const auth = bearer('bootstrap-secret');

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    t = await startTestApp(backend, cache());
    expect(t.app.redisCache?.available).toBe(true);
    // Seeded with the bootstrap token: authentication is required on this pair.
    const seed = await buildAppOn(t.database.url, { ...cache(), authentication: { required: false } });
    try {
      fixture = await seedFixture(seed, 'shared');
    } finally {
      await seed.close();
    }
    other = await buildAppOn(t.database.url, cache());
    expect(other.redisCache?.available).toBe(true);
  });
  afterAll(async () => {
    await other?.close();
    await t?.close();
    await redis?.kill();
  });

  const evaluate = (app: App, flagKey: string) =>
    call(
      app,
      'POST',
      '/evaluate/v1/variant',
      { namespaceKey: 'shared', flagKey, entityId: 'e', context: { plan: 'gold' } },
      auth,
    );

  it('warms a fresh instance from Redis without reading the flag tables', async () => {
    const first = await evaluate(t.app, fixture.flagKey);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ match: true, variantKey: 'v1' });
    const revision = first.headers['x-vexil-revision'] as string;
    // The first instance stores the source it read after answering: wait for the key.
    const client = new Redis(redis.url);
    try {
      const key = new RedisKeys(prefix).snapshot('shared', revision);
      await eventually(async () => (await client.exists(key)) === 1, `the key ${key}`);
      const ttl = await client.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
      // JSON lines: a header with the counts, then a line per segment and per flag.
      const [header, ...items] = ((await client.get(key)) as string).split('\n');
      const counts = JSON.parse(header as string);
      expect(counts).toMatchObject({ namespaceKey: 'shared', revision });
      expect(items).toHaveLength(counts.segments + counts.flags);
      expect(counts.flags).toBeGreaterThan(0);
    } finally {
      client.disconnect();
    }

    const flagQueries = await queriesOn(other, 'flags');
    const warm = await evaluate(other, fixture.flagKey);
    expect(warm.body).toMatchObject({ match: true, variantKey: 'v1' });
    expect(warm.headers['x-vexil-revision']).toBe(revision);
    expect(other.snapshots.stats.loads).toBe(1);
    expect((await queriesOn(other, 'flags')) - flagQueries).toBe(0);
    expect(metricValue(await metricsOf(other), 'vexil_cache_hits_total', { cache: 'redis' })).toBe(1);
  });

  it('treats an entry it cannot read (damaged) as a miss and stores it anew', async () => {
    const first = await evaluate(t.app, fixture.flagKey);
    const revision = first.headers['x-vexil-revision'] as string;
    const key = new RedisKeys(prefix).snapshot('shared', revision);
    const client = new Redis(redis.url);
    const fresh = await buildAppOn(t.database.url, cache());
    try {
      await eventually(async () => (await client.exists(key)) === 1, `the key ${key}`);
      // A whole source as one JSON document: not the JSON-lines form this key holds.
      await client.set(
        key,
        JSON.stringify({ namespaceKey: 'shared', revision, flags: [], segments: [] }),
        'PX',
        60_000,
      );
      const answer = await evaluate(fresh, fixture.flagKey);
      expect(answer.body).toMatchObject({ match: true, variantKey: 'v1' });
      expect(metricValue(await metricsOf(fresh), 'vexil_cache_misses_total', { cache: 'redis' })).toBe(1);
      expect(metricValue(await metricsOf(fresh), 'vexil_cache_hits_total', { cache: 'redis' })).toBe(0);
      // Dropped, then written again from the database load, in the current form.
      await eventually(
        async () => JSON.parse(((await client.get(key)) ?? '{}').split('\n')[0] as string).flags > 0,
        'the entry stored anew',
      );
    } finally {
      await fresh.close();
      client.disconnect();
    }
  });

  it("leaves an older version's entry alone: during a rolling upgrade each version keeps its own", async () => {
    const first = await evaluate(t.app, fixture.flagKey);
    const revision = first.headers['x-vexil-revision'] as string;
    const current = new RedisKeys(prefix).snapshot('shared', revision);
    // Where versions before the format number wrote the source, as one JSON document.
    const olderKey = `${prefix}:snapshot:shared:${revision}`;
    const olderEntry = JSON.stringify({ namespaceKey: 'shared', revision, flags: [], segments: [] });
    const client = new Redis(redis.url);
    try {
      await eventually(async () => (await client.exists(current)) === 1, `the key ${current}`);
      await client.set(olderKey, olderEntry, 'PX', 60_000);
      const fresh = await buildAppOn(t.database.url, cache());
      try {
        // The fresh instance reads its own version's entry and never the older one.
        const answer = await evaluate(fresh, fixture.flagKey);
        expect(answer.body).toMatchObject({ match: true, variantKey: 'v1' });
        expect(metricValue(await metricsOf(fresh), 'vexil_cache_hits_total', { cache: 'redis' })).toBe(1);
        expect(metricValue(await metricsOf(fresh), 'vexil_cache_misses_total', { cache: 'redis' })).toBe(0);
      } finally {
        await fresh.close();
      }
      // An older instance still finds what it wrote, as it wrote it.
      expect(await client.get(olderKey)).toBe(olderEntry);
    } finally {
      client.disconnect();
    }
  });

  it("drops the other instance's snapshot when a write is announced", async () => {
    for (const app of [t.app, other]) expect((await evaluate(app, fixture.flagKey)).body.match).toBe(true);
    const held = other.snapshots.heldRevision('shared');
    expect(held).toBeDefined();
    const receivedBefore = other.redisCache?.stats.received ?? 0;

    const write = await call(
      t.app,
      'PUT',
      `/api/v1/namespaces/shared/flags/${fixture.flagKey}`,
      { name: 'F1', enabled: false },
      auth,
    );
    expect(write.status).toBe(200);
    await eventually(() => other.snapshots.heldRevision('shared') !== held, 'the broadcast invalidation');
    expect(other.redisCache?.stats.received).toBe(receivedBefore + 1);
    const answer = await evaluate(other, fixture.flagKey);
    expect(answer.body).toMatchObject({ match: false, reason: 'FLAG_DISABLED_EVALUATION_REASON' });
    expect(answer.headers['x-vexil-revision']).toBe(write.headers['x-vexil-revision']);
    expect(
      metricValue(await metricsOf(other), 'vexil_cache_invalidations_total', { cache: 'snapshot' }),
    ).toBeGreaterThanOrEqual(1);

    // The writer ignores its own announcement (it invalidated locally already): once its own message
    // is out, the next one it receives is the other instance's, and only that one counts.
    const writer = t.app.redisCache;
    await eventually(() => (writer?.stats.published ?? 0) >= 1, 'the announcement');
    const writerReceived = writer?.stats.received ?? 0;
    const back = await call(
      other,
      'PUT',
      `/api/v1/namespaces/shared/flags/${fixture.flagKey}`,
      { name: 'F1', enabled: true },
      auth,
    );
    expect(back.status).toBe(200);
    await eventually(() => (writer?.stats.received ?? 0) > writerReceived, 'the write back, on the first instance');
    expect(writer?.stats.received).toBe(writerReceived + 1);
    expect((await evaluate(t.app, fixture.flagKey)).body.match).toBe(true);
  });

  it('`vexil token delete` announces the deletion on Redis; without Redis it warns and still deletes', async () => {
    const created = await call(t.app, 'POST', '/auth/v1/method/token', { name: 'cli-deleted' }, auth);
    expect(created.status).toBe(200);
    const asCreated = bearer(created.body.clientToken);
    const list = () => call(other, 'GET', '/api/v1/namespaces/shared/flags', undefined, asCreated);
    expect((await list()).status).toBe(200);
    const received = other.redisCache?.stats.revocationsReceived ?? 0;
    const warnings: string[] = [];
    const config = loadConfig({ env: {}, overrides: { db: { url: t.database.url }, ...cache() } });
    expect(await deleteTokenCommand(config, created.body.authentication.id, (line) => warnings.push(line))).toBe(
      `deleted ${created.body.authentication.id}`,
    );
    expect(warnings).toEqual([]);
    await eventually(
      () => (other.redisCache?.stats.revocationsReceived ?? 0) > received,
      'the CLI revocation, on the other instance',
    );
    expect((await list()).status).toBe(401);

    // Redis unreachable: the token is deleted all the same, and the operator is told how it spreads.
    const second = await call(t.app, 'POST', '/auth/v1/method/token', { name: 'cli-no-redis' }, auth);
    const port = await freePort();
    const unreachable = loadConfig({
      env: {},
      overrides: {
        db: { url: t.database.url },
        cache: { enabled: true, backend: 'redis', redis: { url: `redis://127.0.0.1:${port}`, prefix } },
      },
    });
    await deleteTokenCommand(unreachable, second.body.authentication.id, (line) => warnings.push(line));
    expect(warnings).toEqual([
      'vexil: redis not reachable; running servers stop accepting the token at their next poll (cache.poll_interval 1s)',
    ]);
    const gone = await call(t.app, 'GET', `/auth/v1/tokens/${second.body.authentication.id}`, undefined, auth);
    expect(gone.status).toBe(404);
  });

  it('stops a deleted token on the other instance as soon as the revocation arrives (no poller runs)', async () => {
    const created = await call(t.app, 'POST', '/auth/v1/method/token', { name: 'short-lived', description: '' }, auth);
    expect(created.status).toBe(200);
    const asCreated = bearer(created.body.clientToken);
    const list = () => call(other, 'GET', '/api/v1/namespaces/shared/flags', undefined, asCreated);
    expect((await list()).status).toBe(200);
    // Remembered now: the other instance answers this token without reading the database.
    const reads = await queriesOn(other, 'authentications');
    expect((await list()).status).toBe(200);
    expect(await queriesOn(other, 'authentications')).toBe(reads);

    const received = other.redisCache?.stats.revocationsReceived ?? 0;
    expect(
      (await call(t.app, 'DELETE', `/auth/v1/tokens/${created.body.authentication.id}`, undefined, auth)).status,
    ).toBe(200);
    expect((await call(t.app, 'GET', '/api/v1/namespaces/shared/flags', undefined, asCreated)).status).toBe(401);
    await eventually(
      () => (other.redisCache?.stats.revocationsReceived ?? 0) > received,
      'the revocation, on the other instance',
    );
    expect((await list()).status).toBe(401);
  });
});
