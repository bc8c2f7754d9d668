// The service layer on a real database, without HTTP, for the tests in src/services: a temp-file SQLite
// database opened and migrated as the app opens it, and the services createServices builds on it with
// the Kysely stores (no fakes of the store: SQLite in a temp file is the fast real thing).

import type { Kysely } from 'kysely';
import { expect } from 'vitest';
import { migrateToLatest } from '../../src/app/migrations.js';
import { databaseSnapshotLoader } from '../../src/cache/database-loader.js';
import { SnapshotCache } from '../../src/cache/snapshot-cache.js';
import { createServices, type Services } from '../../src/services/index.js';
import { openDb } from '../../src/storage/db.js';
import type { Database } from '../../src/storage/schema.js';
import { createTestDatabase } from './backends.js';

export interface TestServices {
  services: Services;
  db: Kysely<Database>;
  /** The namespace's revision number, or undefined when there is no such namespace. */
  revision(namespaceKey: string): Promise<number | undefined>;
  /** The namespaces the services announced as changed since the last call, in order. */
  published(): string[];
  /** Runs `write`, checking that it bumped the namespace's revision exactly once and announced it. */
  oneWrite<T>(namespaceKey: string, write: () => Promise<T>): Promise<T>;
  /** Runs `attempt`, checking that it rejects and leaves the revision as it was, announcing nothing. */
  failedWrite(namespaceKey: string, attempt: () => Promise<unknown>): Promise<Error>;
  /** Runs `attempt`, checking that it succeeds without a write (no bump, nothing announced). */
  noWrite(namespaceKey: string, attempt: () => Promise<unknown>): Promise<void>;
  /** Rows of `table` whose namespace_key is `namespaceKey` (what cascades leave behind). */
  rowsOf(table: NamespacedTable, namespaceKey: string): Promise<number>;
  close(): Promise<void>;
}

type NamespacedTable = 'flags' | 'variants' | 'segments' | 'constraints' | 'rules' | 'rule_segments' | 'rollouts';

export async function openTestServices(): Promise<TestServices> {
  const database = await createTestDatabase({ name: 'sqlite' });
  const db = openDb({ url: database.url });
  await migrateToLatest(db.kysely, db.dialect);
  const snapshots = new SnapshotCache(databaseSnapshotLoader(db.kysely, db.dialect));
  const services = createServices(db.kysely, { snapshots, batchLimit: 100 });
  let changes: string[] = [];
  services.changes.subscribe((namespaceKey) => changes.push(namespaceKey));
  const revision = async (namespaceKey: string): Promise<number | undefined> => {
    const row = await db.kysely
      .selectFrom('namespaces')
      .select('revision')
      .where('key', '=', namespaceKey)
      .executeTakeFirst();
    return row ? Number(row.revision) : undefined;
  };
  const published = (): string[] => {
    const out = changes;
    changes = [];
    return out;
  };
  return {
    services,
    db: db.kysely,
    revision,
    published,
    async oneWrite(namespaceKey, write) {
      published();
      const before = await revision(namespaceKey);
      const result = await write();
      expect(await revision(namespaceKey)).toBe((before ?? Number.NaN) + 1);
      expect(published()).toEqual([namespaceKey]);
      return result;
    },
    async failedWrite(namespaceKey, attempt) {
      published();
      const before = await revision(namespaceKey);
      const err = await rejection(attempt);
      expect(await revision(namespaceKey)).toBe(before);
      expect(published()).toEqual([]);
      return err;
    },
    async noWrite(namespaceKey, attempt) {
      published();
      const before = await revision(namespaceKey);
      await attempt();
      expect(await revision(namespaceKey)).toBe(before);
      expect(published()).toEqual([]);
    },
    async rowsOf(table, namespaceKey) {
      const row = await db.kysely
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('namespace_key', '=', namespaceKey)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async close() {
      await db.close();
      await database.drop();
    },
  };
}

/**
 * The error `attempt` fails with; fails when it succeeds. Some services check their input before they
 * return a promise, so the error may be thrown rather than rejected: either counts.
 */
export async function rejection(attempt: () => Promise<unknown>): Promise<Error> {
  try {
    await attempt();
  } catch (err) {
    if (err instanceof Error) return err;
    throw new Error(`rejected with a non-Error: ${String(err)}`);
  }
  throw new Error('expected a rejection');
}
