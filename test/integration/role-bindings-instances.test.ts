// Stored role bindings across instances (issue 41, ADR 47): two Vexil apps on one PostgreSQL or MariaDB
// database, each with its jobs running. A binding made through A gives a person signed in by JWT the
// role on B once B's copy is refreshed (role_bindings_refresh, every cache.poll_interval); deleting it
// through A takes the role away on B the same way, and B then answers 403.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app/build-app.js';
import { loadConfig } from '../../src/config/load.js';
import { bearer, call } from '../helpers/app.js';
import { waitFor } from '../helpers/audit.js';
import { type Backend, createTestDatabase, type TestDatabase, testBackends } from '../helpers/backends.js';

const BOOT = 'role-bindings-instances-bootstrap';
const shared = testBackends().filter((b) => b.name !== 'sqlite');

describe.each(shared)('role bindings across two instances [$name]', (backend: Backend) => {
  let dir: string;
  let database: TestDatabase;
  let a: App;
  let b: App;
  let person: string;

  beforeAll(async () => {
    if (backend.skipReason) return;
    const pair = await generateKeyPair('ES256', { extractable: true });
    dir = mkdtempSync(join(tmpdir(), 'vexil-bindings-instances-'));
    const keyFile = join(dir, 'jwt.pem');
    writeFileSync(keyFile, await exportSPKI(pair.publicKey));
    const now = Math.floor(Date.now() / 1000);
    person = await new SignJWT({ sub: 'ci-robot', 'io.flipt.auth.role': 'release-managers', iat: now, exp: now + 600 })
      .setProtectedHeader({ alg: 'ES256' })
      .sign(pair.privateKey);
    database = await createTestDatabase(backend);
    const config = () =>
      loadConfig({
        env: {},
        overrides: {
          db: { url: database.url },
          log: { level: 'warn' },
          cache: { poll_interval: '200ms' },
          authentication: {
            required: true,
            methods: {
              token: { enabled: true, bootstrap: { token: BOOT } },
              jwt: { enabled: true, public_key_file: keyFile, validate_claims: { subject: 'ci-robot' } },
            },
          },
          authorization: { roles: { default: 'none', rules: [] } },
        },
      });
    // One after the other: the first migrates and makes the bootstrap token, the second finds both.
    a = await buildApp(config(), { logger: pino({ level: 'silent' }) });
    b = await buildApp(config(), { logger: pino({ level: 'silent' }) });
    a.jobs.start();
    b.jobs.start();
    expect(
      (await call(a, 'POST', '/api/v1/namespaces', { key: 'release', name: 'Release' }, bearer(BOOT))).status,
    ).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled([a?.close(), b?.close()]);
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const readFlags = (app: App) =>
    call(app, 'GET', '/api/v1/namespaces/release/flags', undefined, { authorization: `JWT ${person}` });

  it.skipIf(backend.skipReason)(
    `a binding made on A grants on B, and its deletion on A refuses on B (${backend.skipReason ?? 'runs'})`,
    async () => {
      const refused = await readFlags(b);
      expect(refused.status).toBe(403);
      expect(refused.body.message).toMatch(/role "viewer" on namespace "release" is required/);
      const made = await call(
        a,
        'POST',
        '/api/v1/roles/bindings',
        { match: { metadata: 'io.flipt.auth.role', pattern: 'release-*' }, role: 'viewer', namespace: 'release' },
        bearer(BOOT),
      );
      expect(made.status).toBe(200);
      // A applies its own write at once; B at its next refresh.
      expect((await readFlags(a)).status).toBe(200);
      await waitFor('B to grant the stored role', async () => (await readFlags(b)).status === 200, 10_000);

      expect((await call(a, 'DELETE', `/api/v1/roles/bindings/${made.body.id}`, undefined, bearer(BOOT))).status).toBe(
        200,
      );
      expect((await readFlags(a)).status).toBe(403);
      await waitFor('B to refuse once the binding is gone', async () => (await readFlags(b)).status === 403, 10_000);
      const after = await readFlags(b);
      expect(after.body).toMatchObject({ code: 7, details: [] });
    },
    30_000,
  );
});
