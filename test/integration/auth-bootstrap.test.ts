// The bootstrap token (created at start when the token method is enabled and no token exists, never
// duplicated across restarts or by instances starting together) and `vexil token create|list|delete`,
// which work on the database directly.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app/build-app.js';
import { tokenCreateInput } from '../../src/cli/token.js';
import { loadConfig } from '../../src/config/load.js';
import { bearer, call } from '../helpers/app.js';
import { createTestDatabase, describeEachBackend, type TestDatabase } from '../helpers/backends.js';
import { programArgs } from '../helpers/process.js';
import { eventually } from './cache-support.js';

const run = promisify(execFile);

function tokenSettings(bootstrap: Record<string, unknown>) {
  return { authentication: { required: true, methods: { token: { enabled: true, bootstrap } } } };
}

async function startOn(database: TestDatabase, overrides: Record<string, unknown>): Promise<App> {
  const config = loadConfig({
    env: {},
    overrides: { ...overrides, db: { url: database.url }, log: { level: 'warn' } },
  });
  return buildApp(config, { logger: pino({ level: 'silent' }) });
}

async function tokenRows(app: App) {
  return app.db.kysely.selectFrom('authentications').selectAll().where('method', '=', 1).execute();
}

describeEachBackend('bootstrap token', (backend) => {
  it('is created once and never duplicated across restarts', async () => {
    const database = await createTestDatabase(backend);
    try {
      const before = Date.now();
      const first = await startOn(
        database,
        tokenSettings({ token: 'first-token', expiration: '1h', metadata: { Team: 'Ops' } }),
      );
      const rows = await tokenRows(first);
      expect(rows).toHaveLength(1);
      const self = await call(first, 'GET', '/auth/v1/self', undefined, bearer('first-token'));
      expect(self.status).toBe(200);
      expect(self.body.metadata).toEqual({
        'io.flipt.auth.token.name': 'initial_bootstrap_token',
        'io.flipt.auth.token.description': 'Initial token created when bootstrapping authentication',
        team: 'Ops',
      });
      const expiresAt = Date.parse(self.body.expiresAt);
      expect(expiresAt).toBeGreaterThanOrEqual(before + 3_600_000);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + 3_600_000);
      await first.close();

      // Restart with another configured token: a token exists, so nothing is created.
      const second = await startOn(database, tokenSettings({ token: 'second-token' }));
      expect(await tokenRows(second)).toHaveLength(1);
      expect((await call(second, 'GET', '/auth/v1/self', undefined, bearer('first-token'))).status).toBe(200);
      expect((await call(second, 'GET', '/auth/v1/self', undefined, bearer('second-token'))).status).toBe(401);
      await second.close();

      // And with a random one.
      const third = await startOn(database, tokenSettings({}));
      expect(await tokenRows(third)).toHaveLength(1);
      await third.close();
    } finally {
      await database.drop();
    }
  });

  it('is not created when the token method is disabled', async () => {
    const database = await createTestDatabase(backend);
    try {
      const app = await startOn(database, {
        authentication: { methods: { token: { bootstrap: { token: 'unused' } } } },
      });
      expect(await tokenRows(app)).toHaveLength(0);
      await app.close();
    } finally {
      await database.drop();
    }
  });

  // Two apps in one process on one SQLite file block each other (better-sqlite3 waits synchronously).
  const multiInstance =
    backend.name === 'sqlite'
      ? (title: string, fn: () => Promise<void>) => it.skip(`${title} (skipped: needs a server database)`, fn)
      : it;
  multiInstance('is created by exactly one of several instances starting together', async () => {
    const database = await createTestDatabase(backend);
    const apps: App[] = [];
    try {
      await (await startOn(database, {})).close(); // migrate first, without the token method
      apps.push(...(await Promise.all([1, 2, 3, 4].map(() => startOn(database, tokenSettings({}))))));
      expect(await tokenRows(apps[0] as App)).toHaveLength(1);

      // The same, tighter: many bootstrap attempts at once across the instances on an empty table.
      await (apps[0] as App).db.kysely.deleteFrom('authentications').execute();
      const outcomes = await Promise.all(
        Array.from({ length: 12 }, (_, i) => (apps[i % apps.length] as App).services.auth.bootstrap({})),
      );
      expect(outcomes.filter((created) => created !== undefined)).toHaveLength(1);
      expect(await tokenRows(apps[0] as App)).toHaveLength(1);
    } finally {
      for (const app of apps) await app.close();
      await database.drop();
    }
  });
});

// The command runs a process per call (slow to start), so it runs on SQLite only; the storage it uses
// is the one the HTTP tests above exercise on every backend.
describe('vexil token command', () => {
  const backend = { name: 'sqlite' as const };
  it('creates, lists and deletes tokens in the database; a running server honours them within its poll interval', async () => {
    const database = await createTestDatabase(backend);
    const env = { ...process.env, VEXIL_DB_URL: database.url, VEXIL_LOG_LEVEL: 'warn' };
    const vexil = (...args: string[]) =>
      run(process.execPath, [...programArgs(), 'token', ...args], { env, cwd: process.cwd() });
    let app: App | undefined;
    try {
      const created = JSON.parse(
        (
          await vexil(
            'create',
            '--name',
            'deploy',
            '--description',
            'from the CLI',
            '--expires-in',
            '24h',
            '--metadata',
            'owner=ops',
          )
        ).stdout,
      );
      expect(created.clientToken).toMatch(/^[A-Za-z0-9_-]{43}=$/);
      expect(created.authentication.metadata).toEqual({
        owner: 'ops',
        'io.flipt.auth.token.name': 'deploy',
        'io.flipt.auth.token.description': 'from the CLI',
      });

      // A server on the same database (token method on) accepts it, and creates no bootstrap token.
      app = await startOn(database, {
        ...tokenSettings({}),
        cache: { poll_interval: '100ms' },
        server: { host: '127.0.0.1', http_port: 0, grpc_port: 0 },
      });
      await app.listen(); // starts the poller, which re-reads remembered tokens
      expect((await call(app, 'GET', '/api/v1/namespaces', undefined, bearer(created.clientToken))).status).toBe(200);
      expect(await tokenRows(app)).toHaveLength(1);

      const listed = JSON.parse((await vexil('list')).stdout);
      expect(listed).toEqual({ authentications: [created.authentication], nextPageToken: '' });

      expect((await vexil('delete', created.authentication.id)).stdout.trim()).toBe(
        `deleted ${created.authentication.id}`,
      );
      // Without the Redis cache the CLI cannot tell the server: its next re-read of remembered tokens does.
      const server = app;
      const refused = async () =>
        (await call(server, 'GET', '/api/v1/namespaces', undefined, bearer(created.clientToken))).status === 401;
      await eventually(refused, 'the server to refuse the deleted token', 10_000, 20);

      const failure = await vexil('delete', created.authentication.id).then(
        () => undefined,
        (err: { code: number; stderr: string }) => err,
      );
      expect(failure?.code).toBe(1);
      expect(failure?.stderr.trim()).toBe(`vexil: authentication "${created.authentication.id}" not found`);
    } finally {
      await app?.close();
      await database.drop();
    }
    // Five processes of the real program, one after the other: seconds apiece on a busy machine.
  }, 90_000);
});

describe('vexil token create options', () => {
  it('turns options into a token request and refuses bad ones', () => {
    const now = new Date('2030-01-01T00:00:00Z');
    expect(tokenCreateInput({ name: 'a', namespace: 'prod', expiresIn: '2h', metadata: ['k=v=w'] }, now)).toEqual({
      name: 'a',
      namespaceKey: 'prod',
      expiresAt: new Date('2030-01-01T02:00:00Z'),
      metadata: { k: 'v=w' },
    });
    expect(tokenCreateInput({ expiresAt: '2031-02-03T04:05:06+01:00' }, now).expiresAt).toEqual(
      new Date('2031-02-03T03:05:06Z'),
    );
    expect(() => tokenCreateInput({ expiresAt: 'tomorrow' }, now)).toThrow('invalid field expiresAt');
    expect(() => tokenCreateInput({ expiresIn: 'soon' }, now)).toThrow('--expires-in');
    expect(() => tokenCreateInput({ expiresIn: '1h', expiresAt: '2031-01-01T00:00:00Z' }, now)).toThrow('not both');
    expect(() => tokenCreateInput({ metadata: ['novalue'] }, now)).toThrow('key=value');
    // Roles (issue 41), checked as the API checks them.
    expect(tokenCreateInput({ role: ['client:prod', 'viewer:*'] }, now).roles).toEqual([
      { role: 'client', namespace: 'prod' },
      { role: 'viewer', namespace: '*' },
    ]);
    expect(() => tokenCreateInput({ role: ['viewer'] }, now)).toThrow('--role takes role:namespace');
    expect(() => tokenCreateInput({ role: ['owner:prod'] }, now)).toThrow('--role: invalid role "owner"');
    expect(() => tokenCreateInput({ namespace: 'prod', role: ['viewer:dev'] }, now)).toThrow(
      'role namespace "dev" is outside the token\'s namespace "prod"',
    );
  });
});
