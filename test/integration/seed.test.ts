// db.seed: applied once on first start, not again on a restart after changes made through the API,
// again (skip-existing) when its files change, once when two instances start together, never by a
// read instance; a bad seed stops start-up with one line.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/build-app.js';
import { migrateToLatest } from '../../src/app/migrations.js';
import { applySeed } from '../../src/app/seed.js';
import { loadConfig } from '../../src/config/load.js';
import { ChangeFeed } from '../../src/services/changes.js';
import { ImportExportService } from '../../src/services/import-export.js';
import { openDb } from '../../src/storage/db.js';
import { sqlDocumentStore } from '../../src/storage/documents.js';
import { sqlNamespaceStore } from '../../src/storage/namespaces.js';
import { sqlOperationLockStore } from '../../src/storage/operation-lock.js';
import { call } from '../helpers/app.js';
import { createTestDatabase, describeEachBackend, type TestDatabase } from '../helpers/backends.js';
import { runVexil } from '../helpers/process.js';

const dir = mkdtempSync(join(tmpdir(), 'vexil-seed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const flagDoc = (keys: string[]) =>
  `version: "1.4"\nnamespace: dev\nflags:\n${keys.map((k) => `  - key: ${k}\n    name: ${k.toUpperCase()}\n    enabled: true\n`).join('')}`;

describeEachBackend('db.seed', (backend) => {
  let database: TestDatabase;
  const seedDir = join(dir, `${backend.name}-seed`);
  beforeAll(async () => {
    database = await createTestDatabase(backend);
    mkdirSync(seedDir, { recursive: true });
    writeFileSync(join(seedDir, 'flags.yml'), flagDoc(['a', 'b']));
    writeFileSync(join(seedDir, 'segments.json'), '{"namespace": "dev", "segments": [{"key": "s", "name": "S"}]}');
    writeFileSync(join(seedDir, 'notes.txt'), 'not a document');
  });
  afterAll(async () => database?.drop());

  const start = (overrides: Record<string, unknown> = {}) =>
    buildApp(
      loadConfig({
        env: {},
        overrides: { db: { url: database.url, seed: seedDir }, log: { level: 'warn' }, ...overrides },
      }),
      { logger: pino({ level: 'silent' }) },
    );
  const flags = async (app: Awaited<ReturnType<typeof start>>) =>
    (await call(app, 'GET', '/api/v1/namespaces/dev/flags')).body.flags?.map((f: { key: string; name: string }) => [
      f.key,
      f.name,
    ]);

  it('is applied on first start, and not again on a restart after changes made through the API', async () => {
    const first = await start();
    try {
      expect(await flags(first)).toEqual([
        ['a', 'A'],
        ['b', 'B'],
      ]);
      expect((await call(first, 'GET', '/api/v1/namespaces/dev/segments/s')).status).toBe(200);
      expect((await call(first, 'DELETE', '/api/v1/namespaces/dev/flags/a')).status).toBe(200);
      expect((await call(first, 'PUT', '/api/v1/namespaces/dev/flags/b', { name: 'Changed' })).status).toBe(200);
    } finally {
      await first.close();
    }
    const second = await start();
    try {
      expect(await flags(second)).toEqual([['b', 'Changed']]);
    } finally {
      await second.close();
    }
  });

  it('is applied again, skipping what exists, when its files change', async () => {
    writeFileSync(join(seedDir, 'flags.yml'), flagDoc(['a', 'b', 'c']));
    const app = await start();
    try {
      expect(await flags(app)).toEqual([
        ['b', 'Changed'],
        ['a', 'A'],
        ['c', 'C'],
      ]);
    } finally {
      await app.close();
    }
  });

  it('two instances starting together apply it once', async () => {
    writeFileSync(join(seedDir, 'flags.yml'), flagDoc(['a', 'b', 'c', 'd']));
    const first = openDb({ url: database.url });
    const instances = [first, openDb({ url: database.url })];
    try {
      await migrateToLatest(first.kysely, first.dialect);
      const config = loadConfig({ env: {}, overrides: { db: { url: database.url, seed: seedDir } } });
      const outcomes = await Promise.all(
        instances.map((db) =>
          applySeed(
            new ImportExportService(
              { db: db.kysely, changes: new ChangeFeed() },
              sqlDocumentStore(db.dialect),
              sqlNamespaceStore,
              sqlOperationLockStore,
            ),
            config,
            pino({ level: 'silent' }),
          ),
        ),
      );
      expect(outcomes.sort()).toEqual(['applied', 'up-to-date']);
      const keys = await first.kysely
        .selectFrom('flags')
        .select('key')
        .where('namespace_key', '=', 'dev')
        .orderBy('key')
        .execute();
      expect(keys.map((k) => k.key)).toEqual(['a', 'b', 'c', 'd']);
    } finally {
      for (const db of instances) await db.close();
    }
  });

  it('a read instance does not seed', async () => {
    writeFileSync(join(seedDir, 'flags.yml'), flagDoc(['a', 'b', 'c', 'd', 'e']));
    const app = await start({ server: { mode: 'read' } });
    try {
      const rows = await app.db.kysely.selectFrom('flags').select('key').where('key', '=', 'e').execute();
      expect(rows).toEqual([]);
    } finally {
      await app.close();
    }
  });
});

describe('a bad seed', { timeout: 60_000 }, () => {
  it('stops start-up with one line naming the problem', () => {
    const bad = join(dir, 'bad.yml');
    writeFileSync(bad, 'namespace: dev\nflags:\n  - key: x\n    name: X\n    rules:\n      - segment: nowhere\n');
    const env = {
      VEXIL_DB_URL: `file:${join(dir, 'bad.db')}`,
      VEXIL_DB_SEED: bad,
      VEXIL_SERVER_HTTP_PORT: '0',
      VEXIL_SERVER_GRPC_PORT: '0',
    };
    const res = runVexil(['serve'], env);
    expect(res.status).toBe(1);
    expect(res.stderr).toBe(
      `vexil: db.seed: ${bad}: document 1: flags[0] (x).rules[0].segment at line 6: segment "nowhere" not found in namespace "dev"\n`,
    );
    const missing = runVexil(['serve'], { ...env, VEXIL_DB_SEED: join(dir, 'nope.yml') });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toBe(`vexil: db.seed: cannot read "${join(dir, 'nope.yml')}": ENOENT\n`);
  });
});
