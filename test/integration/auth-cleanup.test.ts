// Expiry and cleanup of tokens: an expired token is refused at once; the cleanup job deletes it only
// once its expiry is older than the grace period; and with several instances on one database the
// `operation_lock` lease lets only one instance clean per interval.

import pino from 'pino';
import { expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app/build-app.js';
import {
  authTokenCleanupStats,
  type CleanupRun,
  cleanupOperation,
  onAuthTokenCleanup,
  TokenCleanupJob,
} from '../../src/auth/cleanup.js';
import { loadConfig } from '../../src/config/load.js';
import { readLock, tryAcquireLock } from '../../src/storage/operation-lock.js';
import { bearer, call, startTestApp } from '../helpers/app.js';
import { createTestDatabase, describeEachBackend, type TestDatabase } from '../helpers/backends.js';

const BOOT = 'cleanup-bootstrap-token';
const silent = pino({ level: 'silent' });

/** Polls `check` until it holds; fails after a generous deadline (a liveness bound, not a timing assertion). */
async function waitFor(what: string, check: () => Promise<boolean> | boolean, deadlineMs = 30_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function authConfig(cleanup: { interval: string; grace_period: string }) {
  return {
    server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 },
    authentication: { required: true, methods: { token: { enabled: true, bootstrap: { token: BOOT }, cleanup } } },
  };
}

describeEachBackend('expired token cleanup', (backend) => {
  it('refuses an expired token at once, and the running job deletes it after the grace period', async () => {
    const t = await startTestApp(backend, authConfig({ interval: '100ms', grace_period: '300ms' }));
    const runs: CleanupRun[] = [];
    const off = onAuthTokenCleanup((run) => runs.push(run));
    try {
      await t.app.listen();
      const created = await call(t.app, 'POST', '/auth/v1/method/token', { name: 'temp' }, bearer(BOOT));
      const { clientToken, authentication } = created.body;
      expect((await call(t.app, 'GET', '/api/v1/namespaces', undefined, bearer(clientToken))).status).toBe(200);

      expect((await call(t.app, 'PUT', '/auth/v1/self/expire', undefined, bearer(clientToken))).status).toBe(200);
      expect((await call(t.app, 'GET', '/api/v1/namespaces', undefined, bearer(clientToken))).status).toBe(401);
      const record = await call(t.app, 'GET', `/auth/v1/tokens/${authentication.id}`, undefined, bearer(BOOT));
      expect(record.status).toBe(200);
      const expiredAt = Date.parse(record.body.expiresAt);

      // The row can be gone a moment before the job's run reports it: wait for both.
      await waitFor('the cleanup job to delete the expired token', async () => {
        const res = await call(t.app, 'GET', `/auth/v1/tokens/${authentication.id}`, undefined, bearer(BOOT));
        return res.status === 404 && runs.some((r) => r.deleted > 0);
      });
      const deleting = runs.find((r) => r.deleted > 0);
      expect(deleting, JSON.stringify({ expiredAt, runs })).toBeDefined();
      // It went only once the expiry was older than the grace period.
      expect((deleting as CleanupRun).expiredBefore.getTime()).toBeGreaterThan(expiredAt);
      expect((deleting as CleanupRun).leaseStart.getTime() - 300).toBeGreaterThan(expiredAt);
      // The token that never expires is untouched.
      expect((await call(t.app, 'GET', '/auth/v1/self', undefined, bearer(BOOT))).status).toBe(200);
      expect(authTokenCleanupStats.deleted).toBeGreaterThanOrEqual(1);
      expect(authTokenCleanupStats.runs).toBeGreaterThanOrEqual(runs.length);
    } finally {
      off();
      await t.close();
    }
  });

  it('keeps a token within the grace period and deletes it after (clock given to the job)', async () => {
    const t = await startTestApp(backend, { authentication: { methods: { token: { enabled: true } } } });
    try {
      const now = new Date();
      const auth = t.app.services.auth;
      const expired = await auth.createToken({ name: 'expired-10m', expiresAt: new Date(now.getTime() - 10 * 60_000) });
      const future = await auth.createToken({ name: 'future', expiresAt: new Date(now.getTime() + 60 * 60_000) });
      const forever = await auth.createToken({ name: 'forever' });
      // An expired authentication of another method is not the token job's business.
      await t.app.db.kysely
        .insertInto('authentications')
        .values({
          id: 'oidc-old',
          hashed_client_token: 'oidc-old-hash',
          method: 2,
          metadata: '{}',
          expires_at: new Date(now.getTime() - 24 * 3_600_000),
          created_at: now,
          updated_at: now,
        })
        .execute();

      const job = new TokenCleanupJob({
        db: t.app.db.kysely,
        intervalMs: 60_000,
        gracePeriodMs: 30 * 60_000,
        logger: silent,
      });
      const first = await job.runOnce(now);
      expect(first).toMatchObject({ acquired: true, run: { deleted: 0 } });
      await expect(auth.get(expired.authentication.id)).resolves.toBeDefined();

      // Within the same lease no second run happens, whatever the caller wants.
      const held = await job.runOnce(new Date(now.getTime() + 30_000));
      expect(held.acquired).toBe(false);

      // 21 minutes later the token's expiry is 31 minutes old: past the 30 minute grace period.
      const later = await job.runOnce(new Date(now.getTime() + 21 * 60_000));
      expect(later).toMatchObject({ acquired: true, run: { deleted: 1 } });
      await expect(auth.get(expired.authentication.id)).rejects.toThrow('resource not found');
      await expect(auth.get(future.authentication.id)).resolves.toBeDefined();
      await expect(auth.get(forever.authentication.id)).resolves.toBeDefined();
      await expect(auth.get('oidc-old')).resolves.toBeDefined();
    } finally {
      await t.close();
    }
  });

  // Several instances share a server database. Two apps in ONE process on one SQLite file cannot run
  // side by side: better-sqlite3 waits for the other connection's lock synchronously, blocking the
  // very event loop that would release it.
  const multiInstance =
    backend.name === 'sqlite'
      ? (title: string, fn: () => Promise<void>) => it.skip(`${title} (skipped: needs a server database)`, fn)
      : it;

  multiInstance('grants one lease to exactly one of many concurrent attempts from two instances', async () => {
    const database = await createTestDatabase(backend);
    const apps: App[] = [];
    try {
      for (let i = 0; i < 2; i++)
        apps.push(await buildTestApp(database, { authentication: { methods: { token: { enabled: true } } } }));
      const now = new Date();
      for (const at of [now, new Date(now.getTime() + 61_000)]) {
        const attempts = await Promise.all(
          Array.from({ length: 16 }, (_, i) => tryAcquireLock((apps[i % 2] as App).db.kysely, 'race_test', 60_000, at)),
        );
        expect(attempts.filter((a) => a.acquired)).toHaveLength(1);
      }
      expect((await readLock((apps[0] as App).db.kysely, 'race_test'))?.version).toBe(2);
    } finally {
      for (const app of apps) await app.close();
      await database.drop();
    }
  });

  multiInstance('never lets two instances on one database clean in the same interval', async () => {
    const database = await createTestDatabase(backend);
    const apps: App[] = [];
    const runs: CleanupRun[] = [];
    const off = onAuthTokenCleanup((run) => runs.push(run));
    try {
      const overrides = authConfig({ interval: '150ms', grace_period: '1s' });
      for (let i = 0; i < 2; i++) apps.push(await buildTestApp(database, overrides));
      await Promise.all(apps.map((app) => app.listen()));
      await waitFor('eight cleanup runs', () => runs.length >= 8);
      await Promise.all(apps.map((app) => app.close()));

      const operation = cleanupOperation('METHOD_TOKEN');
      expect(runs.every((r) => r.operation === operation)).toBe(true);
      const byVersion = [...runs].sort((a, b) => a.version - b.version);
      expect(new Set(runs.map((r) => r.version)).size).toBe(runs.length);
      for (let i = 1; i < byVersion.length; i++) {
        const previous = byVersion[i - 1] as CleanupRun;
        const current = byVersion[i] as CleanupRun;
        // Each run's lease begins no earlier than the previous lease ended: no two runs share an interval.
        expect(current.leaseStart.getTime()).toBeGreaterThanOrEqual(previous.leaseEnd.getTime());
        expect(current.leaseEnd.getTime() - current.leaseStart.getTime()).toBe(150);
      }
    } finally {
      off();
      for (const app of apps) await app.close();
      await database.drop();
    }
  });
});

async function buildTestApp(database: TestDatabase, overrides: Record<string, unknown>): Promise<App> {
  const config = loadConfig({
    env: {},
    overrides: { ...overrides, db: { url: database.url }, log: { level: 'warn' } },
  });
  return buildApp(config, { logger: silent });
}
