// Freshness across instances: two `vexil serve` processes (A and B) on one PostgreSQL (and MySQL, when
// configured) database. After a write through A returns, B's evaluations reflect it within 1.5 s —
// over 20 successive writes, for the memory backend (B learns by polling the revision, default 1 s)
// and for Redis (B learns from the pub/sub announcement; polling is set to an hour so nothing else
// could). The median and maximum delays are printed.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase, testBackends } from '../helpers/backends.js';
import { type RunningVexil, startVexil } from '../helpers/process.js';
import { PrivateRedis, REDIS_SERVER, sleep } from './cache-support.js';

const WRITES = 20;
const BOUND_MS = 1500;
/** How long one write may take to show before the test gives up on it (a failure, not a measurement). */
const GIVE_UP_MS = 10_000;

async function json(method: string, url: string, body?: unknown) {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown>,
    revision: res.headers.get('x-vexil-revision'),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * Writes through A, measures until B answers with the new value; returns the delays in ms. With
 * `dephaseMs`, each write waits a random time below it first, so writes land at random points of B's
 * poll cycle (a write made right after B's poll would otherwise always wait a whole interval).
 */
async function measure(a: RunningVexil, b: RunningVexil, dephaseMs = 0): Promise<number[]> {
  const flags = `${a.baseUrl}/api/v1/namespaces/default/flags`;
  const created = await json('POST', flags, { key: 'fresh', name: 'Fresh', type: 'BOOLEAN_FLAG_TYPE', enabled: true });
  expect(created.status).toBe(200);
  const evaluateOnB = () => json('POST', `${b.baseUrl}/evaluate/v1/boolean`, { flagKey: 'fresh', entityId: 'e' });
  // B holds the snapshot before the first write (else its first read would load fresh data anyway).
  for (;;) {
    const res = await evaluateOnB();
    if (res.status === 200 && res.body.enabled === true) break;
    await sleep(20);
  }
  const delays: number[] = [];
  for (let i = 0; i < WRITES; i++) {
    const enabled = i % 2 === 1;
    if (dephaseMs > 0) await sleep(Math.random() * dephaseMs);
    const write = await json('PUT', `${flags}/fresh`, { name: 'Fresh', enabled });
    const written = performance.now();
    expect(write.status).toBe(200);
    expect(write.revision).toMatch(/^\d+\.\d+$/);
    for (;;) {
      const res = await evaluateOnB();
      expect(res.status).toBe(200);
      if (res.body.enabled === enabled) {
        delays.push(performance.now() - written);
        // Served from exactly the revision the write created.
        expect(res.revision).toBe(write.revision);
        break;
      }
      if (performance.now() - written > GIVE_UP_MS)
        throw new Error(`write ${i + 1} not visible on B after ${GIVE_UP_MS} ms`);
      await sleep(5);
    }
  }
  return delays;
}

const networked = testBackends().filter((b) => b.name !== 'sqlite');

for (const backend of networked) {
  const modes = [
    { name: 'memory (polling)', redis: false },
    { name: 'redis (pub/sub)', redis: true },
  ];
  for (const mode of modes) {
    const skip = backend.skipReason ?? (mode.redis && !REDIS_SERVER ? 'redis-server is not installed' : undefined);
    const title = `freshness across two processes [${backend.name}, ${mode.name}]`;
    const suite = skip ? describe.skip : describe;
    suite(skip ? `${title} (skipped: ${skip})` : title, () => {
      let database: TestDatabase;
      let redis: PrivateRedis | undefined;
      let a: RunningVexil;
      let b: RunningVexil;

      beforeAll(async () => {
        database = await createTestDatabase(backend);
        const env: Record<string, string> = {
          VEXIL_DB_URL: database.url,
          VEXIL_CACHE_ENABLED: 'true',
          VEXIL_CACHE_BACKEND: mode.redis ? 'redis' : 'memory',
        };
        if (mode.redis) {
          redis = await PrivateRedis.start();
          env.VEXIL_CACHE_REDIS_URL = redis.url;
          env.VEXIL_CACHE_POLL_INTERVAL = '1h';
        }
        // A first: it migrates the database.
        a = await startVexil(env);
        b = await startVexil(env);
      }, 120_000);
      afterAll(async () => {
        await Promise.allSettled([a?.stop(), b?.stop()]);
        await redis?.kill();
        await database?.drop();
      });

      it(`shows each of ${WRITES} writes through A on B within ${BOUND_MS} ms`, async () => {
        const delays = await measure(a, b, mode.redis ? 0 : 1000);
        expect(delays).toHaveLength(WRITES);
        const med = median(delays);
        const max = Math.max(...delays);
        console.log(
          `[freshness] ${backend.name}, ${mode.name}: median ${med.toFixed(1)} ms, max ${max.toFixed(1)} ms over ${WRITES} writes ` +
            `(all: ${delays.map((d) => d.toFixed(0)).join(', ')})`,
        );
        expect(max).toBeLessThanOrEqual(BOUND_MS);
      }, 120_000);
    });
  }
}
