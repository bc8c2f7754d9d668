import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDb } from '../../src/storage/db.js';
import { migrateToLatest } from '../../src/storage/migrations/index.js';
import { createTestDatabase, describeEachBackend, type TestDatabase } from '../helpers/backends.js';

describeEachBackend('migrations', (backend) => {
  let database: TestDatabase;
  let db: Db;
  beforeAll(async () => {
    database = await createTestDatabase(backend);
    db = openDb({ url: database.url });
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('migrates a fresh database and seeds the protected default namespace', async () => {
    const first = await migrateToLatest(db.kysely, db.dialect);
    expect(first.applied).toEqual(['001-initial-schema']);
    const ns = await db.kysely.selectFrom('namespaces').selectAll().execute();
    expect(ns).toHaveLength(1);
    expect(ns[0]?.key).toBe('default');
    expect(Boolean(ns[0]?.protected)).toBe(true);
  });

  it('is a no-op the second time', async () => {
    const again = await migrateToLatest(db.kysely, db.dialect);
    expect(again.applied).toEqual([]);
  });

  it('re-runs the initial migration safely after a partial failure (non-transactional DDL)', async () => {
    const { initialSchema } = await import('../../src/storage/migrations/001-initial-schema.js');
    await initialSchema(db.dialect).up(db.kysely as never);
    const ns = await db.kysely.selectFrom('namespaces').select('key').execute();
    expect(ns).toHaveLength(1);
  });
});

describe('test backends', () => {
  it('reports unconfigured backends as skipped with a reason', async () => {
    const { testBackends } = await import('../helpers/backends.js');
    const list = testBackends({});
    expect(list.find((b) => b.name === 'postgres')?.skipReason).toMatch(/VEXIL_TEST_POSTGRES_URL/);
    expect(list.find((b) => b.name === 'sqlite')?.skipReason).toBeUndefined();
  });
});
