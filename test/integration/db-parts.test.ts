// Flipt's second way to name the database (db.protocol, host, port, name, user, password instead of
// db.url), against the real PostgreSQL and MySQL servers: the URL built from the parts opens the
// database, migrates it and serves the API.

import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type App, buildApp } from '../../src/app/build-app.js';
import { loadConfig } from '../../src/config/load.js';
import { call } from '../helpers/app.js';
import { createTestDatabase, describeEachBackend, type TestDatabase } from '../helpers/backends.js';

describeEachBackend('db connection from its parts', (backend) => {
  if (backend.name === 'sqlite') {
    it('is for client-server databases (SQLite is named by db.url)', () => {
      expect(() =>
        loadConfig({ env: { VEXIL_DB_PROTOCOL: 'sqlite', VEXIL_DB_HOST: 'h', VEXIL_DB_NAME: 'f' } }),
      ).toThrow(/SQLite is named by db\.url/);
    });
    return;
  }
  let database: TestDatabase;
  let app: App;

  beforeAll(async () => {
    database = await createTestDatabase(backend);
    const url = new URL(database.url);
    const db: Record<string, unknown> = {
      protocol: backend.name,
      host: url.hostname,
      port: Number(url.port),
      name: url.pathname.slice(1),
      user: decodeURIComponent(url.username),
    };
    // PostgreSQL trusts local connections, so a password full of URL syntax must only survive the
    // round trip; MySQL's root has none here.
    if (backend.name === 'postgres') db.password = 'p@ss:w/rd%?#';
    const config = loadConfig({ env: {}, overrides: { db, log: { level: 'warn' } } });
    const userinfo = backend.name === 'postgres' ? `${db.user}:p%40ss%3Aw%2Frd%25%3F%23` : `${db.user}`;
    expect(config.db.url).toBe(`${backend.name}://${userinfo}@${db.host}:${db.port}/${db.name}`);
    app = await buildApp(config, { logger: pino({ level: 'silent' }) });
  });
  afterAll(async () => {
    await app?.close();
    await database?.drop();
  });

  it('opens, migrates and serves the database the parts name', async () => {
    const created = await call(app, 'POST', '/api/v1/namespaces/default/flags', {
      key: 'from-parts',
      name: 'From parts',
      type: 'BOOLEAN_FLAG_TYPE',
    });
    expect(created.status).toBe(200);
    const read = await call(app, 'GET', '/api/v1/namespaces/default/flags/from-parts');
    expect(read.status).toBe(200);
    expect((read.body as { key: string }).key).toBe('from-parts');
  });
});
