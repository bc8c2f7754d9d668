// Redis killed mid-run, twice, and restarted: two `vexil serve` processes (A and B) with the Redis
// backend on one database, against a private redis-server (SIGKILL, no persistence), while a loop
// evaluates on both the whole time. No evaluation fails; writes keep working; B, which loads a
// namespace it never saw during the outage, answers from the database; each outage is logged once
// and counted once per instance; and once Redis is back, B catches up with the write it missed and
// invalidation through pub/sub works again. Polling is set to an hour, so only Redis can explain
// what B learns.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, describeEachBackend, type TestDatabase } from '../helpers/backends.js';
import { type RunningVexil, startVexil } from '../helpers/process.js';
import { eventually, metricValue, PrivateRedis, REDIS_SERVER, sleep } from './cache-support.js';

const OUTAGE_WARNING = 'redis unavailable';

async function json(method: string, url: string, body?: unknown) {
  const res = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function metric(instance: RunningVexil, name: string): Promise<number> {
  const text = await (await fetch(`${instance.baseUrl}/metrics`)).text();
  return metricValue(text, name);
}

/** `eventually` with this file's bounds: outages take longer to be noticed and healed. */
const eventuallyHealed = (condition: () => Promise<boolean>, what: string) => eventually(condition, what, 20_000, 25);

function warnings(instance: RunningVexil): number {
  return instance
    .output()
    .split('\n')
    .filter((line) => line.includes(OUTAGE_WARNING)).length;
}

/** Evaluates on every instance in a loop until stopped; records every answer that is not a 200. */
function evaluateContinuously(instances: RunningVexil[]) {
  const failures: string[] = [];
  let answered = 0;
  let answeredInOutage = 0;
  let running = true;
  let outage = false;
  const loop = (async () => {
    while (running) {
      for (const instance of instances) {
        try {
          const res = await json('POST', `${instance.baseUrl}/evaluate/v1/boolean`, {
            flagKey: 'toggle',
            entityId: 'e',
          });
          if (res.status === 200) {
            answered++;
            if (outage) answeredInOutage++;
          } else failures.push(`${res.status} ${JSON.stringify(res.body)}`);
        } catch (err) {
          failures.push(String(err));
        }
      }
      await sleep(5);
    }
  })();
  return {
    failures,
    get answered() {
      return answered;
    },
    /** Answers given while the test had Redis down. */
    get answeredInOutage() {
      return answeredInOutage;
    },
    set outage(value: boolean) {
      outage = value;
    },
    async stop() {
      running = false;
      await loop;
    },
  };
}

const describeWithRedis = REDIS_SERVER
  ? describeEachBackend
  : (title: string) => describe.skip(`${title} (skipped: redis-server is not installed)`, () => {});

describeWithRedis('redis outage', (backend) => {
  let database: TestDatabase;
  let redis: PrivateRedis;
  let a: RunningVexil;
  let b: RunningVexil;

  beforeAll(async () => {
    database = await createTestDatabase(backend);
    redis = await PrivateRedis.start();
    const env = {
      VEXIL_DB_URL: database.url,
      VEXIL_CACHE_ENABLED: 'true',
      VEXIL_CACHE_BACKEND: 'redis',
      VEXIL_CACHE_REDIS_URL: redis.url,
      VEXIL_CACHE_POLL_INTERVAL: '1h',
    };
    a = await startVexil(env);
    b = await startVexil(env);
  }, 120_000);
  afterAll(async () => {
    await Promise.allSettled([a?.stop(), b?.stop()]);
    await redis?.kill();
    await database?.drop();
  });

  it('keeps every evaluation answering through two outages and invalidates through Redis again after each', async () => {
    const flags = (ns: string) => `${a.baseUrl}/api/v1/namespaces/${ns}/flags`;
    const setToggle = async (enabled: boolean) => {
      const res = await json('PUT', `${flags('default')}/toggle`, { name: 'Toggle', enabled });
      expect(res.status).toBe(200);
    };
    const toggleOn = async (instance: RunningVexil) =>
      (await json('POST', `${instance.baseUrl}/evaluate/v1/boolean`, { flagKey: 'toggle', entityId: 'e' })).body
        .enabled;

    expect(
      (
        await json('POST', flags('default'), {
          key: 'toggle',
          name: 'Toggle',
          type: 'BOOLEAN_FLAG_TYPE',
          enabled: true,
        })
      ).status,
    ).toBe(200);
    for (const ns of ['cold1', 'cold2']) {
      expect((await json('POST', `${a.baseUrl}/api/v1/namespaces`, { key: ns, name: ns })).status).toBe(200);
      expect(
        (await json('POST', flags(ns), { key: 'c', name: 'C', type: 'BOOLEAN_FLAG_TYPE', enabled: true })).status,
      ).toBe(200);
    }
    for (const instance of [a, b]) {
      await eventuallyHealed(async () => (await metric(instance, 'vexil_cache_redis_up')) === 1, 'redis up at start');
      expect(await toggleOn(instance)).toBe(true);
    }
    const evaluations = evaluateContinuously([a, b]);

    // Redis up: B learns of A's write through pub/sub.
    let expected = false;
    await setToggle(expected);
    await eventuallyHealed(async () => (await toggleOn(b)) === expected, 'B to see the write through pub/sub');

    for (const cycle of [1, 2]) {
      await redis.kill();
      evaluations.outage = true;
      for (const instance of [a, b]) {
        await eventuallyHealed(
          async () => (await metric(instance, 'vexil_cache_redis_outages_total')) === cycle,
          `outage ${cycle} counted`,
        );
        expect(await metric(instance, 'vexil_cache_redis_up')).toBe(0);
      }
      // Writes need only the database; A answers its own write at once.
      expected = !expected;
      await setToggle(expected);
      expect(await toggleOn(a)).toBe(expected);
      // A namespace B never loaded: it comes from the database, Redis is not waited for.
      const cold = await json('POST', `${b.baseUrl}/evaluate/v1/boolean`, {
        namespaceKey: `cold${cycle}`,
        flagKey: 'c',
        entityId: 'e',
      });
      expect(cold.status).toBe(200);
      expect(cold.body.enabled).toBe(true);

      // Evaluations keep running through the outage for a while before Redis returns.
      await eventuallyHealed(async () => evaluations.answeredInOutage >= 50 * cycle, 'evaluations during the outage');
      evaluations.outage = false;
      await redis.restart();
      for (const instance of [a, b]) {
        await eventuallyHealed(
          async () => (await metric(instance, 'vexil_cache_redis_up')) === 1,
          `redis up again after outage ${cycle}`,
        );
      }
      // The announcement sent during the outage was lost; B re-reads revisions when Redis returns.
      await eventuallyHealed(
        async () => (await toggleOn(b)) === expected,
        'B to catch up with the write made during the outage',
      );
      // And pub/sub invalidation works again.
      expected = !expected;
      await setToggle(expected);
      await eventuallyHealed(
        async () => (await toggleOn(b)) === expected,
        `B to see a write through pub/sub after outage ${cycle}`,
      );
    }

    await evaluations.stop();
    expect(evaluations.failures).toEqual([]);
    expect(evaluations.answeredInOutage).toBeGreaterThanOrEqual(100);
    // One warning per outage per instance, however many reconnect attempts failed meanwhile.
    expect(warnings(a)).toBe(2);
    expect(warnings(b)).toBe(2);
    console.log(
      `[redis-outage] ${backend.name}: ${evaluations.answered} evaluations answered (${evaluations.answeredInOutage} with Redis down) through 2 outages, 0 failed`,
    );
  }, 180_000);
});
