// Two real Vexil processes on one PostgreSQL database (issue 29): a write taken by A reaches the
// event streams held by B, through each way an instance hears of another's writes — the Redis
// revisions channel (B's revision poll set to an hour, so only the channel can tell it) and the
// revision poll (every second, no Redis). Over 15 changes each (50 with VEXIL_TEST_STREAM_CHANGES), the time from A's answer to B's
// message is printed (median and max); a message that never comes fails the test.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, createTestDatabase, type TestDatabase, testBackends } from '../helpers/backends.js';
import { type RunningVexil, startVexil } from '../helpers/process.js';
import { openSse, type SseReader } from '../helpers/sse.js';

// 15 keeps the suite short; the note's and docs/performance.md's figures are from 50
// (VEXIL_TEST_STREAM_CHANGES=50).
const CHANGES = Number(process.env.VEXIL_TEST_STREAM_CHANGES ?? 15);
const postgres = testBackends().find((b) => b.name === 'postgres' && !b.skipReason);
const redisUrl = process.env.VEXIL_TEST_REDIS_URL;

const ways = [
  {
    name: 'redis',
    skip: redisUrl ? undefined : 'VEXIL_TEST_REDIS_URL is not set',
    env: (): Record<string, string> => ({
      VEXIL_CACHE_ENABLED: 'true',
      VEXIL_CACHE_BACKEND: 'redis',
      VEXIL_CACHE_REDIS_URL: redisUrl ?? '',
      VEXIL_CACHE_REDIS_PREFIX: `sse-${process.pid}-${Date.now()}`,
      VEXIL_CACHE_POLL_INTERVAL: '1h',
    }),
  },
  { name: 'polling', skip: undefined, env: (): Record<string, string> => ({ VEXIL_CACHE_POLL_INTERVAL: '1s' }) },
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

describe.skipIf(!postgres)(
  `event streams across two instances [postgres]${postgres ? '' : ' (skipped: VEXIL_TEST_POSTGRES_URL is not set)'}`,
  () => {
    for (const way of ways) {
      describe.skipIf(way.skip !== undefined)(`${way.name}${way.skip ? ` (skipped: ${way.skip})` : ''}`, () => {
        let database: TestDatabase;
        let a: RunningVexil;
        let b: RunningVexil;
        let streams: SseReader[] = [];

        beforeAll(async () => {
          database = await createTestDatabase(postgres as Backend);
          const env = {
            VEXIL_DB_URL: database.url,
            VEXIL_OFREP_EVENT_STREAMS_ENABLED: 'true',
            VEXIL_CACHE_TTL: '1h',
            ...way.env(),
          };
          // One after the other, with time to spare: on a loaded machine two starts at once can take long.
          a = await startVexil(env, ['serve'], { startTimeoutMs: 90_000 });
          b = await startVexil(env, ['serve'], { startTimeoutMs: 90_000 });
          const created = await fetch(`${a.baseUrl}/api/v1/namespaces/default/flags`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ key: 'f', name: 'f', type: 'BOOLEAN_FLAG_TYPE' }),
          });
          expect(created.status).toBe(200);
        }, 200_000);

        afterAll(async () => {
          for (const s of streams) s.close();
          await Promise.allSettled([a?.stop(), b?.stop()]);
          await database?.drop();
        });

        it(`a write on A reaches both of B's streams (OFREP and native); ${CHANGES} changes timed`, async () => {
          streams = await Promise.all([
            openSse(`${b.baseUrl}/ofrep/v1/namespaces/default/events`),
            openSse(`${b.baseUrl}/internal/v1/evaluation/snapshot/namespace/default/events`),
          ]);
          for (const s of streams) await s.until((r) => r.events.length === 1);
          const delays: number[] = [];
          for (let i = 0; i < CHANGES; i++) {
            // At a random point of the poll interval: right after a message would always be just after a poll.
            await new Promise((r) => setTimeout(r, Math.random() * 1000));
            const res = await fetch(`${a.baseUrl}/api/v1/namespaces/default/flags/f`, {
              method: 'PUT',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ name: 'f', enabled: i % 2 === 0 }),
            });
            expect(res.status).toBe(200);
            const written = Date.now();
            const revision = res.headers.get('x-vexil-revision');
            await Promise.all(streams.map((s) => s.until((r) => r.events.some((e) => e.id === revision), 15_000)));
            delays.push(Date.now() - written);
          }
          console.log(
            `[event streams, ${way.name}] A's write → B's streams over ${CHANGES} changes: ` +
              `median ${median(delays)} ms, max ${Math.max(...delays)} ms`,
          );
          // Every message names a revision that is newer than the one before (none repeated or stale).
          const ids = (streams[0] as SseReader).events.map((e) => e.id);
          expect(new Set(ids).size).toBe(ids.length);
        }, 240_000);
      });
    }
  },
);
