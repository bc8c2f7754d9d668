// Instances starting at once against one empty database migrate it exactly once, through each dialect's
// migration lock (PostgreSQL advisory lock, MySQL GET_LOCK, SQLite's one writer), whether in-process or
// as `vexil migrate` processes; re-running is a no-op. The CockroachDB path (row lock, migrations
// outside a transaction, INT8 read as numbers) runs here against PostgreSQL, the nearest server we have.

import { spawn } from 'node:child_process';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/app/migrations.js';
import type { CockroachAdapter } from '../../src/storage/cockroach.js';
import { type Db, openDb } from '../../src/storage/db.js';
import { loadNamespaceSource } from '../../src/storage/evaluation-source.js';
import {
  type Backend,
  createTestDatabase,
  describeEachBackend,
  type TestDatabase,
  testBackends,
} from '../helpers/backends.js';
import { programArgs, ROOT } from '../helpers/process.js';

const ALL_MIGRATIONS = [
  '001-initial-schema',
  '002-foreign-key-indexes',
  '003-seed-state',
  '004-changes',
  '005-audit-delivery',
  '006-change-revisions',
  '007-login-states',
  '008-token-roles',
  '009-role-bindings',
];

/** Runs `vexil <args>` without blocking the event loop, so several can run at once. */
function vexil(
  args: string[],
  env: Record<string, string>,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...programArgs(), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

async function migrationRows(db: Db): Promise<string[]> {
  const rows = await sql<{ name: string }>`select name from vexil_migrations order by name`.execute(db.kysely);
  return rows.rows.map((r) => r.name);
}

async function namespaceKeys(db: Db): Promise<string[]> {
  return (await db.kysely.selectFrom('namespaces').select('key').execute()).map((r) => r.key);
}

describeEachBackend('concurrent migrations', (backend) => {
  const databases: TestDatabase[] = [];
  const opened: Db[] = [];
  afterAll(async () => {
    await Promise.allSettled(opened.map((db) => db.close()));
    await Promise.allSettled(databases.map((d) => d.drop()));
  });

  async function freshDatabase(): Promise<TestDatabase> {
    const database = await createTestDatabase(backend);
    databases.push(database);
    return database;
  }

  function open(url: string): Db {
    const db = openDb({ url });
    opened.push(db);
    return db;
  }

  // better-sqlite3 is synchronous: two handles on one file in ONE process block each other (the busy
  // wait stops the very thread that would commit). Two processes on one SQLite file are tested below.
  const inProcess = backend.name === 'sqlite' ? it.skip : it;
  const inProcessTitle = `two instances migrating one empty database at once migrate it exactly once${
    backend.name === 'sqlite' ? ' (skipped: synchronous SQLite driver, see the two-process test)' : ''
  }`;
  inProcess(inProcessTitle, async () => {
    // A few rounds, each on a fresh database: the race has to be won by a different ordering each time.
    for (let round = 0; round < 3; round++) {
      const database = await freshDatabase();
      const [a, b] = [open(database.url), open(database.url)];
      const outcomes = await Promise.all([migrateToLatest(a.kysely, a.dialect), migrateToLatest(b.kysely, b.dialect)]);
      const applied = outcomes.map((o) => o.applied).sort((x, y) => y.length - x.length);
      expect(applied).toEqual([ALL_MIGRATIONS, []]);
      expect(await migrationRows(a)).toEqual(ALL_MIGRATIONS);
      // The seed ran once: one default namespace, not two (and no error from a second insert).
      expect(await namespaceKeys(b)).toEqual(['default']);
    }
  });

  it('two `vexil migrate` processes at once: one migrates, the other finds it done; a re-run is a no-op', async () => {
    const database = await freshDatabase();
    const env = { VEXIL_DB_URL: database.url, VEXIL_LOG_LEVEL: 'error' };
    const runs = await Promise.all([vexil(['migrate'], env), vexil(['migrate'], env)]);
    for (const run of runs) {
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
    }
    expect(runs.map((r) => r.stdout.trim()).sort()).toEqual([
      `applied: ${ALL_MIGRATIONS.join(', ')}`,
      'database is up to date',
    ]);

    const again = await vexil(['migrate'], env);
    expect(again.status).toBe(0);
    expect(again.stdout.trim()).toBe('database is up to date');
    const db = open(database.url);
    expect(await migrationRows(db)).toEqual(ALL_MIGRATIONS);
    expect(await namespaceKeys(db)).toEqual(['default']);
    // Three program starts; each takes seconds on a busy machine.
  }, 120_000);

  it('keeps the data of a migrated database when migrating again', async () => {
    const database = await freshDatabase();
    const db = open(database.url);
    await migrateToLatest(db.kysely, db.dialect);
    const now = new Date();
    await db.kysely
      .insertInto('namespaces')
      .values({
        key: 'kept',
        name: 'Kept',
        description: '',
        protected: false,
        revision: 3,
        created_at: now,
        updated_at: now,
      })
      .execute();
    expect((await migrateToLatest(db.kysely, db.dialect)).applied).toEqual([]);
    expect((await namespaceKeys(db)).sort()).toEqual(['default', 'kept']);
  });
});

const postgres = testBackends().find(
  (b): b is Backend & { adminUrl: string } => b.name === 'postgres' && !b.skipReason,
);

describe.skipIf(!postgres)(
  `the CockroachDB path, run against PostgreSQL [postgres]${postgres ? '' : ' (skipped: VEXIL_TEST_POSTGRES_URL is not set)'}`,
  () => {
    const databases: TestDatabase[] = [];
    const opened: Db[] = [];
    afterAll(async () => {
      await Promise.allSettled(opened.map((db) => db.close()));
      await Promise.allSettled(databases.map((d) => d.drop()));
    });

    async function cockroachDb(): Promise<{ database: TestDatabase; url: string }> {
      const database = await createTestDatabase(postgres as Backend);
      databases.push(database);
      return { database, url: database.url.replace(/^postgres(ql)?:/, 'cockroachdb:') };
    }

    function open(url: string): Db {
      const db = openDb({ url });
      opened.push(db);
      return db;
    }

    it('migrates exactly once from two instances at once, under the row lock', async () => {
      const { url } = await cockroachDb();
      const [a, b] = [open(url), open(url)];
      expect(a.dialect).toBe('cockroachdb');
      const outcomes = await Promise.all([migrateToLatest(a.kysely, a.dialect), migrateToLatest(b.kysely, b.dialect)]);
      expect(outcomes.map((o) => o.applied).sort((x, y) => y.length - x.length)).toEqual([ALL_MIGRATIONS, []]);
      expect(await migrationRows(a)).toEqual(ALL_MIGRATIONS);
      expect(await namespaceKeys(a)).toEqual(['default']);
      // The lock row is left as it was found: the claim was rolled back with the lock's transaction.
      const lock = await sql<{ is_locked: number }>`select is_locked from vexil_migrations_lock`.execute(a.kysely);
      expect(lock.rows).toEqual([{ is_locked: 0 }]);
    });

    it('makes a second migrator wait while the lock is held, then lets it migrate', async () => {
      const { database, url } = await cockroachDb();
      const holder = open(url);
      const waiter = open(url);
      // Let the migrator create its tables and lock row, then hold the lock by hand.
      expect((await migrateToLatest(holder.kysely, holder.dialect)).applied).toEqual(ALL_MIGRATIONS);
      await sql`delete from vexil_migrations`.execute(holder.kysely);
      const adapter = holder.kysely.getExecutor().adapter as CockroachAdapter;
      const options = { lockTable: 'vexil_migrations_lock', lockRowId: 'migration_lock', lockTableSchema: undefined };
      await adapter.acquireMigrationLock(holder.kysely as never, options);

      let finished = false;
      const waiting = migrateToLatest(waiter.kysely, waiter.dialect).then((outcome) => {
        finished = true;
        return outcome;
      });
      // Wait until the waiter's lock session is blocked on the row (a condition, not a delay).
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      try {
        for (;;) {
          const blocked = await admin.query(
            `select count(*)::int as n from pg_stat_activity
           where datname = current_database() and wait_event_type = 'Lock' and query like '%vexil_migrations_lock%for update'`,
          );
          if (blocked.rows[0].n > 0) break;
          await new Promise((r) => setTimeout(r, 20));
        }
      } finally {
        await admin.end();
      }
      expect(finished).toBe(false);

      await adapter.releaseMigrationLock(holder.kysely as never, options);
      // Nothing recorded as applied, so the waiter runs the (re-runnable) migration once it holds the lock.
      expect((await waiting).applied).toEqual(ALL_MIGRATIONS);
      expect(await migrationRows(waiter)).toEqual(ALL_MIGRATIONS);
    });

    it('reads INT8 as numbers (CockroachDB INTEGER) and loads a snapshot source under SERIALIZABLE', async () => {
      const { url } = await cockroachDb();
      const db = open(url);
      await migrateToLatest(db.kysely, db.dialect);
      const row = await sql<{ n: unknown; big: unknown }>`select 7::int8 as n, 9007199254740993::int8 as big`.execute(
        db.kysely,
      );
      expect(row.rows[0]).toEqual({ n: 7, big: '9007199254740993' });
      const source = await loadNamespaceSource(db.kysely, db.dialect, 'default');
      expect(source).toMatchObject({ namespaceKey: 'default', flags: [], segments: [] });

      // The same server through postgres:// keeps pg's INT8 strings: the parser is CockroachDB's alone.
      const plain = open(url.replace(/^cockroachdb:/, 'postgres:'));
      const plainRow = await sql<{ n: unknown }>`select 7::int8 as n`.execute(plain.kysely);
      expect(plainRow.rows[0]).toEqual({ n: '7' });
    });
  },
);
