// The jobs room against the real databases: a leased job run by two instances at once runs once per
// interval (two programs on one database, SQLite file included: in one process, better-sqlite3 would
// wait for the other connection's lock synchronously), nothing is applied twice; the job metrics on
// /metrics, a lease held elsewhere counting as skipped; and `jobs.leased: false`.

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app/build-app.js';
import { loadConfig } from '../../src/config/load.js';
import type { SinkDelivery } from '../../src/features/audit/delivery.js';
import { changeFeed } from '../../src/features/audit/index.js';
import { openDb } from '../../src/storage/db.js';
import { readLock } from '../../src/storage/operation-lock.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/audit.js';
import { createTestDatabase, describeEachBackend } from '../helpers/backends.js';
import { type RunningVexil, startVexil } from '../helpers/process.js';

const INTERVAL_MS = 200;
const EXPIRED_TOKENS = 25;

/** The value of one series in a Prometheus text exposition (0 when absent). */
function series(text: string, name: string, labels: string): number {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}{${labels}}`) || (labels === '' && l.startsWith(`${name} `)));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

async function metricsOf(vexil: RunningVexil): Promise<string> {
  return (await fetch(`${vexil.baseUrl}/metrics`)).text();
}

async function insertExpiredTokens(url: string, count: number): Promise<void> {
  const db = openDb({ url });
  try {
    const long = new Date(Date.now() - 24 * 3_600_000);
    for (let i = 0; i < count; i++) {
      const id = randomUUID();
      await db.kysely
        .insertInto('authentications')
        .values({
          id,
          hashed_client_token: `expired-${id}`,
          method: 1,
          metadata: '{}',
          expires_at: long,
          created_at: long,
          updated_at: long,
        })
        .execute();
    }
  } finally {
    await db.close();
  }
}

describeEachBackend('jobs room', (backend) => {
  it('a leased job run by two instances at once runs once per interval, and deletes each row once', async () => {
    const database = await createTestDatabase(backend);
    const env = {
      VEXIL_DB_URL: database.url,
      VEXIL_LOG_LEVEL: 'info',
      VEXIL_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
      VEXIL_AUTHENTICATION_METHODS_TOKEN_CLEANUP_INTERVAL: `${INTERVAL_MS}ms`,
      VEXIL_AUTHENTICATION_METHODS_TOKEN_CLEANUP_GRACE_PERIOD: '1ms',
      VEXIL_AUDIT_RETENTION: '0',
    };
    const instances: RunningVexil[] = [];
    try {
      // One after the other: two migrations racing on one SQLite file is another test's business.
      instances.push(await startVexil(env));
      instances.push(await startVexil(env));
      await insertExpiredTokens(database.url, EXPIRED_TOKENS);
      const total = async (labels: string, name = 'vexil_job_runs_total') => {
        const texts = await Promise.all(instances.map(metricsOf));
        return texts.reduce((sum, text) => sum + series(text, name, labels), 0);
      };
      await waitFor('ten cleanup runs and every expired token deleted', async () => {
        const runs = await total('job="token_cleanup",result="ok"');
        const deleted = await total('', 'vexil_auth_expired_tokens_deleted_total');
        return runs >= 10 && deleted >= EXPIRED_TOKENS;
      });
      await Promise.all(instances.map((v) => v.stop()));

      // Every run logged the expiry it deleted before: its lease's start less the 1 ms grace period.
      const starts = instances
        .flatMap((v) => v.output().split('\n'))
        .filter((line) => line.includes('expired authentications cleaned up'))
        .map((line) => Date.parse((JSON.parse(line) as { expiredBefore: string }).expiredBefore) + 1)
        .sort((a, b) => a - b);
      for (let i = 1; i < starts.length; i++) {
        expect((starts[i] as number) - (starts[i - 1] as number)).toBeGreaterThanOrEqual(INTERVAL_MS);
      }
      // Each run won the lease once: as many runs as lease numbers handed out.
      const db = openDb({ url: database.url });
      try {
        expect((await readLock(db.kysely, 'cleanup_auth_METHOD_TOKEN'))?.version).toBe(starts.length);
        // The bootstrap token, which never expires, is all that is left.
        const left = await db.kysely.selectFrom('authentications').select('expires_at').execute();
        expect(left).toEqual([{ expires_at: null }]);
      } finally {
        await db.close();
      }
      const deletedLines = instances
        .flatMap((v) => v.output().split('\n'))
        .filter((line) => line.includes('expired authentications cleaned up'))
        .reduce((sum, line) => sum + (JSON.parse(line) as { deleted: number }).deleted, 0);
      expect(deletedLines).toBe(EXPIRED_TOKENS);
    } finally {
      await Promise.all(instances.map((v) => v.stop('SIGKILL')));
      await database.drop();
    }
  }, 120_000);

  describe('job metrics', () => {
    let t: TestApp;
    let other: App;

    beforeAll(async () => {
      const overrides = { authentication: { methods: { token: { enabled: true } } } };
      t = await startTestApp(backend, overrides);
      const config = loadConfig({
        env: {},
        overrides: { ...overrides, db: { url: t.database.url }, log: { level: 'warn' } },
      });
      other = await buildApp(config);
    });

    afterAll(async () => {
      await other?.close();
      await t?.close();
    });

    it('counts runs by result and shows the last run on /metrics', async () => {
      // Not started: each run here is the one the timer would make. The second instance finds the lease held.
      expect(await t.app.jobs.scheduler.runNow('token_cleanup')).toBe('ok');
      expect(await other.jobs.scheduler.runNow('token_cleanup')).toBe('skipped');
      const text = (await t.app.http.inject({ method: 'GET', url: '/metrics' })).body;
      expect(series(text, 'vexil_job_runs_total', 'job="token_cleanup",result="ok"')).toBe(1);
      const lastRun = series(text, 'vexil_job_last_run_timestamp_seconds', 'job="token_cleanup"');
      expect(lastRun).toBeGreaterThan(0);
      expect(lastRun).toBeLessThanOrEqual(Date.now() / 1000);
      const elsewhere = (await other.http.inject({ method: 'GET', url: '/metrics' })).body;
      expect(series(elsewhere, 'vexil_job_runs_total', 'job="token_cleanup",result="skipped"')).toBe(1);
      // A skipped turn is not a run of the job here.
      expect(series(elsewhere, 'vexil_job_last_run_timestamp_seconds', 'job="token_cleanup"')).toBe(0);
    });
  });

  it('the revision poll wakes the audit deliveries held here when it reads a newer change', async () => {
    const t = await startTestApp(backend, { authentication: { methods: { token: { enabled: true } } } });
    try {
      // Each row: whether this instance holds the sink's lease; only then is a wake worth a run.
      for (const holding of [true, false]) {
        const woken: string[] = [];
        const delivery = { holding, operation: 'audit_delivery_log' } as SinkDelivery;
        const poll = changeFeed({ db: t.app.db.kysely, deliveries: [delivery] }, (job) => woken.push(job));
        await poll(); // the first read sets where the feed stands
        const standing = woken.length;
        await poll(); // nothing new
        expect(woken.length).toBe(standing);
        await t.app.services.auth.createToken({ name: `feed-${holding}` }); // a change, no namespace revision
        await poll();
        expect(woken.slice(standing)).toEqual(holding ? ['audit_delivery_log'] : []);
      }
    } finally {
      await t.close();
    }
  });

  // Each row: the config, and the jobs the instance runs with their intervals (ms).
  const H = 3_600_000;
  const rows: { title: string; config: Record<string, unknown>; jobs: Record<string, number> }[] = [
    {
      title: 'every job, defaults',
      config: {},
      jobs: {
        token_cleanup: H,
        changes_retention: H,
        audit_delivery_log: 10_000, // the revision poll wakes it; its own look is a safety net
        revision_poll: 1000,
        token_cache_refresh: 1000,
        snapshot_eviction: 300_000,
        stream_heartbeat: 15_000,
      },
    },
    {
      title: 'no leased job (jobs.leased: false)',
      config: { jobs: { leased: false } },
      jobs: { revision_poll: 1000, token_cache_refresh: 1000, snapshot_eviction: 300_000, stream_heartbeat: 15_000 },
    },
    {
      title: 'no poll (cache.poll_interval: 0): audit delivery looks every second itself',
      config: { cache: { poll_interval: '0' }, audit: { retention: '0' } },
      jobs: { token_cleanup: H, audit_delivery_log: 1000, stream_heartbeat: 15_000 },
    },
    {
      title: 'authentication required: the tokens of ticket streams are checked every poll',
      config: { authentication: { required: true, methods: { token: { enabled: true } } } },
      jobs: {
        token_cleanup: H,
        changes_retention: H,
        audit_delivery_log: 10_000,
        revision_poll: 1000,
        token_cache_refresh: 1000,
        snapshot_eviction: 300_000,
        stream_heartbeat: 15_000,
        stream_ticket_check: 1000,
      },
    },
    {
      title: 'authentication required, no poll: ticket streams are checked every heartbeat',
      config: {
        authentication: { required: true, methods: { token: { enabled: true } } },
        cache: { poll_interval: '0' },
        audit: { retention: '0' },
      },
      jobs: { token_cleanup: H, audit_delivery_log: 1000, stream_heartbeat: 15_000, stream_ticket_check: 15_000 },
    },
  ];
  it.each(rows)('runs $title', async ({ config, jobs }) => {
    const base = {
      authentication: { methods: { token: { enabled: true } } },
      audit: { sinks: { log: { enabled: true } } },
      ofrep: { event_streams: { enabled: true } },
    };
    const t = await startTestApp(backend, {
      ...base,
      ...config,
      audit: { ...base.audit, ...((config.audit as object | undefined) ?? {}) },
    });
    try {
      const listed = Object.fromEntries(t.app.jobs.scheduler.jobs.map((j) => [j.name, j.intervalMs]));
      expect(listed).toEqual(jobs);
    } finally {
      await t.close();
    }
  });
});
